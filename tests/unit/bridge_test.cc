// The C bridge the OpenSM adapter calls (plugin/osm/bridge.h), driven the
// way plugin.c and subnet.c drive it, without OpenSM.
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"
#include "plugin/osm/bridge.h"
#include "plugin/osm/bridge_fabric.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

// Stands in for OpenSM's log: what reached it, and whether verbose is on.
struct Log {
  bool verbose = false;
  int asked = 0;  // log_active calls
  std::vector<std::pair<int, std::string>> lines;
};

void Record(void* ctx, int level, const char* msg) {
  static_cast<Log*>(ctx)->lines.emplace_back(level, msg);
}

int Active(void* ctx, int level) {
  Log* log = static_cast<Log*>(ctx);
  ++log->asked;
  return level != IBU_LOG_VERBOSE || log->verbose;
}

// An engine of `name` logging into `log`, handed `f` as OpenSM would.
ibu_engine* EngineOn(const Fabric& f, const char* name, const char* options, Log* log) {
  ibu_engine* e = ibu_engine_new(name, options, 0, name, Record, log);
  CU_ASSERT_FATAL(e != nullptr);
  DescribeFabricToBridge(e, f);
  return e;
}

int NoMask(void*, uint64_t, int) { return 0; }

int Count(const Log& log, int level, const std::string& needle) {
  int n = 0;
  for (const auto& [l, text] : log.lines) n += l == level && Contains(text, needle);
  return n;
}

// The per-rebuild multicast line is verbose: with OpenSM's verbose level
// off it is neither timed, formatted nor handed over (no verbose line at
// all reaches the log), but every rebuild is still counted, so the number
// is right once verbose is turned on; a unicast routing starts it again.
void McastRebuildLineOnlyWhenVerbose() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 1);
  Log log;
  ibu_engine* e = ibu_engine_new("mlid", "mlid_dump=off", 0, "mlid", Record, &log);
  CU_ASSERT_FATAL(e != nullptr);
  ibu_engine_set_log_active(e, Active);
  DescribeFabricToBridge(e, f);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "ibunion/mlid: routed"), 1);
  // The LIDs in use, not the highest: 8 hosts at LMC 1 and 6 switches.
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_INFO, "ibunion/mlid: routed 6 switches, 8 end ports, 22 LIDs (up to 23) in "), 1);
  const uint64_t members[] = {f.end_ports[0].port_guid, f.end_ports[3].port_guid, f.end_ports[5].port_guid,
                              f.end_ports[6].port_guid};

  for (int i = 0; i < 2; ++i)  // verbose off: counted, not logged
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, members, 4, NoMask, nullptr), 0);
  CU_ASSERT(log.asked > 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, ""), 0);

  log.verbose = true;  // as `log_flags` raised while OpenSM runs
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, members, 4, NoMask, nullptr), 0);
  const std::string rebuilt = "ibunion/mlid: multicast group 0xc001: tree of 4 members rebuilt in ";
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, rebuilt), 1);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, " us (rebuild 3)"), 1);

  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, members, 3, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, "tree of 3 members rebuilt in "), 1);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, " us (rebuild 1)"), 1);
  // Two MGIDs on one MLID (consolidated SNM groups) list a port in both:
  // it is one member of the tree, and the line counts it once.
  const uint64_t twice[] = {members[0], members[1], members[2], members[1], members[0]};
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, twice, 5, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, "tree of 3 members rebuilt in "), 2);

  // A bit the caller cannot set (OpenSM: an MLID beyond a switch's
  // MulticastFDBCap) refuses the group: the caller logs that refusal, so
  // the engine logs no rebuild line before it (nor an error), reports no
  // further bit and forgets the tree (the next build is rebuild 1).
  int bits = 0;
  auto refuse = [](void* ctx, uint64_t, int) { return ++*static_cast<int*>(ctx) == 2 ? 1 : 0; };
  const size_t lines = log.lines.size();
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, members, 4, refuse, &bits), 1);
  CU_ASSERT_EQUAL(bits, 2);
  CU_ASSERT_EQUAL(log.lines.size(), lines);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, members, 4, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, "tree of 4 members rebuilt in "), 2);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, " us (rebuild 1)"), 2);
  ibu_engine_free(e);

  // Without a log_active callback every level is handed over, as before.
  Log all;
  e = EngineOn(f, "mlid", "mlid_dump=off", &all);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, members, 4, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(all, IBU_LOG_VERBOSE, "(rebuild 1)"), 1);
  CU_ASSERT_EQUAL(all.asked, 0);
  ibu_engine_free(e);
}

// <engine>_dump is the adapter's option, read by the same on/off rule as
// the engines' own (mlid_rotate): synonyms accepted, anything else refused
// by name, and a refused engine does not route.
void DumpOptionReadLikeEngineOptions() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 1);
  Log log;
  ibu_engine* e = EngineOn(f, "mlid", "mlid_dump=no mlid_rotate=no", &log);
  CU_ASSERT_EQUAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR, ""), 0);
  ibu_engine_free(e);

  Log bad;
  e = ibu_engine_new("mlid", "mlid_dump=maybe", 0, "mlid", Record, &bad);
  CU_ASSERT_FATAL(e != nullptr);
  CU_ASSERT_EQUAL(Count(bad, IBU_LOG_ERROR, "option 'mlid_dump=maybe': expected on or off"), 1);
  DescribeFabricToBridge(e, f);
  CU_ASSERT_NOT_EQUAL(ibu_route_unicast(e), 0);
  ibu_engine_free(e);

  // An unknown key lists the engine's keys, the adapter's _dump among them.
  for (const char* name : {"mlid", "xymesh"}) {
    Log unknown;
    const std::string word = std::string(name) + "_foo=1";
    e = ibu_engine_new(name, word.c_str(), 0, name, Record, &unknown);
    CU_ASSERT_FATAL(e != nullptr);
    CU_ASSERT_EQUAL(
        Count(unknown, IBU_LOG_ERROR,
              "unknown key for engine " + std::string(name) + " (known: " + name + "_dump=on|off, " + name),
        1);
    ibu_engine_free(e);
  }
}

