// `ibunion verify`: check tables (offline or read back from switches).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include <fstream>
#include <sstream>
#include "cli/commands.h"
#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/groups.h"
#include "plugin/core/path_map.h"
#include "plugin/core/path_sls.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/verify/deadlock.h"
#include "plugin/core/verify/multicast.h"
#include "plugin/core/verify/paths.h"
#include "plugin/core/verify/scheme.h"
#include "plugin/core/verify/unicast.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion verify NETFILE --lft FILE [options]\n"
    "  --host-lids        reachability of end-port LIDs from end ports only (degraded\n"
    "                     fat-trees leave switch LIDs, and end ports from some switches,\n"
    "                     unrouted where only a valley would reach them; a switch LID's\n"
    "                     route from an end port may be missing, not loop or go astray);\n"
    "                     without it, every switch must reach every end-port LID too;\n"
    "                     likewise --deadlock walks routes from end ports only\n"
    "  --guid2lid FILE    LIDs from an OpenSM guid2lid file (default: the net file's own,\n"
    "                     as ibnetdiscover writes them, else the generator's layout);\n"
    "                     GUIDs not in the fabric as for route\n"
    "  --lmc L            LMC of the generator's layout (default and --guid2lid as for route)\n"
    "  --engine E         also check every LFT entry equals what engine E computes, and\n"
    "                     with --mft, every MFT entry of the --groups MLIDs equals the\n"
    "                     tree E builds for the group (its members, anchor= and sl=:\n"
    "                     give the SA's sl= where E's tree depends on it, xymesh with\n"
    "                     shared VLs or xymesh_mcast=paper); groups are routed in the\n"
    "                     file's order, which xymesh_mcast=paper's admission onto the\n"
    "                     multicast VL depends on (first come, first served)\n"
    "  --options \"k=v\"    options of that engine\n"
    "  --mft FILE         MFTs (ibroute -M format) to check against --groups FILE:\n"
    "                     every member gets exactly one copy from every member, and\n"
    "                     no non-member gets one, nor a switch (port 0 in its mask)\n"
    "  --groups FILE      multicast groups: MLID and members per line\n"
    "  --disjoint         fat-trees: sources of one subtree that select different DLIDs\n"
    "                     for a destination share no up link inside the subtree (the\n"
    "                     one leaving it included); the selection comes from --paths\n"
    "                     FILE (the plugin's ibunion-mlid-paths.dump) or from --engine;\n"
    "                     with both, the map must also be the engine's selection\n"
    "                     (sources that share a DLID pass the rule alone: a folded LMC\n"
    "                     makes some share)\n"
    "  --paths FILE       path-selection map: src_guid dst_guid dlid per line\n"
    "  --deadlock         channel-dependency (credit-loop) check over (link, VL) for the\n"
    "                     LFTs and, with --mft/--groups, the MFTs; SL2VL tables and SLs\n"
    "                     from --engine's VL policy (--options), else every SL on VL 0;\n"
    "                     a group's sl= in --groups is the SL its packets use; the\n"
    "                     routes are every end port's to every LID and, unless\n"
    "                     --host-lids, every switch's to every end-port LID (responses\n"
    "                     to LID-routed GMPs such as perfquery's: from port 0, on the\n"
    "                     SL the end port uses toward the switch; SMPs ride VL15,\n"
    "                     which has no credits);\n"
    "                     prints one cycle with its switches, ports and VLs, and\n"
    "                     fails on a hop that maps a route's SL to VL 15 (dropped)\n"
    "  --sl2vl FILE       SL2VL tables read back (`smpquery sl2vl` format, read-sl2vl):\n"
    "                     --deadlock uses them instead of the engine's, and with --engine\n"
    "                     every connected out port's and every host's table must equal\n"
    "                     the engine's VL policy\n"
    "  --path-sl FILE     the SA's SL per path read back ('SLID DLID SL' lines, read-path-sl or\n"
    "                     ibunion pathsl): --deadlock walks each route on it instead of the\n"
    "                     engine's SLs or SL 0 (dfsssp and lash are deadlock-free only on\n"
    "                     theirs); routes to and from switches are then not walked (the\n"
    "                     file has no SL for them)\n"
    "exit status: 0 all checks pass, 1 a check failed, 2 bad input\n";

