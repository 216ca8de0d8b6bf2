// A fabric, its tables, the timing model's Network and a Workload in one
// object that stays put (Network points into the fabric and tables).
#pragma once

#include <memory>
#include <string>

#include "plugin/core/engine.h"
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

// A fabric (with LIDs) routed by an engine, unicast and SL2VL, with a
// Workload taking the engine's path SLs as `ibunion sim` does (DLIDs: base
// LIDs) and a Network (VL = SL mod vls).
struct EngineRig {
  Fabric fabric;
  Tables tables;
  std::unique_ptr<Engine> engine;
  sim::Params p;
  std::unique_ptr<sim::Workload> wl;
  std::unique_ptr<sim::Network> net;

  EngineRig(Fabric f, std::unique_ptr<Engine> e, const sim::Params& params, const std::string& traffic)
      : fabric(std::move(f)), engine(std::move(e)), p(params) {
    tables.Resize(fabric);
    engine->RouteUnicast(fabric, tables);
    engine->RouteSl2Vl(fabric, tables);
    wl = std::make_unique<sim::Workload>(sim::ParseTraffic(traffic), p, fabric, 1);
    wl->SetDlidFn(nullptr, false);
    const Engine* eng = engine.get();
    const Fabric* fab = &fabric;
    wl->SetPathSlFn([eng, fab](int s, Lid d) { return int(eng->PathSl(*fab, fab->end_ports[s].base_lid, d)); },
                    eng->DataVls() > 1, p.sl);
    net = std::make_unique<sim::Network>(fabric, tables, p.vls);
  }
  EngineRig(const EngineRig&) = delete;
  EngineRig& operator=(const EngineRig&) = delete;
};

// The kernel the model tests run on: classic, or lean while a lean suite
// repeats a unicast one-packet-buffer test (OnLean).
inline sim::KernelKind g_kernel = sim::KernelKind::kClassic;
inline bool Lean() { return g_kernel == sim::KernelKind::kLean; }
inline sim::Params TestParams() {
  sim::Params p;
  p.kernel = g_kernel;
  return p;
}
template <void (*kTest)()>
void OnLean() {
  g_kernel = sim::KernelKind::kLean;
  kTest();
  g_kernel = sim::KernelKind::kClassic;
}

}  // namespace ibu::simtest
