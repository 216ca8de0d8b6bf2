// C API over the core for the OpenSM adapter (see bridge.h). Every entry
// point catches everything: the plugin must never take OpenSM down.
#include "plugin/osm/bridge.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/fabric.h"
#include "plugin/core/output_files.h"
#include "plugin/core/path_map.h"
#include "plugin/core/tables.h"

namespace {

struct PendingLink {
  uint64_t guid;
  int port;
  uint64_t peer_guid;
  int peer_port;
};

struct PendingEndPort {
  ibu::EndPort ep;
  uint64_t switch_guid;
};

}  // namespace

struct ibu_engine {
  std::string name;
  std::string option_error;  // non-empty: refuse every routing call
  std::unique_ptr<ibu::Engine> engine;
  ibu_log_fn log = nullptr;
  ibu_log_active_fn log_active = nullptr;  // null: every level is logged
  void* log_ctx = nullptr;

  // The fabric being described, then the routed one.
  std::vector<ibu::Switch> switches;
  std::vector<PendingLink> links;
  std::vector<PendingEndPort> end_ports;
  ibu::Fabric fabric;
  ibu::Tables tables;
  bool routed = false;
  // <engine>_dump=on|off: the readable dumps after routing. Off unless
  // asked, as OpenSM's own: they are switches x LIDs of text written inside
  // OpenSM's routing phase (755 MB a routing on FT(16,3) at LMC 5, which
  // took the phase from 0.02-0.4 s to 1-4 s).
  bool dump = false;
  // Per MLID the engine has built a tree for, until OpenSM deletes it: its
  // rebuilds since the last unicast routing (join/leave cost in the log:
  // one verbose line per rebuild, counted whether or not the line is
  // logged, so it is right when verbose logging is turned on) and the MGIDs
  // it was built for (the SA reuses a deleted group's MLID).
  struct McastState {
    long rebuilds = 0;
    std::vector<std::array<uint8_t, 16>> mgids;
    // Switch members (GUID, why) whose port 0 the tree left out: each said
    // once (a switch that waited for an end port may be left out later).
    std::vector<std::pair<uint64_t, std::string>> left_out_logged;
  };
  std::unordered_map<uint16_t, McastState> mcast;
  // A group's members de-duplicated: member_mark[ep] == member_stamp when
  // end port ep is already listed in this rebuild. Sized again only when a
  // rebuild finds the end-port count changed, and stamped anew per
  // rebuild, so a rebuild costs O(members),
  // not O(end ports) (a heavy sweep rebuilds every group, thousands of
  // small ones on a large fabric).
  std::vector<uint32_t> member_mark;
  uint32_t member_stamp = 0;

  // A stamp no entry of member_mark holds yet.
  uint32_t NewMemberStamp() {
    if (member_mark.size() != fabric.end_ports.size() || ++member_stamp == 0) {
      member_mark.assign(fabric.end_ports.size(), 0);
      member_stamp = 1;
    }
    return member_stamp;
  }

  void ForgetMcast(uint16_t mlid) {
    engine->ForgetMulticast(fabric, mlid, tables);
    mcast.erase(mlid);
  }

  bool LogActive(int level) const { return log && (!log_active || log_active(log_ctx, level)); }
  void Log(int level, const std::string& msg) const {
    if (LogActive(level)) log(log_ctx, level, ("ibunion/" + name + ": " + msg).c_str());
  }
};

