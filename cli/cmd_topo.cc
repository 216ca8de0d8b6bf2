// `ibunion topo fattree M N` / `ibunion topo mesh X Y`: generate net files.
#include <iostream>
#include <sstream>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/netfile.h"
#include "plugin/core/output_files.h"
#include "plugin/core/routing/mlid.h"
#include "plugin/core/topology/generate.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion topo fattree M N [options]\n"
    "       ibunion topo mesh X Y [options]\n"
    "  -o FILE            write the net file here (default: stdout)\n"
    "  --shuffle SEED     permute port numbers inside every switch and the record order\n"
    "  --remove-links N   unplug N switch-to-switch cables drawn at random (failed links; the\n"
    "                     guid2lid file keeps every LID); stderr names them. A damaged\n"
    "                     fat-tree is labelled and routed (degraded) while a fat-tree\n"
    "                     labelling still fits it (not when a part is cut off); a damaged\n"
    "                     mesh never is: inspect and route refuse any broken grid\n"
    "  --remove-seed S    the draw's seed (default 1)\n"
    "  --guid2lid FILE    also write an OpenSM guid2lid file with the papers' LID layout\n"
    "  --lmc L            LMC for that layout (0..7; default: on a fat-tree the LMC that\n"
    "                     gives mlid its paths per pair, as far as the LIDs fit; 0 on a mesh)\n";

// The unplugged cables, one line each, by the switches' names and the port
// numbers of the file written (`new_port`: the shuffle's, if any).
std::string RemovedLinksNote(const Fabric& f, const std::vector<SwitchLink>& removed,
                             const std::vector<std::vector<int>>& new_port) {
  std::ostringstream note;
  const auto port = [&](int sw, int p) { return new_port.empty() ? p : new_port[sw][p]; };
  for (const SwitchLink& c : removed)
    note << "ibunion: removed link " << f.switches[c.switch_a].name << " port " << port(c.switch_a, c.port_a)
         << " - " << f.switches[c.switch_b].name << " port " << port(c.switch_b, c.port_b) << "\n";
  return note.str();
}

}  // namespace

int TopoMain(int argc, char** argv) {
  Args args(argc, argv, {"-o", "--shuffle", "--guid2lid", "--lmc", "--remove-links", "--remove-seed"},
            {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  const auto& pos = args.positional();
  if (pos.size() > 3)
    throw UsageError{"unexpected argument '" + pos[3] + "': expected a kind and two sizes\n" + kUsage};
  if (pos.size() != 3) throw UsageError{std::string("expected a kind and two sizes\n") + kUsage};
  long lmc = args.integer("--lmc", 0, 0, 7);
  if (args.has("--lmc") && !args.has("--guid2lid"))
    throw UsageError{"option --lmc only applies together with --guid2lid FILE"};
  if (args.has("--remove-seed") && !args.has("--remove-links"))
    throw UsageError{"option --remove-seed only applies together with --remove-links N"};
  Fabric f;
  if (pos[0] == "fattree") {
    f = MakeFatTree(static_cast<int>(args.positional_int(1, "M (ports per switch)", -1000000, 1000000)),
                    static_cast<int>(args.positional_int(2, "N (levels)", -1000000, 1000000)));
  } else if (pos[0] == "mesh") {
    f = MakeMesh(static_cast<int>(args.positional_int(1, "X", 1, 4096)),
                 static_cast<int>(args.positional_int(2, "Y", 1, 4096)));
  } else {
    throw UsageError{"unknown topology kind '" + pos[0] + "' (expected fattree or mesh)"};
  }
  if (!args.has("--lmc")) lmc = DefaultLmc(f);  // what route, verify and sim assume without LIDs
  AssignDefaultLids(f, static_cast<int>(lmc));  // also checks the LID space
  // The LMC the guid2lid file was laid out at was said nowhere (route,
  // verify, sim and the rest say theirs): OpenSM's `lmc` has to fit it.
  const bool note_lmc = args.has("--guid2lid") && !args.has("--lmc") && lmc > 0;
  // Before the shuffle: which cables fail does not depend on port numbers.
  std::vector<SwitchLink> removed;
  if (args.has("--remove-links"))
    removed = RemoveRandomSwitchLinks(
        f, static_cast<uint64_t>(args.integer("--remove-seed", 1, 0, 0x7fffffffffffffffL)),
        static_cast<int>(args.integer("--remove-links", 0, 0, 1 << 30)));
  std::vector<int> order;
  std::vector<std::vector<int>> new_port;
  if (args.has("--shuffle"))
    order = ShufflePorts(f, static_cast<uint64_t>(ParseInt(args.get("--shuffle"), "option --shuffle", 0, 0x7fffffffffffffffL)),
                         &new_port);
  std::ostringstream net, lids;
  WriteNetFile(net, f, order);
  WriteGuid2Lid(lids, f);
  // Both outputs are complete in memory before either file is touched.
  // Both files or neither.
  std::vector<OutputFile> out;
  if (args.has("--guid2lid")) out.push_back({args.get("--guid2lid"), [&](std::ostream& os) { os << lids.str(); }});
  out.push_back({args.get("-o", "-"), [&](std::ostream& os) { os << net.str(); }});
  WriteFilesAtomically(out);
  std::cerr << RemovedLinksNote(f, removed, new_port);
  if (note_lmc)
    std::cerr << "ibunion: note: " << args.get("--guid2lid") << ": the generator's layout at LMC " << lmc
              << " (the fat-tree's paths per pair; --lmc L to choose; give OpenSM this lmc or a lower one)\n";
  // The LIDs were laid out on the complete fabric; a command given the net
  // file alone lays out the damaged one, whose default LMC may differ (no
  // fat-tree labelling fits it any more: 0).
  if (!removed.empty() && args.has("--guid2lid") && !args.has("--lmc"))
    if (const int damaged_lmc = DefaultLmc(f); damaged_lmc != lmc)
      std::cerr << "ibunion: note: without the removed links the fabric's default LMC is " << damaged_lmc
                << ", not " << lmc << ": give " << args.get("--guid2lid")
                << " (--guid2lid) to every command that reads this net file, or its LIDs will differ\n";
  return 0;
}

}  // namespace ibu::cli
