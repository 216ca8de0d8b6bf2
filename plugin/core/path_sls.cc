#include "plugin/core/path_sls.h"

#include <istream>
#include <ostream>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"

namespace ibu {

namespace {

constexpr uint8_t kNone = 0xff;

// "SLID DLID SL" words of a line; false when it is not that shape.
bool ParsePathLine(const std::string& line, long long* slid, long long* dlid, long long* sl) {
  std::istringstream ls(line);
  std::string a, b, c, extra;
  return (ls >> a >> b >> c) && !(ls >> extra) && ParseInteger(a, slid) && ParseInteger(b, dlid) &&
         ParseInteger(c, sl);
}

// The line that first gave path (slid, dlid), found by reading `is` again,
// so only when a repeat is refused (a line number per path would be four
// bytes beside each SL byte). 0 if `is` cannot be read again.
int FirstLineOfPath(std::istream& is, long long slid, long long dlid) {
  is.clear();
  if (!is.seekg(0)) return 0;
  std::string line;
  long long s = 0, d = 0, sl = 0;
  for (int no = 1; std::getline(is, line); ++no)
    if (ParsePathLine(line, &s, &d, &sl) && s == slid && d == dlid) return no;
  return 0;
}

// The end port whose base LID is `lid`, or -1.
int EndPortWithBaseLid(const Fabric& f, long long lid) {
  if (lid <= 0 || lid > f.max_lid()) return -1;
  const LidOwner o = f.owner(static_cast<Lid>(lid));
  if (o.kind != Peer::Kind::kEndPort || f.end_ports[static_cast<size_t>(o.index)].base_lid != lid) return -1;
  return o.index;
}

}  // namespace

std::vector<int> PathSls::Used() const {
  bool seen[16] = {};
  for (uint8_t sl : sl_)
    if (sl != kNone) seen[sl] = true;
  std::vector<int> used;
  for (int sl = 0; sl < 16; ++sl)
    if (seen[sl]) used.push_back(sl);
  return used;
}

void WritePathSls(std::ostream& os, const std::vector<PathSl>& paths) {
  for (const PathSl& p : paths) os << p.slid << ' ' << p.dlid << ' ' << p.sl << '\n';
}

PathSls ReadPathSls(std::istream& is, const std::string& file, const Fabric& f) {
  PathSls t;
  t.lids_ = static_cast<Lid>(f.max_lid() + 1);
  t.sl_.assign(f.end_ports.size() * t.lids_, kNone);
  std::string line;
  int no = 0;
  while (std::getline(is, line)) {
    ++no;
    std::istringstream first(line);
    std::string word;
    if (!(first >> word) || word[0] == '#') continue;  // blank or comment
    long long slid = 0, dlid = 0, sl = 0;
    if (!ParsePathLine(line, &slid, &dlid, &sl) || sl < 0 || sl > 15)
      throw InputError(file, no, "expected 'SLID DLID SL' (LIDs, an SL 0..15), got '" + line + "'");
    const int s = EndPortWithBaseLid(f, slid);
    if (s < 0)
      throw InputError(file, no,
                       "SLID " + std::to_string(slid) +
                           " is no end port's base LID (a file made with other LIDs? use the run's fabric.net)");
    const LidOwner d = dlid > 0 && dlid <= f.max_lid() ? f.owner(static_cast<Lid>(dlid)) : LidOwner{};
    if (d.kind != Peer::Kind::kEndPort || d.index == s)
      throw InputError(file, no, "DLID " + std::to_string(dlid) + " is no LID of another end port");
    uint8_t& slot = t.sl_[static_cast<size_t>(s) * t.lids_ + static_cast<size_t>(dlid)];
    if (slot != kNone) {
      int first_no = FirstLineOfPath(is, slid, dlid);
      const std::string what = "path SLID " + std::to_string(slid) + " DLID " + std::to_string(dlid);
      if (first_no == 0) throw InputError(file, no, what + " appears again");
      RefuseRepeat(first_no, [&] { return what; }, file, no);
    }
    slot = static_cast<uint8_t>(sl);
    ++t.paths_;
  }
  size_t expected = 0;
  ForEachPath(f, [&](Lid, Lid) { ++expected; });
  if (t.paths_ == 0) throw Error(file + ": no path in it (expected 'SLID DLID SL' lines)");
  if (t.paths_ != expected)
    throw Error(file + ": " + std::to_string(t.paths_) + " of the fabric's " + std::to_string(expected) +
                " (source base LID, destination LID) paths; `ibunion pathsl` writes every one: a cut-off file?");
  return t;
}

PathSls ReadPathSlsFile(const std::string& path, const Fabric& f) {
  std::ifstream in = OpenInputFile(path, "path SL file");
  return ReadPathSls(in, path, f);
}

}  // namespace ibu