namespace {

ibu::LogSink SinkOf(ibu_engine* e) {
  return [e](ibu::LogLevel level, const std::string& msg) {
    e->Log(level == ibu::LogLevel::kError ? IBU_LOG_ERROR
                                          : level == ibu::LogLevel::kInfo ? IBU_LOG_INFO
                                                                          : IBU_LOG_VERBOSE,
           msg);
  };
}

// Turns the described subnet into a Fabric; throws ibu::Error naming what
// does not fit together.
void BuildFabric(ibu_engine* e) {
  ibu::Fabric f;
  f.switches = e->switches;
  std::unordered_map<uint64_t, int> index;
  for (size_t s = 0; s < f.switches.size(); ++s) index[f.switches[s].guid] = static_cast<int>(s);
  auto find = [&](uint64_t guid) {
    auto it = index.find(guid);
    if (it == index.end()) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "0x%016" PRIx64, guid);
      throw ibu::Error(std::string("link to unknown switch ") + buf);
    }
    return it->second;
  };
  for (const PendingLink& l : e->links) {
    const int a = find(l.guid), b = find(l.peer_guid);
    if (l.port < 1 || l.port > f.switches[a].num_ports || l.peer_port < 1 ||
        l.peer_port > f.switches[b].num_ports)
      throw ibu::Error(f.PortLabel(a, l.port) + ": port number out of range");
    ibu::ConnectSwitches(f, a, l.port, b, l.peer_port);
  }
  for (const PendingEndPort& p : e->end_ports) {
    const int sw = find(p.switch_guid);
    f.end_ports.push_back(p.ep);
    ibu::ConnectEndPort(f, static_cast<int>(f.end_ports.size() - 1), sw, p.ep.switch_port);
  }
  f.Finalize();
  e->fabric = std::move(f);
}

// The map has n^2 lines: beyond this many end ports it is left to
// `ibunion route --paths`, which computes the same rule on demand.
constexpr size_t kMaxPathMapPorts = 4096;

// ibunion-<engine>-lfts.dump and, on fabrics small enough, -paths.dump.
std::vector<ibu::OutputFile> DumpFiles(const ibu_engine& e, const std::string& dir) {
  const std::string base = ibu::EngineDumpBase(dir, e.name);
  std::vector<ibu::OutputFile> files = {
      {base + ibu::kLftsDumpSuffix, [&e](std::ostream& os) { ibu::WriteLfts(os, e.fabric, e.tables); }}};
  const size_t n = e.fabric.end_ports.size();
  if (n > kMaxPathMapPorts) {
    e.Log(IBU_LOG_INFO, "path-selection map not dumped: " + std::to_string(n) +
                            " end ports (the map has n^2 lines; the rule is "
                            "Engine::SelectDlid, computed on demand by ibunion route --paths)");
    return files;
  }
  files.push_back({base + ibu::kPathsDumpSuffix, [&e](std::ostream& os) {
                     os << "# src_port_guid dst_port_guid dlid (ibunion " << e.name
                        << " path selection)\n";
                     ibu::WritePathMap(os, e.fabric, [&e](int s, int d) {
                       return e.engine->SelectDlid(e.fabric, s, d);
                     });
                   }});
  return files;
}

// The engine's dumps of an earlier routing, which would pass for this one's
// (they no longer describe the switches once OpenSM routes with its
// fallback, or after a routing whose map is not written): removed, and the
// log says so once per removal.
void RemoveStaleDumps(const ibu_engine& e, const std::string& dir, const std::string& why,
                      std::initializer_list<const char*> suffixes = {ibu::kLftsDumpSuffix,
                                                                     ibu::kPathsDumpSuffix}) {
  const std::string base = ibu::EngineDumpBase(dir, e.name);
  std::string removed;
  for (const char* suffix : suffixes)
    if (std::remove((base + suffix).c_str()) == 0) removed += (removed.empty() ? "" : ", ") + base + suffix;
  if (!removed.empty())
    e.Log(IBU_LOG_INFO, "removed " + removed + " of an earlier routing (" + why +
                            "): they no longer describe the switches");
}

