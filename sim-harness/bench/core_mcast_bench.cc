// Times the core's recomputation of one multicast group's MFT (what the
// plugin does on a join or leave), median over many repetitions.
//   core_mcast_bench M N MEMBERS [--repeat R]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: core_mcast_bench M N MEMBERS [--repeat R]\n");
    return 2;
  }
  const int m = std::atoi(argv[1]), n = std::atoi(argv[2]), members = std::atoi(argv[3]);
  int repeat = 201;
  if (argc > 5 && !std::strcmp(argv[4], "--repeat")) repeat = std::atoi(argv[5]);
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
      ibu::McastGroup g{static_cast<ibu::Lid>(0xC000 + r % 64),
                        std::vector<int>(all.begin(), all.begin() + members), -1};
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
