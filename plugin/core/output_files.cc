#include "plugin/core/output_files.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <streambuf>

#include "plugin/core/error.h"

namespace ibu {

bool IsStdout(const std::string& path) { return path.empty() || path == "-"; }

namespace {

int stdout_errno = 0;  // the first failed write's, once KeepStdoutWriteErrors ran

// Passes all to std::cout's own buffer (stdout's, under sync_with_stdio),
// noting errno when a write fails.
class ErrnoKeepingBuf : public std::streambuf {
 public:
  explicit ErrnoKeepingBuf(std::streambuf* inner) : inner_(inner) {}

 protected:
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const int_type r = inner_->sputc(traits_type::to_char_type(c));
    if (traits_type::eq_int_type(r, traits_type::eof())) Note();
    return r;
  }
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    const std::streamsize r = inner_->sputn(s, n);
    if (r < n) Note();
    return r;
  }
  int sync() override {
    const int r = inner_->pubsync();
    if (r != 0) Note();
    return r;
  }

 private:
  void Note() {
    if (!stdout_errno) stdout_errno = errno;
  }
  std::streambuf* inner_;
};

}  // namespace

void FlushReport(std::FILE* out) {
  if (out == stdout) {
    FlushStdout();
    return;
  }
  std::fflush(out);
}

// Never deleted: std::cout is flushed at exit, after the statics are gone.
void KeepStdoutWriteErrors() {
  static ErrnoKeepingBuf* buf = new ErrnoKeepingBuf(std::cout.rdbuf());
  std::cout.rdbuf(buf);
}

// std::cout shares stdout's stream (sync_with_stdio): a failed write sets
// cout's badbit and stdout's error flag; a later write of what stdout still
// buffers (printf's) fails again, with the reason in errno.
void FlushStdout() {
  errno = 0;
  std::cout.flush();
  int err = stdout_errno ? stdout_errno : errno;
  if (std::fflush(stdout) != 0 && !err) err = errno;
  if (std::cout && !std::ferror(stdout)) return;
  throw Error(std::string("standard output: write failed") +
              (err ? std::string(" (") + std::strerror(err) + ")" : ""));
}

namespace {

// Where an output goes. kInPlace: an existing target that is no regular
// file (after symlinks), a device or a pipe, written in place, since a
// rename would replace it with a file. kFile: a regular file, new or
// replaced, written to a temporary beside `target` and renamed onto it;
// `target` is the path, or for a symbolic link the file it points at: the
// link stays a link, as the shell's '>' leaves it (a rename onto the link
// replaced it with a file of its own).
enum class Kind { kStdout, kInPlace, kFile };

struct Target {
  Kind kind;
  std::string path;
};

// The file a symbolic link ends at, links followed to their end (a dangling
// one's target is created, as by '>'); `path` itself when it is no link.
std::string FollowLinks(const std::string& path) {
  std::filesystem::path p = path;
  for (int hops = 0; hops < 40; ++hops) {  // Linux's own limit
    std::error_code ec;
    if (!std::filesystem::is_symlink(p, ec)) return p.string();
    const std::filesystem::path to = std::filesystem::read_symlink(p, ec);
    if (ec) return p.string();
    p = to.is_absolute() ? to : p.parent_path() / to;
  }
  throw Error(path + ": cannot write (" + std::strerror(ELOOP) + ")");
}

// A directory is refused here, before anything is written: written "in
// place" with the devices it failed after the other outputs were replaced.
Target Classify(const std::string& path) {
  if (IsStdout(path)) return {Kind::kStdout, path};
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw Error(path + ": cannot write (" + std::strerror(EISDIR) + ")");
    if (!S_ISREG(st.st_mode)) return {Kind::kInPlace, path};
  }
  return {Kind::kFile, FollowLinks(path)};
}

void WriteInPlace(const OutputFile& file) {
  std::ofstream out(file.path, std::ios::binary | std::ios::out);
  if (!out) throw Error(file.path + ": cannot write (" + std::strerror(errno) + ")");
  errno = 0;
  file.write(out);
  out.flush();
  const int err = errno;
  if (!out)
    throw Error(file.path + ": write failed" + (err ? std::string(" (") + std::strerror(err) + ")" : ""));
}

// The temporaries being written, for RemoveTemporariesOnSignals' handler,
// which may only read fixed storage (no allocation, no lock). A path too
// long for a slot, or more temporaries at once than slots, is not covered:
// best effort, and bounded by what one command writes (a handful). Slots
// are taken in turn, so a slot just freed is not rewritten while a handler
// on another thread may still be reading it.
constexpr int kTemporarySlots = 32;
constexpr size_t kTemporaryPathMax = 4096;
char temporary_path[kTemporarySlots][kTemporaryPathMax];
std::atomic<bool> temporary_used[kTemporarySlots];
int next_temporary_slot = 0;   // under the mutex
std::mutex temporaries_mutex;  // between writers (sweep threads); never in the handler

