// `ibunion trace`: follow routes through LFTs (offline or read back).
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/mesh.h"
#include "plugin/core/verify/paths.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion trace NETFILE --lft FILE --from HOST --dlid LID\n"
    "       ibunion trace NETFILE --lft FILE --base-lid-load\n"
    "  --from HOST --dlid LID  print the route as SWITCH:OUTPORT hops (fat-tree or mesh\n"
    "                          labels when the fabric is one, node descriptions otherwise)\n"
    "  --base-lid-load         routes from every host to every other host's base LID\n"
    "                          crossing each switch: 'LABEL level L routes N'\n"
    "  --mft FILE --mlid MLID  print the MLID's mask on every switch that has it:\n"
    "                          'LABEL: P P P' (P = ports set, 0 = the switch itself)\n"
    "  --mft FILE --groups-per-switch\n"
    "                          how many MLIDs each switch carries: 'LABEL level L groups N'\n"
    "                          on a fat-tree, 'LABEL groups N' otherwise (a mesh has no levels;\n"
    "                          its labels N(x,y) say where each switch is)\n"
    "  --guid2lid FILE | --lmc L  as for verify (one or the other)\n";

// The uses of trace are one at a time: options of another use were
// accepted and ignored (--from/--dlid next to --base-lid-load).
void RefuseMixedUses(const Args& args) {
  std::vector<std::string> given;
  if (args.has("--from") || args.has("--dlid")) given.push_back("--from/--dlid");
  for (const char* use : {"--base-lid-load", "--mlid", "--groups-per-switch"})
    if (args.has(use)) given.push_back(use);
  if (given.size() > 1)
    throw UsageError{given[1] + ": not with " + given[0] + " (one use of trace at a time)"};
}

}  // namespace

int TraceMain(int argc, char** argv) {
  Args args(argc, argv, {"--lft", "--from", "--dlid", "--guid2lid", "--lmc", "--mft", "--mlid"},
            {"-h", "--help", "--base-lid-load", "--groups-per-switch"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1 || (!args.has("--lft") && !args.has("--mft")))
    throw UsageError{std::string("expected NETFILE and --lft FILE or --mft FILE\n") + kUsage};
  RefuseMixedUses(args);
  Fabric f = LoadFabric(args, args.positional()[0]);
  Tables t;
  t.Resize(f);
  if (args.has("--lft")) ReadLftsFile(args.get("--lft"), f, t);
  if (args.has("--mft")) ReadMftsFile(args.get("--mft"), f, t);
  std::unique_ptr<FatTree> tree;
  try {
    tree = std::make_unique<FatTree>(RecognizeFatTree(f));
  } catch (const Error&) {
  }
  std::unique_ptr<Mesh> mesh;
  if (!tree) try {
      mesh = std::make_unique<Mesh>(RecognizeMesh(f));
    } catch (const Error&) {
    }
  auto label = [&](int sw) {
    return tree ? tree->SwitchLabel(sw) : mesh ? mesh->Label(sw) : f.switches[sw].name;
  };
  // Hosts are H(x,y) after their switch N(x,y), as inspect and `topo mesh` name them.
  auto host_label = [&](int ep) {
    if (tree) return tree->HostLabel(ep);
    const int sw = f.end_ports[ep].switch_index;
    if (mesh && sw >= 0) return "H" + mesh->Label(sw).substr(1);
    return f.end_ports[ep].name;
  };
  if (args.has("--mlid")) {
    if (!args.has("--mft")) throw UsageError{"--mlid needs --mft FILE"};
    const Lid mlid = static_cast<Lid>(ParseInt(args.get("--mlid"), "option --mlid", kMulticastLidBase, 0xFFFE));
    for (size_t s = 0; s < f.switches.size(); ++s) {
      auto it = t.mft[s].groups.find(mlid);
      if (it == t.mft[s].groups.end() || it->second.none()) continue;
      std::printf("%s:", label(static_cast<int>(s)).c_str());
      for (int p = 0; p <= f.switches[s].num_ports; ++p)
        if (it->second.test(p)) std::printf(" %d", p);
      std::printf("\n");
    }
    return 0;
  }
  if (args.has("--groups-per-switch")) {
    if (!args.has("--mft")) throw UsageError{"--groups-per-switch needs --mft FILE"};
    for (size_t s = 0; s < f.switches.size(); ++s) {
      int groups = 0;
      for (const auto& [mlid, mask] : t.mft[s].groups) groups += mask.any();
      if (tree)
        std::printf("%s level %d groups %d\n", label(static_cast<int>(s)).c_str(), tree->level[s], groups);
      else
        std::printf("%s groups %d\n", label(static_cast<int>(s)).c_str(), groups);
    }
    return 0;
  }
  if (!args.has("--lft")) throw UsageError{std::string("this use needs --lft FILE\n") + kUsage};
  if (args.has("--base-lid-load")) {
    if (!tree) throw Error("--base-lid-load needs a fat-tree");
    const std::vector<long> load = BaseLidLoad(f, t);
    for (size_t s = 0; s < f.switches.size(); ++s)
      std::printf("%s level %d routes %ld\n", label(static_cast<int>(s)).c_str(), tree->level[s],
                  load[s]);
    return 0;
  }
  if (!args.has("--from") || !args.has("--dlid"))
    throw UsageError{std::string("expected --from HOST --dlid LID or --base-lid-load\n") + kUsage};
  int src = f.EndPortByName(args.get("--from"));
  if (src < 0 && tree) src = tree->EndPortByLabel(args.get("--from"));
  for (int e = 0; src < 0 && mesh && e < static_cast<int>(f.end_ports.size()); ++e)
    if (host_label(e) == args.get("--from")) src = e;
  if (src < 0) throw UsageError{"--from " + args.get("--from") + ": no such host in " + args.positional()[0]};
  const Lid dlid = static_cast<Lid>(ParseInt(args.get("--dlid"), "option --dlid", 1, kMaxUnicastLid));
  // A LID of nothing is the user's mistake, not a broken route of the tables.
  if (!f.owner(dlid).valid())
    throw UsageError{"option --dlid: no end port or switch of " + args.positional()[0] + " has LID " +
                     args.get("--dlid") + " (its LIDs end at " + std::to_string(f.max_lid()) + ")"};
  const auto hops = TraceRoute(f, t, src, dlid);
  for (auto [sw, port] : hops) std::printf("%s:%d ", label(sw).c_str(), port);
  const auto [last_sw, last_port] = hops.back();
  const Peer& end = last_port > 0 && last_port <= f.switches[last_sw].num_ports
                        ? f.switches[last_sw].ports[last_port] : Peer{};
  if (end.is_end_port())
    std::printf("-> %s\n", host_label(end.index).c_str());
  else
    std::printf("-> %s\n", last_port == 0 ? "switch itself" : "nowhere (broken route)");
  return end.is_end_port() || last_port == 0 ? 0 : 1;
}

}  // namespace ibu::cli
