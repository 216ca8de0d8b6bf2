#include "plugin/core/tables.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <cctype>
#include <cinttypes>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <ostream>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"

namespace ibu {

namespace {

std::string Printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string Printf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

const char* TypeWord(LidOwner o) { return o.kind == Peer::Kind::kSwitch ? "Switch" : "Channel Adapter"; }

std::string DestinationInfo(const Fabric& f, Lid lid) {
  LidOwner o = f.owner(lid);
  if (!o.valid()) return "";
  if (o.kind == Peer::Kind::kSwitch) {
    // ibroute names the port GUID, by which the SM lists the switch: port
    // 0's own where the hardware gives it one (switchguid=0xNODE(PORT)).
    const Switch& s = f.switches[o.index];
    return Printf("(%s portguid 0x%016" PRIx64 ": '%s')", TypeWord(o), PortZeroGuid(s), s.name.c_str());
  }
  const EndPort& e = f.end_ports[o.index];
  return Printf("(%s portguid 0x%016" PRIx64 ": '%s')", TypeWord(o), e.port_guid, e.name.c_str());
}

// A field ibroute prints with %u or %03u: decimal digits only (no sign, no
// 0x: strtoul read "0x1" as 0 and "-1" as a huge number), at most `max`.
bool DecimalField(const std::string& word, unsigned long max, unsigned long* v) {
  long long x = 0;
  if (!IsDecimalDigits(word) || !ParseInteger(word, &x) || x > static_cast<long long>(max))
    return false;
  *v = static_cast<unsigned long>(x);
  return true;
}

// A LID as ibroute prints it in an LFT or MFT row, "0x%04x": 0x and exactly
// 4 hex digits (the core's hex rule, at LID width), within lo..hi. strtoul
// took "0x0000c001" and "0x0x1" too; no tool prints those.
bool IbrouteLidField(const std::string& word, unsigned long lo, unsigned long hi, unsigned long* v) {
  unsigned long long x = 0;
  size_t digits = 0;
  if (!ParseHexGuid(word, &x, &digits) || digits != 4 || x < lo || x > hi) return false;
  *v = static_cast<unsigned long>(x);
  return true;
}

// The switch LID a table header names ("of switch Lid N guid ...", as
// ibroute, ibroute -M, OpenSM's dumps and WriteLfts/WriteMfts print it), or
// -1 when it names none (ibroute -D names the switch by its path instead).
// A LID that is there but no decimal 0..65535 is refused, not taken for none.
long HeaderLid(const std::string& line, const std::string& file, int no) {
  const char* kWords = "of switch Lid ";
  const size_t at = line.find(kWords);
  if (at == std::string::npos) return -1;
  const size_t from = at + std::strlen(kWords);
  const std::string word = line.substr(from, line.find(' ', from) - from);
  unsigned long lid = 0;
  if (!DecimalField(word, 0xFFFF, &lid))
    throw InputError(file, no, "'of switch Lid " + Excerpt(word) +
                                   "': expected the switch's LID in decimal (0..65535), as ibroute prints it");
  return static_cast<long>(lid);
}

// "... of switch Lid N guid 0xG ..." -> switch index, or throws.
int SwitchOfHeader(const std::string& line, const std::string& file, int no,
                   const Fabric& f) {
  const size_t g = line.find("guid ");
  if (g == std::string::npos)
    throw InputError(file, no, "expected 'of switch Lid N guid 0x...' in the table header");
  // The GUID word, as every GUID the core reads: 0x and 1..16 hex digits
  // (strtoull also took bare hex, a sign, a 17th digit that is a leading
  // zero and "0x12zz" as 0x12).
  const size_t from = g + 5, to = line.find(' ', from);
  const std::string word = line.substr(from, to == std::string::npos ? std::string::npos : to - from);
  unsigned long long guid = 0;
  if (!ParseHexGuid(word, &guid))
    throw InputError(file, no,
                     "'guid " + Excerpt(word) +
                         "': expected the switch's GUID as ibroute prints it, 0x and up to 16 hex digits");
  int sw = f.SwitchByGuid(guid);
  if (sw < 0)
    throw InputError(file, no,
                     Printf("switch GUID 0x%016" PRIx64 " is not in the fabric", static_cast<Guid>(guid)));
  // Tables are indexed by LID: read against other LIDs than they were made
  // for, every entry would mean another destination, without a word.
  const long lid = HeaderLid(line, file, no);
  const Switch& s = f.switches[sw];
  if (lid >= 0 && s.lid != 0 && lid != s.lid)
    throw InputError(file, no,
                     Printf("switch %.80s (0x%016" PRIx64 ") has LID %u in the fabric but LID %ld in this "
                            "table's header: the tables were made for other LIDs (expected the LMC or "
                            "guid2lid file they were made with)",
                            s.name.c_str(), s.guid, s.lid, lid));
  return sw;
}

bool StartsWith(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

// The count line ending a table: "N valid lids dumped " ("N lids dumped"
// with -a and in OpenSM's own LFT dump); "N valid mlids dumped " for MFTs.
bool IsCountLine(const std::string& line, const char* noun) {
  const std::vector<std::string> w = Words(line);
  if (w.empty() || !IsDecimalDigits(w[0])) return false;
  return (w.size() == 3 && w[1] == noun && w[2] == "dumped") ||
         (w.size() == 4 && w[1] == "valid" && w[2] == noun && w[3] == "dumped");
}

bool IsLftCount(const std::string& line) { return IsCountLine(line, "lids"); }

// ibroute counts the rows it prints, "N valid lids dumped" (with -a, "N lids
// dumped": every LID of its range, port 255 and LID 0 too), "N valid mlids
// dumped" likewise, and so do WriteLfts and WriteMfts: another N than the
// rows read means rows were lost or added on the way, a damaged dump.
void RefuseMiscount(const std::string& line, int rows, const std::string& table, const std::string& file,
                    int no) {
  const std::vector<std::string> w = Words(line);
  unsigned long n = 0;
  if (DecimalField(w[0], 0xFFFFFFFF, &n) && n == static_cast<unsigned long>(rows)) return;
  std::string count;
  for (const std::string& word : w) count += (count.empty() ? "" : " ") + word;
  throw InputError(file, no,
                   "'" + Excerpt(count) + "': " + table + " has " + std::to_string(rows) +
                       (rows == 1 ? " row" : " rows") + ", not " + Excerpt(w[0]) +
                       " (rows lost or added: a damaged dump?)");
}

// OpenSM's own LFT dump (opensm-lfts.dump, "Unicast lids [0-TOP] ...") ends
// a table with "TOP lids dumped", its top LID rather than a count (it skips
// unrouted LIDs); ibroute and WriteLfts print "[0xFIRST-0xTOP]" and count.
bool IsOpenSmLftHeader(const std::string& line) { return line.find("Unicast lids [0-") != std::string::npos; }

struct LftEntry {
  Lid lid = 0;
  int port = 0;
};

// What `istream >> word` skips between words.
bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The common, well-formed entry read in place: a dump holds one line per
// (switch, LID), 130 M lines (9 GB) at 8,192 hosts, and splitting each into
// words was 90% of `verify`'s time. Accepts only what ParseLftEntry accepts,
// with the same result; anything else (and every error) goes the slow way.
bool ParseWellFormedLftEntry(const std::string& line, LftEntry* e) {
  const char* p = line.data();
  const size_t n = line.size();
  if (n < 10 || p[0] != '0' || p[1] != 'x' || !IsBlank(p[6])) return false;
  unsigned lid = 0;
  for (int i = 2; i < 6; ++i) {
    const int h = HexValue(p[i]);
    if (h < 0) return false;
    lid = lid * 16 + static_cast<unsigned>(h);
  }
  size_t i = 7;
  while (i < n && IsBlank(p[i])) ++i;
  if (i + 3 > n || (i + 3 < n && !IsBlank(p[i + 3]))) return false;
  unsigned port = 0;
  for (size_t k = i; k < i + 3; ++k) {
    if (p[k] < '0' || p[k] > '9') return false;
    port = port * 10 + static_cast<unsigned>(p[k] - '0');
  }
  i += 3;
  while (i < n && IsBlank(p[i])) ++i;
  if (lid > kMaxUnicastLid || port > 255 || (i < n && p[i] != ':' && p[i] != '#')) return false;
  *e = {static_cast<Lid>(lid), static_cast<int>(port)};
  return true;
}

// An LFT entry as ibroute prints it, "0x%04x %03u" and then ": (destination)"
// (OpenSM's dump: "# ...", ibroute -n: nothing). ibroute -a starts at LID
// 0x0000. Any other form of the fields is refused, naming the field.
LftEntry ParseLftEntry(const std::string& line, const std::string& file, int no) {
  if (LftEntry e; ParseWellFormedLftEntry(line, &e)) return e;
  const std::vector<std::string> w = Words(line);
  unsigned long lid = 0;
  if (!IbrouteLidField(w[0], 0, kMaxUnicastLid, &lid))
    throw InputError(file, no,
                     "LID field '" + Excerpt(w[0]) +
                         "': expected a unicast LID in hexadecimal, 0x and 4 digits, 0x0000..0xbfff (as "
                         "ibroute prints it)");
  unsigned long port = 0;
  if (w.size() < 2 || w[1].size() != 3 || !DecimalField(w[1], 255, &port))
    throw InputError(file, no, "port field '" + (w.size() < 2 ? std::string() : Excerpt(w[1])) +
                                   "': expected the out port as ibroute prints it, 3 decimal digits 000..255");
  if (w.size() > 2 && w[2][0] != ':' && w[2][0] != '#')
    throw InputError(file, no, "after the port '" + w[1] + "': expected ': (destination)' or the end of the line, got '" +
                                   Excerpt(w[2]) + "'");
  return {static_cast<Lid>(lid), static_cast<int>(port)};
}

// Lines of `ibroute` (and WriteLfts) output that hold no entry: blank
// lines, the column titles "  Lid  Out   Destination" / "       Port     Info ",
// and the count line.
bool IsLftDecoration(const std::string& line) {
  const std::vector<std::string> w = Words(line);
  return w.empty() || w == std::vector<std::string>{"Lid", "Out", "Destination"} ||
         w == std::vector<std::string>{"Port", "Info"} || IsLftCount(line);
}

// `ibroute -M` numbers the ports 0..NumPorts in its 'Ports:' line, as
// WriteMfts does: another count is the MFT of another switch (a header
// edited or lost), whose 'x' would land on other ports or none.
void RefuseOtherPortCount(size_t numbered, const Fabric& f, int sw, const std::string& file, int no) {
  const int ports = f.switches[sw].num_ports;
  if (numbered == static_cast<size_t>(ports) + 1) return;
  const std::string listed = numbered == 0 ? "no port" : Printf("ports 0..%zu", numbered - 1);
  throw InputError(file, no,
                   Printf("the 'Ports:' line numbers %s, but %s has %d ports (expected 0..%d, as "
                          "ibroute -M numbers them): the MFT of another switch?",
                          listed.c_str(), f.SwitchLabel(sw).c_str(), ports, ports));
}

// Lines of `ibroute -M` (and WriteMfts) output that hold no row: blank
// lines, the tens digits above "Ports:" on switches of 10 ports or more, the
// " MLid" title and the count line.
bool IsMftDecoration(const std::string& line) {
  const std::vector<std::string> w = Words(line);
  if (w.empty() || w == std::vector<std::string>{"MLid"}) return true;
  if (line.find_first_not_of("0123456789 \t\r") == std::string::npos) return true;  // tens digits
  return IsCountLine(line, "mlids");
}

// "0x%04x %03u : " without printf: one per (switch, LID), 130 M of them at
// 8,192 hosts, where formatting was a third of `route`'s time.
void AppendLftEntry(Lid lid, uint8_t port, std::string* buf) {
  static constexpr char kHex[] = "0123456789abcdef";
  char text[] = "0x0000 000 : ";
  for (int i = 0; i < 4; ++i) text[5 - i] = kHex[(lid >> (4 * i)) & 15];
  text[7] = static_cast<char>('0' + port / 100);
  text[8] = static_cast<char>('0' + port / 10 % 10);
  text[9] = static_cast<char>('0' + port % 10);
  buf->append(text, sizeof text - 1);
}

}  // namespace

void WriteLfts(std::ostream& os, const Fabric& f, const Tables& t) {
  // Destination text per LID, built once: the tables repeat it per switch.
  std::vector<std::string> info(f.max_lid() + 1);
  for (Lid lid = 1; lid <= f.max_lid(); ++lid) info[lid] = DestinationInfo(f, lid);
  // One buffer for every switch, its capacity kept: a fresh 1-2.5 MB
  // string per switch was faulted in and handed back each time (FT(16,4):
  // 4.7 M page faults, 9.9 s of 14.4 s in the kernel, written to /dev/null).
  std::string buf;
  for (size_t s = 0; s < f.switches.size(); ++s) {
    const Switch& sw = f.switches[s];
    const Lft& lft = t.lft.at(s);
    const size_t top = lft.out.empty() ? 0 : lft.out.size() - 1;
    buf.clear();
    buf += Printf("Unicast lids [0x0-0x%zx] of switch Lid %u guid 0x%016" PRIx64 " (%s):\n", top,
                 sw.lid, sw.guid, sw.name.c_str());
    buf += "  Lid  Out   Destination\n       Port     Info \n";
    int valid = 0;
    for (size_t lid = 1; lid < lft.out.size(); ++lid) {
      if (lft.out[lid] == kNoPort) continue;
      ++valid;
      AppendLftEntry(static_cast<Lid>(lid), lft.out[lid], &buf);
      if (lid < info.size()) buf += info[lid];
      buf += '\n';
    }
    buf += std::to_string(valid) + " valid lids dumped \n";
    os << buf;
  }
}

void WriteMfts(std::ostream& os, const Fabric& f, const Tables& t) {
  for (size_t s = 0; s < f.switches.size(); ++s) {
    const Switch& sw = f.switches[s];
    const Mft& mft = t.mft.at(s);
    const unsigned top =
        mft.groups.empty() ? kMulticastLidBase : mft.groups.rbegin()->first;
    os << Printf("Multicast mlids [0xc000-0x%x] of switch Lid %u guid 0x%016" PRIx64
                 " (%s):\n",
                 top, sw.lid, sw.guid, sw.name.c_str());
    if (sw.num_ports >= 10) {
      std::string tens = "           ";
      for (int p = 0; p <= sw.num_ports; ++p)
        tens += (p % 10 == 0) ? std::to_string(p / 10 % 10) + " " : "  ";
      os << tens << "\n";
    }
    os << "     Ports:";
    for (int p = 0; p <= sw.num_ports; ++p) os << " " << p % 10;
    os << " \n MLid\n";
    for (const auto& [mlid, mask] : mft.groups) {
      if (mask.none()) continue;
      os << Printf("0x%04x     ", mlid);
      for (int p = 0; p <= sw.num_ports; ++p) os << (mask.test(p) ? " x" : "  ");
      os << " \n";
    }
    size_t valid = 0;
    for (const auto& g : mft.groups) valid += g.second.any();
    os << valid << " valid mlids dumped \n";
  }
}

namespace {

// ibroute ends every table with its count line ("N valid lids dumped",
// "N valid mlids dumped"): a table `sw` without one was cut off, and its
// missing rows would read as unrouted LIDs or groups without members.
void RefuseUncountedTable(const std::string& file, const Fabric& f, int sw, const std::vector<int>& header_line,
                          bool counted, const char* table, const char* noun) {
  if (sw < 0 || counted) return;
  throw Error(file + ":" + std::to_string(header_line[sw]) + ": the " + table + " of " + f.SwitchLabel(sw) +
              " ends without its 'N valid " + noun + " dumped' line (a cut-off dump?)");
}

// LFT entries that route a LID no end port or switch of the fabric has.
struct StaleLids {
  struct Entry {
    int line = 0;
    Lid lid = 0;
    int sw = -1, port = 0;
  } first;
  long count = 0;
};

// Such entries are tables made for other LIDs or another fabric (another
// LMC or guid2lid file, a net file edited since): the entries for LIDs the
// fabric has then mean other destinations too, as with a header's switch
// LID that differs, so they are refused, not kept unread. (OpenSM sets a
// LID no port has any more to no route, 255, which is not refused; but with
// use_ucast_cache TRUE it reconfigures from its cache after a port left
// and keeps that port's entries, which the message names as the other cause.)
void RefuseStaleLids(const StaleLids& stale, const std::string& file, const Fabric& f) {
  if (stale.count == 0) return;
  const StaleLids::Entry& e = stale.first;
  std::string note;
  if (e.lid > f.max_lid()) note = Printf("; the fabric's LIDs end at 0x%04x", f.max_lid());
  if (stale.count > 1) note += Printf("; nor do the LIDs of %ld more entries of the file", stale.count - 1);
  throw InputError(
      file, e.line,
      Printf("LID 0x%04x (out port %d) in the LFT of %s: no end port or switch of the fabric "
             "has it%s: tables made for another fabric or other LIDs (expected the net file, and "
             "the LMC or guid2lid file, they were made with), or read from switches whose OpenSM runs "
             "use_ucast_cache TRUE, which keeps the entries of a port that left",
             e.lid, e.port, f.SwitchLabel(e.sw).c_str(), note.c_str()));
}

}  // namespace

void ReadLfts(std::istream& is, const std::string& file, const Fabric& f, Tables& t) {
  t.Resize(f);
  std::string line;
  int no = 0, sw = -1, tables = 0;
  int count_line = 0, rows = 0;  // the table's "N valid lids dumped" line (0: not yet) and entries
  bool counts_rows = true;       // its N counts them (not in OpenSM's own dump)
  std::vector<int> header_line(f.switches.size(), 0);  // where each switch's table starts
  std::vector<int> entry_line;                          // by LID, in the current table
  auto refuse_uncounted = [&] {
    RefuseUncountedTable(file, f, sw, header_line, count_line != 0, "LFT", "lids");
  };
  // Routed LIDs no end port or switch of the fabric has: the first and how
  // many, refused once the file is read (see RefuseStaleLids).
  StaleLids stale;
  while (std::getline(is, line)) {
    ++no;
    const bool entry = StartsWith(line, "0x");  // a header never starts so
    if (!entry && line.find("Unicast lids") != std::string::npos) {
      refuse_uncounted();
      sw = SwitchOfHeader(line, file, no, f);
      RefuseRepeat(header_line[sw], [&] { return "the LFT of " + f.SwitchLabel(sw); }, file, no);
      t.lft[sw].out.assign(f.max_lid() + 1, kNoPort);
      entry_line.assign(f.max_lid() + 1, 0);
      ++tables;
      count_line = 0, rows = 0;
      counts_rows = !IsOpenSmLftHeader(line);
      continue;
    }
    if (!entry) {
      if (sw >= 0 && IsLftCount(line)) {
        RefuseRepeat(
            count_line, [&] { return "the count line of the LFT of " + f.SwitchLabel(sw); }, file, no);
        if (counts_rows) RefuseMiscount(line, rows, "the LFT of " + f.SwitchLabel(sw), file, no);
      }
      // The other lines ibroute prints (column titles, the count) and blank
      // lines carry nothing; anything else is not an LFT dump, or a damaged
      // one, and skipping it would lose entries without a word.
      if (IsLftDecoration(line)) continue;
      throw InputError(file, no,
                       "expected ibroute output: a 'Unicast lids [...] of switch Lid N guid 0x...' "
                       "header, '0xLID PORT : ...' entries, its column titles or 'N valid lids "
                       "dumped'; got '" + Excerpt(line) + "'");
    }
    if (sw < 0) throw InputError(file, no, "LFT entry before any 'Unicast lids' header");
    if (count_line)
      throw InputError(file, no, "LFT entry after its table's 'N valid lids dumped' line (expected the "
                                 "next 'Unicast lids' header first)");
    const LftEntry e = ParseLftEntry(line, file, no);
    if (e.port > f.switches[sw].num_ports && e.port != kNoPort)
      throw InputError(file, no, Printf("port %d is beyond the %d ports of %s", e.port,
                                        f.switches[sw].num_ports,
                                        f.SwitchLabel(sw).c_str()));
    if (e.lid >= entry_line.size()) entry_line.resize(e.lid + 1, 0);
    RefuseRepeat(entry_line[e.lid], [&] { return Printf("LID 0x%04x in the LFT of ", e.lid) + f.SwitchLabel(sw); },
                 file, no);
    ++rows;
    if (e.lid == 0) continue;  // LID 0 is reserved
    if (e.port != kNoPort && !f.owner(e.lid).valid() && stale.count++ == 0) stale.first = {no, e.lid, sw, e.port};
    t.lft[sw].set(e.lid, static_cast<uint8_t>(e.port));
  }
  if (tables == 0)  // an empty file, or a wrong one of blank lines
    throw Error(file + ": no LFT in it (expected ibroute output, 'Unicast lids [...] of switch Lid N guid 0x...')");
  refuse_uncounted();
  RefuseStaleLids(stale, file, f);
}

void ReadMfts(std::istream& is, const std::string& file, const Fabric& f, Tables& t) {
  t.Resize(f);
  std::string line;
  int no = 0, sw = -1, tables = 0;
  int count_line = 0;           // the table's "N valid mlids dumped" line, 0: not yet
  int ports_line = 0;           // the table's 'Ports:' line, 0: not yet
  std::vector<size_t> columns;  // column of port i's digit in the Ports line
  std::vector<int> header_line(f.switches.size(), 0);  // where each switch's table starts
  std::map<Lid, int> row_line;                          // by MLID, in the current table
  auto refuse_uncounted = [&] {
    RefuseUncountedTable(file, f, sw, header_line, count_line != 0, "MFT", "mlids");
  };
  while (std::getline(is, line)) {
    ++no;
    if (line.find("Multicast mlids") != std::string::npos) {
      refuse_uncounted();
      sw = SwitchOfHeader(line, file, no, f);
      RefuseRepeat(header_line[sw], [&] { return "the MFT of " + f.SwitchLabel(sw); }, file, no);
      t.mft[sw].groups.clear();
      t.mft[sw].dumped = true;
      row_line.clear();
      columns.clear();
      ++tables;
      count_line = 0, ports_line = 0;
      continue;
    }
    size_t ports_at = line.find("Ports:");
    if (ports_at != std::string::npos) {
      // A second one would renumber the columns of the rows after it.
      if (sw >= 0)
        RefuseRepeat(
            ports_line, [&] { return "the 'Ports:' line of the MFT of " + f.SwitchLabel(sw); }, file, no);
      columns.clear();
      for (size_t c = ports_at + 6; c < line.size(); ++c)
        if (std::isdigit(static_cast<unsigned char>(line[c]))) columns.push_back(c);
      if (sw >= 0) RefuseOtherPortCount(columns.size(), f, sw, file, no);
      continue;
    }
    if (!StartsWith(line, "0x")) {
      if (sw >= 0 && IsCountLine(line, "mlids")) {
        RefuseRepeat(
            count_line, [&] { return "the count line of the MFT of " + f.SwitchLabel(sw); }, file, no);
        RefuseMiscount(line, static_cast<int>(row_line.size()), "the MFT of " + f.SwitchLabel(sw), file, no);
      }
      if (IsMftDecoration(line)) continue;
      throw InputError(file, no, "unexpected line '" + Excerpt(line) +
                                     "' (expected `ibroute -M` output: a 'Multicast mlids' header, the "
                                     "port-number lines, 'MLid', rows '0xMLID  x ...', 'N valid mlids dumped')");
    }
    if (sw < 0 || columns.empty())
      throw InputError(file, no, "MFT row before a 'Multicast mlids' header and 'Ports:' line");
    if (count_line)
      throw InputError(file, no, "MFT row after its table's 'N valid mlids dumped' line (expected the "
                                 "next 'Multicast mlids' header first)");
    const size_t mlid_end = std::min(line.find_first_of(" \r"), line.size());
    unsigned long mlid = 0;
    if (!IbrouteLidField(line.substr(0, mlid_end), kMulticastLidBase, kMaxMulticastLid, &mlid))
      throw InputError(file, no,
                       "MLID field '" + Excerpt(line.substr(0, mlid_end)) +
                           "': expected a multicast LID in hexadecimal, 0x and 4 digits, 0xc000..0xfffe "
                           "(as ibroute -M prints it)");
    PortMask mask;
    for (size_t c = mlid_end; c < line.size(); ++c) {
      if (line[c] == ' ' || line[c] == '\r') continue;  // CRLF files, as for LFTs
      if (line[c] != 'x')
        throw InputError(file, no, std::string("unexpected character '") + line[c] +
                                       "' in an MFT row (expected 'x' or space)");
      size_t port = 0;
      while (port < columns.size() && columns[port] < c) ++port;
      if (port >= columns.size() || columns[port] != c)
        throw InputError(file, no, "'x' at column " + std::to_string(c) +
                                       " is not under a port number");
      mask.set(port);  // a port of the switch: its 'Ports:' line numbers no other
    }
    RefuseRepeat(row_line[static_cast<Lid>(mlid)],
                 [&] { return Printf("MLID 0x%04lx in the MFT of ", mlid) + f.SwitchLabel(sw); }, file, no);
    t.mft[sw].groups[static_cast<Lid>(mlid)] = mask;
  }
  if (tables == 0)  // an empty file, or a wrong one of blank lines, as for LFTs
    throw Error(file + ": no MFT in it (expected `ibroute -M` output, 'Multicast mlids [...] of switch Lid N guid "
                       "0x...')");
  refuse_uncounted();
}

namespace {

void RefuseMissingLfts(const std::string& file, const Fabric& f, const Tables& t) {
  for (size_t s = 0; s < f.switches.size(); ++s)
    if (s >= t.lft.size() || t.lft[s].out.empty())
      throw Error(file + ": no LFT for " + f.SwitchLabel(static_cast<int>(s)));
}

void RefuseMissingMfts(const std::string& file, const Fabric& f, const Tables& t) {
  for (size_t s = 0; s < f.switches.size(); ++s)
    if (s >= t.mft.size() || !t.mft[s].dumped)
      throw Error(file + ": no MFT for " + f.SwitchLabel(static_cast<int>(s)) +
                  " (ibroute -M prints a table for every switch, with rows or without: a switch it could not "
                  "reach, or the dump of another fabric?)");
}

void RefuseMissingSl2Vls(const std::string& file, const Fabric& f, const Tables& t) {
  for (size_t s = 0; s < f.switches.size(); ++s)
    if (s >= t.sl2vl.size() || t.sl2vl[s].empty())
      throw Error(file + ": no SL2VL table for " + f.SwitchLabel(static_cast<int>(s)) +
                  " (read-sl2vl and route --sl2vl write every switch's: a partial file, or the dump of "
                  "another fabric?)");
}

}  // namespace

void ReadLftsFile(const std::string& path, const Fabric& f, Tables& t) {
  std::ifstream in = OpenInputFile(path, "LFT dump");
  ReadLfts(in, path, f, t);
  RefuseMissingLfts(path, f, t);
}

void ReadMftsFile(const std::string& path, const Fabric& f, Tables& t) {
  std::ifstream in = OpenInputFile(path, "MFT dump");
  ReadMfts(in, path, f, t);
  RefuseMissingMfts(path, f, t);
}

std::array<uint8_t, 16> EndPortVls(const Fabric& f, const Tables& t, int ep) {
  std::array<uint8_t, 16> vls{};
  const EndPort& port = f.end_ports.at(ep);
  if (port.switch_index < 0 || static_cast<size_t>(port.switch_index) >= t.sl2vl.size())
    return vls;
  const Sl2Vl& table = t.sl2vl[port.switch_index];
  for (int sl = 0; sl < 16; ++sl) vls[sl] = table.get(0, port.switch_port, sl);
  return vls;
}

namespace {

void WriteSl2VlBlock(std::ostream& os, Lid lid) {
  os << "# SL2VL table: Lid " << lid << "\n#                 SL: |";
  for (int sl = 0; sl < 16; ++sl) os << Printf("%2d|", sl);
  os << "\n";
}

void WriteSl2VlRow(std::ostream& os, int in, int out, const std::array<uint8_t, 16>& vls) {
  os << Printf("ports: in %2d, out %2d: |", in, out);
  for (uint8_t vl : vls) os << Printf("%2d|", vl);
  os << "\n";
}

}  // namespace

void WriteSl2Vl(std::ostream& os, const Fabric& f, const Tables& t) {
  for (size_t s = 0; s < f.switches.size() && s < t.sl2vl.size(); ++s) {
    const Sl2Vl& table = t.sl2vl[s];
    if (table.empty() || f.switches[s].lid == 0) continue;
    for (int out = 0; out <= table.num_ports; ++out) {
      WriteSl2VlBlock(os, f.switches[s].lid);
      for (int in = 0; in <= table.num_ports; ++in) {
        std::array<uint8_t, 16> vls{};
        for (int sl = 0; sl < 16; ++sl) vls[sl] = table.get(in, out, sl);
        WriteSl2VlRow(os, in, out, vls);
      }
    }
  }
  for (size_t e = 0; e < f.end_ports.size(); ++e) {
    const EndPort& ep = f.end_ports[e];
    if (ep.base_lid == 0 || ep.switch_index < 0 ||
        static_cast<size_t>(ep.switch_index) >= t.sl2vl.size() || t.sl2vl[ep.switch_index].empty())
      continue;
    WriteSl2VlBlock(os, ep.base_lid);
    WriteSl2VlRow(os, 0, 0, EndPortVls(f, t, static_cast<int>(e)));
  }
}

namespace {

// A cursor over one line of `smpquery sl2vl` output. Numbers are decimal
// as smpquery prints them ("%u", "%2d"): digits without a leading zero
// ("07" or "010" is no form it prints), range-checked as read, so nothing
// wraps (LID 65546 is not LID 10, "in 4294967297" is not in 1).
struct Sl2VlLine {
  const char* at;
  void Spaces() {
    while (*at == ' ' || *at == '\t' || *at == '\r') ++at;
  }
  bool Word(const char* w) {
    Spaces();
    const size_t n = std::strlen(w);
    if (std::strncmp(at, w, n) != 0) return false;
    at += n;
    return true;
  }
  bool Number(unsigned long max, unsigned long* v) {
    Spaces();
    size_t n = 0;
    while (std::isdigit(static_cast<unsigned char>(at[n]))) ++n;
    if (n > 1 && at[0] == '0') return false;
    if (!DecimalField(std::string(at, n), max, v)) return false;
    at += n;
    return true;
  }
  bool End() {
    Spaces();
    return *at == '\0';
  }
};

}  // namespace

// `smpquery sl2vl LID OUT` prints a row for every in port 0..N, and
// read-sl2vl queries every out port 0..N: a switch with some rows but not
// all comes from a cut-off dump, whose missing rows would read as VL 0.
// `row_line[s]`: the line of each (in, out) row of switch s, 0 if none.
static void RefuseIncompleteSwitchTables(const std::string& file, const Fabric& f,
                                  const std::vector<std::vector<int>>& row_line) {
  for (size_t s = 0; s < row_line.size(); ++s) {
    const std::vector<int>& lines = row_line[s];
    const int ports = f.switches[s].num_ports;
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i] != 0) continue;
      const int in = static_cast<int>(i) / (ports + 1), out = static_cast<int>(i) % (ports + 1);
      throw Error(file + ": " + f.SwitchLabel(static_cast<int>(s)) + Printf(" has no row for in %d, out %d", in, out) +
                  Printf(" (expected every in and out port 0..%d, as read-sl2vl writes them: a cut-off dump?)", ports));
    }
  }
}