// Beside other event plugins (event_plugin_name lists several), the
// options string is theirs too: words without an ibunion engine's prefix
// are left to them, and logged once; ours are still checked, a typo
// included. Alone, a foreign word is an unknown key as before.
void OptionsSharedWithOtherPlugins() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 1);
  const char* options = "mlid_dump=off perfx_interval=10 perfx_interval=20 verbose mlid_rotate=off";
  Log log;
  ibu_engine* e = ibu_engine_new("mlid", options, 1, "mlid", Record, &log);
  CU_ASSERT_FATAL(e != nullptr);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR, ""), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "left to the other event plugins: perfx_interval=10 perfx_interval=20 verbose"),
                  1);
  DescribeFabricToBridge(e, f);
  CU_ASSERT_EQUAL(ibu_route_unicast(e), 0);
  ibu_engine_free(e);

  // A no-break space before our prefix makes the word another plugin's:
  // the list shows it, not a blank and a word that looks like ours.
  Log pasted;
  e = ibu_engine_new("mlid", "\xc2\xa0mlid_rotate=off", 1, "mlid", Record, &pasted);
  CU_ASSERT_EQUAL(Count(pasted, IBU_LOG_INFO, "left to the other event plugins: \\xc2\\xa0mlid_rotate=off"),
                  1);
  ibu_engine_free(e);

  // A foreign option written with blanks around '=' is one word, quoted as
  // the unused-engine line quotes ours (it was listed bare).
  Log spaced;
  e = ibu_engine_new("mlid", "perfx_interval = 10 mlid_rotate=off", 1, "mlid", Record, &spaced);
  CU_ASSERT_EQUAL(Count(spaced, IBU_LOG_INFO, "left to the other event plugins: 'perfx_interval = 10'"), 1);
  ibu_engine_free(e);

  Log quiet;  // only the first engine names them
  e = ibu_engine_new("xymesh", options, 1, "xymesh", Record, &quiet);
  CU_ASSERT_EQUAL(Count(quiet, IBU_LOG_INFO, "left to the other event plugins"), 0);
  ibu_engine_free(e);

  for (const char* ours : {"mlid_rotat=off", "slid_rotate=off", "mlid_rotate=on mlid_rotate=off"}) {
    Log bad;
    e = ibu_engine_new("mlid", (std::string("perfx_interval=10 ") + ours).c_str(), 1, "mlid", Record, &bad);
    CU_ASSERT_EQUAL(Count(bad, IBU_LOG_ERROR, "bad event_plugin_options"), 1);
    ibu_engine_free(e);
  }

  Log alone;
  e = ibu_engine_new("mlid", options, 0, "mlid", Record, &alone);
  CU_ASSERT_EQUAL(Count(alone, IBU_LOG_ERROR, "bad event_plugin_options"), 1);
  ibu_engine_free(e);

  // Trees for one sender each (the timing model's) are not for SA groups,
  // in which every member may send: refused, so OpenSM falls back.
  Log source;
  e = ibu_engine_new("xymesh", "xymesh_mcast=source", 0, "xymesh", Record, &source);
  CU_ASSERT_EQUAL(
      Count(source, IBU_LOG_ERROR,
            "bad event_plugin_options: option 'xymesh_mcast=source': its trees are for their anchor "
            "alone to send on"),
      1);
  ibu_engine_free(e);
}

