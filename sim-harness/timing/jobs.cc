#include "sim-harness/timing/jobs.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/int_math.h"

namespace ibu::sim {

namespace {

// A count as --emit-jobs writes it: decimal digits only, at most `max`; -1
// for anything else ("+3", " 3", "3x": strtol took the first two).
long long WrittenCount(const std::string& text, long long max) {
  long long n = -1;
  if (!IsDecimalDigits(text) || !ParseInteger(text, &n) || n > max) return -1;
  return n;
}

std::string Cwd() {
  char buf[PATH_MAX];
  if (!getcwd(buf, sizeof buf)) throw Error(std::string("cannot read the working directory: ") + std::strerror(errno));
  return buf;
}

std::string Absolute(const std::string& path) {
  return !path.empty() && path[0] == '/' ? path : Cwd() + "/" + path;
}

// This program, so that jobs run the same build on every node (or
// $IBUNION_PROGRAM: a library caller such as the unit tests is not ibunion).
std::string SelfPath() {
  if (const char* env = std::getenv("IBUNION_PROGRAM"); env && *env) return env;
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "ibunion";
  buf[n] = '\0';
  return buf;
}

}  // namespace

uint64_t Fnv1a(const char* bytes, size_t n, uint64_t h) {
  for (size_t i = 0; i < n; ++i) h = (h ^ uint8_t(bytes[i])) * 1099511628211ull;
  return h;
}

uint64_t Fnv1aOfFile(const std::string& path, uint64_t h) {
  std::vector<char> buf(size_t(1) << 20);
  std::ifstream in(path, std::ios::binary);
  while (in.read(buf.data(), std::streamsize(buf.size())) || in.gcount() > 0)
    h = Fnv1a(buf.data(), size_t(in.gcount()), h);
  return h;
}

std::string DigestHex(uint64_t h) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

std::string ProgramDigest() {
  static const std::string digest = DigestHex(Fnv1aOfFile(SelfPath()));
  return digest;
}

namespace {

void MakeDir(const std::string& path) {
  if (mkdir(path.c_str(), 0777) != 0 && errno != EEXIST)
    throw Error(path + ": cannot create directory: " + std::strerror(errno));
}

void WriteFile(const std::string& path, const std::string& text, bool executable) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw Error(path + ": cannot write");
  out << text;
  out.close();
  if (!out) throw Error(path + ": write failed");
  if (executable) chmod(path.c_str(), 0755);
}

std::string PointFile(const std::string& dir, int i) { return dir + "/points/" + std::to_string(i) + ".json"; }

// The #SBATCH --output value for the task logs in `dir`: double-quoted,
// because sbatch splits an #SBATCH line at blanks ("Invalid directive" for
// a directory with a space), and with Slurm's filename patterns escaped
// (% starts one: a directory "a%j" would become the job id). A double
// quote or a backslash has no escape there, so such a directory is refused.
std::string SlurmOutputPattern(const std::string& option_dir, const std::string& dir) {
  std::string out = "\"";
  for (char c : dir) {
    if (c == '"' || c == '\\' || c == '\n')
      throw Error("--emit-jobs " + option_dir +
                  ": Slurm's #SBATCH --output cannot hold a double quote, backslash or "
                  "newline; choose a directory without one");
    out += c;
    if (c == '%') out += '%';
  }
  return out + "/slurm-%a.log\"";
}

// Two run keys (RunKey) with the same settings, whatever their input
// files' digest and their program's (the words from inputs-fnv1a= on).
bool SameSettings(const std::string& a, const std::string& b) {
  auto settings = [](const std::string& key) { return key.substr(0, key.rfind(" inputs-fnv1a=")); };
  return settings(a) == settings(b);
}

// ... and the same input files: only the program differs.
bool SameInputs(const std::string& a, const std::string& b) {
  auto inputs = [](const std::string& key) { return key.substr(0, key.rfind(" model-fnv1a=")); };
  return inputs(a) == inputs(b);
}

}  // namespace

std::vector<std::string> JobSetFiles(const std::string& dir, const JobSet& set) {
  std::vector<std::string> files = {dir + "/sweep.txt", dir + "/jobs.txt", dir + "/links.txt"};
  for (int i = 0; i < set.points; ++i) files.push_back(PointFile(dir, i));
  return files;
}