void ReadSl2Vl(std::istream& is, const std::string& file, const Fabric& f, Tables& t) {
  t.sl2vl.resize(f.switches.size());
  std::string line;
  int no = 0, rows = 0;
  LidOwner owner;
  // Line of each row read, to refuse a repeat naming both lines: per switch
  // by (in, out), per host port.
  std::vector<std::vector<int>> switch_row_line(f.switches.size());
  std::map<int, int> host_row_line;
  int header_line = 0, header_rows = 0;  // the last '# SL2VL table' line and its rows
  auto refuse_empty_block = [&] {
    if (header_line && header_rows == 0)
      throw InputError(file, header_line, "no 'ports: in I, out O' rows after this table header");
  };
  while (std::getline(is, line)) {
    ++no;
    Sl2VlLine c{line.c_str()};
    if (c.End()) continue;
    if (StartsWith(line, "# SL2VL table:")) {
      refuse_empty_block();
      header_line = no, header_rows = 0;
      c.at += std::strlen("# SL2VL table:");
      unsigned long lid = 0;
      if (!c.Word("Lid") || !c.Number(0xFFFF, &lid) || !c.End())
        throw InputError(file, no,
                         "expected '# SL2VL table: Lid N' (tables queried by LID, N decimal up to 65535 "
                         "without leading zeros)");
      owner = f.owner(static_cast<Lid>(lid));
      if (!owner.valid()) throw InputError(file, no, Printf("LID %lu is not in the fabric", lid));
      continue;
    }
    if (line[0] == '#') continue;  // the SL heading
    unsigned long in = 0, out = 0;
    if (!c.Word("ports:") || !c.Word("in") || !c.Number(255, &in) || !c.Word(",") || !c.Word("out") ||
        !c.Number(255, &out) || !c.Word(":"))
      throw InputError(file, no,
                       "expected 'ports: in I, out O: | v|...|' (I, O port numbers 0..255 in decimal "
                       "without leading zeros)");
    if (!owner.valid()) throw InputError(file, no, "SL2VL row before a '# SL2VL table: Lid N' line");
    std::array<uint8_t, 16> vls{};
    for (int sl = 0; sl < 16; ++sl) {
      unsigned long vl = 0;
      if (!c.Word("|") || !c.Number(15, &vl))
        throw InputError(file, no,
                         Printf("SL %d: expected '| v' with a VL 0..15 (decimal, no leading zero)", sl));
      vls[sl] = static_cast<uint8_t>(vl);
    }
    if (!c.Word("|") || !c.End()) throw InputError(file, no, "expected '|' and the end of the line after 16 VLs");
    ++rows, ++header_rows;
    if (owner.kind == Peer::Kind::kEndPort) {
      if (in != 0 || out != 0)
        throw InputError(file, no, "a host port's table is 'in 0, out 0'");
      RefuseRepeat(host_row_line[owner.index],
                   [&] { return "the SL2VL row of end port " + f.end_ports[owner.index].name; }, file, no);
      t.end_port_sl2vl[owner.index] = vls;
      continue;
    }
    Sl2Vl& table = t.sl2vl[owner.index];
    const int ports = f.switches[owner.index].num_ports;
    if (in > static_cast<unsigned long>(ports) || out > static_cast<unsigned long>(ports))
      throw InputError(file, no, Printf("in %lu, out %lu: %s has ports 0..%d", in, out,
                                        f.SwitchLabel(owner.index).c_str(), ports));
    if (table.empty()) table.Init(ports);
    std::vector<int>& lines = switch_row_line[owner.index];
    if (lines.empty()) lines.assign(table.vl.size(), 0);
    RefuseRepeat(lines[in * (ports + 1) + out],
                 [&] { return Printf("the SL2VL row in %lu, out %lu of ", in, out) + f.SwitchLabel(owner.index); },
                 file, no);
    for (int sl = 0; sl < 16; ++sl) table.set(static_cast<int>(in), static_cast<int>(out), sl, vls[sl]);
  }
  refuse_empty_block();
  if (rows == 0)
    throw Error(file + ": no SL2VL table in it (expected `smpquery sl2vl` output: '# SL2VL table: Lid N', "
                       "then 'ports: in I, out O: | v|...|' rows)");
  RefuseIncompleteSwitchTables(file, f, switch_row_line);
}

void ReadSl2VlFile(const std::string& path, const Fabric& f, Tables& t) {
  std::ifstream in = OpenInputFile(path, "SL2VL dump");
  ReadSl2Vl(in, path, f, t);
  RefuseMissingSl2Vls(path, f, t);
}

}  // namespace ibu