// OpenSM calls only the engines in its routing_engine chain: a bad option
// of one that is not there was logged as an error making it "refuse every
// fabric", beside the engine in the chain routing fine. Its words are
// listed once (info) and not read; engines in the chain check them as
// before, whatever else the chain holds.
void OptionsOfEnginesNotInTheChain() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 1);
  const char* options = "mlid_rotate=off xymesh_vls=3 xymesh_bogus=1";
  Log xy;
  ibu_engine* e = ibu_engine_new("xymesh", options, 0, "mlid,minhop", Record, &xy);
  CU_ASSERT_FATAL(e != nullptr);
  CU_ASSERT_EQUAL(Count(xy, IBU_LOG_ERROR, ""), 0);
  CU_ASSERT_EQUAL(xy.lines.size(), 1u);
  CU_ASSERT_EQUAL(Count(xy, IBU_LOG_INFO,
                        "ibunion/xymesh: not in routing_engine mlid,minhop, so these event_plugin_options are not "
                        "used (nor checked): xymesh_vls=3 xymesh_bogus=1"),
                  1);
  ibu_engine_free(e);
  Log ml;  // the one in the chain: its own key read, the others' left to them
  e = ibu_engine_new("mlid", options, 0, "mlid,minhop", Record, &ml);
  CU_ASSERT_EQUAL(Count(ml, IBU_LOG_ERROR, ""), 0);
  DescribeFabricToBridge(e, f);
  CU_ASSERT_EQUAL(ibu_route_unicast(e), 0);
  ibu_engine_free(e);
  // Nothing of its own to list: nothing said. OpenSM splits the chain at
  // blanks and commas and compares names exactly.
  for (const char* chain : {"minhop", "", "xymeshx,minhop", "mlid, updn"}) {
    Log quiet;
    e = ibu_engine_new("xymesh", "mlid_rotate=off", 0, chain, Record, &quiet);
    CU_ASSERT(quiet.lines.empty());
    ibu_engine_free(e);
  }
  Log unset;  // routing_engine not set: OpenSM's minhop
  e = ibu_engine_new("mlid", "mlid_rotate=maybe", 0, nullptr, Record, &unset);
  CU_ASSERT_EQUAL(Count(unset, IBU_LOG_INFO,
                        "not in routing_engine (not set: OpenSM routes with minhop), so these event_plugin_options "
                        "are not used (nor checked): mlid_rotate=maybe"),
                  1);
  CU_ASSERT_EQUAL(Count(unset, IBU_LOG_ERROR, ""), 0);
  ibu_engine_free(e);
  // Listed as written: the value of "xymesh_vls = 2" was dropped ("xymesh_vls"),
  // and the engine in the chain refused every fabric over the blanks of a
  // word it does not read, before the line saying it is not checked.
  for (const char* written : {"xymesh_vls = 2", "xymesh_vls= 2", "xymesh_vls =2"}) {
    Log blanks, chained;
    const std::string text = std::string("mlid_rotate=off ") + written + " xymesh_mcast=paper";
    e = ibu_engine_new("xymesh", text.c_str(), 0, "mlid", Record, &blanks);
    CU_ASSERT_EQUAL(Count(blanks, IBU_LOG_INFO,
                          std::string("ibunion/xymesh: not in routing_engine mlid, so these "
                                      "event_plugin_options are not used (nor checked): '") +
                              written + "' xymesh_mcast=paper"),
                    1);
    ibu_engine_free(e);
    e = ibu_engine_new("mlid", text.c_str(), 0, "mlid", Record, &chained);
    CU_ASSERT(chained.lines.empty());
    ibu_engine_free(e);
  }
  // A key given twice is the problem of the engine that reads it: the one
  // in the chain refused every fabric over a repeated key of an engine not
  // in it (whose words are "not checked"), and both engines over one of them.
  const char* twice = "mlid_rotate=off xymesh_vls=2 xymesh_vls=4";
  for (const char* chain : {"mlid", "mlid,xymesh"}) {
    Log ours;
    e = ibu_engine_new("mlid", twice, 0, chain, Record, &ours);
    CU_ASSERT_EQUAL(Count(ours, IBU_LOG_ERROR, ""), 0);
    DescribeFabricToBridge(e, f);
    CU_ASSERT_EQUAL(ibu_route_unicast(e), 0);
    ibu_engine_free(e);
  }
  Log theirs;
  e = ibu_engine_new("xymesh", twice, 0, "mlid,xymesh", Record, &theirs);
  CU_ASSERT_EQUAL(
      Count(theirs, IBU_LOG_ERROR,
            "bad event_plugin_options: option 'xymesh_vls=4': key xymesh_vls given twice (first as "
            "'xymesh_vls=2')"),
      1);
  ibu_engine_free(e);
  // The adapter's own key names its blanks too, after the problems of the
  // words before it (mlid_dump was read first, whatever its place).
  Log dump, later;
  e = ibu_engine_new("mlid", "mlid_rotate=on mlid_dump= on", 0, "mlid", Record, &dump);
  CU_ASSERT_EQUAL(
      Count(dump, IBU_LOG_ERROR,
            "bad event_plugin_options: option 'mlid_dump= on': blanks around '='; expected key=value "
            "as one word (mlid_dump=on)"),
      1);
  ibu_engine_free(e);
  e = ibu_engine_new("mlid", "mlid_bogus=1 mlid_dump=maybe", 0, "mlid", Record, &later);
  CU_ASSERT_EQUAL(
      Count(later, IBU_LOG_ERROR,
            "bad event_plugin_options: option 'mlid_bogus=1': unknown key for engine mlid (known: "
            "mlid_dump=on|off, mlid_rotate=on|off)"),
      1);
  ibu_engine_free(e);
  for (const char* chain : {"xymesh", " minhop,\txymesh\n", "mlid xymesh"}) {
    Log bad;  // in the chain: the bad option is an error, as before
    e = ibu_engine_new("xymesh", options, 0, chain, Record, &bad);
    CU_ASSERT_EQUAL(Count(bad, IBU_LOG_ERROR, "bad event_plugin_options: "), 1);
    ibu_engine_free(e);
  }
}