// OpenSM leaves end ports without a LID when the unicast LIDs run out (its
// 'OPENSM RAN OUT OF LIDS' errors): they are routed as absent, which must
// not pass silently, so one line per routing counts them and names the first.
void NoteEndPortsWithoutLid(const ibu_engine& e) {
  const std::vector<ibu::EndPort>& eps = e.fabric.end_ports;
  const auto first =
      std::find_if(eps.begin(), eps.end(), [](const ibu::EndPort& ep) { return ep.base_lid == 0; });
  if (first == eps.end()) return;
  const long missing =
      std::count_if(first, eps.end(), [](const ibu::EndPort& ep) { return ep.base_lid == 0; });
  e.Log(IBU_LOG_ERROR,
        std::to_string(missing) + " of " + std::to_string(eps.size()) +
            " end ports have no LID (first: " + first->name + ", port GUID " + ibu::Hex16(first->port_guid) +
            "): nothing can reach them and they are left out of the path map; OpenSM assigns no "
            "LID when the unicast LIDs (up to 0xBFFF) run out, each port taking 2^lmc: lower lmc");
}

// Hands the group's masks to OpenSM: the switches of its tree when the
// engine keeps them (O(tree) per join or leave), else every switch. False
// as soon as `set` refuses a bit (a switch that cannot hold the MLID).
bool ReportMcastMasks(const ibu_engine& e, uint16_t mlid, ibu_mask_fn set, void* ctx) {
  auto report = [&](size_t s) {
    const auto it = e.tables.mft[s].groups.find(mlid);
    if (it == e.tables.mft[s].groups.end()) return true;
    for (int p = 0; p <= e.fabric.switches[s].num_ports; ++p)
      if (it->second.test(p) && set(ctx, e.fabric.switches[s].guid, p) != 0) return false;
    return true;
  };
  if (const std::vector<int>* tree = e.engine->McastSwitches(mlid)) {
    for (int s : *tree)
      if (!report(size_t(s))) return false;
  } else {
    for (size_t s = 0; s < e.tables.mft.size(); ++s)
      if (!report(s)) return false;
  }
  return true;
}

// Whether OpenSM sets up engine `name`: its setup_routing_engines splits
// routing_engine at ", \t\n" and compares names exactly. Unset, it sets up
// minhop only.
bool InRoutingChain(const char* routing_engines, const std::string& name) {
  const char* kSeparators = ", \t\n";
  const std::string chain = routing_engines ? routing_engines : "";
  size_t at = 0;
  while ((at = chain.find_first_not_of(kSeparators, at)) != std::string::npos) {
    const size_t end = std::min(chain.find_first_of(kSeparators, at), chain.size());
    if (chain.compare(at, end - at, name) == 0) return true;
    at = end;
  }
  return false;
}

// OpenSM reads opensm.conf with fgets(line, 1023, ...): at most 1,022
// characters of a line, the rest read as a line of its own whose first word
// it prints as an "Unrecognized token" (stdout and syslog, not its log file)
// and whose other words it drops. After "event_plugin_options" and a
// blank, the value holds at most 1,001.
constexpr size_t kOpenSmOptionsRoom = 1022 - (sizeof("event_plugin_options") - 1) - 1;
// A cut value can be this much shorter than the room: OpenSM strips the
// blanks before a cut, and aligned config files put several blanks or
// tabs after the key.
constexpr size_t kCutSlack = 40;

// Non-empty when the options string is so long that OpenSM may have cut
// it: the words past the cut never reach ibunion, and a word cut in two
// reads as another option.
std::string CutWarning(const std::string& options) {
  if (options.size() + kCutSlack < kOpenSmOptionsRoom) return "";
  return "event_plugin_options is " + std::to_string(options.size()) + " characters, at OpenSM's limit (" +
         std::to_string(kOpenSmOptionsRoom) +
         " after the key: it reads 1022 characters of an opensm.conf line); words past the limit never "
         "reached ibunion (OpenSM prints the first on its standard output as an \"Unrecognized "
         "token\"), and the last word read may be cut in two";
}

