#include "plugin/core/guid2lid.h"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <istream>
#include <sstream>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugin/core/error.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"

namespace ibu {

namespace {

// One guid2lid file applied to a fabric: its lines read and cross-checked,
// then the fabric's switches and end ports given their LIDs.
class Guid2LidReader {
 public:
  Guid2LidReader(const std::string& file, Fabric& f, bool net_lids)
      : file_(file), f_(f), net_lids_(net_lids) {}

  std::string Apply(std::istream& is) {
    std::string line;
    int no = 0;
    while (std::getline(is, line)) ReadLine(line, ++no);
    RefuseAnotherFabricsFile();
    AssignLids();
    RefusePortsWithoutLid();
    try {
      f_.Finalize();
    } catch (const Error& e) {
      throw Error(file_ + ": " + e.what());
    }
    return UnknownGuidNote();
  }

 private:
  struct Entry {
    Lid lo = 0, hi = 0;
    int line = 0;
  };
  struct Seen {
    Guid guid = 0;
    Lid lo = 0, hi = 0;
    int line = 0;
  };

  void ReadLine(const std::string& line, int no) {
    std::istringstream ls(line);
    std::string g, lo, hi;
    if (!(ls >> g)) return;
    if (g[0] == '#') return;
    std::string extra;
    if (!(ls >> lo >> hi) || (ls >> extra && extra[0] != '#'))
      throw InputError(file_, no, "expected '0xGUID 0xMINLID 0xMAXLID'");
    // OpenSM writes 0x hex throughout; LIDs by the core's integer rule (0x
    // hex or decimal; a leading 0 only where octal reads the same, as
    // OpenSM reads octal), the GUID in hex only (not "100001" as decimal).
    RefuseOctalLid(lo, no);
    RefuseOctalLid(hi, no);
    unsigned long long guid = 0;
    long long a = 0, b = 0;
    if (!ParseHexGuid(g, &guid))
      throw InputError(file_, no, "GUID '" + g + "': expected 0x and 1 to 16 hex digits");
    if (!ParseInteger(lo, &a) || !ParseInteger(hi, &b) || a <= 0 || b < a || b > kMaxUnicastLid)
      throw InputError(file_, no, "expected '0xGUID 0xMINLID 0xMAXLID' with 0 < MIN <= MAX <= 0xBFFF");
    ++entries_;
    Claim(guid, static_cast<Lid>(a), static_cast<Lid>(b), no);
    // OpenSM keeps the LIDs of ports it saw before (a node since removed),
    // so a GUID the fabric lacks is not in itself an error.
    if (f_.SwitchByGuid(guid) < 0 && f_.EndPortByGuid(guid) < 0) {
      if (unknown_++ == 0) first_unknown_ = guid, first_unknown_line_ = no;
      return;
    }
    lids_[guid] = {static_cast<Lid>(a), static_cast<Lid>(b), no};
  }

  // OpenSM reads the LIDs with strtoul(s, 0, 0): a leading 0 makes them
  // octal there ("0100" is LID 64), so a LID whose octal and decimal
  // readings differ would put the port at another LID than OpenSM does
  // ("0004" reads alike and passes).
  void RefuseOctalLid(const std::string& text, int no) const {
    if (text.size() < 2 || text[0] != '0' || !std::isdigit(static_cast<unsigned char>(text[1]))) return;
    char* end = nullptr;
    const unsigned long opensm = std::strtoul(text.c_str(), &end, 0);
    const std::string expected = "expected 0x hex, as OpenSM writes it, or decimal without leading zeros";
    if (*end != '\0')  // an 8 or 9: OpenSM stops there
      throw InputError(file_, no,
                       "LID '" + text + "' has a leading 0, so OpenSM reads it as octal, and it is none (" +
                           "OpenSM takes " + std::to_string(opensm) + " of it): " + expected);
    if (opensm != std::strtoul(text.c_str(), nullptr, 10))
      throw InputError(file_, no,
                       "LID '" + text + "' has a leading 0, so OpenSM reads it as octal (" +
                           std::to_string(opensm) + ", " + HexLid(static_cast<Lid>(opensm)) +
                           "): " + expected);
  }