// OpenSM leaves end ports without a LID when it runs out of LIDs (FT(32,2)
// at lmc 7): they are routed as absent and said so in one error line, and
// the path map gives no DLID to or from them (it gave base LID 0 + offset:
// LID 0 and LIDs no port owns).
void EndPortsWithoutLid() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 1);
  f.end_ports[2].base_lid = 0;
  f.end_ports[5].base_lid = 0;
  char tmpl[] = "/tmp/ibu-bridge-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  Log log;
  ibu_engine* e = EngineOn(f, "mlid", "mlid_dump=on", &log);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_ERROR,
            "ibunion/mlid: 2 of 8 end ports have no LID (first: " + f.end_ports[2].name + ", port GUID 0x"),
      1);
  ibu_dump(e, dir.c_str());
  ibu_engine_free(e);

  std::ifstream in(dir + "/ibunion-mlid-paths.dump");
  std::string line;
  int pairs = 0;
  while (std::getline(in, line)) {
    if (line[0] == '#') continue;
    std::istringstream ls(line);
    std::string src, dst;
    unsigned dlid = 0;
    ls >> src >> dst >> dlid;
    ++pairs;
    CU_ASSERT(dlid > 0);
    for (int gone : {2, 5}) {
      char guid[24];
      std::snprintf(guid, sizeof guid, "0x%016" PRIx64, f.end_ports[gone].port_guid);
      CU_ASSERT(src != guid && dst != guid);
    }
  }
  CU_ASSERT_EQUAL(pairs, 6 * 5);
  std::remove((dir + "/ibunion-mlid-paths.dump").c_str());
  std::remove((dir + "/ibunion-mlid-lfts.dump").c_str());
  rmdir(dir.c_str());
}

// The port GUIDs of the end ports `names`, in that order.
std::vector<uint64_t> PortGuids(const Fabric& f, const std::vector<std::string>& names) {
  std::vector<uint64_t> out;
  for (const std::string& n : names) out.push_back(f.end_ports[EndPortNamed(f, n)].port_guid);
  return out;
}

// A 5x5 mesh under xymesh's paper trees and two SL-15 groups over its
// corners, A with H(2,0) and B with H(2,4): anchored on rows 0 and 4, their
// trees would close a credit loop on the multicast VL.
// The (switch GUID, port) bits a tree reports to OpenSM, through the
// bridge's mask callback.
using MaskBits = std::set<std::pair<uint64_t, int>>;
int RecordMaskBit(void* bits, uint64_t sw, int port) {
  static_cast<MaskBits*>(bits)->insert({sw, port});
  return 0;
}

struct CornerGroups {
  Fabric f = MakeMesh(5, 5);
  Log log;
  ibu_engine* e = nullptr;
  std::vector<uint64_t> a, b;
  CornerGroups() {
    AssignDefaultLids(f, 0);
    e = EngineOn(f, "xymesh", "xymesh_mcast=paper xymesh_dump=off", &log);
    a = PortGuids(f, {"H(0,0)", "H(0,4)", "H(4,0)", "H(4,4)", "H(2,0)"});
    b = PortGuids(f, {"H(0,0)", "H(0,4)", "H(4,0)", "H(4,4)", "H(2,4)"});
  }
  // Unicast, A on its 5 members, then B on the 4 corners (b without
  // H(2,4)), all on SL 15: both fit. B's mask bits.
  MaskBits RouteAThenBCorners() {
    MaskBits bits;
    CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 5, NoMask, nullptr), 0);
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 4, RecordMaskBit, &bits), 0);
    return bits;
  }
};

// The bridge's multicast lines name the MLID as the rest of the log does
// (0xc002, not the GUID-wide 0x000000000000c002) and say the group once
// (it was 'multicast group 0x000000000000c002 refused: multicast group
// 0xc002: SL 15 ...'). Two SL-15 groups over the corners of a 5x5 mesh,
// anchored on rows 0 and 4, would close a credit loop on paper mode's VL.
void McastLinesNameTheMlidOnce() {
  CornerGroups c;
  Log& log = c.log;
  ibu_engine* e = c.e;
  const std::vector<uint64_t>& a = c.a;
  const std::vector<uint64_t>& b = c.b;
  CU_ASSERT_NOT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 5, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_ERROR, "ibunion/xymesh: multicast group 0xc001 refused: no unicast routing yet"), 1);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 5, NoMask, nullptr), 0);
  CU_ASSERT_NOT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 5, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_ERROR,
            "ibunion/xymesh: multicast group 0xc002 refused: SL 15 (the multicast VL) and no tree"),
      1);
  const uint64_t stranger[] = {a[0], 0x1234};
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC003, -1, stranger, 2, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_INFO,
            "ibunion/xymesh: multicast group 0xc003: member 0x0000000000001234 is not an end port"),
      1);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR, "0x000000000000c0"), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "0x000000000000c0"), 0);
  // A switch's port 0 joined (IPoIB on a managed switch): the mesh's trees
  // reach every switch, so its port 0 is in the mask OpenSM gets, as
  // OpenSM's own multicast routing would set it (it was left out, with an
  // error line).
  const uint64_t with_switch[] = {a[0], a[1], c.f.switches[12].guid};
  MaskBits bits;
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC005, -1, with_switch, 3, RecordMaskBit, &bits), 0);
  CU_ASSERT_EQUAL(bits.count({c.f.switches[12].guid, 0}), 1u);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR, "multicast group 0xc005"), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "multicast group 0xc005: member"), 0);
  ibu_engine_free(e);
}