void NoteTemporary(const std::string& tmp) {
  if (tmp.size() >= kTemporaryPathMax) return;
  const std::lock_guard<std::mutex> lock(temporaries_mutex);
  for (int k = 0; k < kTemporarySlots; ++k) {
    const int i = (next_temporary_slot + k) % kTemporarySlots;
    if (temporary_used[i].load()) continue;
    std::memcpy(temporary_path[i], tmp.c_str(), tmp.size() + 1);
    temporary_used[i].store(true);
    next_temporary_slot = (i + 1) % kTemporarySlots;
    return;
  }
}

void ForgetTemporary(const std::string& tmp) {
  const std::lock_guard<std::mutex> lock(temporaries_mutex);
  for (int i = 0; i < kTemporarySlots; ++i)
    if (temporary_used[i].load() && tmp == temporary_path[i]) {
      temporary_used[i].store(false);
      return;
    }
}

// Removed, then forgotten: a signal in between unlinks a name already
// gone, where the other order could leave the file.
void RemoveTemporary(const std::string& tmp) {
  std::remove(tmp.c_str());
  ForgetTemporary(tmp);
}

void RemoveTemporariesThenDie(int sig) {
  for (int i = 0; i < kTemporarySlots; ++i)
    if (temporary_used[i].load()) unlink(temporary_path[i]);
  signal(sig, SIG_DFL);
  raise(sig);
}

// Removes the temporaries not yet renamed, whatever happens.
struct Staged {
  std::vector<std::string> tmp;
  ~Staged() {
    for (const std::string& t : tmp)
      if (!t.empty()) RemoveTemporary(t);
  }
};

// An existing target keeps its permissions: the temporary renamed over it
// came with the umask's (a 0600 file became 0644). One the user may not
// write is refused, as the shell's '>' refuses it, not replaced.
void TakeOverMode(const std::string& name, const std::string& target, const std::string& tmp) {
  struct stat st;
  if (stat(target.c_str(), &st) != 0) return;
  if (access(target.c_str(), W_OK) != 0) {
    const int err = errno;
    RemoveTemporary(tmp);
    throw Error(name + ": cannot write (" + std::strerror(err) + ")");
  }
  chmod(tmp.c_str(), st.st_mode & 07777);
}

std::string WriteTemporary(const OutputFile& file, const std::string& target) {
  // pid in the name: two commands writing the same target do not collide.
  const std::string tmp = target + ".tmp." + std::to_string(getpid());
  NoteTemporary(tmp);  // before it exists: a signal now has nothing to leave behind
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) {
    const int err = errno;
    ForgetTemporary(tmp);
    throw Error(file.path + ": cannot write (" + std::strerror(err) + ")");
  }
  TakeOverMode(file.path, target, tmp);
  try {
    file.write(out);
    out.flush();
  } catch (...) {
    out.close();
    RemoveTemporary(tmp);
    throw;
  }
  if (!out) {
    out.close();
    RemoveTemporary(tmp);
    throw Error(file.path + ": write failed (disk full?)");
  }
  return tmp;
}

// SIGPIPE ignored while it lives: a pipe closed under an output written in
// place (stdout into `head`) killed the command with the other outputs'
// temporaries left behind; it is an error now (EPIPE) and they are removed.
class PipeErrorsNotSignals {
 public:
  explicit PipeErrorsNotSignals(bool on) : on_(on) {
    if (!on_) return;
    struct sigaction ignore = {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    on_ = sigaction(SIGPIPE, &ignore, &old_) == 0;
  }
  ~PipeErrorsNotSignals() {
    if (on_) sigaction(SIGPIPE, &old_, nullptr);
  }
  PipeErrorsNotSignals(const PipeErrorsNotSignals&) = delete;
  PipeErrorsNotSignals& operator=(const PipeErrorsNotSignals&) = delete;

 private:
  bool on_;
  struct sigaction old_ = {};
};

// Two outputs into one regular file (`-o x --guid2lid x`, or `x` and
// `./x`) shared a temporary: one was lost and the other renamed into place
// before the error. Refused before anything is written.
// Two outputs on standard output came out one after the other, a stream
// no reader of either takes.
void RefuseSharedTarget(const std::vector<OutputFile>& files, const std::vector<Target>& targets) {
  std::vector<std::filesystem::path> seen;
  bool on_stdout = false;
  for (size_t i = 0; i < files.size(); ++i) {
    if (IsStdout(files[i].path)) {
      if (on_stdout)
        throw Error("'-' (standard output) named for two outputs; give all but one of them a file");
      on_stdout = true;
    }
    if (targets[i].kind != Kind::kFile) continue;
    std::error_code ec;
    std::filesystem::path target = std::filesystem::weakly_canonical(targets[i].path, ec);
    if (ec) target = std::filesystem::absolute(targets[i].path, ec).lexically_normal();
    if (std::find(seen.begin(), seen.end(), target) != seen.end())
      throw Error(files[i].path + ": named for two outputs; give each output a file of its own");
    seen.push_back(target);
  }
}

// An output on an input file (the same file by any name or link) would
// replace what the command read, the user's only copy perhaps.
void RefuseInputAsOutput(const std::vector<OutputFile>& files, const std::vector<Target>& targets,
                         const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (targets[i].kind != Kind::kFile) continue;
    for (const std::string& input : inputs) {
      std::error_code ec;
      if (std::filesystem::equivalent(input, targets[i].path, ec) && !ec)
        throw Error(files[i].path + ": named for an output, but it is an input of this command (" + input +
                    "); give the output a file of its own");
    }
  }
}