  // Every line's GUID and range, this fabric's or not: OpenSM's cache holds
  // each GUID once and each LID at most once (it drops an entry whose LIDs
  // another entry holds), so a repeat or an overlap is a corrupt or
  // concatenated file, not something to resolve by taking the last line.
  void Claim(Guid guid, Lid a, Lid b, int no) {
    const auto [dup, fresh] = seen_by_guid_.emplace(guid, seen_.size());
    if (!fresh)
      throw InputError(file_, no,
                       "GUID " + Hex16(guid) + " appears again (first at line " +
                           std::to_string(seen_[dup->second].line) +
                           "): OpenSM's guid2lid holds each port GUID once, so the file is corrupt or "
                           "two files were concatenated");
    if (lid_claim_.empty()) lid_claim_.assign(kMaxUnicastLid + 1, -1);
    for (long lid = a; lid <= b; ++lid) {
      const int other = lid_claim_[lid];
      if (other < 0) {
        lid_claim_[lid] = static_cast<int>(seen_.size());
        continue;
      }
      const Seen& o = seen_[other];
      throw InputError(file_, no,
                       "GUID " + Hex16(guid) + " (" + LidRange(a, b) + ") overlaps GUID " + Hex16(o.guid) +
                           " (" + LidRange(o.lo, o.hi) + ", line " + std::to_string(o.line) +
                           "): expected every LID to belong to one port GUID");
    }
    seen_.push_back({guid, a, b, no});
  }

  void RefuseAnotherFabricsFile() const {
    if (unknown_ == 0 || !lids_.empty()) return;
    std::string hint;
    for (const EndPort& ep : f_.end_ports)
      if (ep.node_guid == first_unknown_ && hint.empty())
        hint = " (it is the node GUID of end port " + ep.name + "; the file wants port GUIDs)";
    // "neither is any of the file's other 0 GUIDs" was said of a file of one line.
    const std::string others = entries_ == 1   ? " (the file's only GUID)"
                               : entries_ == 2 ? ", and neither is the file's other GUID"
                                               : ", and neither is any of the file's other " +
                                                     std::to_string(entries_ - 1) + " GUIDs";
    throw InputError(file_, first_unknown_line_,
                     "GUID " + Hex16(first_unknown_) + " is not an end port or switch of this fabric" + hint +
                         others +
                         ": expected the port GUIDs of this fabric's end ports and switches "
                         "(a guid2lid file of another fabric?)");
  }

  uint8_t LmcOf(const Entry& e) const {
    int count = e.hi - e.lo + 1, lmc = 0;
    while ((1 << lmc) < count) ++lmc;
    if ((1 << lmc) != count || lmc > 7)
      throw InputError(file_, e.line,
                       "LID range " + std::to_string(e.lo) + "-" + std::to_string(e.hi) +
                           " is not a power-of-two block of at most 128");
    // The SM hands out LID blocks aligned to their size, as the net file
    // reader requires; checked here, with the line, so that neither an end
    // port's misalignment (refused later, without one) nor a switch's
    // (accepted) slips through.
    if (e.lo % count != 0)
      throw InputError(file_, e.line,
                       "LID range " + std::to_string(e.lo) + "-" + std::to_string(e.hi) +
                           " is not aligned to its " + std::to_string(count) + " LIDs (LMC " +
                           std::to_string(lmc) + "): expected a base LID that is a multiple of " +
                           std::to_string(count));
    return static_cast<uint8_t>(lmc);
  }