// Paper mode keeps a group's previous SL-15 tree when no new one fits: a
// switch that joined with that join is not on it, and is named as left
// out (it was left without copies, and unnamed).
void KeptTreeNamesTheSwitchItMisses() {
  CornerGroups c;
  const MaskBits before = c.RouteAThenBCorners();
  std::vector<uint64_t> joined = c.b;  // with H(2,4): no SL-15 tree fits
  const int mid = SwitchNamed(c.f, "N(1,1)");
  joined.push_back(c.f.switches[mid].guid);
  MaskBits masks;
  CU_ASSERT_EQUAL(ibu_route_mcast(c.e, 0xC002, 15, joined.data(), 6, RecordMaskBit, &masks), 0);
  CU_ASSERT(masks == before);
  CU_ASSERT_EQUAL(
      Count(c.log, IBU_LOG_ERROR, "it keeps its previous tree, which does not reach H(2,4), N(1,1)"), 1);
  CU_ASSERT_EQUAL(Count(c.log, IBU_LOG_ERROR,
                        "multicast group 0xc002: " + c.f.SwitchLabel(mid) +
                            " joined (its port 0) and gets no copies: no tree with it fits on SL 15's VL"),
                  1);
  ibu_engine_free(c.e);
}

// xymesh with one data VL hands OpenSM no SL-to-VL table (its ports keep
// OpenSM's, an administrator's QoS classes among them) and says so; with
// two it hands over its own, switch and host ports alike. (With one VL it
// used to put every SL on VL 0 over the administrator's qos_sl2vl.)
void OneDataVlLeavesOpenSmSl2Vl() {
  Fabric f = MakeMesh(3, 3);
  AssignDefaultLids(f, 0);
  for (int vls : {1, 2}) {
    Log log;
    const std::string options = "xymesh_dump=off xymesh_vls=" + std::to_string(vls);
    ibu_engine* e = EngineOn(f, "xymesh", options.c_str(), &log);
    CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
    uint8_t vl_by_sl[16];
    const int centre = SwitchNamed(f, "N(1,1)");
    CU_ASSERT_EQUAL(ibu_switch_sl2vl(e, f.switches[centre].guid, 1, 2, vl_by_sl), vls == 1 ? -1 : 0);
    CU_ASSERT_EQUAL(ibu_end_port_sl2vl(e, f.end_ports[0].port_guid, vl_by_sl), vls == 1 ? -1 : 0);
    CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "one data VL: the ports keep OpenSM's SL-to-VL tables"),
                    vls == 1);
    ibu_engine_free(e);
  }
}

// On FT(4,2) mlid's tree reaches one top switch: a group two top switches
// joined serves the first and names the second as an error, once however
// often the group is rebuilt; a group of switches alone has no tree (it is
// rooted at an end port), which is named likewise, once.
void SwitchLeftOutOfTreeSaidOnce() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 1);
  Log log;
  ibu_engine* e = EngineOn(f, "mlid", "mlid_dump=off", &log);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  const int top0 = SwitchNamed(f, "SW<0,0>"), top1 = SwitchNamed(f, "SW<1,0>");
  std::vector<uint64_t> members = PortGuids(f, {"P(00)", "P(31)"});
  members.push_back(f.switches[top0].guid);
  members.push_back(f.switches[top1].guid);
  MaskBits bits;
  for (int rebuild = 0; rebuild < 3; ++rebuild)
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, -1, members.data(), 4, RecordMaskBit, &bits), 0);
  CU_ASSERT_EQUAL(bits.count({f.switches[top0].guid, 0}), 1u);
  CU_ASSERT_EQUAL(bits.count({f.switches[top1].guid, 0}), 0u);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR,
                        "ibunion/mlid: multicast group 0xc001: " + f.SwitchLabel(top1) +
                            " joined (its port 0) and gets no copies: no up*/down* tree reaches it"),
                  1);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR, f.SwitchLabel(top0)), 0);
  const uint64_t switches_only[] = {f.switches[top0].guid};
  for (int rebuild = 0; rebuild < 2; ++rebuild)
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, -1, switches_only, 1, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR,
                        "multicast group 0xc002: " + f.SwitchLabel(top0) +
                            " joined (its port 0) and gets no copies: no end port is a member"),
                  1);
  ibu_engine_free(e);
}

// A join that no SL-15 tree fits (paper mode): OpenSM has cleared the
// MLID before asking, and a refusal left the group with no tree at all,
// its working members cut off by the newcomer. The group keeps the tree
// it had (reported to OpenSM again), the newcomer is named, and a group
// routed for the first time is still refused. (Also: the note that a
// group is not on SL 15 comes once per group.)
void McastJoinThatFitsNoTreeKeepsThePreviousOne() {
  CornerGroups c;
  Log& log = c.log;
  ibu_engine* e = c.e;
  const std::vector<uint64_t>& a = c.a;
  const std::vector<uint64_t>& b = c.b;
  const MaskBits before = c.RouteAThenBCorners();
  CU_ASSERT_FATAL(!before.empty());
  MaskBits masks;
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 5, RecordMaskBit, &masks), 0);  // H(2,4) joins
  CU_ASSERT(masks == before);
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_ERROR,
            "ibunion/xymesh: multicast group 0xc002: SL 15 (the multicast VL) and no tree with its 5 "
            "members fits on it without a credit loop; it keeps its previous tree, which does not "
            "reach H(2,4); create the group with another SL"),
      1);
  CU_ASSERT_NOT_EQUAL(ibu_route_mcast(e, 0xC003, 15, b.data(), 5, NoMask, nullptr), 0);  // no previous tree
  CU_ASSERT_EQUAL(
      Count(
          log, IBU_LOG_ERROR,
          "ibunion/xymesh: multicast group 0xc003 refused: SL 15 (the multicast VL) and no tree with its 5"),
      1);
  // A group on another SL is noted once, not at each of its rebuilds, nor
  // again when OpenSM routes once more (every heavy sweep).
  for (int members = 2; members <= 5; ++members)
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC004, 3, a.data(), members, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC004, 3, a.data(), 5, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "multicast group 0xc004: SL 3 from the SA, not 15"), 1);
  // A group deleted and created again is a new group: noted again.
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC004, 3, a.data(), 0, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC004, 3, a.data(), 2, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "multicast group 0xc004: SL 3 from the SA, not 15"), 2);
  ibu_engine_free(e);
}

