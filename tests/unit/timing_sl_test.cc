// Per-message SL: with an engine that has a VL policy (xymesh shared), each
// message takes the SL the engine's PathSl hands out for its (source, DLID),
// as OpenSM's SA would, and SL2VL spreads the traffic over the data VLs.
#include <CUnit/CUnit.h>

#include <memory>
#include <string>
#include <vector>

#include "plugin/core/error.h"
#include "plugin/core/netfile.h"
#include "plugin/core/routing/xymesh.h"
#include "plugin/core/topology/generate.h"
#include "sim-harness/timing/network.h"
#include "sim-harness/timing/simulator.h"
#include "sim-harness/timing/traffic.h"
#include "tests/unit/test_util.h"
#include "tests/unit/timing_rig.h"

namespace ibu::simtest {

namespace {

using sim::Params;
using sim::PointResult;

// A 4x4 xymesh in shared VL mode with `vls` data VLs, uniform traffic.
Fabric Mesh4x4() {
  Fabric f = MakeMesh(4, 4);
  AssignDefaultLids(f, 0);
  return f;
}
Params MeshParams(int vls, sim::SlPolicy sl) {
  Params p;
  p.vls = vls;
  p.sl = sl;
  p.warmup_ns = 2000;
  p.measure_ns = 20000;
  return p;
}
struct MeshRun : EngineRig {
  MeshRun(int vls, sim::SlPolicy sl)
      : EngineRig(
            Mesh4x4(),
            MakeEngine("xymesh", {"xymesh_vls=" + std::to_string(vls), "xymesh_vl_mode=shared"}, nullptr),
            MeshParams(vls, sl), "uniform") {}
  PointResult Run() { return sim::Simulator(*net, *wl, p, 0.2, 7).Run(); }
};

// Every VL carries traffic, and the message SLs are exactly PathSl's.
void CheckSpread(int vls) {
  MeshRun m(vls, sim::SlPolicy::kAuto);
  CU_ASSERT(m.wl->UsesPathSl());
  std::vector<bool> sl_seen(16, false);
  for (int s = 0; s < m.wl->hosts(); ++s)
    for (int d = 0; d < m.wl->hosts(); ++d) {
      const Lid dlid = m.fabric.end_ports[d].base_lid;
      const int sl = m.wl->PathSl(s, dlid);
      CU_ASSERT_EQUAL(sl, m.engine->PathSl(m.fabric, m.fabric.end_ports[s].base_lid, dlid));
      sl_seen[sl] = true;
    }
  for (int v = 0; v < vls; ++v) CU_ASSERT(sl_seen[v]);
  const PointResult r = m.Run();
  CU_ASSERT(r.error.empty());
  CU_ASSERT(!r.deadlock);
  CU_ASSERT_EQUAL_FATAL(r.vl_hops.size(), size_t(vls));
  uint64_t sum = 0;
  for (int v = 0; v < vls; ++v) {
    CU_ASSERT(r.vl_hops[v] > 0);
    sum += r.vl_hops[v];
  }
  CU_ASSERT_EQUAL(sum, r.packet_hops);

  // One scripted message per VL: every hop of it on the VL of its PathSl
  // (shared mode keeps SL s on VL s mod vls all the way).
  for (int v = 0; v < vls; ++v) {
    int src = -1;
    for (int s = 0; s < m.wl->hosts() && src < 0; ++s)
      if (m.wl->PathSl(s, m.fabric.end_ports[(s + 5) % m.wl->hosts()].base_lid) == v) src = s;
    CU_ASSERT_FATAL(src >= 0);
    sim::Simulator one(*m.net, *m.wl, m.p, 0, 1);
    one.AddMessage(0, src, (src + 5) % m.wl->hosts(), 64);
    const PointResult q = one.Run();
    CU_ASSERT(q.error.empty());
    CU_ASSERT(q.packet_hops > 0);
    CU_ASSERT_EQUAL(q.vl_hops[v], q.packet_hops);
  }
}

void TestSharedTwoVls() { CheckSpread(2); }
void TestSharedFourVls() { CheckSpread(4); }

// Fixed SL 0 instead: everything on VL 0 (the spread above is the SLs').
void TestFixedSlOneVl() {
  MeshRun m(4, sim::SlPolicy::kFixed);
  CU_ASSERT(!m.wl->UsesPathSl());
  const PointResult r = m.Run();
  CU_ASSERT(r.vl_hops[0] == r.packet_hops);
}

// sl=engine with no engine (dump: routing) is refused at set-up.
void TestEngineSlNeedsEngine() {
  Params p;
  Fabric f = MakeMesh(2, 2);
  AssignDefaultLids(f, 0);
  sim::Workload wl(sim::ParseTraffic("uniform"), p, f, 1);
  CU_ASSERT(test::Contains(test::ErrorOf([&] { wl.SetPathSlFn(nullptr, false, sim::SlPolicy::kEngine); }), "sl=engine"));
}

}  // namespace

void RegisterTimingSlSuite() {
  CU_pSuite s = CU_add_suite("timing_sl", nullptr, nullptr);
  CU_add_test(s, "xymesh shared, 2 VLs: PathSl per message, both VLs used", TestSharedTwoVls);
  CU_add_test(s, "xymesh shared, 4 VLs: PathSl per message, all VLs used", TestSharedFourVls);
  CU_add_test(s, "fixed SL 0: one VL", TestFixedSlOneVl);
  CU_add_test(s, "sl=engine without an engine: refused", TestEngineSlNeedsEngine);
}

}  // namespace ibu::simtest