// An option word as a log line lists it: quoted when it holds blanks
// ("xymesh_vls = 2" is one option, not the word xymesh_vls).
std::string ListedWord(const std::string& w) {
  const bool blanks = w.find(' ') != std::string::npos;
  return blanks ? "'" + ibu::VisibleWord(w) + "'" : ibu::VisibleWord(w);
}

// Options shared with other event plugins: the words with an ibunion
// prefix; the others are listed once (by the first engine) as theirs.
std::string OwnWords(const ibu_engine& e, const std::string& text, bool first) {
  std::vector<std::string> others;
  std::string own = ibu::OwnOptionWords(text, &others);
  if (!others.empty() && first) {
    std::string list;
    for (const std::string& w : others) list += " " + ListedWord(w);
    e.Log(IBU_LOG_INFO, "event_plugin_options: left to the other event plugins:" + list);
  }
  return own;
}

// An engine OpenSM never calls: a bad option of its own was logged as an
// error that makes it "refuse every fabric", beside an engine in the chain
// routing fine. Its words are only listed, and not read.
void SetAsideUnusedOptions(ibu_engine& e, const std::string& text, const char* routing_engines) {
  std::string listed;
  for (const std::string& w : ibu::OptionWords(text))
    if (w.rfind(e.name + "_", 0) == 0) listed += " " + ListedWord(w);
  const std::string chain = routing_engines && *routing_engines
                                ? std::string("routing_engine ") + routing_engines
                                : "routing_engine (not set: OpenSM routes with minhop)";
  if (!listed.empty())
    e.Log(IBU_LOG_INFO,
          "not in " + chain + ", so these event_plugin_options are not used (nor checked):" + listed);
  e.option_error = "not in " + chain + ", so its options were not read";
}

}  // namespace