// A leave while the group holds a kept tree (paper mode): the member that
// left was still in the kept tree's masks and got the group's packets. The
// tree is now pruned to the members left (its dependencies a subset, so it
// still fits): the leaver's host port and the branch only it needed go.
void McastLeaveFromAKeptTreePrunesTheLeaver() {
  CornerGroups c;
  ibu_engine* e = c.e;
  const std::vector<uint64_t>& b = c.b;
  const MaskBits corners = c.RouteAThenBCorners();
  MaskBits masks;
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 5, NoMask, nullptr), 0);  // H(2,4): kept
  // H(0,4) leaves: no tree for the other four fits, the kept one is pruned.
  masks.clear();
  const std::vector<uint64_t> left = {b[0], b[2], b[3], b[4]};
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, left.data(), 4, RecordMaskBit, &masks), 0);
  const EndPort& h04 = c.f.end_ports[EndPortNamed(c.f, "H(0,4)")];
  const uint64_t n04 = c.f.switches[h04.switch_index].guid;
  CU_ASSERT(corners.count({n04, h04.switch_port}) == 1);
  CU_ASSERT(masks.count({n04, h04.switch_port}) == 0);
  CU_ASSERT(!masks.empty() && masks.size() < corners.size());
  for (const auto& m : masks) CU_ASSERT(corners.count(m) == 1);  // a part of the kept tree
  CU_ASSERT_EQUAL(
      Count(c.log, IBU_LOG_ERROR,
            "ibunion/xymesh: multicast group 0xc002: SL 15 (the multicast VL) and no tree with its 4 "
            "members fits on it without a credit loop; it keeps its previous tree without the "
            "branches to ports that left, which does not reach H(2,4)"),
      1);
  ibu_engine_free(e);
}

// `f` as OpenSM describes it once host `name`'s link is down.
Fabric WithoutHost(const Fabric& f, const std::string& name) {
  return WithoutEndPort(f, EndPortNamed(f, name));
}

// A heavy sweep routes again and then rebuilds every group in MLID order.
// On an unchanged mesh it took multicast from working groups (audit under
// OpenSM, paper mode): the multicast VL started empty, so A, grown since B
// took the VL, now came first and B was refused; and a kept tree was
// forgotten. On the same cabling both keep what they had.
void McastTreesOutliveARoutingOfTheSameCabling() {
  CornerGroups c;
  ibu_engine* e = c.e;
  const std::vector<uint64_t>& a = c.a;
  const std::vector<uint64_t>& b = c.b;
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  MaskBits a_before, b_before;
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 2, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 5, RecordMaskBit, &b_before), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 5, RecordMaskBit, &a_before), 0);  // A grows
  CU_ASSERT_FATAL(!a_before.empty() && !b_before.empty());
  // Two heavy sweeps, then one after H(1,1), in neither group, went down
  // (a host's port changes no switch link; it reset the VL too).
  for (int sweep = 0; sweep < 3; ++sweep) {
    if (sweep == 2) DescribeFabricToBridge(e, WithoutHost(c.f, "H(1,1)"));
    CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
    MaskBits a_after, b_after;
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 5, RecordMaskBit, &a_after), 0);
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 5, RecordMaskBit, &b_after), 0);
    CU_ASSERT(a_after == a_before);
    CU_ASSERT(b_after == b_before);
  }
  CU_ASSERT_EQUAL(Count(c.log, IBU_LOG_ERROR, "refused"), 0);
  ibu_engine_free(e);
}

// A member's host goes down while its group holds a kept tree: OpenSM
// routes again (switch links unchanged: the tree stays admitted) and
// rebuilds the group without it. The kept tree loses that host port, which
// now leads nowhere (the pruning kept bits of ports no end port had).
void McastKeptTreeLosesAHostThatWentDown() {
  CornerGroups c;
  ibu_engine* e = c.e;
  const EndPort& h10 = c.f.end_ports[EndPortNamed(c.f, "H(1,0)")];
  const std::pair<uint64_t, int> h10_bit = {c.f.switches[h10.switch_index].guid, h10.switch_port};
  // B over the corners and H(1,0) fits beside A; H(2,4) joining does not:
  // B keeps that tree.
  std::vector<uint64_t> b = {c.b[0], c.b[1], c.b[2], c.b[3], h10.port_guid};
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, c.a.data(), 5, NoMask, nullptr), 0);
  MaskBits kept;
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 5, NoMask, nullptr), 0);
  b.push_back(c.b[4]);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 6, RecordMaskBit, &kept), 0);
  CU_ASSERT(kept.count(h10_bit) == 1);
  // H(1,0) goes down: routed again, B rebuilt without it, still kept.
  DescribeFabricToBridge(e, WithoutHost(c.f, "H(1,0)"));
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, c.a.data(), 5, NoMask, nullptr), 0);
  MaskBits after;
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 6, RecordMaskBit, &after), 0);
  CU_ASSERT(!after.empty() && after.count(h10_bit) == 0);
  for (const auto& bit : after) CU_ASSERT(kept.count(bit) == 1);
  CU_ASSERT_EQUAL(Count(c.log, IBU_LOG_ERROR, "it keeps its previous tree"), 2);
  ibu_engine_free(e);
}

