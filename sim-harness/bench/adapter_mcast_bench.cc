// Times a heavy sweep's multicast pass through the OpenSM adapter's bridge:
// G groups of two members rebuilt one after another, with the search for
// groups OpenSM deleted run before every tree (the baseline) or once for
// the pass (what the adapter does), in the same run.
//   adapter_mcast_bench M N GROUPS
#include <chrono>
#include <cstdio>
#include <vector>

#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"
#include "plugin/osm/bridge.h"
#include "plugin/osm/bridge_fabric.h"
#include "sim-harness/bench/bench_args.h"

namespace {

int NoMask(void*, uint64_t, int) { return 0; }
int Alive(void*, uint16_t) { return 1; }

ibu_engine* RoutedEngine(const ibu::Fabric& f) {
  ibu_engine* e = ibu_engine_new("mlid", "mlid_dump=off", 0, "mlid", nullptr, nullptr);
  ibu::DescribeFabricToBridge(e, f);
  return ibu_route_unicast(e) == 0 ? e : nullptr;
}

// One pass over `groups` MLIDs, each group already known; seconds.
double Pass(ibu_engine* e, const ibu::Fabric& f, int groups, bool scan_every_tree) {
  const uint64_t members[] = {f.end_ports.front().port_guid, f.end_ports.back().port_guid};
  const auto start = std::chrono::steady_clock::now();
  for (int g = 0; g < groups; ++g) {
    const uint16_t mlid = static_cast<uint16_t>(0xC001 + g);
    uint8_t mgid[1][16] = {{0xff, 0x12, static_cast<uint8_t>(g >> 8), static_cast<uint8_t>(g)}};
    if (scan_every_tree || g == 0) ibu_forget_dead_mcast(e, Alive, nullptr);
    ibu_forget_replaced_mcast(e, mlid, mgid, 1);
    ibu_route_mcast(e, mlid, -1, members, 2, NoMask, nullptr);
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const char* prog = "adapter_mcast_bench";
  const char* usage = "adapter_mcast_bench M N GROUPS";
  ibu::bench::HelpIfAsked(argc, argv, usage);
  if (argc != 4) ibu::bench::UsageExit(prog, usage, "expected M N GROUPS");
  const int m = ibu::bench::IntArg(prog, "M", argv[1], -1000000, 1000000);
  const int n = ibu::bench::IntArg(prog, "N", argv[2], -1000000, 1000000);
  const int groups =
      ibu::bench::IntArg(prog, "GROUPS", argv[3], 1, ibu::kMaxMulticastLid - ibu::kMulticastLidBase);
  try {
    ibu::Fabric f = ibu::MakeFatTree(m, n);
    ibu::AssignDefaultLids(f, 0);
    ibu_engine* e = RoutedEngine(f);
    if (!e) {
      std::fprintf(stderr, "%s: the engine refused FT(%d,%d)\n", prog, m, n);
      return 2;
    }
    Pass(e, f, groups, false);  // every group known, as in a heavy sweep
    const double every = Pass(e, f, groups, true);
    const double once = Pass(e, f, groups, false);
    std::printf(
        "adapter mlid FT(%d,%d), %d groups of 2: a pass with the deleted-group search before every "
        "tree %.3f s, once a pass %.3f s (%.1fx)\n",
        m, n, groups, every, once, every / once);
    ibu_engine_free(e);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "%s: %s\n", prog, ex.what());
    return 2;
  }
  return 0;
}
