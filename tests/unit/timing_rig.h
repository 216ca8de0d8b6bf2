// A fabric, its tables, the timing model's Network and a Workload in one
// object that stays put (Network points into the fabric and tables).
#pragma once

#include <memory>
#include <string>

#include "sim-harness/timing/network.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/simulator.h"
#include "sim-harness/timing/traffic.h"
#include "tests/unit/timing_fabrics.h"

namespace ibu::simtest {

struct Rig {
  Setup st;
  sim::Params p;
  std::unique_ptr<sim::Network> net;
  std::unique_ptr<sim::Workload> wl;

  // `dumped_mlid` != 0: take the multicast group from the MFTs (sources =
  // every member), as the CLI does for dump: routing.
  Rig(Setup s, const sim::Params& params, const std::string& traffic = "uniform",
      uint64_t seed = 1, int dumped_mlid = 0)
      : st(std::move(s)), p(params) {
    wl = std::make_unique<sim::Workload>(sim::ParseTraffic(traffic), p, st.fabric, seed);
    if (dumped_mlid) wl->UseDumpedTree(st.fabric, st.tables, dumped_mlid);
    wl->SetDlidFn(nullptr, false);
    net = std::make_unique<sim::Network>(st.fabric, st.tables, p.vls);
  }
  Rig(const Rig&) = delete;
  Rig& operator=(const Rig&) = delete;
};

}  // namespace ibu::simtest
