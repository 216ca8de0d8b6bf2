// Times the core alone on a generated fat-tree: recognition + routing of
// every LFT, as the OpenSM adapter runs it (median of --repeat runs).
//   core_route_bench M N LMC [ENGINE] [--repeat R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"
#include "sim-harness/bench/bench_args.h"

int main(int argc, char** argv) {
  const char* prog = "core_route_bench";
  const char* usage = "core_route_bench M N LMC [ENGINE] [--repeat R]";
  ibu::bench::HelpIfAsked(argc, argv, usage);
  if (argc < 4) ibu::bench::UsageExit(prog, usage, "expected M N LMC");
  // M and N are checked by the generator, which names the rule broken.
  const int m = ibu::bench::IntArg(prog, "M", argv[1], -1000000, 1000000);
  const int n = ibu::bench::IntArg(prog, "N", argv[2], -1000000, 1000000);
  const int lmc = ibu::bench::IntArg(prog, "LMC", argv[3], 0, 7);
  std::string engine = "mlid";
  int repeat = 3;
  bool engine_given = false;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat")) {
      if (i + 1 >= argc) ibu::bench::UsageExit(prog, usage, "option --repeat needs a value");
      repeat = ibu::bench::IntArg(prog, "option --repeat", argv[++i], 1, 1000000);
    } else if (argv[i][0] == '-' || engine_given) {
      ibu::bench::UsageExit(prog, usage, std::string("unexpected argument '") + argv[i] + "'");
    } else {
      engine = argv[i];
      engine_given = true;
    }
  }
  try {
    ibu::Fabric f = ibu::MakeFatTree(m, n);
    ibu::AssignDefaultLids(f, lmc);
    std::vector<double> secs;
    for (int r = 0; r < repeat; ++r) {
      auto e = ibu::MakeEngine(engine, {}, nullptr);
      ibu::Tables t;
      const auto start = std::chrono::steady_clock::now();
      e->RouteUnicast(f, t);
      secs.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(secs.begin(), secs.end());
    std::printf("core %s FT(%d,%d) LMC %d: %zu switches, %u LIDs, recognise+route median %.6f s\n",
                engine.c_str(), m, n, lmc, f.switches.size(), f.max_lid(), secs[secs.size() / 2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "core_route_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