// Where each output goes, once the outputs are known not to collide with
// one another or with an input (refused naming them otherwise).
std::vector<Target> CheckedTargets(const std::vector<OutputFile>& files,
                                   const std::vector<std::string>& inputs) {
  std::vector<Target> targets;
  for (const OutputFile& f : files) targets.push_back(Classify(f.path));
  RefuseSharedTarget(files, targets);
  RefuseInputAsOutput(files, targets, inputs);
  return targets;
}

}  // namespace

void NoteOwnTemporary(const std::string& path) { NoteTemporary(path); }
void RemoveNotedTemporary(const std::string& path) { RemoveTemporary(path); }

void RemoveTemporariesOnSignals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction now = {};
    if (sigaction(sig, nullptr, &now) != 0 || now.sa_handler != SIG_DFL)
      continue;  // ignored (nohup), or taken
    struct sigaction clean = {};
    clean.sa_handler = RemoveTemporariesThenDie;
    sigemptyset(&clean.sa_mask);
    sigaction(sig, &clean, nullptr);
  }
}

void CheckOutputsWritable(const std::vector<std::string>& paths, const std::vector<std::string>& inputs) {
  std::vector<OutputFile> files;
  for (const std::string& path : paths) files.push_back({path, [](std::ostream&) {}});
  const std::vector<Target> targets = CheckedTargets(files, inputs);
  for (size_t i = 0; i < files.size(); ++i)
    if (targets[i].kind == Kind::kFile) RemoveTemporary(WriteTemporary(files[i], targets[i].path));
}

// The regular files wait as temporaries while the outputs written in place
// (devices, pipes, stdout) go out: one of those failing (`-o /dev/full`,
// `-o -` on a full disk) had the files already renamed into place, a new
// net file beside an old guid2lid file. Now they are removed then, and the
// error says which files were left as they were.
void WriteFilesAtomically(const std::vector<OutputFile>& files, const std::vector<std::string>& inputs) {
  const std::vector<Target> targets = CheckedTargets(files, inputs);
  Staged staged;
  std::string kept;  // the regular files' names, for an error in place
  int n_kept = 0;
  bool in_place = false;
  for (size_t i = 0; i < files.size(); ++i) {
    const bool file = targets[i].kind == Kind::kFile;
    staged.tmp.push_back(file ? WriteTemporary(files[i], targets[i].path) : "");
    if (file) kept += (n_kept++ ? ", " : "") + files[i].path;
    in_place = in_place || !file;
  }
  {
    PipeErrorsNotSignals guard(in_place && !kept.empty());
    try {
      for (size_t i = 0; i < files.size(); ++i)
        if (targets[i].kind == Kind::kInPlace) WriteInPlace(files[i]);
      for (size_t i = 0; i < files.size(); ++i)
        if (targets[i].kind == Kind::kStdout) {
          files[i].write(std::cout);
          FlushStdout();
        }
    } catch (const Error& e) {
      if (kept.empty()) throw;
      throw Error(std::string(e.what()) + "; " + kept + " not written (left as " +
                  (n_kept == 1 ? "it was" : "they were") + ")");
    }
  }
  for (size_t i = 0; i < files.size(); ++i) {
    if (staged.tmp[i].empty()) continue;
    if (std::rename(staged.tmp[i].c_str(), targets[i].path.c_str()) != 0)
      throw Error(files[i].path + ": cannot rename into place (" + std::strerror(errno) + ")");
    ForgetTemporary(staged.tmp[i]);
    staged.tmp[i].clear();
  }
}

}  // namespace ibu