// OpenSM deletes a group without a call, and the SA hands its MLID to the
// next new group: before each tree the adapter has stale trees forgotten.
// A deleted group's tree kept counting on xymesh's multicast VL (B was
// refused H(2,4) as in the test above, though A was gone), and a new group
// on a deleted one's MLID was rebuilt as that group ("rebuild 3", and its
// tree kept as "previous").
void StaleMcastTreesForgotten() {
  CornerGroups c;
  Fabric& f = c.f;
  Log& log = c.log;
  ibu_engine* e = c.e;
  const std::vector<uint64_t>& a = c.a;
  const std::vector<uint64_t>& b = c.b;
  const uint8_t mgid_a[16] = {0xff, 0x12, 0xe0, 0x01, 0xa}, mgid_b[16] = {0xff, 0x12, 0xe0, 0x01, 0xb},
                mgid_c[16] = {0xff, 0x12, 0xe0, 0x01, 0xc};
  std::set<uint16_t> alive = {0xC001, 0xC002};
  auto is_alive = [](void* ctx, uint16_t mlid) {
    return static_cast<int>(static_cast<std::set<uint16_t>*>(ctx)->count(mlid));
  };
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  ibu_forget_dead_mcast(e, is_alive, &alive);
  ibu_forget_replaced_mcast(e, 0xC001, &mgid_a, 1);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 5, NoMask, nullptr), 0);
  ibu_forget_dead_mcast(e, is_alive, &alive);
  ibu_forget_replaced_mcast(e, 0xC002, &mgid_b, 1);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 4, NoMask, nullptr), 0);
  alive.erase(0xC001);  // A's last full member left
  ibu_forget_dead_mcast(e, is_alive, &alive);
  ibu_forget_replaced_mcast(e, 0xC002, &mgid_b, 1);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC002, 15, b.data(), 5, NoMask, nullptr), 0);  // H(2,4) joins
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_ERROR, "keeps its previous tree"), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_INFO, "its anchor tree would close a credit loop"), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, "multicast group 0xc001: deleted by OpenSM"), 1);

  ibu_engine_free(e);

  // C takes the MLID of A, deleted after its last build, before any call:
  // the MLID is alive when C's tree is asked for, with another MGID.
  log.lines.clear();
  e = EngineOn(f, "xymesh", "xymesh_mcast=paper xymesh_dump=off", &log);
  alive = {0xC001};
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  for (int i = 0; i < 2; ++i) {
    ibu_forget_dead_mcast(e, is_alive, &alive);
    ibu_forget_replaced_mcast(e, 0xC001, &mgid_a, 1);
    CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 3, NoMask, nullptr), 0);
  }
  ibu_forget_dead_mcast(e, is_alive, &alive);
  ibu_forget_replaced_mcast(e, 0xC001, &mgid_c, 1);
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_VERBOSE, "multicast group 0xc001: a new group on the MLID of a deleted one"), 1);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 2, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, "multicast group 0xc001: tree of 2 members rebuilt in"), 1);
  // Two MGIDs on the MLID (consolidated groups), then the first one gone:
  // the same live group, its tree kept.
  const uint8_t both[2][16] = {{0xff, 0x12, 0xe0, 0x01, 0xc}, {0xff, 0x12, 0xe0, 0x01, 0xd}};
  ibu_forget_dead_mcast(e, is_alive, &alive);
  ibu_forget_replaced_mcast(e, 0xC001, both, 2);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 3, NoMask, nullptr), 0);
  ibu_forget_dead_mcast(e, is_alive, &alive);
  ibu_forget_replaced_mcast(e, 0xC001, both + 1, 1);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, "a new group on the MLID of a deleted one"), 1);
  CU_ASSERT_EQUAL(ibu_route_mcast(e, 0xC001, 15, a.data(), 3, NoMask, nullptr), 0);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, " us (rebuild 3)"), 1);
  CU_ASSERT_EQUAL(Count(log, IBU_LOG_VERBOSE, "tree of 2 members rebuilt in"), 1);
  bool first_build = false;
  for (const auto& [level, text] : log.lines)
    first_build |= Contains(text, "0xc001: tree of 2 members") && Contains(text, "(rebuild 1)");
  CU_ASSERT(first_build);
  ibu_engine_free(e);
}

// OpenSM's path_sl: an engine whose VLs do not depend on the SL leaves
// OpenSM's SL (a QoS policy's, or the one a PathRecord asks for); mlid
// answered SL 0 for every path, and a query for SL 3 got no path at all.
void PathSlOnlyWhereTheEngineNeedsIt() {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"mlid", "mlid_dump=off"},
      {"xymesh", "xymesh_dump=off"},
      {"xymesh", "xymesh_dump=off xymesh_vls=2 xymesh_vl_mode=dedicated"},
      {"xymesh", "xymesh_dump=off xymesh_vls=2"},
      {"xymesh", "xymesh_dump=off xymesh_mcast=paper"}};
  const std::vector<bool> answers = {false, false, false, true, true};
  for (size_t i = 0; i < cases.size(); ++i) {
    Fabric f = cases[i].first == "mlid" ? MakeFatTree(4, 2) : MakeMesh(3, 3);
    AssignDefaultLids(f, 0);
    Log log;
    ibu_engine* e = EngineOn(f, cases[i].first.c_str(), cases[i].second.c_str(), &log);
    CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
    uint8_t sl = 99;
    const int rc = ibu_path_sl(e, f.end_ports[0].base_lid, f.end_ports[1].base_lid, &sl);
    if ((rc == 0) != answers[i])
      fprintf(stderr, "\n  %s %s: path_sl %d", cases[i].first.c_str(), cases[i].second.c_str(), rc);
    CU_ASSERT_EQUAL(rc == 0, answers[i]);
    ibu_engine_free(e);
  }
}