// The --engine's own tables on this fabric, routed once for every
// comparison (each made the engine and routed the whole fabric again, up to
// five times): unicast, VLs, then the groups in the file's order, as OpenSM
// calls them. A group the engine refuses is kept with its reason.
SchemeReference RouteReference(const Fabric& f, const std::vector<McastGroup>& groups, const Args& args) {
  return RouteScheme(f, groups,
                     MakeEngine(args.get("--engine"), OptionWords(args.get("--options")), nullptr));
}

void PrintErrors(const SchemeReport& r) {
  for (const std::string& e : r.errors) std::cout << "error: " << e << "\n";
}

// Entries where `t` differs from the engine's own tables.
bool SameLftsAsEngine(const Fabric& f, const Tables& t, const SchemeReference& ref) {
  const SchemeReport r = CompareLftsWithScheme(f, t, ref);
  PrintErrors(r);
  std::cout << "scheme " << ref.engine->name() << ": " << r.differ << " entries differ\n";
  return r.ok();
}

bool SameMftsAsEngine(const Fabric& f, const Tables& t, const std::vector<McastGroup>& groups,
                      const SchemeReference& ref) {
  const SchemeReport r = CompareMftsWithScheme(f, t, groups, ref);
  const std::string engine = ref.engine->name();
  PrintErrors(r);
  std::cout << "scheme " << engine << ": " << r.differ << " MFT entries differ (" << groups.size()
            << (groups.size() == 1 ? " group" : " groups") << ", routed in the groups file's order)";
  if (r.refused) std::cout << "; " << engine << " builds no tree for " << r.refused << " of them";
  std::cout << "\n";
  return r.ok();
}

// MFT rows of MLIDs the groups file does not list are not walked (OpenSM's
// own 0xC000 IPoIB group is in every read-back): said, so that an MLID
// left out of the file by mistake is not read as checked.
void NoteUncheckedMlids(const Tables& t, const std::vector<McastGroup>& groups) {
  std::set<Lid> listed, unchecked;
  for (const McastGroup& g : groups) listed.insert(g.mlid);
  for (const Mft& m : t.mft)
    for (const auto& [mlid, mask] : m.groups)
      if (mask.any() && !listed.count(mlid)) unchecked.insert(mlid);
  if (unchecked.empty()) return;
  std::string list;
  int shown = 0;
  for (Lid mlid : unchecked) {
    if (shown++ == 8) {
      list += " ...";
      break;
    }
    list += " " + HexLid(mlid);
  }
  std::printf("note: %zu MLID(s) in the MFTs are not in --groups and were not checked:%s\n", unchecked.size(),
              list.c_str());
}

bool VerifyGroups(const Fabric& f, const Tables& t, const std::vector<McastGroup>& groups) {
  bool ok = true;
  std::map<int, int> groups_per_switch;
  for (const McastGroup& g : groups) {
    McastReport r = VerifyMulticast(f, t, g);
    for (int sw : TreeSwitches(t, g.mlid)) ++groups_per_switch[sw];
    std::printf("multicast 0x%04x: %zu members, %ld senders checked, tree of %d switches, depth %d: %s\n",
                g.mlid, g.members.size(), r.senders_checked, r.tree_switches, r.depth,
                r.ok() ? "exactly once" : "FAILED");
    for (const std::string& e : r.errors) std::cout << "error: " << e << "\n";
    ok = ok && r.ok();
  }
  // Load over switches: how many groups each carries (fat-tree spines show
  // whether trees are spread).
  int lo = 1 << 30, hi = 0;
  for (auto [sw, c] : groups_per_switch) lo = std::min(lo, c), hi = std::max(hi, c);
  if (!groups_per_switch.empty())
    std::printf("groups per tree switch: min %d max %d over %zu switches\n", lo, hi,
                groups_per_switch.size());
  NoteUncheckedMlids(t, groups);
  return ok;
}

// --paths with --engine: the map must be the engine's selection.
bool PathMapIsTheEngines(const Fabric& f, const FatTree& tree, const PathMap& paths,
                         const SchemeReference& ref) {
  const SchemeReport r = ComparePathMapWithScheme(f, tree, paths, ref);
  PrintErrors(r);
  std::printf("path map vs %s's selection: %ld of %ld pairs differ\n", ref.engine->name(), r.differ,
              r.compared);
  return r.ok();
}