  void AssignLids() {
    for (Switch& sw : f_.switches) {
      // The SM lists a switch by its port 0 GUID, the node GUID under ibsim.
      auto it = lids_.find(PortZeroGuid(sw));
      if (it == lids_.end()) it = lids_.find(sw.guid);
      if (it == lids_.end()) continue;
      RefuseOtherLids("switch " + sw.name + " (" + Hex16(PortZeroGuid(sw)) + ")", sw.lid, 1L << sw.lmc,
                      it->second);
      sw.lid = it->second.lo;
      sw.lmc = LmcOf(it->second);
    }
    for (EndPort& ep : f_.end_ports) {
      auto it = lids_.find(ep.port_guid);
      if (it == lids_.end()) continue;
      RefuseOtherLids("end port " + ep.name + " (" + Hex16(ep.port_guid) + ")", ep.base_lid, ep.lid_count(),
                      it->second);
      ep.base_lid = it->second.lo;
      ep.lmc = LmcOf(it->second);
    }
  }

  // A net file with LIDs (ibnetdiscover's) and a line giving a port other
  // ones: the guid2lid file of another SM run. Taken for its ports and the
  // net file's for the rest, two layouts were silently mixed.
  void RefuseOtherLids(const std::string& what, Lid net_lid, long net_count, const Entry& e) const {
    if (!net_lids_ || net_lid == 0 || (net_lid == e.lo && net_lid + net_count - 1 == e.hi)) return;
    throw InputError(file_, e.line,
                     what + " has " + LidRange(e.lo, e.hi) + " here, but " +
                         LidRange(net_lid, net_lid + net_count - 1) +
                         " in the net file: expected the guid2lid file of the SM the net file was discovered "
                         "under, or only one of the two");
  }

  // A port of the fabric with no line (and no LID from the net file) would
  // be routed as LID 0; OpenSM's cache lists every port it gave a LID.
  void RefusePortsWithoutLid() const {
    std::string missing;
    int missing_count = 0;
    auto note_missing = [&](const std::string& what, Guid guid) {
      if (missing_count++ > 0) return;
      missing = what + " has no line, so no LID: expected a line '" + Hex16(guid) +
                " 0xMINLID 0xMAXLID' for it, as for every end port and switch of the fabric";
    };
    for (const EndPort& ep : f_.end_ports)
      if (ep.base_lid == 0)
        note_missing("end port " + ep.name + " (port GUID " + Hex16(ep.port_guid) + ")", ep.port_guid);
    for (const Switch& sw : f_.switches)
      if (sw.lid == 0)
        note_missing("switch " + sw.name + " (port 0 GUID " + Hex16(PortZeroGuid(sw)) + ")",
                     PortZeroGuid(sw));
    if (missing_count == 0) return;
    const std::string more =
        missing_count > 1 ? std::to_string(missing_count - 1) + " more ports have none either; " : "";
    throw Error(file_ + ": " + missing + " (" + more + "a guid2lid file of another or older fabric?)");
  }

  std::string UnknownGuidNote() const {
    if (unknown_ == 0) return "";
    return file_ + ":" + std::to_string(first_unknown_line_) + ": GUID " + Hex16(first_unknown_) +
           " is not an end port or switch of this fabric" +
           (unknown_ > 1 ? " (nor are " + std::to_string(unknown_ - 1) + " more of the file's " +
                               std::to_string(entries_) + " GUIDs)"
                         : "") +
           "; ignored, as OpenSM keeps the LIDs of ports it no longer sees";
  }

  const std::string& file_;
  Fabric& f_;
  const bool net_lids_;                   // f_'s LIDs are its net file's: a line must agree
  std::unordered_map<Guid, Entry> lids_;  // the fabric's ports only
  std::vector<Seen> seen_;                // every line's
  std::unordered_map<Guid, size_t> seen_by_guid_;
  std::vector<int> lid_claim_;  // LID -> index into seen_, -1 free (sized on first use)
  int entries_ = 0, unknown_ = 0, first_unknown_line_ = 0;
  Guid first_unknown_ = 0;
};

}  // namespace

std::string ApplyGuid2Lid(std::istream& is, const std::string& file, Fabric& f, bool net_lids) {
  return Guid2LidReader(file, f, net_lids).Apply(is);
}

std::string ApplyGuid2LidFile(const std::string& path, Fabric& f, bool net_lids) {
  std::ifstream in = OpenInputFile(path, "guid2lid file");
  return ApplyGuid2Lid(in, path, f, net_lids);
}

}  // namespace ibu
