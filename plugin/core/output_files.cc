#include "plugin/core/output_files.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
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
  if (std::fflush(out) != 0 && out == stdout && !stdout_errno) stdout_errno = errno;
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

// An existing target that is not a regular file (after symlinks): a device
// or a pipe, written in place.
bool IsSpecial(const std::string& path) {
  struct stat st;
  return !IsStdout(path) && stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

void WriteInPlace(const OutputFile& file) {
  std::ofstream out(file.path, std::ios::binary | std::ios::out);
  if (!out) throw Error(file.path + ": cannot write (" + std::strerror(errno) + ")");
  file.write(out);
  out.flush();
  if (!out) throw Error(file.path + ": write failed");
}

// Removes the temporaries not yet renamed, whatever happens.
struct Staged {
  std::vector<std::string> tmp;
  ~Staged() {
    for (const std::string& t : tmp)
      if (!t.empty()) std::remove(t.c_str());
  }
};

// An existing target keeps its permissions: the temporary renamed over it
// came with the umask's (a 0600 file became 0644). One the user may not
// write is refused, as the shell's '>' refuses it, not replaced.
void TakeOverMode(const std::string& target, const std::string& tmp) {
  struct stat st;
  if (stat(target.c_str(), &st) != 0) return;
  if (access(target.c_str(), W_OK) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw Error(target + ": cannot write (" + std::strerror(err) + ")");
  }
  chmod(tmp.c_str(), st.st_mode & 07777);
}

std::string WriteTemporary(const OutputFile& file) {
  // pid in the name: two commands writing the same target do not collide.
  const std::string tmp = file.path + ".tmp." + std::to_string(getpid());
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(file.path + ": cannot write (" + std::strerror(errno) + ")");
  TakeOverMode(file.path, tmp);
  try {
    file.write(out);
    out.flush();
  } catch (...) {
    out.close();
    std::remove(tmp.c_str());
    throw;
  }
  if (!out) {
    out.close();
    std::remove(tmp.c_str());
    throw Error(file.path + ": write failed (disk full?)");
  }
  return tmp;
}

// Two outputs into one regular file (`-o x --guid2lid x`, or `x` and
// `./x`) shared a temporary: one was lost and the other renamed into place
// before the error. Refused before anything is written.
// Two outputs on standard output came out one after the other, a stream
// no reader of either takes.
void RefuseSharedTarget(const std::vector<OutputFile>& files, const std::vector<bool>& special) {
  std::vector<std::filesystem::path> seen;
  bool on_stdout = false;
  for (size_t i = 0; i < files.size(); ++i) {
    if (IsStdout(files[i].path)) {
      if (on_stdout)
        throw Error("'-' (standard output) named for two outputs; give all but one of them a file");
      on_stdout = true;
    }
    if (IsStdout(files[i].path) || special[i]) continue;
    std::error_code ec;
    std::filesystem::path target = std::filesystem::weakly_canonical(files[i].path, ec);
    if (ec) target = std::filesystem::absolute(files[i].path, ec).lexically_normal();
    if (std::find(seen.begin(), seen.end(), target) != seen.end())
      throw Error(files[i].path + ": named for two outputs; give each output a file of its own");
    seen.push_back(target);
  }
}

// An output on an input file (the same file by any name or link) would
// replace what the command read, the user's only copy perhaps.
void RefuseInputAsOutput(const std::vector<OutputFile>& files, const std::vector<bool>& special,
                         const std::vector<std::string>& inputs) {
  for (size_t i = 0; i < files.size(); ++i) {
    if (IsStdout(files[i].path) || special[i]) continue;
    for (const std::string& input : inputs) {
      std::error_code ec;
      if (std::filesystem::equivalent(input, files[i].path, ec) && !ec)
        throw Error(files[i].path + ": named for an output, but it is an input of this command (" + input +
                    "); give the output a file of its own");
    }
  }
}

}  // namespace

void CheckOutputsWritable(const std::vector<std::string>& paths, const std::vector<std::string>& inputs) {
  std::vector<OutputFile> files;
  std::vector<bool> special;
  for (const std::string& path : paths) {
    files.push_back({path, [](std::ostream&) {}});
    special.push_back(IsSpecial(path));
    struct stat st;
    if (special.back() && stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      throw Error(path + ": cannot write (" + std::strerror(EISDIR) + ")");
  }
  RefuseSharedTarget(files, special);
  RefuseInputAsOutput(files, special, inputs);
  for (size_t i = 0; i < files.size(); ++i)
    if (!IsStdout(files[i].path) && !special[i]) std::remove(WriteTemporary(files[i]).c_str());
}

void WriteFilesAtomically(const std::vector<OutputFile>& files, const std::vector<std::string>& inputs) {
  Staged staged;
  std::vector<bool> special;
  for (const OutputFile& f : files) special.push_back(IsSpecial(f.path));
  RefuseSharedTarget(files, special);
  RefuseInputAsOutput(files, special, inputs);
  for (size_t i = 0; i < files.size(); ++i)
    staged.tmp.push_back(IsStdout(files[i].path) || special[i] ? "" : WriteTemporary(files[i]));
  for (size_t i = 0; i < files.size(); ++i) {
    if (staged.tmp[i].empty()) continue;
    if (std::rename(staged.tmp[i].c_str(), files[i].path.c_str()) != 0)
      throw Error(files[i].path + ": cannot rename into place (" + std::strerror(errno) + ")");
    staged.tmp[i].clear();
  }
  for (size_t i = 0; i < files.size(); ++i)
    if (special[i]) WriteInPlace(files[i]);
  for (const OutputFile& f : files)
    if (IsStdout(f.path)) {
      f.write(std::cout);
      FlushStdout();
    }
}

}  // namespace ibu