extern "C" {

const char* const ibu_osm_engine_names[IBU_OSM_NUM_ENGINES] = {"mlid", "xymesh"};

ibu_engine* ibu_engine_new(const char* name, const char* options, int options_shared, const char* routing_engines,
                           ibu_log_fn log, void* log_ctx) {
  try {
    auto* e = new ibu_engine;
    e->name = name;
    e->log = log;
    e->log_ctx = log_ctx;
    const bool first = e->name == ibu_osm_engine_names[0];  // says what concerns all engines once
    std::string text = options ? options : "";
    const std::string cut = CutWarning(text);
    try {
      if (!cut.empty() && first) e->Log(IBU_LOG_ERROR, cut);
      if (options_shared) text = OwnWords(*e, text, first);
      if (!InRoutingChain(routing_engines, e->name)) {
        SetAsideUnusedOptions(*e, text, routing_engines);
        return e;
      }
      // <engine>_dump belongs to the adapter, not the algorithm: checked
      // by the core in its place among the engine's words, read here.
      e->engine = ibu::MakeEngine(
          name, ibu::OptionWords(text), SinkOf(e),
          std::vector<std::string>(ibu_osm_engine_names, ibu_osm_engine_names + IBU_OSM_NUM_ENGINES),
          {ibu::OnOffKey(e->name + "_dump", &e->dump)});
      if (e->engine->TreesForAnchorOnly()) {
        e->engine.reset();
        throw ibu::Error(
            "option 'xymesh_mcast=source': its trees are for their anchor alone to send on (the timing "
            "model's per-source trees), and every member of an SA group may send: use xymesh_mcast=trunk "
            "or paper");
      }
    } catch (const std::exception& err) {
      e->option_error = err.what();
      e->Log(IBU_LOG_ERROR, "bad event_plugin_options: " + e->option_error +
                                "; this engine will refuse every fabric" +
                                (cut.empty() ? "" : " (" + cut + ")"));
    }
    return e;
  } catch (...) {
    return nullptr;
  }
}

void ibu_engine_free(ibu_engine* e) { delete e; }

void ibu_engine_set_log_active(ibu_engine* e, ibu_log_active_fn active) { e->log_active = active; }

const char* ibu_engine_name(const ibu_engine* e) { return e->name.c_str(); }

void ibu_fabric_reset(ibu_engine* e) {
  e->switches.clear();
  e->links.clear();
  e->end_ports.clear();
}

void ibu_fabric_add_switch(ibu_engine* e, uint64_t guid, const char* name, int num_ports,
                           uint16_t lid, uint8_t lmc) {
  try {
    ibu::Switch sw;
    sw.guid = guid;
    sw.name = name ? name : "";
    sw.num_ports = num_ports;
    sw.lid = lid;
    sw.lmc = lmc;
    sw.ports.resize(num_ports + 1);
    e->switches.push_back(std::move(sw));
  } catch (...) {
  }
}

void ibu_fabric_add_switch_link(ibu_engine* e, uint64_t guid, int port, uint64_t peer_guid,
                                int peer_port) {
  try {
    e->links.push_back({guid, port, peer_guid, peer_port});
  } catch (...) {
  }
}

void ibu_fabric_add_end_port(ibu_engine* e, uint64_t port_guid, uint64_t node_guid,
                             const char* name, int port_num, uint16_t base_lid, uint8_t lmc,
                             uint64_t switch_guid, int switch_port) {
  try {
    PendingEndPort p;
    p.ep.port_guid = port_guid;
    p.ep.node_guid = node_guid;
    p.ep.name = name ? name : "";
    p.ep.port_num = port_num;
    p.ep.base_lid = base_lid;
    p.ep.lmc = lmc;
    p.ep.switch_port = switch_port;
    p.switch_guid = switch_guid;
    e->end_ports.push_back(std::move(p));
  } catch (...) {
  }
}

namespace {

// The LIDs in use, which the log once gave as the highest LID (2,719 for
// 2,128 LIDs at LMC 4 on a shuffled FT(8,3)).
long LidsAssigned(const ibu::Fabric& f) {
  long lids = 0;
  for (const ibu::Switch& sw : f.switches) lids += sw.lid ? 1 << sw.lmc : 0;
  for (const ibu::EndPort& ep : f.end_ports) lids += ep.base_lid ? ep.lid_count() : 0;
  return lids;
}

}  // namespace

namespace {

// With one data VL the engine's tables put every SL on VL 0, and any table
// that maps each SL alike on every switch port keeps its routes free of
// credit loops (each VL carries a part of the one-VL traffic): the ports
// keep OpenSM's, so an administrator's QoS classes (qos_sl2vl) stay apart.
bool LeavesOpenSmSl2Vl(const ibu_engine* e) { return ibu_data_vls(e) <= 1; }

}  // namespace

int ibu_route_unicast(ibu_engine* e) {
  e->routed = false;
  if (!e->option_error.empty()) {
    e->Log(IBU_LOG_ERROR, "refusing: bad event_plugin_options: " + e->option_error);
    return -1;
  }
  try {
    const auto start = std::chrono::steady_clock::now();
    BuildFabric(e);
    NoteEndPortsWithoutLid(*e);
    e->tables = ibu::Tables{};
    ibu::RouteUnicastAndVls(*e->engine, e->fabric, e->tables);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    char buf[192];
    std::snprintf(buf, sizeof buf, "routed %zu switches, %zu end ports, %ld LIDs (up to %u) in %.3f s",
                  e->fabric.switches.size(), e->fabric.end_ports.size(), LidsAssigned(e->fabric),
                  e->fabric.max_lid(), secs);
    e->Log(IBU_LOG_INFO, buf);
    if (LeavesOpenSmSl2Vl(e) && !e->tables.sl2vl.empty())
      e->Log(IBU_LOG_INFO,
             "one data VL: the ports keep OpenSM's SL-to-VL tables (its QoS ones with qos TRUE); a table "
             "that maps each SL alike on every switch port keeps the routes free of credit loops");
    e->routed = true;
    // The groups stay known (an engine may keep their trees, xymesh's
    // multicast VL on the same cabling): deleted ones are still forgotten.
    for (auto& [mlid, state] : e->mcast) state.rebuilds = 0;
    return 0;
  } catch (const std::exception& err) {
    e->Log(IBU_LOG_ERROR, std::string("refusing: ") + err.what());
  } catch (...) {
    e->Log(IBU_LOG_ERROR, "refusing: unexpected internal error");
  }
  return -1;
}

const uint8_t* ibu_lft(const ibu_engine* e, uint64_t switch_guid, size_t* len) {
  if (!e->routed) return nullptr;
  const int s = e->fabric.SwitchByGuid(switch_guid);
  if (s < 0 || static_cast<size_t>(s) >= e->tables.lft.size()) return nullptr;
  *len = e->tables.lft[s].out.size();
  return e->tables.lft[s].out.data();
}

namespace {

// The engine forgets the tree of `mlid` (a refused, deleted or replaced
// group); a failure is logged, never thrown across the C boundary.
void ForgetTree(ibu_engine* e, uint16_t mlid) {
  if (!e->routed) return;
  try {
    e->ForgetMcast(mlid);
  } catch (const std::exception& err) {
    e->Log(IBU_LOG_ERROR,
           "multicast group " + ibu::HexLid(mlid) + ": forgetting its tree failed: " + err.what());
  }
}

}  // namespace

namespace {

// A switch member the tree left out gets no copies, which an administrator
// must hear of: once per switch and group, not per rebuild.
void LogSwitchMembersLeftOut(ibu_engine& e, uint16_t mlid,
                             const std::vector<std::pair<int, std::string>>& left_out) {
  auto& logged = e.mcast[mlid].left_out_logged;
  for (const auto& [sw, why] : left_out) {
    std::pair<uint64_t, std::string> said{e.fabric.switches[sw].guid, why};
    if (std::find(logged.begin(), logged.end(), said) != logged.end()) continue;
    logged.push_back(std::move(said));
    e.Log(IBU_LOG_ERROR, ibu::SwitchMemberLeftOut(e.fabric, mlid, sw, why));
  }
}

}  // namespace

int ibu_route_mcast(ibu_engine* e, uint16_t mlid, int sl, const uint64_t* member_guids, int n,
                    ibu_mask_fn set, void* ctx) {
  if (!e->routed) {
    e->Log(IBU_LOG_ERROR, ibu::McastRefusal(mlid, "no unicast routing yet"));
    return -1;
  }
  try {
    ibu::McastGroup g;
    g.mlid = mlid;
    g.sl = sl;
    // Several MGIDs may share the MLID (consolidate_ipv6_snm_req), and a
    // port in two of them is listed twice: the tree spans it once, and the
    // log counted it twice. First listing kept, so the order stays OpenSM's.
    const uint32_t stamp = e->NewMemberStamp();
    for (int i = 0; i < n; ++i) {
      const int ep = e->fabric.EndPortByGuid(member_guids[i]);
      // A managed switch's port 0 (IPoIB on the switch) may join.
      if (const int sw = ep < 0 ? e->fabric.SwitchByGuid(member_guids[i]) : -1; sw >= 0) {
        if (std::find(g.switch_members.begin(), g.switch_members.end(), sw) == g.switch_members.end())
          g.switch_members.push_back(sw);
        continue;
      }
      if (ep < 0) {
        e->Log(IBU_LOG_INFO, "multicast group " + ibu::HexLid(mlid) + ": member " + ibu::Hex16(member_guids[i]) +
                                 " is not an end port of the routed fabric; skipped");
        continue;
      }
      if (e->member_mark[ep] == stamp) continue;
      e->member_mark[ep] = stamp;
      g.members.push_back(ep);
    }
    // Nothing to forward; OpenSM cleared the MLID.
    if (g.members.empty() && g.switch_members.empty()) {
      e->ForgetMcast(mlid);
      return 0;
    }
    // Only switches: trees are rooted at an end port. The group stays
    // known, so each switch is named once, not at every rebuild.
    if (g.members.empty()) {
      e->engine->ForgetMulticast(e->fabric, mlid, e->tables);
      std::vector<std::pair<int, std::string>> waiting;
      for (int sw : g.switch_members)
        waiting.push_back(
            {sw, "no end port is a member (trees are rooted at one; the first to join builds it)"});
      LogSwitchMembersLeftOut(*e, mlid, waiting);
      return 0;
    }
    // Joins come in bursts and OpenSM rebuilds on each: the per-rebuild
    // line is verbose, so time and format it only when that level is on.
    const bool note = e->LogActive(IBU_LOG_VERBOSE);
    std::chrono::steady_clock::time_point t0;
    if (note) t0 = std::chrono::steady_clock::now();
    e->engine->RouteMulticast(e->fabric, g, e->tables);
    const double us =
        note ? std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() : 0;
    // A group a switch cannot hold is the caller's refusal, logged by it
    // alone: no rebuild line before it, and no tree kept.
    if (!ReportMcastMasks(*e, mlid, set, ctx)) {
      e->ForgetMcast(mlid);
      return 1;
    }
    LogSwitchMembersLeftOut(*e, mlid, e->engine->SwitchMembersLeftOut());
    const long rebuild = ++e->mcast[mlid].rebuilds;
    if (note) {
      char line[160];
      std::snprintf(line, sizeof line,
                    "multicast group 0x%04x: tree of %zu members rebuilt in %.1f us (rebuild %ld)",
                    mlid, g.members.size(), us, rebuild);
      e->Log(IBU_LOG_VERBOSE, line);
    }
    return 0;
  } catch (const std::exception& err) {
    e->Log(IBU_LOG_ERROR, ibu::McastRefusal(mlid, err.what()));
  } catch (...) {
    e->Log(IBU_LOG_ERROR, ibu::McastRefusal(mlid, "unexpected internal error"));
  }
  // OpenSM cleared the MLID and sets nothing for a refused group: the
  // engine's tree of an earlier build is gone from the switches too.
  ForgetTree(e, mlid);
  return -1;
}

void ibu_forget_dead_mcast(ibu_engine* e, ibu_mlid_alive_fn alive, void* ctx) {
  if (!e->routed) return;
  std::vector<uint16_t> dead;
  for (const auto& [known, state] : e->mcast)
    if (!alive(ctx, known)) dead.push_back(known);
  for (uint16_t gone : dead) {
    ForgetTree(e, gone);
    e->Log(IBU_LOG_VERBOSE,
           "multicast group " + ibu::HexLid(gone) + ": deleted by OpenSM; its tree is forgotten");
  }
}

void ibu_forget_replaced_mcast(ibu_engine* e, uint16_t mlid, const uint8_t (*mgids)[16], int n) {
  if (!e->routed) return;
  const auto* const end = mgids + std::max(n, 0);
  const auto same = [](const std::array<uint8_t, 16>& kept, const uint8_t* mgid) {
    return std::equal(kept.begin(), kept.end(), mgid);
  };
  const auto still_there = [&](const std::array<uint8_t, 16>& kept) {
    return std::any_of(mgids, end, [&](const uint8_t* mgid) { return same(kept, mgid); });
  };
  const auto built_for = e->mcast.find(mlid);
  if (built_for != e->mcast.end()) {
    const auto& kept = built_for->second.mgids;
    // A rebuild for a join or a leave: the MGIDs it was built for, kept as they are.
    if (kept.size() == size_t(end - mgids) && std::equal(kept.begin(), kept.end(), mgids, same)) return;
    if (!kept.empty() && std::none_of(kept.begin(), kept.end(), still_there)) {
      ForgetTree(e, mlid);
      e->Log(IBU_LOG_VERBOSE, "multicast group " + ibu::HexLid(mlid) +
                                  ": a new group on the MLID of a deleted one; the old tree is forgotten");
    }
  }
  std::vector<std::array<uint8_t, 16>>& now = e->mcast[mlid].mgids;
  now.resize(size_t(end - mgids));
  for (size_t k = 0; k < now.size(); ++k) std::copy(mgids[k], mgids[k] + 16, now[k].begin());
}

int ibu_path_sl(const ibu_engine* e, uint16_t slid, uint16_t dlid, uint8_t* sl) {
  if (!e->routed || !e->engine->HasSlPolicy()) return -1;  // OpenSM's own SL stands
  try {
    *sl = e->engine->PathSl(e->fabric, slid, dlid);
    return 0;
  } catch (...) {
    return -1;
  }
}

int ibu_switch_sl2vl(const ibu_engine* e, uint64_t switch_guid, int in_port, int out_port,
                     uint8_t vl_by_sl[16]) {
  if (!e->routed || LeavesOpenSmSl2Vl(e)) return -1;
  const int s = e->fabric.SwitchByGuid(switch_guid);
  if (s < 0 || static_cast<size_t>(s) >= e->tables.sl2vl.size() || e->tables.sl2vl[s].empty())
    return -1;
  const ibu::Sl2Vl& t = e->tables.sl2vl[s];
  if (in_port > t.num_ports || out_port > t.num_ports) return -1;
  for (int sl = 0; sl < 16; ++sl) vl_by_sl[sl] = t.get(in_port, out_port, sl);
  return 0;
}

int ibu_end_port_sl2vl(const ibu_engine* e, uint64_t port_guid, uint8_t vl_by_sl[16]) {
  if (!e->routed || LeavesOpenSmSl2Vl(e)) return -1;
  const int ep = e->fabric.EndPortByGuid(port_guid);
  if (ep < 0) return -1;
  const int sw = e->fabric.end_ports[ep].switch_index;
  if (sw < 0 || static_cast<size_t>(sw) >= e->tables.sl2vl.size() || e->tables.sl2vl[sw].empty())
    return -1;  // no VL policy: OpenSM's qos_ca_* mapping stays
  const std::array<uint8_t, 16> vls = ibu::EndPortVls(e->fabric, e->tables, ep);
  std::copy(vls.begin(), vls.end(), vl_by_sl);
  return 0;
}

int ibu_vlarb_block(const ibu_engine* e, int block, uint8_t* vl, uint8_t* weight, int max, int* n) {
  const int vls = ibu_data_vls(e);
  if (vls <= 1) return -1;
  *n = 0;
  for (const auto& [v, w] : ibu::EqualVlArbitration(vls, block)) {
    if (*n == max) break;
    vl[*n] = v, weight[*n] = w, ++*n;
  }
  return 0;
}

int ibu_data_vls(const ibu_engine* e) { return e->engine ? e->engine->DataVls() : 1; }

void ibu_dump(const ibu_engine* e, const char* dir) {
  if (!dir || !*dir) return;
  if (!e->routed || !e->dump) {
    RemoveStaleDumps(*e, dir, e->routed ? "dumps are off" : "this routing was refused");
    return;
  }
  try {
    ibu::WriteFilesAtomically(DumpFiles(*e, dir));  // both or neither: they describe one routing
    if (e->fabric.end_ports.size() > kMaxPathMapPorts)
      RemoveStaleDumps(*e, dir, "too many end ports for the map", {ibu::kPathsDumpSuffix});
  } catch (const std::exception& err) {
    // err names the file and the system's reason; routing is not affected.
    e->Log(IBU_LOG_ERROR, std::string("dumps not written: ") + err.what() + "; dump_files_dir " +
                              dir + " must be a writable directory (" + e->name +
                              "_dump=off turns the dumps off); the tables are in place");
  } catch (...) {
  }
}

}  // extern "C"
