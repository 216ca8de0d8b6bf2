#include "sim-harness/timing/plot.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/output_files.h"

extern char** environ;

namespace ibu::sim {

namespace {

std::string TmpDir() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

// A fresh empty file, removed when this goes out of scope, or by the CLI's
// signal handler should the command be killed while gnuplot runs.
struct TempFile {
  std::string path;
  explicit TempFile(const std::string& suffix) {
    std::string tmpl = TmpDir() + "/ibunion-plot-XXXXXX" + suffix;
    const int fd = mkstemps(&tmpl[0], int(suffix.size()));
    if (fd < 0) throw Error("cannot create a temporary file in " + TmpDir() + ": " + std::strerror(errno));
    close(fd);
    path = tmpl;
    NoteOwnTemporary(path);
  }
  ~TempFile() { RemoveNotedTemporary(path); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
};

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool OnPath(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string dir; std::getline(dirs, dir, ':');)
    if (access(((dir.empty() ? "." : dir) + "/" + program).c_str(), X_OK) == 0) return true;
  return false;
}

// gnuplot ARGS as a child process: stdin and stdout /dev/null, stderr into
// `*err`. The exit status, or -1 when it could not start or was killed.
int Gnuplot(const std::vector<std::string>& args, std::string* err) {
  TempFile errors(".err");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, errors.path.c_str(), O_WRONLY | O_TRUNC, 0);
  std::vector<std::string> words = {"gnuplot"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(&w[0]);
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, "gnuplot", &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    *err = std::strerror(rc);
    return -1;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  *err = Slurp(errors.path);
  while (!err->empty() && (err->back() == '\n' || err->back() == ' ')) err->pop_back();
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A gnuplot single-quoted string: no escapes inside, '' for a quote.
std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "''";
    else out += c == '\n' ? ' ' : c;
  }
  return out + "'";
}

std::string Full(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// gnuplot's double-quoted string of `s` (\n breaks the line there).
std::string DoubleQuote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out + "\"";
}

}  // namespace

std::string WrapTitle(const std::string& title, size_t width) {
  std::vector<std::string> parts;
  for (size_t at = 0; at <= title.size();) {
    const size_t end = title.find("; ", at);
    parts.push_back(title.substr(at, end == std::string::npos ? std::string::npos : end + 1 - at));
    if (end == std::string::npos) break;
    at = end + 2;
  }
  std::string out, line;
  for (std::string part : parts) {
    if (part.size() > width)
      part = "..." + part.substr(part.size() - (width - 3));  // a path's tail says most
    if (!line.empty() && line.size() + 1 + part.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + part;
  }
  return out + line;
}

// As in sim-harness/experiments/seed001.gp (a unit test holds the two
// together): two panels side by side.
std::string PlotStyle() {
  return "set terminal png enhanced size 1200,520 font \"DejaVuSans,9\"\n"
         "set xlabel \"accepted traffic (bytes/ns/node)\"\n"
         "set logscale y\n"
         "set grid\n"
         "set key top left box opaque font \"DejaVuSans,8\" spacing 0.9\n";
}

void CheckPlotter(const std::string& what) {
  if (!OnPath("gnuplot"))
    throw Error(what + ": gnuplot is not installed (not on PATH); install it (Debian: gnuplot-nox) or leave out --plot");
  std::string err;
  const int rc = Gnuplot({"-e", "set terminal png"}, &err);
  if (rc != 0)
    throw Error(what + ": gnuplot cannot draw PNG (`gnuplot -e 'set terminal png'` failed" +
                (err.empty() ? std::string(")") : ": " + err + ")"));
}

std::string PlotHeading(const std::string& title, const std::string& saturation) {
  return WrapTitle(title, kPlotHeadingWidth) + "\n" + WrapTitle(saturation, kPlotHeadingWidth);
}

std::string PlotPng(const std::vector<PointResult>& points, const std::string& title, const std::string& what) {
  const Saturation sat = FindSaturation(points);
  std::string rows;
  bool latency = false;
  for (const PointResult& r : points) {
    if (r.deadlock || !r.error.empty()) continue;
    rows += Full(r.load) + " " + Full(r.offered) + " " + Full(r.accepted) + " " + Full(r.latency_avg_ns) + " " +
            Full(r.latency_p99_ns) + "\n";
    latency = latency || r.latency_avg_ns > 0;
  }
  if (!latency)
    throw Error(what + ": nothing to draw (no point ran without an error and delivered a measured message)");
  TempFile data(".dat"), script(".gp"), png(".png");
  std::ofstream(data.path) << "# load offered accepted latency_avg_ns latency_p99_ns\n" << rows;

  std::ostringstream gp;
  gp << PlotStyle() << "set output " << Quote(png.path) << "\n"
     << "set datafile separator whitespace\n"
     << "set multiplot layout 1,2 title " << DoubleQuote(PlotHeading(title, SaturationText(sat, points)))
     << " font \"DejaVuSans,11\" noenhanced\n"
     << "set title \"(a) latency vs accepted traffic\"\n"
     << "set ylabel \"message latency (ns)\"\n"
     << "plot " << Quote(data.path)
     << " using 3:($4 > 0 ? $4 : NaN) with linespoints lc rgb \"#1f5fbf\" pt 7 ps 0.8 lw 2 title "
        "\"average\", \\\n"
     << "  '' using 3:($5 > 0 ? $5 : NaN) with linespoints lc rgb \"#c0392b\" dt 2 pt 4 ps 0.8 lw 1 "
        "title \"99th percentile\"\n"
     << "unset logscale y\n"
     << "set xlabel \"offered traffic (bytes/ns/node)\"\n"
     << "set ylabel \"accepted traffic (bytes/ns/node)\"\n"
     << "set title \"(b) accepted vs offered traffic\"\n"
     << "set xrange [0:*]\nset yrange [0:*]\n";
  if (sat.reached()) {
    const double lo = sat.below >= 0 ? points[size_t(sat.below)].offered : points[size_t(sat.at)].offered;
    const double hi = points[size_t(sat.at)].offered;
    gp << "set object 1 rect from " << Full(lo) << ", graph 0 to " << Full(hi)
       << ", graph 1 fc rgb \"#f5cba7\" fs solid 0.5 noborder behind\n"
       << "set label 1 \"saturation\" at " << Full(hi) << ", graph 0.05 left offset 0.5,0 font \"DejaVuSans,8\"\n";
  }
  gp << "plot x with lines dt 2 lc rgb \"#555555\" title \"accepted = offered\", \\\n"
     << "  " << Quote(data.path)
     << " using 2:3 with linespoints lc rgb \"#1f5fbf\" pt 7 ps 0.8 lw 2 title \"accepted\"\n"
     << "unset multiplot\n";
  std::ofstream(script.path) << gp.str();

  std::string err;
  const int rc = Gnuplot({script.path}, &err);
  std::string image = Slurp(png.path);
  if (rc != 0 || image.size() < 8 || image.compare(0, 4, "\x89PNG") != 0)
    throw Error(what + ": gnuplot failed" + (rc > 0 ? " (exit " + std::to_string(rc) + ")" : std::string()) +
                (err.empty() ? std::string() : ": " + err));
  return image;
}

}  // namespace ibu::sim