std::string ShellQuote(const std::string& word) {
  bool plain = !word.empty();
  for (char c : word)
    plain = plain && (std::isalnum(static_cast<unsigned char>(c)) || std::strchr("/._-+=:,%@", c));
  if (plain) return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

void WriteJobSet(const std::string& dir_in, const std::vector<std::string>& words, int points,
                 const std::string& head, const std::string& run, const LinkNames& links) {
  const std::string dir = Absolute(dir_in);
  const std::string slurm_output =
      SlurmOutputPattern(dir_in, dir + "/points");  // may refuse: before any file
  {
    std::ifstream old(dir + "/jobs.txt");
    if (old) throw Error("--emit-jobs " + dir_in + ": already holds a job set (jobs.txt); remove it or choose another directory");
  }
  MakeDir(dir);
  MakeDir(dir + "/points");
  std::string prefix = "cd " + ShellQuote(Cwd()) + " && " + ShellQuote(SelfPath()) + " sim";
  for (const std::string& w : words) prefix += " " + ShellQuote(w);
  std::string jobs;
  for (int i = 0; i < points; ++i)
    jobs += prefix + " --point " + std::to_string(i) + " --save " + ShellQuote(PointFile(dir, i)) + " --quiet\n";
  WriteFile(dir + "/jobs.txt", jobs, false);

  // Slurm refuses array indices of MaxArraySize (default 1001) and above:
  // up to kMaxArrayTasks points get a task each, more are run in chunks of
  // `per` consecutive points per task.
  const int per = (points + kMaxArrayTasks - 1) / kMaxArrayTasks;
  const int tasks = (points + per - 1) / per;
  std::ostringstream slurm;
  slurm << "#!/bin/bash\n"
        << "# " << points << " sweep point(s) in " << tasks << " array task(s) of up to " << per
        << " point(s): task i runs lines\n"
        << "# i*" << per << "+1 .. (i+1)*" << per << " of jobs.txt one after another (at most "
        << kMaxArrayTasks << " tasks: Slurm's\n"
        << "# default MaxArraySize is 1001).\n"
        << "# Submit with: sbatch " << ShellQuote(dir + "/slurm.sh") << "\n"
        << "# then, when all tasks are done: ibunion sim --merge " << ShellQuote(dir) << " " << kMergeOutputs
        << "\n"
        << "#SBATCH --job-name=ibunion-sim\n"
        << "#SBATCH --array=0-" << tasks - 1 << "\n"
        << "#SBATCH --ntasks=1\n"
        << "#SBATCH --cpus-per-task=1\n"
        << "#SBATCH --output=" << slurm_output << "\n"
        << "set -euo pipefail\n"
        << ": \"${SLURM_ARRAY_TASK_ID:?run me with sbatch (a job array)}\"\n"
        << "per=" << per << "\n"
        << "first=$((SLURM_ARRAY_TASK_ID * per + 1))\n"
        << "status=0  # a failed point does not stop the task's other points\n"
        << "while IFS= read -r line; do\n"
        << "  bash -c \"$line\" </dev/null || status=1\n"
        << "done < <(sed -n \"${first},$((first + per - 1))p\" " << ShellQuote(dir + "/jobs.txt") << ")\n"
        << "exit $status\n";
  WriteFile(dir + "/slurm.sh", slurm.str(), true);

  std::string names = "ibunion-sim-links 1\nports " + std::to_string(links.size()) + "\n";
  for (size_t gp = 0; gp < links.size(); ++gp)
    if (!links[gp].empty()) names += std::to_string(gp) + " " + links[gp] + "\n";
  WriteFile(dir + "/links.txt", names, false);

  // Written last: a set without it is incomplete.
  WriteFile(dir + "/sweep.txt",
            "ibunion-sim-jobs 1\npoints " + std::to_string(points) + "\nhead " + head + "\nrun " + run + "\n",
            false);
}

JobSet ReadJobSet(const std::string& dir) {
  const std::string path = dir + "/sweep.txt";
  std::ifstream in(path);
  if (!in) throw Error("--merge " + dir + ": no " + path + " (not a directory written by --emit-jobs)");
  JobSet set;
  std::string line;
  int no = 0;
  bool magic = false;
  while (std::getline(in, line)) {
    ++no;
    const std::string where = path + ":" + std::to_string(no);
    if (no == 1) {
      if (line != "ibunion-sim-jobs 1") throw Error(where + ": expected 'ibunion-sim-jobs 1', got '" + line + "'");
      magic = true;
    } else if (line.rfind("points ", 0) == 0) {
      const long long n = WrittenCount(line.substr(7), 10000);
      if (n < 1) throw Error(where + ": expected 'points N' (1..10000), got '" + line + "'");
      set.points = int(n);
    } else if (line.rfind("head ", 0) == 0) {
      set.head = line.substr(5);
    } else if (line.rfind("run ", 0) == 0) {
      set.run = line.substr(4);
    } else if (!line.empty()) {
      throw Error(where + ": unexpected line '" + line + "'");
    }
  }
  if (!magic || set.points == 0) throw Error(path + ": incomplete (no 'points N' line)");
  return set;
}

std::vector<std::string> StrayPointFiles(const std::string& dir, const JobSet& set) {
  std::vector<std::string> stray;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir + "/points", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.size() < 6 || name.compare(name.size() - 5, 5, ".json") != 0)
      continue;  // Slurm's logs live here too
    const std::string stem = name.substr(0, name.size() - 5);
    const bool digits =
        !stem.empty() && stem.size() <= 9 && stem.find_first_not_of("0123456789") == std::string::npos;
    const bool is_point = digits && (stem == "0" || stem[0] != '0') && std::stoi(stem) < set.points;
    if (!is_point) stray.push_back(name);
  }
  std::sort(stray.begin(), stray.end());
  return stray;
}

