// Times the core's recomputation of one multicast group's MFT (what the
// plugin does on a join or leave), median over many repetitions.
//   core_mcast_bench M N MEMBERS [--repeat R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"
#include "sim-harness/bench/bench_args.h"

int main(int argc, char** argv) {
  const char* prog = "core_mcast_bench";
  const char* usage = "core_mcast_bench M N MEMBERS [--repeat R]";
  ibu::bench::HelpIfAsked(argc, argv, usage);
  if (argc < 4) ibu::bench::UsageExit(prog, usage, "expected M N MEMBERS");
  // M and N are checked by the generator, MEMBERS against the fabric below.
  const int m = ibu::bench::IntArg(prog, "M", argv[1], -1000000, 1000000);
  const int n = ibu::bench::IntArg(prog, "N", argv[2], -1000000, 1000000);
  const int members = ibu::bench::IntArg(prog, "MEMBERS", argv[3], -1000000, 1000000);
  int repeat = 201;
  for (int i = 4; i < argc; ++i) {
    if (std::strcmp(argv[i], "--repeat"))
      ibu::bench::UsageExit(prog, usage, std::string("unexpected argument '") + argv[i] + "'");
    if (i + 1 >= argc) ibu::bench::UsageExit(prog, usage, "option --repeat needs a value");
    repeat = ibu::bench::IntArg(prog, "option --repeat", argv[++i], 1, 1000000);
  }
  try {
    ibu::Fabric f = ibu::MakeFatTree(m, n);
    ibu::AssignDefaultLids(f, 0);
    if (members < 1 || members > static_cast<int>(f.end_ports.size())) {
      std::fprintf(stderr, "core_mcast_bench: MEMBERS must be 1..%zu\n", f.end_ports.size());
      return 2;
    }
    auto e = ibu::MakeEngine("mlid", {}, nullptr);
    ibu::Tables t;
    e->RouteUnicast(f, t);
    std::mt19937_64 rng(1);
    std::vector<int> all(f.end_ports.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int>(i);
    std::vector<double> secs;
    for (int r = 0; r < repeat; ++r) {
      std::shuffle(all.begin(), all.end(), rng);
      ibu::McastGroup g;
      g.mlid = static_cast<ibu::Lid>(0xC000 + r % 64);
      g.members.assign(all.begin(), all.begin() + members);
      const auto start = std::chrono::steady_clock::now();
      e->RouteMulticast(f, g, t);
      secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(secs.begin(), secs.end());
    std::printf("core mlid FT(%d,%d): one group of %d members recomputed in %.1f us (median of %d)\n",
                m, n, members, secs[secs.size() / 2] * 1e6, repeat);
  } catch (const std::exception& ex) {
    std::fprintf(stderr, "core_mcast_bench: %s\n", ex.what());
    return 2;
  }
  return 0;
}
