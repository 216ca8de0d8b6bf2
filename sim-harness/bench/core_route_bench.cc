// Times the core alone on a generated fat-tree: recognition + routing of
// every LFT, as the OpenSM adapter runs it (median of --repeat runs).
//   core_route_bench M N LMC [ENGINE] [--repeat R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: core_route_bench M N LMC [ENGINE] [--repeat R]\n");
    return 2;
  }
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), lmc = std::atoi(argv[3]);
  std::string engine = "mlid";
  int repeat = 3;
  for (int i = 4; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = std::atoi(argv[++i]);
    else engine = argv[i];
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
    std::printf("core %s FT(%d,%d) LMC %d: %zu switches, %u LIDs, recognise+route median %.4f s\n",
                engine.c_str(), m, n, lmc, f.switches.size(), f.max_lid(), secs[secs.size() / 2]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "core_route_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
