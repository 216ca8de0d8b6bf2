// Deadlock detection: LFTs routing every LID clockwise around a ring make a
// credit loop; the model must report it, with the channels, and return.
#include <CUnit/CUnit.h>

#include <chrono>
#include <string>
#include <vector>

#include "sim-harness/timing/kernel_common.h"
#include "tests/unit/test_util.h"
#include "tests/unit/timing_rig.h"

namespace ibu::simtest {

namespace {

using sim::Params;
using sim::PointResult;
using sim::Simulator;

using test::Contains;

void TestRingDeadlocks() {
  // Every host sends to the host three switches ahead: each packet holds a
  // ring input buffer while it waits for the next ring output. Batch mode.
  // Hosts in ring (file) order: four switches in a ring are also a 2x2
  // mesh, whose numbering would mix the distances.
  Params p = TestParams();
  p.batch = 40;
  p.host_order = sim::HostNumbering::kFile;
  Rig rig(ClockwiseRing(4), p, "shift:3");
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  const auto t0 = std::chrono::steady_clock::now();
  const PointResult r = sim.Run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CU_ASSERT(r.deadlock);
  CU_ASSERT(Contains(r.deadlock_report, "credit loop of 4 channels"));
  for (const char* sw : {"R0", "R1", "R2", "R3"}) CU_ASSERT(Contains(r.deadlock_report, sw));
  CU_ASSERT(Contains(r.deadlock_report, "VL 0"));
  CU_ASSERT(wall < 5.0);
}

// The clockwise ring's loop under steady traffic at load 1, the window
// opening at `warmup_ns`.
constexpr int64_t kRingWindowNs = 100000;
PointResult SteadyRingRun(int64_t warmup_ns) {
  Params p = TestParams();
  p.warmup_ns = warmup_ns;
  p.measure_ns = kRingWindowNs;
  p.host_order = sim::HostNumbering::kFile;
  Rig rig(ClockwiseRing(4), p, "shift:3");
  Simulator sim(*rig.net, *rig.wl, p, 1.0, 2);
  return sim.Run();
}

void TestRingDeadlocksInSteadyState() {
  // Same loop under steady traffic: message generation goes on, the
  // network does not; reported, not hung.
  const PointResult r = SteadyRingRun(1000);
  CU_ASSERT(r.deadlock);
  CU_ASSERT(Contains(r.deadlock_report, "credit loop"));
}

void TestDeadlockCountsLinkTimeOnlyInTheWindow() {
  // The steady ring deadlocks within its first microsecond, links idle
  // from then on. With the window opening after it no link time counts;
  // with the window opening before it, a link counts at most the time
  // from the window's start to the end of the run.
  for (int64_t warmup : {int64_t(5000), int64_t(300)}) {
    const PointResult r = SteadyRingRun(warmup);
    CU_ASSERT_FATAL(r.deadlock);
    CU_ASSERT(r.simulated_ns < 5000);
    if (r.simulated_ns <= warmup) {
      CU_ASSERT_EQUAL(r.link_util_max, 0.0);
    } else {
      CU_ASSERT(r.link_util_max > 0);
      const double bound = double(r.simulated_ns - warmup) / double(kRingWindowNs);
      for (double u : r.link_util) CU_ASSERT(u <= bound + 1e-12);
    }
  }
}

// Two hops clockwise on three switches: the tables have a credit loop, but
// under this traffic the ring keeps moving. Long messages keep every ring
// link busy, so a frequent check finds each link's head on the wire, having
// taken its credit and the far slot: that is no deadlock, and checking as
// often as that changes nothing but the event count. Also with deeper
// buffers (classic only) and on two VLs, where a link busy on one VL holds
// the other's head back.
struct RingBuffers {
  int in_buf, out_buf, vls;
};

PointResult BusyRingRun(int64_t check_ns, const RingBuffers& b) {
  Params p = TestParams();
  p.warmup_ns = 1000;
  p.measure_ns = 40000;
  p.deadlock_check_ns = check_ns;
  p.host_order = sim::HostNumbering::kFile;
  p.in_buf = b.in_buf;
  p.out_buf = b.out_buf;
  p.vls = b.vls;
  if (b.vls > 1) p.sl = sim::SlPolicy::kRandom;
  Rig rig(ClockwiseRing(3), p, "shift:2");
  Simulator sim(*rig.net, *rig.wl, p, 1.0, 1);
  sim.SetMessageBytes(4096);
  return sim.Run();
}

void TestBusyRingIsNoDeadlock() {
  std::vector<RingBuffers> runs = {{1, 1, 1}, {1, 1, 2}};
  if (!Lean()) runs.push_back({4, 2, 1});
  for (const RingBuffers& b : runs) {
    const PointResult unchecked = BusyRingRun(int64_t(1) << 40, b);
    CU_ASSERT_FATAL(!unchecked.deadlock);
    CU_ASSERT(unchecked.packets_delivered > 1000);
    for (int64_t check_ns : {7, 100, 1000}) {
      const PointResult r = BusyRingRun(check_ns, b);
      CU_ASSERT(!r.deadlock);
      CU_ASSERT_EQUAL(r.packets_delivered, unchecked.packets_delivered);
      CU_ASSERT_EQUAL(r.simulated_ns, unchecked.simulated_ns);
    }
  }
}

void TestOneHopRingIsFine() {
  // One hop clockwise uses no ring-to-ring turn: no loop, all delivered.
  Params p = TestParams();
  p.batch = 40;
  p.host_order = sim::HostNumbering::kFile;
  Rig rig(ClockwiseRing(4), p, "shift:1");
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  const PointResult r = sim.Run();
  CU_ASSERT(!r.deadlock);
  CU_ASSERT(r.conservation_ok);
  CU_ASSERT_EQUAL(r.ops_measured, 160u);
}

void TestDatelineVlBreaksTheLoop() {
  // Three hops clockwise, SL = source index. On one VL the loop deadlocks;
  // with a SL2VL hook that moves a packet to VL 1 once it has crossed the
  // R3 -> R0 "dateline" (it is at switch sw < its source) the VL 0 and the
  // VL 1 channels each form a line, not a loop: everything arrives.
  for (int vls : {1, 2}) {
    Params p = TestParams();
    p.vls = vls;
    Rig rig(ClockwiseRing(4), p, "shift:3");
    sim::Sl2VlFn dateline = nullptr;
    if (vls == 2) dateline = [](int sw, int, int, int sl) { return sw >= 0 && sw < sl ? 1 : 0; };
    sim::Network net(rig.st.fabric, rig.st.tables, vls, dateline);
    Simulator sim(net, *rig.wl, p, 0, 1);
    for (int i = 0; i < 40; ++i)
      for (int src = 0; src < 4; ++src) sim.AddMessage(0, src, (src + 3) % 4, 32, src);
    const PointResult r = sim.Run();
    if (vls == 1) {
      CU_ASSERT(r.deadlock);
    } else {
      CU_ASSERT(!r.deadlock);
      CU_ASSERT(r.conservation_ok);
      CU_ASSERT_EQUAL(r.ops_measured, 160u);
    }
  }
}

// The report both kernels give, from its parts: a loop by its channels,
// or without one the blocked outputs with their credits.
void TestDeadlockReportWording() {
  Params p = TestParams();
  p.vls = 2;
  Rig rig(ClockwiseRing(4), p, "uniform");
  const sim::Network& net = *rig.net;
  const std::vector<int> loop = {(1 << 1) | 1, (5 << 1) | 1};
  const std::string with_loop = sim::DeadlockReport(net, 700, 9, loop, 1, true, {});
  CU_ASSERT(
      Contains(with_loop, "deadlock at t=700 ns with 9 packets in the network: credit loop of 2 channels: [" +
                              net.LinkName(1) + " VL 1] => [" + net.LinkName(5) + " VL 1]"));
  const std::vector<sim::BlockedChannel> blocked = {{(3 << 1) | 0, 0}, {(4 << 1) | 1, 1}};
  const std::string stalled = sim::DeadlockReport(net, 50, 2, {}, 1, true, blocked);
  CU_ASSERT(Contains(stalled,
                     "with 2 packets in the network: no event can move them, but no credit loop was "
                     "found (blocked outputs: [" +
                         net.LinkName(3) + " VL 0 credits 0] [" + net.LinkName(4) + " VL 1 credits 1])"));
  CU_ASSERT(Contains(sim::DeadlockReport(net, 50, 2, {}, 1, false, {}), "network: (no loop)"));
}

}  // namespace

void RegisterTimingDeadlockSuite() {
  CU_pSuite s = CU_add_suite("timing_deadlock", nullptr, nullptr);
  CU_add_test(s, "clockwise ring: credit loop reported with its channels", TestRingDeadlocks);
  CU_add_test(s, "clockwise ring under steady load: reported, not hung", TestRingDeadlocksInSteadyState);
  CU_add_test(s, "a deadlock before or in the window: link time only in it",
              TestDeadlockCountsLinkTimeOnlyInTheWindow);
  CU_add_test(s, "busy ring: a head on the wire is no deadlock", TestBusyRingIsNoDeadlock);
  CU_add_test(s, "one-hop ring traffic completes", TestOneHopRingIsFine);
  CU_add_test(s, "dateline SL2VL hook breaks the loop", TestDatelineVlBreaksTheLoop);
  CU_add_test(s, "the deadlock report's wording, loop or blocked outputs", TestDeadlockReportWording);
}

void RegisterTimingDeadlockLeanSuite() {
  CU_pSuite s = CU_add_suite("timing_deadlock_lean", nullptr, nullptr);
  CU_add_test(s, "lean: clockwise ring: credit loop reported with its channels", OnLean<TestRingDeadlocks>);
  CU_add_test(s, "lean: clockwise ring under steady load: reported, not hung",
              OnLean<TestRingDeadlocksInSteadyState>);
  CU_add_test(s, "lean: a deadlock before or in the window: link time only in it",
              OnLean<TestDeadlockCountsLinkTimeOnlyInTheWindow>);
  CU_add_test(s, "lean: busy ring: a head on the wire is no deadlock", OnLean<TestBusyRingIsNoDeadlock>);
  CU_add_test(s, "lean: one-hop ring traffic completes", OnLean<TestOneHopRingIsFine>);
  CU_add_test(s, "lean: dateline SL2VL hook breaks the loop", OnLean<TestDatelineVlBreaksTheLoop>);
}

}  // namespace ibu::simtest
