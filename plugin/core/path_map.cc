#include "plugin/core/path_map.h"

#include <cctype>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>
#include <string_view>

#include "plugin/core/error.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"

namespace ibu {

void WritePathMap(std::ostream& os, const Fabric& f, const DlidSelector& select) {
  const size_t n = f.end_ports.size();
  char line[64];
  for (size_t s = 0; s < n; ++s)
    for (size_t d = 0; d < n; ++d) {
      // Without a LID a port can neither be addressed nor send: the
      // selector's "base LID + offset" would name LIDs it does not own.
      if (s == d || f.end_ports[s].base_lid == 0 || f.end_ports[d].base_lid == 0) continue;
      std::snprintf(line, sizeof line, "0x%016" PRIx64 " 0x%016" PRIx64 " %u\n", f.end_ports[s].port_guid,
                    f.end_ports[d].port_guid, unsigned(select(static_cast<int>(s), static_cast<int>(d))));
      os << line;
    }
}

namespace {

// An end port named by its port GUID, as WritePathMap prints it: 0x and up
// to 16 hex digits, the core's one GUID rule (strtoull also took bare hex,
// a sign and leading zeros past 16 digits).
int EndPortOf(std::string_view word, const Fabric& f, const std::string& file, int no) {
  unsigned long long guid = 0;
  if (!ParseHexGuid(word, &guid))
    throw InputError(file, no,
                     "'" + std::string(word) +
                         "': expected a port GUID, 0x and up to 16 hex digits (e.g. 0x0008f10400411a2b)");
  const int ep = f.EndPortByGuid(guid);
  if (ep < 0) throw InputError(file, no, "port GUID " + std::string(word) + " is no end port of the fabric");
  return ep;
}

// The next blank-separated word of `line` from `pos` on ("" at the end).
// Blanks as a stream reads them (space, tab, CR, \v, \f). A plain loop:
// find_first_of with a set of blanks scans the set for every character,
// 400 instructions a word.
std::string_view NextWord(const std::string& line, size_t& pos) {
  const auto blank = [](char c) { return c == ' ' || (c >= '\t' && c <= '\r'); };
  const size_t n = line.size();
  while (pos < n && blank(line[pos])) ++pos;
  const size_t begin = pos;
  while (pos < n && !blank(line[pos])) ++pos;
  return std::string_view(line).substr(begin, pos - begin);
}

// The line that first gave pair (s, d), found by reading `is` again, so
// only when a repeat is refused: a line number kept per pair would be n^2
// ints beside the n^2 map (64 MB at 4096 ports). 0 if `is` cannot be read
// again.
int FirstLineOfPair(std::istream& is, const Fabric& f, int s, int d) {
  is.clear();
  if (!is.seekg(0)) return 0;
  std::string line;
  for (int no = 1; std::getline(is, line); ++no) {
    std::istringstream ls(line);
    std::string a, b;
    unsigned long long src = 0, dst = 0;
    if ((ls >> a >> b) && ParseHexGuid(a, &src) && ParseHexGuid(b, &dst) && f.EndPortByGuid(src) == s &&
        f.EndPortByGuid(dst) == d)
      return no;
  }
  return 0;
}

}  // namespace

PathMap ReadPathMap(std::istream& is, const std::string& file, const Fabric& f) {
  PathMap m;
  m.n_ = f.end_ports.size();
  m.dlid_.assign(m.n_ * m.n_, 0);
  m.base_.resize(m.n_);
  for (size_t e = 0; e < m.n_; ++e) m.base_[e] = f.end_ports[e].base_lid;
  // Words are taken in place and a run of lines from one source looks its
  // GUID up once: a stream per line and the GUIDs parsed each time read
  // 62 MB/s, 47 s for FT(32,3)'s 2.9 GB map.
  std::string line;
  std::string last_a;
  int last_s = -1;
  int no = 0;
  while (std::getline(is, line)) {
    ++no;
    size_t pos = 0;
    const std::string_view a = NextWord(line, pos);
    if (a.empty() || a[0] == '#') continue;  // blank or comment
    const std::string_view b = NextWord(line, pos);
    const std::string lid_word(NextWord(line, pos));
    if (b.empty() || lid_word.empty() || !NextWord(line, pos).empty())
      throw InputError(file, no, "expected 'src_port_guid dst_port_guid dlid'");
    if (a != last_a || last_s < 0) {
      last_s = EndPortOf(a, f, file, no);
      last_a = a;
    }
    const int s = last_s;
    const int d = EndPortOf(b, f, file, no);
    if (s == d)
      throw InputError(file, no, "source and destination are the same port (" + std::string(a) + ")");
    // Decimal as WritePathMap prints it, or 0x hex; never octal ("010" is
    // ten, as everywhere in ibunion: strtoul's base 0 read it as 8).
    long long dlid = 0;
    const EndPort& dst = f.end_ports[static_cast<size_t>(d)];
    if (!std::isdigit(static_cast<unsigned char>(lid_word[0])) || !ParseInteger(lid_word, &dlid) || dlid <= 0 ||
        dlid < dst.base_lid || dlid >= static_cast<long long>(dst.base_lid) + dst.lid_count())
      throw InputError(file, no,
                       "DLID " + lid_word + ": expected one of " + dst.name + "'s LIDs " +
                           std::to_string(dst.base_lid) + ".." +
                           std::to_string(dst.base_lid + dst.lid_count() - 1) +
                           " (a map made with other LIDs? use the guid2lid of the run that made it)");
    const size_t slot = static_cast<size_t>(s) * m.n_ + static_cast<size_t>(d);
    if (m.dlid_[slot] != 0) {  // DLIDs are never 0: the pair came before
      int first = FirstLineOfPair(is, f, s, d);
      const std::string pair = "pair " + std::string(a) + " " + std::string(b);
      if (first == 0) throw InputError(file, no, pair + " appears again");
      RefuseRepeat(
          first, [&] { return pair; }, file, no);
    }
    m.dlid_[slot] = static_cast<Lid>(dlid);
    ++m.pairs_;
  }
  if (m.pairs_ == 0)
    throw Error(file + ": no pair in it (expected 'src_port_guid dst_port_guid dlid' lines)");
  return m;
}

PathMap ReadPathMapFile(const std::string& path, const Fabric& f) {
  std::ifstream in = OpenInputFile(path, "path-selection map");
  return ReadPathMap(in, path, f);
}

void RequireEveryPair(const PathMap& m, const Fabric& f, const std::string& file, const std::string& hint) {
  std::vector<int> with_lid;
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    if (f.end_ports[e].base_lid) with_lid.push_back(static_cast<int>(e));
  const size_t want = with_lid.size() * (with_lid.size() - (with_lid.empty() ? 0 : 1));
  if (m.pairs() == want) return;  // no pair twice, none with a LID-less port: all there
  for (int s : with_lid)
    for (int d : with_lid)
      if (s != d && !m.has(s, d))
        throw Error(
            file + ": " + std::to_string(m.pairs()) + " of the fabric's " + std::to_string(want) +
            " (source, destination) pairs, the first missing " + f.end_ports[static_cast<size_t>(s)].name +
            " -> " + f.end_ports[static_cast<size_t>(d)].name +
            "; the plugin and `ibunion route --paths` write every pair: a cut-off file? (" + hint + ")");
}

}  // namespace ibu
