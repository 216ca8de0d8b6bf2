// `ibunion route`: tables from a net file, offline, through the same engine
// code OpenSM runs.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/groups.h"
#include "plugin/core/path_map.h"
#include "plugin/core/output_files.h"
#include "plugin/core/tables.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion route NETFILE --engine mlid|slid|xymesh [options]\n"
    "  --lmc L            LIDs in the generator's layout at this LMC, for a file without LIDs\n"
    "                     (default: the fat-tree's paths per pair as far as LIDs fit, 0 on a mesh;\n"
    "                     not with --guid2lid)\n"
    "  --guid2lid FILE    LIDs from an OpenSM guid2lid file (by port GUID); GUIDs the fabric\n"
    "                     lacks (ports OpenSM saw before) are skipped with one warning;\n"
    "                     a file with none of the fabric's GUIDs, a GUID on two lines,\n"
    "                     overlapping LID ranges, a port of the fabric missing or LIDs\n"
    "                     other than the net file's own (ibnetdiscover's) are errors\n"
    "  --options \"k=v\"    engine options, as in event_plugin_options (e.g. mlid_rotate=off),\n"
    "                     space-separated; the plugin's *_dump options are the plugin's only\n"
    "  --lft FILE         write LFTs here, in ibroute format (default: stdout)\n"
    "  --paths FILE       write the path-selection map: src_guid dst_guid dlid\n"
    "  --groups FILE      multicast groups (MLID, members, optional anchor=) to build; one the\n"
    "                     engine cannot build a tree for is refused with a warning and gets no\n"
    "                     MFT entries, as under OpenSM (a degraded fat-tree, xymesh's paper VL)\n"
    "  --mft FILE         write their MFTs here, in ibroute -M format\n"
    "  --sl2vl FILE       write the SL2VL tables (engines with a VL policy) in\n"
    "                     `smpquery sl2vl` format: every switch (in, out) pair, every host\n";

// As under OpenSM: a group the engine turns away (McastRefused: no
// up*/down* tree in a degraded fat-tree, no loop-free tree on xymesh's
// paper VL) gets no MFT entries and a warning, and the others their trees.
// The first refusal ended the run (exit 2, no file), as if the groups file
// were bad; bad input (a missing anchor=, say) still does.
void RouteGroups(Engine& engine, const Fabric& f, const std::vector<McastGroup>& groups, Tables& t) {
  for (const McastGroup& g : groups) {
    try {
      engine.RouteMulticast(f, g, t);
      for (const auto& [sw, why] : engine.SwitchMembersLeftOut())
        std::cerr << "ibunion route: warning: " << SwitchMemberLeftOut(f, g.mlid, sw, why) << "\n";
    } catch (const McastRefused& e) {
      std::cerr << "warning: " << McastRefusal(g.mlid, e.what()) << " (no MFT entries for it)\n";
    }
  }
}

}  // namespace

int RouteMain(int argc, char** argv) {
  Args args(argc, argv, {"--engine", "--lmc", "--guid2lid", "--options", "--lft", "--paths", "--groups", "--mft",
                         "--sl2vl"},
            {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError{std::string("expected one NETFILE\n") + kUsage};
  if (!args.has("--engine")) throw UsageError{std::string("missing --engine\n") + kUsage};
  Fabric f = LoadFabric(args, args.positional()[0]);
  auto engine = MakeEngine(
      args.get("--engine"), OptionWords(args.get("--options")), [](LogLevel level, const std::string& m) {
        std::cerr << (level == LogLevel::kError ? "ibunion route: warning: " : "ibunion route: note: ") << m
                  << "\n";
      });
  if (args.has("--mft") != args.has("--groups"))
    throw UsageError{"--groups FILE and --mft FILE go together"};
  // An engine with one data VL sets no SL-to-VL table: the file came out
  // empty, and verify then refused it as bad input.
  if (args.has("--sl2vl") && engine->DataVls() <= 1)
    throw UsageError{
        "--sl2vl: engine " + args.get("--engine") +
        (args.has("--options") ? " with --options '" + args.get("--options") + "'" : std::string()) +
        " has one data VL and sets no SL-to-VL tables (every SL on VL 0); only a VL policy "
        "writes them, e.g. --engine xymesh --options xymesh_vls=2"};
  Tables t;
  RouteUnicastAndVls(*engine, f, t);
  if (args.has("--groups")) RouteGroups(*engine, f, LoadGroups(args, f, "route"), t);
  // All outputs or none: a bad --paths must not leave a fresh --lft behind.
  // The path map (end ports^2 lines, 2.9 GB for 8192 hosts) streams into
  // its temporary: never held in memory.
  std::vector<OutputFile> out = {{args.get("--lft", "-"), [&](std::ostream& os) { WriteLfts(os, f, t); }}};
  if (args.has("--paths"))
    out.push_back({args.get("--paths"), [&](std::ostream& os) {
                     WritePathMap(os, f, [&](int s, int d) { return engine->SelectDlid(f, s, d); });
                   }});
  if (args.has("--mft")) out.push_back({args.get("--mft"), [&](std::ostream& os) { WriteMfts(os, f, t); }});
  if (args.has("--sl2vl"))
    out.push_back({args.get("--sl2vl"), [&](std::ostream& os) { WriteSl2Vl(os, f, t); }});
  std::vector<std::string> inputs = {args.positional()[0]};
  for (const char* option : {"--guid2lid", "--groups"})
    if (args.has(option)) inputs.push_back(args.get(option));
  WriteFilesAtomically(out, inputs);
  return 0;
}

}  // namespace ibu::cli