std::vector<PointResult> ReadPoints(const std::string& dir, const JobSet& set) {
  std::vector<PointResult> results(set.points);
  std::vector<int> missing;
  for (int i = 0; i < set.points; ++i) {
    const std::string path = PointFile(dir, i);
    std::ifstream in(path);
    if (!in) {
      missing.push_back(i);
      continue;
    }
    std::stringstream text;
    text << in.rdbuf();
    std::string why;
    if (!FromRecord(text.str(), &results[i], &why)) throw Error(path + ": " + why);
    if (results[i].index != i) throw Error(path + ": holds point " + std::to_string(results[i].index) + ", not " + std::to_string(i));
    // A point of another sweep (other routing, message size, loads, ...)
    // would be merged into this one's table and saturation line.
    // A build of ibunion is a version of the model: a point it computed is
    // no point of a set emitted by another (a rebuild between two jobs).
    if (!set.run.empty() && results[i].run != set.run && SameInputs(results[i].run, set.run))
      throw Error(path + ": computed by another build of ibunion than this job set's (" + SelfPath() +
                  " rebuilt after --emit-jobs, or the job run by another binary); point " +
                  std::to_string(i) + " is line " + std::to_string(i + 1) + " of " + dir +
                  "/jobs.txt: rerun the set's jobs");
    if (!set.run.empty() && results[i].run != set.run && SameSettings(results[i].run, set.run))
      throw Error(path +
                  ": computed on other input files than this job set's (the NETFILE, --guid2lid or "
                  "the dump directory's files changed after --emit-jobs); point " +
                  std::to_string(i) + " is line " + std::to_string(i + 1) + " of " + dir +
                  "/jobs.txt: rerun the set's jobs");
    if (!set.run.empty() && results[i].run != set.run)
      throw Error(path + ": a point of another run (" +
                  (results[i].run.empty() ? std::string("saved without its settings") : results[i].run) +
                  "), not of this job set's (" + set.run + "); point " + std::to_string(i) + " is line " +
                  std::to_string(i + 1) + " of " + dir + "/jobs.txt");
  }
  if (!missing.empty()) {
    std::string list;
    for (size_t k = 0; k < missing.size() && k < 20; ++k) list += (k ? " " : "") + std::to_string(missing[k]);
    if (missing.size() > 20) list += " ...";
    std::string msg = "--merge " + dir + ": " + std::to_string(missing.size()) + " of " +
                      std::to_string(set.points) + " points not done (" + list + "); point N is line N+1 of " +
                      dir + "/jobs.txt";
    // The commands themselves, to rerun (the first kListed).
    std::vector<std::string> lines;
    {
      std::ifstream jobs(dir + "/jobs.txt");
      for (std::string line; std::getline(jobs, line);) lines.push_back(line);
    }
    constexpr size_t kListed = 10;
    if (lines.size() == size_t(set.points)) {
      msg += "; rerun:";
      for (size_t k = 0; k < missing.size() && k < kListed; ++k) msg += "\n  " + lines[size_t(missing[k])];
      if (missing.size() > kListed)
        msg += "\n  ... and " + std::to_string(missing.size() - kListed) + " more (the lines named above)";
    } else {
      msg += " (which has " + std::to_string(lines.size()) + " lines, not " + std::to_string(set.points) +
             ": cannot list the commands)";
    }
    throw Error(msg);
  }
  return results;
}

LinkNames ReadLinkNames(const std::string& dir, const std::vector<PointResult>& points) {
  const std::string path = dir + "/links.txt";
  std::ifstream in(path);
  if (!in)
    throw Error("--links with --merge " + dir + ": no " + path +
                " (job sets written before --merge could name links lack it: run --emit-jobs again)");
  LinkNames names;
  bool sized = false;
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    const std::string where = path + ":" + std::to_string(no);
    if (no == 1) {
      if (line != "ibunion-sim-links 1") throw Error(where + ": expected 'ibunion-sim-links 1', got '" + line + "'");
    } else if (!sized) {
      const long long n = line.rfind("ports ", 0) == 0 ? WrittenCount(line.substr(6), 100000000) : -1;
      if (n < 0) throw Error(where + ": expected 'ports N', got '" + line + "'");
      names.assign(size_t(n), "");
      sized = true;
    } else {
      const size_t blank = line.find(' ');
      const long long gp = blank == std::string::npos ? -1 : WrittenCount(line.substr(0, blank), LLONG_MAX);
      if (gp < 0 || blank + 1 == line.size() || size_t(gp) >= names.size() || !names[size_t(gp)].empty())
        throw Error(where + ": expected 'PORT NAME', PORT below " + std::to_string(names.size()) +
                    " and not named before, got '" + line + "'");
      names[size_t(gp)] = line.substr(blank + 1);
    }
  }
  if (!sized) throw Error(path + ": incomplete (no 'ports N' line)");
  for (const PointResult& r : points)
    if (!r.link_util.empty() && r.link_util.size() != names.size())
      throw Error(PointFile(dir, r.index) + ": " + std::to_string(r.link_util.size()) + " per-link values, but " +
                  path + " names the " + std::to_string(names.size()) + " ports of another fabric");
  return names;
}

}  // namespace ibu::sim