bool VerifyDisjoint(const Fabric& f, const Tables& t, const FatTree& tree, const PathMap* paths,
                    const SchemeReference* ref) {
  std::function<Lid(int, int)> select;
  if (paths) {
    select = [paths](int s, int d) { return paths->Select(s, d); };
  } else if (ref) {
    select = [&](int s, int d) { return ref->engine->SelectDlid(f, s, d); };
  }
  DisjointReport r = CheckDisjointUpLinks(f, t, tree, select);
  std::printf("disjoint up links: %ld source subtrees checked, %ld violations\n", r.subtrees_checked,
              r.violations);
  for (const std::string& e : r.errors) std::cout << "error: " << e << "\n";
  return r.ok() && (!paths || !ref || PathMapIsTheEngines(f, tree, *paths, *ref));
}

bool VerifyDeadlock(const Fabric& f, Tables& t, const std::vector<McastGroup>& groups,
                    const SchemeReference* ref, const PathSls* path_sls, const Args& args) {
  DeadlockOptions opt;
  if (ref) {
    // The engine's VL policy on this fabric: its SL2VL tables and SLs.
    if (!args.has("--sl2vl")) t.sl2vl = ref->want.sl2vl;  // else: what the switches hold
    t.end_port_sl = ref->want.end_port_sl;
    opt = EngineSls(f, *ref->engine);
    opt.anchor_sends_only = ref->engine->TreesForAnchorOnly();
  }
  // What the SA hands out, read back: it replaces the engine's SLs as
  // --sl2vl replaces its tables (the walk follows what the fabric does).
  opt.switch_sources = !args.has("--host-lids");
  if (path_sls) {
    opt.path_sl = [path_sls](int src, Lid dlid) { return static_cast<uint8_t>(path_sls->Sl(src, dlid)); };
    // The file has the SLs of end ports' paths to end ports only: routes to
    // switch LIDs and from switches would be walked on SLs nobody gave.
    opt.end_port_lids_only = true;
    opt.switch_sources = false;
    std::cout << "deadlock: routes between end ports on the SLs of " << args.get("--path-sl")
              << " (routes to and from switches are not walked: it has no SL for them)\n";
  }
  DeadlockReport r = CheckDeadlock(f, t, groups, opt);
  std::cout << "deadlock: " << r.Summary(f) << "\n";
  return r.ok();
}

// Engines whose group SL depends on the tree they chose (xymesh paper
// mode's fallback) learned the groups as OpenSM told them; without a tree
// for one of them, the SL its packets ride is unknown to --deadlock. A
// group with its sl= given, or an engine without a VL policy (every SL on
// VL 0), needs no tree for that: the refusal is the report's ("builds no
// tree"), not bad input (it stopped verify with no report at all).
void RequireTreesForDeadlock(const std::vector<McastGroup>& groups, const SchemeReference& ref) {
  for (const McastGroup& g : groups)
    if (const auto no_tree = ref.refused.find(g.mlid); no_tree != ref.refused.end())
      if (g.sl < 0 && ref.engine->HasSlPolicy()) throw Error(no_tree->second);
}

// The read-back SL2VL tables against the engine's VL policy.
bool SameSl2VlAsEngine(const Fabric& f, const Tables& t, const SchemeReference& ref) {
  const SchemeReport r = CompareSl2VlWithScheme(f, t, ref);
  PrintErrors(r);
  std::printf("sl2vl: %ld entries compared with %s's VL policy, %ld mismatches\n", r.compared,
              ref.engine->name(), r.differ);
  return r.ok();
}

