// Forwarding tables as the switches hold them: one LFT per switch (out port
// by DLID), one MFT per switch (port mask by MLID). The text form is the one
// `ibroute` prints, so tables computed offline and tables read back from
// ibsim or a real fabric go through the same parser and verifier.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu {

using PortMask = std::bitset<256>;

struct Lft {
  std::vector<uint8_t> out;  // indexed by LID; kNoPort where unset

  uint8_t port(Lid lid) const { return lid < out.size() ? out[lid] : kNoPort; }
  void set(Lid lid, uint8_t port) {
    if (lid >= out.size()) out.resize(lid + 1, kNoPort);
    out[lid] = port;
  }
};

struct Mft {
  std::map<Lid, PortMask> groups;  // MLID -> ports (0 = the switch itself)
  // ReadMfts found this switch's table (RefuseMissingMfts): a dump's table
  // without rows and no table at all both leave `groups` empty.
  bool dumped = false;
};

// SL-to-VL mapping of one switch, per (input port, output port) pair, as
// SLtoVLMappingTable attributes hold it. Empty means every SL on VL 0.
struct Sl2Vl {
  int num_ports = 0;  // external ports; port 0 included in the index space
  std::vector<std::array<uint8_t, 16>> vl;  // [in * (num_ports + 1) + out][sl]

  bool empty() const { return vl.empty(); }
  void Init(int ports) {
    num_ports = ports;
    vl.assign(static_cast<size_t>(ports + 1) * (ports + 1), std::array<uint8_t, 16>{});
  }
  uint8_t get(int in, int out, int sl) const {
    return vl.empty() ? 0 : vl[static_cast<size_t>(in) * (num_ports + 1) + out][sl];
  }
  void set(int in, int out, int sl, uint8_t v) {
    vl[static_cast<size_t>(in) * (num_ports + 1) + out][sl] = v;
  }
};

// Tables for a whole fabric, indexed like Fabric::switches.
struct Tables {
  std::vector<Lft> lft;
  std::vector<Mft> mft;
  std::vector<Sl2Vl> sl2vl;  // per switch; empty when the engine sets none
  // SL of the packets each end port sends (index like Fabric::end_ports),
  // for unicast; empty means SL 0. Engines with VL policies fill it.
  std::vector<uint8_t> end_port_sl;
  // SL2VL tables of host ports read back from a fabric, by end-port index
  // (offline, EndPortVls gives them from the switches' tables).
  std::map<int, std::array<uint8_t, 16>> end_port_sl2vl;

  void Resize(const Fabric& f) {
    lft.resize(f.switches.size());
    mft.resize(f.switches.size());
  }
};

// Writes every switch's LFT in `ibroute` format ("Unicast lids [...] of
// switch Lid N guid 0x... (desc):" then "0xLLLL PPP : (...)").
// Cost: one line of about 70 bytes per (switch, routed LID), so the text
// grows with the table, switches x LIDs, which at a fixed LMC is about
// hosts^2: 755 MB for FT(16,3), 3.1 GB for FT(32,3) and 9.5 GB for FT(16,4)
// or a 90x90 mesh (8,192 hosts). Writing and reading it (ReadLfts) run at
// a few hundred MB/s, so those take tens of seconds; routing itself takes
// well under a second.
void WriteLfts(std::ostream& os, const Fabric& f, const Tables& t);
// Writes every switch's MFT in `ibroute -M` format.
void WriteMfts(std::ostream& os, const Fabric& f, const Tables& t);

// Parses `ibroute`/`ibroute -M` output (several switches concatenated, or
// OpenSM's opensm-lfts.dmp). Switches are matched to the fabric by GUID;
// a header naming a switch LID ("of switch Lid N") must name the fabric's
// (tables made for other LIDs would be read as other destinations).
// Fields must look as ibroute prints them: LFT entries "0xLLLL PPP" (LID in
// hex, out port in three decimal digits) then ": ...", "# ..." or nothing.
// One table per switch and one row per LID (MLID) in a table: a repeat is
// refused naming both lines.
// A file without any table, a row after its table's count line, a table
// without its count line (cut off: ibroute and OpenSM end every table with
// one), (LFT) an entry routing a LID no end port or switch of the fabric
// has (tables made for other LIDs; the first is named, the rest counted)
// and (MFT) an 'x' under a port the switch lacks are refused too.
// Throws ibu::Error "FILE:LINE: ..." on anything unexpected.
void ReadLfts(std::istream& is, const std::string& file, const Fabric& f,
              Tables& t);
void ReadMfts(std::istream& is, const std::string& file, const Fabric& f,
              Tables& t);
// SL2VL of host port `ep` (OpenSM sets it with in = out = 0): the VLs its
// switch uses on the link toward the host, so injection and delivery on a
// host link agree. All VL 0 when the switch has no table.
std::array<uint8_t, 16> EndPortVls(const Fabric& f, const Tables& t, int ep);

// Writes the switches' SL2VL tables (every out port, every in port) and
// the host ports' (EndPortVls) as `smpquery sl2vl LID [OUT]` prints them:
// "# SL2VL table: Lid N", an SL header line, then
// "ports: in  I, out  O: | v| v|...| v|" (16 VLs). Switches without a
// table and ports without a LID are left out.
void WriteSl2Vl(std::ostream& os, const Fabric& f, const Tables& t);
// Parses that format (several `smpquery sl2vl` outputs concatenated) into
// t.sl2vl (switch LIDs) and t.end_port_sl2vl (host LIDs, in = out = 0).
// Blank lines and '#' lines other than "# SL2VL table: Lid N" are skipped;
// anything else must be a row. Throws ibu::Error "FILE:LINE: ..." on an
// unknown LID, a port beyond the switch's, a VL outside 0..15, a malformed
// line (numbers are range-checked, never wrapped), a row given twice (the
// same port's, in and out; both lines named), a table header without rows,
// a switch with some rows but not every (in, out) pair 0..N (a cut-off
// dump: the rest would read as VL 0), and on a file without any row.
void ReadSl2Vl(std::istream& is, const std::string& file, const Fabric& f, Tables& t);
// A dump file holds every switch's table: ReadLftsFile, ReadMftsFile and
// ReadSl2VlFile also throw ibu::Error naming `path` and the first switch of
// `f` without one. A dump that lost a switch's LFT would read as routes
// broken there and as loads that end there, one without its MFT (ibroute
// -M prints a table for every switch, rows or none) as forwarding no
// group, and one without its SL2VL table as all VL 0 there: not as the
// damaged input it is.
void ReadLftsFile(const std::string& path, const Fabric& f, Tables& t);
void ReadMftsFile(const std::string& path, const Fabric& f, Tables& t);
void ReadSl2VlFile(const std::string& path, const Fabric& f, Tables& t);

}  // namespace ibu