// The plugin's dumps describe the routing in place: a refused routing
// (OpenSM then routes with its fallback) removes the last one's files, as
// does a later engine with the dumps off. They used to stay, looking
// current, with OpenSM's fallback tables in the switches.
void StaleDumpsRemoved() {
  char tmpl[] = "/tmp/ibu-dumps-XXXXXX";
  const std::string dir = mkdtemp(tmpl);
  const std::string lfts = dir + "/ibunion-mlid-lfts.dump", paths = dir + "/ibunion-mlid-paths.dump";
  auto exists = [](const std::string& p) { return access(p.c_str(), F_OK) == 0; };
  Fabric tree = MakeFatTree(4, 2);
  AssignDefaultLids(tree, 1);
  Fabric mesh = MakeMesh(3, 3);
  AssignDefaultLids(mesh, 0);
  Log log;
  ibu_engine* e = EngineOn(tree, "mlid", "mlid_dump=on", &log);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  ibu_dump(e, dir.c_str());
  CU_ASSERT(exists(lfts) && exists(paths));
  DescribeFabricToBridge(e, mesh);  // a cabling mlid refuses
  CU_ASSERT_NOT_EQUAL(ibu_route_unicast(e), 0);
  ibu_dump(e, dir.c_str());
  CU_ASSERT(!exists(lfts) && !exists(paths));
  CU_ASSERT_EQUAL(
      Count(log, IBU_LOG_INFO,
            "removed " + lfts + ", " + paths + " of an earlier routing (this routing was refused)"),
      1);
  ibu_engine_free(e);

  Log off;
  std::ofstream(lfts) << "old\n";
  e = EngineOn(tree, "mlid", "mlid_dump=off", &off);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  ibu_dump(e, dir.c_str());
  CU_ASSERT(!exists(lfts));
  CU_ASSERT_EQUAL(Count(off, IBU_LOG_INFO, "(dumps are off)"), 1);
  ibu_engine_free(e);

  // Off is the default, as for OpenSM's own dumps (they are switches x
  // LIDs of text, written inside the routing phase).
  Log by_default;
  std::ofstream(lfts) << "old\n";
  e = EngineOn(tree, "mlid", "", &by_default);
  CU_ASSERT_EQUAL_FATAL(ibu_route_unicast(e), 0);
  ibu_dump(e, dir.c_str());
  CU_ASSERT(!exists(lfts) && !exists(paths));
  CU_ASSERT_EQUAL(Count(by_default, IBU_LOG_INFO, "(dumps are off)"), 1);
  ibu_engine_free(e);
  rmdir(dir.c_str());
}

}  // namespace

void RegisterBridgeSuite() {
  CU_pSuite s = CU_add_suite("OpenSM bridge", nullptr, nullptr);
  CU_add_test(s, "multicast rebuild line only when verbose is on", McastRebuildLineOnlyWhenVerbose);
  CU_add_test(s, "paper mode: a routing of the same cabling keeps the multicast VL's trees",
              McastTreesOutliveARoutingOfTheSameCabling);
  CU_add_test(s, "trees of deleted groups and of reused MLIDs forgotten", StaleMcastTreesForgotten);
  CU_add_test(s, "<engine>_dump read like the engines' on/off options", DumpOptionReadLikeEngineOptions);
  CU_add_test(s, "options shared with other event plugins", OptionsSharedWithOtherPlugins);
  CU_add_test(s, "options of engines not in routing_engine", OptionsOfEnginesNotInTheChain);
  CU_add_test(s, "end ports without a LID: logged, no path-map line", EndPortsWithoutLid);
  CU_add_test(s, "multicast lines name the MLID once, as 0xc0nn", McastLinesNameTheMlidOnce);
  CU_add_test(s, "a switch member left out of mlid's tree is said once", SwitchLeftOutOfTreeSaidOnce);
  CU_add_test(s, "one data VL leaves OpenSM's SL-to-VL tables", OneDataVlLeavesOpenSmSl2Vl);
  CU_add_test(s, "a kept SL-15 tree names the switch member it misses", KeptTreeNamesTheSwitchItMisses);
  CU_add_test(s, "path_sl answered only by engines whose VLs need the SL", PathSlOnlyWhereTheEngineNeedsIt);
  CU_add_test(s, "a refused routing or dumps off remove the last routing's dumps", StaleDumpsRemoved);
  CU_add_test(s, "a join no SL-15 tree fits keeps the group's previous tree",
              McastJoinThatFitsNoTreeKeepsThePreviousOne);
  CU_add_test(s, "a leave from a kept SL-15 tree prunes the leaver", McastLeaveFromAKeptTreePrunesTheLeaver);
  CU_add_test(s, "a kept SL-15 tree loses a host that went down", McastKeptTreeLosesAHostThatWentDown);
}

}  // namespace ibu::test