// Options that only work together, and the engine with its options, are
// checked before any table is read: a mistake here was reported after the
// checks' output (exit 2 with half a report on stdout), or not at all
// (--options or --paths ignored).
void CheckOptionCombinations(const Args& args) {
  if (args.has("--mft") != args.has("--groups")) throw UsageError{"--mft FILE and --groups FILE go together"};
  if (args.has("--disjoint") && !args.has("--paths") && !args.has("--engine"))
    throw UsageError{"--disjoint needs --paths FILE or --engine E"};
  if (args.has("--paths") && !args.has("--disjoint"))
    throw UsageError{"--paths FILE: only with --disjoint (the selection it checks)"};
  // Read, then used by neither check: the user took the VLs as checked.
  if (args.has("--sl2vl") && !args.has("--engine") && !args.has("--deadlock"))
    throw UsageError{
        "--sl2vl FILE: only with --engine E (compared with its VL policy) or --deadlock (the VLs "
        "the credit-loop check follows)"};
  if (args.has("--path-sl") && !args.has("--deadlock"))
    throw UsageError{
        "--path-sl FILE: only with --deadlock (the SLs the credit-loop check walks the routes on)"};
  if (args.has("--options") && !args.has("--engine"))
    throw UsageError{"--options '" + args.get("--options") +
                     "': only with --engine E (the engine they configure)"};
  if (args.has("--engine")) MakeEngine(args.get("--engine"), OptionWords(args.get("--options")), nullptr);
}

}  // namespace

int VerifyMain(int argc, char** argv) {
  Args args(argc, argv,
            {"--lft", "--guid2lid", "--lmc", "--engine", "--options", "--mft", "--groups", "--paths",
             "--sl2vl", "--path-sl"},
            {"-h", "--help", "--disjoint", "--deadlock", "--host-lids"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError{std::string("expected one NETFILE\n") + kUsage};
  if (!args.has("--lft")) throw UsageError{std::string("missing --lft FILE\n") + kUsage};
  CheckOptionCombinations(args);
  Fabric f = LoadFabric(args, args.positional()[0]);
  Tables t;
  ReadLftsFile(args.get("--lft"), f, t);  // a file without any LFT is an error there
  // Every input read, and the fabric's shape for --disjoint known, before
  // the first line of the report: a bad one is refused (exit 2) without a
  // report cut short after its unicast part.
  if (args.has("--sl2vl")) ReadSl2VlFile(args.get("--sl2vl"), f, t);
  std::unique_ptr<PathSls> path_sls;  // end ports x LIDs bytes: the file is quadratic
  if (args.has("--path-sl")) path_sls = std::make_unique<PathSls>(ReadPathSlsFile(args.get("--path-sl"), f));
  if (args.has("--mft")) ReadMftsFile(args.get("--mft"), f, t);  // a switch without its table: bad input
  const std::vector<McastGroup> groups = LoadGroups(args, f, "verify");
  std::unique_ptr<FatTree> tree;
  std::unique_ptr<PathMap> paths;
  if (args.has("--disjoint")) {
    tree = std::make_unique<FatTree>(RecognizeFatTree(f));
    if (args.has("--paths")) {
      paths = std::make_unique<PathMap>(ReadPathMapFile(args.get("--paths"), f));
      RequireEveryPair(*paths, f, args.get("--paths"), "a missing pair would be checked with its base LID");
    }
  }
  // The engine's own tables likewise: one that cannot route this fabric
  // says so before the report starts.
  std::unique_ptr<SchemeReference> ref;
  if (args.has("--engine")) {
    ref = std::make_unique<SchemeReference>(RouteReference(f, groups, args));
    if (args.has("--deadlock")) RequireTreesForDeadlock(groups, *ref);
  }
  UnicastReport report = VerifyUnicast(f, t, 20, /*switch_lids=*/!args.has("--host-lids"));
  std::cout << report.Summary(f);
  bool ok = report.ok();
  if (ref) ok = SameLftsAsEngine(f, t, *ref) && ok;
  if (args.has("--sl2vl") && ref) ok = SameSl2VlAsEngine(f, t, *ref) && ok;
  if (args.has("--mft")) {
    ok = VerifyGroups(f, t, groups) && ok;
    if (ref) ok = SameMftsAsEngine(f, t, groups, *ref) && ok;
  }
  if (args.has("--disjoint")) ok = VerifyDisjoint(f, t, *tree, paths.get(), ref.get()) && ok;
  if (args.has("--deadlock")) ok = VerifyDeadlock(f, t, groups, ref.get(), path_sls.get(), args) && ok;
  std::cout << (ok ? "PASS" : "FAIL") << "\n";
  return ok ? 0 : 1;
}

}  // namespace ibu::cli
