// Timing-model tests against analytic values: zero-load latency, link
// bandwidth, hot spots, conservation, routing errors.
#include <CUnit/CUnit.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "plugin/core/error.h"
#include "tests/unit/test_util.h"
#include "tests/unit/timing_rig.h"

namespace ibu::simtest {

namespace {

using sim::Params;
using sim::PointResult;
using sim::Simulator;

using test::Contains;

// Zero-load latency of a message of P packets of L bytes crossing H
// switches, with F = fly time, R = routing time, b = ns per byte, B input
// buffer slots per VL: the last packet (`last` bytes, L when 0) leaves the
// source at s(P-1) and lands (H + 1) * F + H * R + last * b later. Packets
// leave back to back (L*b apart) while credits last; packet k needs the
// credit of packet k - B, back C = 2F + R + L*b after that one left (its
// slot frees when the tail has left, L*b after the crossbar transfer that
// starts R after the head arrived, and the credit flies back F):
//   s(k) = k * L*b                                 if B * L*b >= C
//   s(k) = (k / B) * C + (k % B) * L*b             otherwise
// So one-packet buffers give a period of C, buffers covering the round
// trip line rate, and B in between bursts of B packets per round trip.
int64_t ZeroLoad(int64_t H, int64_t P, int64_t L, const Params& p, int64_t last = 0) {
  const int64_t F = p.fly_ns, R = p.route_ns, b = p.byte_ns, B = p.in_buf;
  const int64_t rtt = 2 * F + R + L * b;
  const int64_t k = P - 1;
  const int64_t start = B * L * b >= rtt ? k * L * b : (k / B) * rtt + (k % B) * L * b;
  return start + (H + 1) * F + H * R + (last ? last : L) * b;
}

void TestZeroLoadOnePacket() {
  for (int H = 1; H <= 5; ++H) {
    Params p = TestParams();
    // Host 0 -> host H-1 on a line crosses H switches; H = 1: a star.
    Rig rig(H == 1 ? Star(2) : Line(H), p);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(1000, 0, H == 1 ? 1 : H - 1, 32);
    const PointResult r = sim.Run();
    CU_ASSERT_EQUAL(r.ops_measured, 1u);
    // 32 B over H switches: (H+1)*20 + H*100 + 128, e.g. 268 ns for H = 1.
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), ZeroLoad(H, 1, 32, p));
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), (H + 1) * 20 + H * 100 + 32 * 4);
    CU_ASSERT_EQUAL(r.packet_hops, uint64_t(H + 1));
    CU_ASSERT(r.conservation_ok);
  }
}

void TestZeroLoadOtherParams() {
  Params p = TestParams();
  p.fly_ns = 7;
  p.route_ns = 33;
  p.byte_ns = 2;
  p.packet_bytes = 64;
  Rig rig(Line(3), p);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 2, 0, 64);
  const PointResult r = sim.Run();
  CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), 4 * 7 + 3 * 33 + 64 * 2);
}

void TestMultiPacketMessage() {
  // 10 packets, one-packet buffers: credit-round-trip bound.
  {
    Params p = TestParams();
    Rig rig(Line(3), p);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, 0, 2, 320);
    const PointResult r = sim.Run();
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), ZeroLoad(3, 10, 32, p));
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), 4 * 20 + 3 * 100 + 128 + 9 * 268);
    CU_ASSERT_EQUAL(r.packets_delivered, 10u);
  }
  if (Lean()) return;  // deeper buffers: classic only
  // Three-packet buffers cover the round trip: line rate.
  {
    Params p = TestParams();
    p.in_buf = 3;
    Rig rig(Line(3), p);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, 0, 2, 320);
    const PointResult r = sim.Run();
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), 4 * 20 + 3 * 100 + 128 + 9 * 128);
  }
  // Two-packet buffers, short of the 268-ns round trip: bursts of two
  // packets 128 ns apart, one burst per round trip (starts 0, 128, 268,
  // 396, 536, ...), not one packet per round trip: 5 packets, the last
  // leaves at 2 * 268 = 536; 6 and a 4-byte one, at 3 * 268 = 804.
  for (const auto& [bytes, packets, last, start] :
       {std::tuple{64u, 2, 0, 128}, std::tuple{96u, 3, 0, 268}, std::tuple{160u, 5, 0, 536},
        std::tuple{196u, 7, 4, 804}}) {
    Params p = TestParams();
    p.in_buf = 2;
    Rig rig(Line(3), p);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, 0, 2, bytes);
    const PointResult r = sim.Run();
    CU_ASSERT_EQUAL(r.packets_delivered, uint64_t(packets));
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), ZeroLoad(3, packets, 32, p, last));
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), start + 4 * 20 + 3 * 100 + (last ? last : 32) * 4);
  }
  // A last partial packet: 100 B = 32 + 32 + 32 + 4 at line rate.
  {
    Params p = TestParams();
    p.in_buf = 4;
    Rig rig(Line(2), p);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, 0, 1, 100);
    const PointResult r = sim.Run();
    CU_ASSERT_EQUAL(r.packets_delivered, 4u);
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), ZeroLoad(2, 4, 32, p, 4));
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), 3 * 128 + 3 * 20 + 2 * 100 + 4 * 4);
  }
}

void TestShortPacketsOneSlotBuffers() {
  // Star(2), one-packet buffers. 1 B: 2F + R + 1b = 144 ns. 33 B = 32 + 1:
  // the first packet's slot frees at 120 + 128, its credit is back at 268,
  // so the 1-byte packet starts at 268 and lands 20 + 100 + 20 + 4 later.
  for (const auto& [bytes, latency, packets] : {std::tuple{1u, 144, 1u}, std::tuple{33u, 412, 2u}}) {
    Params p = TestParams();
    Rig rig(Star(2), p);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, 0, 1, bytes);
    const PointResult r = sim.Run();
    CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), latency);
    CU_ASSERT_EQUAL(r.packets_delivered, packets);
  }
}

void TestTwoSourcesOneOutput() {
  // Star(3): hosts 0 and 1 send 2 packets each to host 2 at t=0. Both heads
  // are routed at 120; host 0 (first in) leaves at once, host 1 waits for
  // the output: 248. Its slot frees at 248 + 128, so its credit is back at
  // 396 (not 268: a waiting packet holds its credit), and its second packet
  // is routed at 516, when the output has just finished host 0's second
  // (routed 388, sent 388..516). Deliveries 268, 396, 536, 664: messages
  // done at 536 (host 0) and 664 (host 1).
  Params p = TestParams();
  Rig rig(Star(3), p);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 0, 2, 64);
  sim.AddMessage(0, 1, 2, 64);
  const PointResult r = sim.Run();
  CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), (536 + 664) / 2);
  CU_ASSERT_EQUAL(int64_t(r.latency_max_ns), 664);
  CU_ASSERT_EQUAL(r.completion_ns, 664);
}

void TestHotSpotLinkExactly() {
  // Star(4): hosts 0, 1, 2 send 10 packets each to host 3 at t=0. An input
  // is ready again 268 ns after its grant and its turn comes 384 ns later,
  // so the link to host 3 never idles: 30 packets of 128 ns from t=120, in
  // round-robin order 0, 1, 2, ... Last bytes at 120 + 28 * 128 + 148 =
  // 3724 (host 0), 3852, 3980: exactly 0.25 bytes/ns, no credit gap.
  Params p = TestParams();
  Rig rig(Star(4), p);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  for (int h = 0; h < 3; ++h) sim.AddMessage(0, h, 3, 320);
  const PointResult r = sim.Run();
  CU_ASSERT_EQUAL(r.completion_ns, 120 + 30 * 128 + 20);
  CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), 3852);
  CU_ASSERT_EQUAL(int64_t(r.latency_max_ns), 3980);
}

// Two messages from host 0 to host 1 of Star(2) on SLs `sl_a` and `sl_b`.
PointResult TwoMessagesOnSls(int vls, int bytes, int sl_a, int sl_b) {
  Params p = TestParams();
  p.vls = vls;
  Rig rig(Star(2), p);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 0, 1, bytes, sl_a);
  sim.AddMessage(0, 0, 1, bytes, sl_b);
  return sim.Run();
}

void TestVlsShareTheLink() {
  // Star(2), 2 VLs: one 2-packet message on SL 0 and one on SL 1 from host
  // 0. The host alternates VLs packet by packet (VL 0 at 0, VL 1 at 128);
  // each VL waits for its own credit (268 and 396), so the second packets
  // go at 268 and 396: deliveries 268, 396, 536, 664.
  const PointResult two = TwoMessagesOnSls(2, 64, 0, 1);
  CU_ASSERT_EQUAL(int64_t(two.latency_avg_ns), (536 + 664) / 2);
  CU_ASSERT_EQUAL(two.completion_ns, 664);
  CU_ASSERT(two.vl_hops == std::vector<uint64_t>({4, 4}));
  // 4 VLs, SL 5 and SL 6: VL = SL mod 4 on every hop, VLs 1 and 2.
  const PointResult four = TwoMessagesOnSls(4, 32, 5, 6);
  CU_ASSERT(four.vl_hops == std::vector<uint64_t>({0, 2, 2, 0}));
  CU_ASSERT_EQUAL(four.completion_ns, 128 + 268);
}

// S0 holds hosts A, B, C on ports 1-3 and port 4 to S1 port 1; S1 holds
// D, E on ports 2, 3. Unicast up and down.
Setup TwoSwitches() {
  Setup st;
  Fabric& f = st.fabric;
  AddSwitch(f, 4, "S0");
  AddSwitch(f, 3, "S1");
  ConnectSwitches(f, 0, 4, 1, 1);
  const char* names[] = {"A", "B", "C", "D", "E"};
  for (int h = 0; h < 5; ++h) {
    AddHost(f, names[h]);
    ConnectEndPort(f, h, h < 3 ? 0 : 1, h < 3 ? h + 1 : h - 1);
  }
  NumberLids(f);
  st.tables.Resize(f);
  for (int h = 0; h < 5; ++h) {
    const Lid lid = f.end_ports[h].base_lid;
    st.tables.lft[0].set(lid, uint8_t(h < 3 ? h + 1 : 4));
    st.tables.lft[1].set(lid, uint8_t(h < 3 ? 1 : h - 1));
  }
  for (int s = 0; s < 2; ++s) st.tables.lft[s].set(f.switches[s].lid, 0);
  return st;
}

void TestStraightGrantMovesRoundRobin() {
  // A grant to an idle output is a round-robin grant too. All to D:
  //   C at 0: S0 sends it up 120..248; at S1 (routed 240) it waits for E's
  //     packet (E at 100, S1 -> D 220..348), so S0's credit is back at 496.
  //   A at 130, 2 packets: the first is routed at 250 onto the idle output
  //     (granted at once, waits there for the credit, goes up 496..624);
  //     A's slot frees at 378, its second packet is routed at 518.
  //   B at 200: routed at 320, waits.
  // At 624 B and A's second packet both wait: round robin after A serves
  // B. S0's next two sends go up once S1 returns a credit (764, 1032), so
  // B's packet lands at 1032 and A's second at 1300: latency 1300 - 130.
  // Serving A again would leave B last (1300 - 200 = 1100).
  Params p = TestParams();
  Rig rig(TwoSwitches(), p);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 2, 3, 32);
  sim.AddMessage(100, 4, 3, 32);
  sim.AddMessage(130, 0, 3, 64);
  sim.AddMessage(200, 1, 3, 32);
  const PointResult r = sim.Run();
  CU_ASSERT_EQUAL(r.completion_ns, 1300);
  CU_ASSERT_EQUAL(int64_t(r.latency_max_ns), 1300 - 130);
}

void TestSaturatedLink() {
  // Three hosts send everything to host 0 through one switch: the switch's
  // link to host 0 is busy all the time and carries 1/b = 0.25 bytes/ns.
  Params p = TestParams();
  p.warmup_ns = 20000;
  p.measure_ns = 100000;
  p.drain_ns = 0;
  p.hot = 0;
  Rig rig(Star(4), p, "centric:1.0");
  Simulator sim(*rig.net, *rig.wl, p, 1.0, 7);
  const PointResult r = sim.Run();
  CU_ASSERT(std::fabs(r.hot_accepted - 0.25) < 0.25 * 0.005);
  CU_ASSERT(r.hot_accepted <= 0.25 * (1 + 1e-9) + 32.0 / p.measure_ns);
  CU_ASSERT(r.link_util_max > 0.995 && r.link_util_max <= 1.0 + 1e-9);
  CU_ASSERT(r.conservation_ok);
}

void TestSingleFlowBandwidth() {
  // One source, one destination, one VL: with one-packet buffers a flow
  // gets L / (2F + R + L*b) = 32/268 bytes/ns; with three it gets the link.
  for (int buf : {1, 3}) {
    if (buf != 1 && Lean()) continue;  // deeper buffers: classic only
    Params p = TestParams();
    p.in_buf = buf;
    p.warmup_ns = 20000;
    p.measure_ns = 200000;
    p.drain_ns = 0;
    Rig rig(Star(2), p, "shift:1");
    Simulator sim(*rig.net, *rig.wl, p, 1.0, 3);
    const PointResult r = sim.Run();
    const double expect = buf == 1 ? 32.0 / 268.0 : 0.25;
    // Two hosts, each sending to the other: per-host accepted = one flow.
    CU_ASSERT(std::fabs(r.accepted - expect) < expect * 0.01);
  }
}

void TestHotSpotBounded() {
  // 10%-centric and 50%-centric traffic on a tree: the hot host never
  // receives more than its link carries.
  for (double f : {0.1, 0.5, 1.0}) {
    Params p = TestParams();
    p.vls = 2;
    p.warmup_ns = 10000;
    p.measure_ns = 100000;
    p.drain_ns = 0;
    p.hot = 5;
    Rig rig(Tree(4, 4), p, "centric:" + std::to_string(f));
    Simulator sim(*rig.net, *rig.wl, p, 0.8, 11);
    const PointResult r = sim.Run();
    CU_ASSERT(r.hot_accepted <= 0.25 + 32.0 / double(p.measure_ns));
    CU_ASSERT(r.hot_accepted > 0.0);
    CU_ASSERT(r.accepted <= r.offered * 1.05 + 1e-9);
  }
}

// The params a Workload checks against the fabric are named as given (the
// CLI passes "FILE:LINE: key = value" or "--param key=value"), or by key
// and value when no name is passed.
void TestWorkloadNamesParamsAsGiven() {
  Params p = TestParams();
  p.hot = 4;
  const Setup st = Star(4);
  auto hot_error = [&](const sim::ParamNames& names) {
    return test::ErrorOf([&] { sim::Workload wl(sim::ParseTraffic("centric:0.5"), p, st.fabric, 1, names); });
  };
  CU_ASSERT_EQUAL(hot_error({{"hot", "run.conf:4: hot = 4"}}),
                  "run.conf:4: hot = 4: expected a host number 0..3, the fabric has 4 hosts");
  CU_ASSERT_EQUAL(hot_error({}),
                  "hot = 4 (--param or config file): expected a host number 0..3, the fabric has 4 hosts");
  p.hot = 3;
  CU_ASSERT_EQUAL(hot_error({{"hot", "--param hot=3"}}), "");
}

void TestConservationBatch() {
  // Every source queues 20 messages of 100 B (4 packets) at t=0 on a tree
  // with 2 VLs; all of them arrive, each packet once.
  for (int vls : {1, 2, 4}) {
    Params p = TestParams();
    p.vls = vls;
    p.batch = 20;
    Rig rig(Tree(3, 3), p, "uniform", 5);
    Simulator sim(*rig.net, *rig.wl, p, 0.5, 9);
    sim.SetMessageBytes(100);
    const PointResult r = sim.Run();
    CU_ASSERT(!r.deadlock);
    CU_ASSERT(r.error.empty());
    CU_ASSERT_EQUAL(r.ops_measured, 9u * 20u);
    CU_ASSERT_EQUAL(r.ops_unfinished, 0u);
    CU_ASSERT_EQUAL(r.packets_delivered, 9u * 20u * 4u);
    CU_ASSERT(r.conservation_ok);
    uint64_t sum = 0;
    for (int h = 0; h < 9; ++h) sum += sim.DeliveredTo(h);
    CU_ASSERT_EQUAL(sum, r.packets_delivered);
  }
}

void TestWindowCutsLinkTimeAtBothEnds() {
  // The saturated link of TestSaturatedLink sends 128-ns packets back to
  // back, so whatever the window it is busy all of it: windows whose ends
  // fall at different points of a packet (a packet straddling w0 counts
  // only after it, one straddling w1 only before it) must all give exactly
  // 1. Counting a straddling packet whole at either end is off by up to
  // 127 ns, 1.3e-3 of the window.
  for (const auto& [warmup, measure] :
       {std::pair<int64_t, int64_t>{20000, 100000}, {20037, 100000}, {20100, 99950}, {20001, 100126}}) {
    Params p = TestParams();
    p.warmup_ns = warmup;
    p.measure_ns = measure;
    p.drain_ns = 0;
    p.hot = 0;
    Rig rig(Star(4), p, "centric:1.0");
    Simulator sim(*rig.net, *rig.wl, p, 1.0, 7);
    const PointResult r = sim.Run();
    CU_ASSERT_DOUBLE_EQUAL(r.link_util_max, 1.0, 1e-12);
  }
}

void TestBatchCutAtMaxNsCountsNoLinkTimePastIt() {
  // A batch cut at max_ns is an error, and its row counts only what
  // happened before the cut: a link that started a 128-ns packet in a
  // 100-ns run was 128% busy, and a delivery due after it counted.
  Params p = TestParams();
  p.batch = 1;
  p.max_ns = 100;
  Rig rig(Tree(2, 2), p, "uniform");
  Simulator sim(*rig.net, *rig.wl, p, 0.5, 1);
  const PointResult r = sim.Run();
  CU_ASSERT(!r.error.empty());
  CU_ASSERT(r.link_util_max > 0);
  CU_ASSERT(r.link_util_max <= 1.0);
  CU_ASSERT_EQUAL(r.accepted, 0.0);
}

void TestSteadyStateConservation() {
  Params p = TestParams();
  p.vls = 4;
  p.warmup_ns = 5000;
  p.measure_ns = 50000;
  Rig rig(Tree(4, 3), p, "uniform", 2);
  Simulator sim(*rig.net, *rig.wl, p, 0.3, 4);
  sim.SetMessageBytes(64);
  const PointResult r = sim.Run();
  CU_ASSERT(r.conservation_ok);
  CU_ASSERT_EQUAL(r.ops_unfinished, 0u);
  CU_ASSERT(std::fabs(r.accepted - r.offered) < 0.1 * r.offered);
  CU_ASSERT(std::fabs(r.offered - 0.3 * 0.25) < 0.2 * 0.3 * 0.25);
}

// Offered traffic (bytes/ns/host) of `bytes`-byte messages at `load` on
// two hosts with `arrival` gaps, over a window of `measure_ns`.
double OfferedOnStar(sim::Arrival arrival, uint32_t bytes, double load, int64_t measure_ns, uint64_t seed) {
  Params p = TestParams();
  p.arrival = arrival;
  p.warmup_ns = 1000;
  p.measure_ns = measure_ns;
  Rig rig(Star(2), p, "uniform");
  Simulator sim(*rig.net, *rig.wl, p, load, seed);
  sim.SetMessageBytes(bytes);
  const PointResult r = sim.Run();
  CU_ASSERT(r.error.empty());
  return r.offered;
}

void TestPeriodicArrivalsOfferTheLoad() {
  // Periodic arrivals, one message every msg_ns / load ns: 4.44 ns for
  // 1-byte messages at load 0.9, 5.71 at 0.7, 42.7 for 32 bytes at load 3.
  // Each gap was rounded on its own, 4, 6 and 43 ns every time: offered
  // 0.25, 0.1667 and 0.744 bytes/ns, not 0.225, 0.175 and 0.75. The
  // arrival times keep the fraction now: offered is the load, to a
  // message per window.
  const int64_t window = 20000;
  for (const auto& [bytes, load] : {std::pair{1u, 0.9}, std::pair{1u, 0.7}, std::pair{32u, 3.0}}) {
    const double offered = OfferedOnStar(sim::Arrival::kPeriodic, bytes, load, window, 1);
    const double per_window = double(bytes) / double(window);  // one message more or less
    CU_ASSERT(std::fabs(offered - load * 0.25) <= per_window + 1e-12);
  }
}

void TestExponentialArrivalsOfferTheLoad() {
  // Exponential gaps of mean 4.44 ns (1-byte messages at load 0.9) and
  // 5.71 ns (0.7), each rounded on its own to a whole nanosecond of at
  // least 1, offered about 2% less than asked: draws below 0.5 ns became
  // 1. The rounding is carried like the periodic gaps', so offered is the
  // load within the Poisson noise of ~90,000 messages a host (0.3%).
  for (const double load : {0.9, 0.7}) {
    const double offered = OfferedOnStar(sim::Arrival::kExponential, 1, load, 400000, 3);
    CU_ASSERT(std::fabs(offered - load * 0.25) < 0.01 * load * 0.25);
  }
}

void TestTinyLoadSendsNothing() {
  // At load 1e-300 the next message is ~1e302 ns away under every arrival
  // process: none in a 20 us window. The draw once overflowed int64 and
  // messages came every nanosecond ('offered' 0.25 to 32 bytes/ns).
  for (const sim::Arrival a :
       {sim::Arrival::kBernoulli, sim::Arrival::kExponential, sim::Arrival::kPeriodic}) {
    Params p = TestParams();
    p.arrival = a;
    p.warmup_ns = 1000;
    p.measure_ns = 20000;
    Rig rig(Tree(2, 2), p, "uniform");
    Simulator sim(*rig.net, *rig.wl, p, 1e-300, 1);
    const PointResult r = sim.Run();
    CU_ASSERT(r.error.empty());
    CU_ASSERT_EQUAL(r.offered, 0.0);
    CU_ASSERT_EQUAL(r.ops_measured, 0u);
    CU_ASSERT_EQUAL(r.packets_delivered, 0u);
  }
}

// What the run of one 32-byte message from host src to host dst fails
// with ("" when it does not).
std::string FailureOfOneMessage(Setup st, const Params& p, int src, int dst) {
  Rig rig(std::move(st), p);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, src, dst, 32);
  try {
    sim.Run();
  } catch (const sim::SimFailure& e) {
    return e.what();
  }
  return "";
}

void TestNoRouteIsReported() {
  Params p = TestParams();
  Setup st = Line(3);
  st.tables.lft[1].out[st.fabric.end_ports[2].base_lid] = kNoPort;  // hole at L1
  const std::string err = FailureOfOneMessage(std::move(st), p, 0, 2);
  CU_ASSERT(Contains(err, "no route"));
  CU_ASSERT(Contains(err, "L1"));
  CU_ASSERT(Contains(err, "LID 3"));
}

// A LID past the end of every switch's LFT row (tables made for fewer
// LIDs): the lookup's out-of-row case, not a hole inside the row.
void TestLidBeyondEveryLftIsNoRoute() {
  Params p = TestParams();
  Setup st = Line(3);
  st.fabric.end_ports[2].base_lid = 200;
  for (const ibu::Lft& l : st.tables.lft) CU_ASSERT(l.out.size() < 64);  // rows padded to 64 at most
  const std::string err = FailureOfOneMessage(std::move(st), p, 0, 2);
  CU_ASSERT(Contains(err, "no route: switch L0 ("));
  CU_ASSERT(Contains(err, "has no LFT entry for LID 200"));
}

void TestRoutingLoopIsReported() {
  Params p = TestParams();
  Setup st = Line(3);
  // L1 sends LID 3 back west, L0 sends it east: ping-pong.
  st.tables.lft[1].out[3] = 1;
  const std::string err = FailureOfOneMessage(std::move(st), p, 0, 2);
  CU_ASSERT(Contains(err, "loop") || Contains(err, "arrival port"));
}

// A route through more than 64 switches (a 64x64 mesh has 127) is no loop.
void TestLongRouteIsNoLoop() {
  Params p = TestParams();
  Rig rig(Line(100), p);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 0, 99, 32);
  const PointResult r = sim.Run();
  CU_ASSERT_EQUAL(r.ops_measured, 1u);
  CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), ZeroLoad(100, 1, 32, p));
  CU_ASSERT_EQUAL(r.packet_hops, 101u);
}

// LatencySamples counts latencies per nanosecond instead of keeping every
// sample; its count, sum, max and quantiles must equal the plain vector's.
void TestLatencySamplesEqualVector() {
  std::mt19937_64 rng(5);
  for (size_t n : {size_t(0), size_t(1), size_t(7), size_t(70000), size_t(300000)}) {
    for (int64_t spread : {int64_t(3), int64_t(5000), int64_t(1) << 25, int64_t(1) << 40}) {
      sim::LatencySamples ls;
      std::vector<int64_t> v;
      double sum = 0;
      for (size_t i = 0; i < n; ++i) {
        // Drifting upward, as latencies past saturation do.
        const int64_t x = int64_t(rng() % uint64_t(spread)) + int64_t(i / 1000);
        ls.Add(x);
        v.push_back(x);
        sum += double(x);
      }
      CU_ASSERT_EQUAL(ls.count(), v.size());
      CU_ASSERT(ls.sum() == sum);  // bit for bit: same additions, same order
      for (double q : {0.0, 0.5, 0.99, 1.0}) {
        std::vector<int64_t> w = v;
        CU_ASSERT(ls.Quantile(q) == sim::Quantile(w, q));
      }
      if (n) CU_ASSERT_EQUAL(ls.max(), *std::max_element(v.begin(), v.end()));
      ls.Add(1);  // adding after a quantile
      v.push_back(1);
      CU_ASSERT(ls.Quantile(0.99) == sim::Quantile(v, 0.99));
    }
  }
}

// The statistics from hand-made counters, without a kernel: the window's
// averages, link use over cabled ports only, and each leg of the
// conservation ledger failing on its own.
void TestSummariseFromCounters() {
  sim::RunCounters c;
  c.hops = 40;
  c.vl_hops = {30, 10};
  c.injected = 10, c.copies = 2, c.freed_delivered = 11, c.dropped = 1;
  c.delivered_pkts = 11, c.expected_total = 11, c.delivered_total = 11;
  c.offered_bytes = 4000, c.accepted_bytes = 2000, c.hot_offered_bytes = 300;
  c.last_delivery_ns = 900;
  sim::RunEnd e;
  e.now_ns = 1000, e.window_ns = 1000, e.hosts = 8;
  e.centric = true, e.hot_backlogged_bytes = 100, e.hot_accepted_bytes = 250;
  e.link_busy_ns = {500, -1, 250};
  sim::LatencySamples lat;
  for (int64_t ns : {100, 300}) lat.Add(ns);
  sim::PointResult r;
  sim::Summarise(c, e, lat, 2.0, &r);
  CU_ASSERT_DOUBLE_EQUAL(r.offered, 0.5, 1e-12);  // 4000 B / 1000 ns / 8 hosts
  CU_ASSERT_DOUBLE_EQUAL(r.accepted, 0.25, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(r.hot_offered, 0.4, 1e-12);  // (300 + 100) / 1000
  CU_ASSERT_DOUBLE_EQUAL(r.hot_accepted, 0.25, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(r.link_util_max, 0.5, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(r.link_util_avg, 0.375, 1e-12);  // the uncabled port is no link
  CU_ASSERT_DOUBLE_EQUAL(r.latency_avg_ns, 200, 1e-12);
  CU_ASSERT_DOUBLE_EQUAL(r.packet_hops_per_s, 20, 1e-12);
  CU_ASSERT_EQUAL(r.simulated_ns, 1000);
  CU_ASSERT(r.conservation_ok);
  const auto ok_with = [&](auto change) {
    sim::RunCounters c2 = c;
    sim::RunEnd e2 = e;
    change(c2, e2);
    sim::PointResult r2;
    sim::Summarise(c2, e2, lat, 2.0, &r2);
    return r2.conservation_ok;
  };
  CU_ASSERT(!ok_with([](sim::RunCounters& c2, sim::RunEnd&) { ++c2.copies; }));  // a packet unaccounted
  CU_ASSERT(!ok_with([](sim::RunCounters& c2, sim::RunEnd&) { --c2.delivered_pkts; }));
  CU_ASSERT(!ok_with([](sim::RunCounters&, sim::RunEnd& e2) { e2.pool_in_use = 1; }));  // a leaked slot
  // A drained run must have made every delivery it was due.
  CU_ASSERT(ok_with([](sim::RunCounters&, sim::RunEnd& e2) { e2.steady = false, e2.max_ns = 5000; }));
  CU_ASSERT(!ok_with([](sim::RunCounters& c2, sim::RunEnd& e2) {
    e2.steady = false, e2.max_ns = 5000, ++c2.expected_total;
  }));
  // ... and no more: a drained run counts each freed delivery once (a steady
  // run may end with deliveries counted whose slots are not freed yet).
  CU_ASSERT(ok_with([](sim::RunCounters& c2, sim::RunEnd&) { ++c2.delivered_pkts; }));
  CU_ASSERT(!ok_with([](sim::RunCounters& c2, sim::RunEnd& e2) {
    e2.steady = false, e2.max_ns = 5000, ++c2.delivered_pkts;
  }));
  // ... and one cut at max_ns with messages left is an error, not a drain.
  sim::RunEnd cut = e;
  cut.steady = false, cut.max_ns = 1000, cut.hit_limit = true, cut.live_ops = 3;
  sim::PointResult rc;
  c.events = 42;  // a run that reached max_ns processed events
  sim::Summarise(c, cut, lat, 2.0, &rc);
  CU_ASSERT(Contains(rc.error, "run did not complete within max_ns=1000 ns (3 messages undelivered)"));
  // A run cut at max_ns was summed: its balance is checked and said. One
  // stopped by a routing error before anything was summed (every tally 0)
  // said "violated"; it is "unchecked".
  CU_ASSERT(Contains(sim::ToJson(rc, false), "\"conservation\":\"ok\""));
  sim::PointResult stopped;
  stopped.error = "no route";
  stopped.conservation_ok = false;
  CU_ASSERT(Contains(sim::ToJson(stopped, false), "\"conservation\":\"unchecked\""));
  CU_ASSERT(Contains(sim::ToCsv(stopped, false), ",unchecked,"));
  rc.conservation_ok = false;
  CU_ASSERT(Contains(sim::ToJson(rc, false), "\"conservation\":\"violated\""));
}

// The error building a network of `st` gives ("" when none).
std::string NetworkError(const Setup& st) {
  try {
    sim::Network net(st.fabric, st.tables, 1);
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

void TestTablesMustMatchFabric() {
  Setup st = Line(2);
  st.tables.lft[0].out[2] = 9;  // L0 has 3 ports
  std::string err = NetworkError(st);
  CU_ASSERT(Contains(err, "tables do not match the fabric"));
  CU_ASSERT(Contains(err, "port 9"));
  Setup st2 = Line(2);
  st2.tables.lft.pop_back();
  CU_ASSERT(Contains(NetworkError(st2), "1 LFTs"));
  // An entry naming an uncabled port (L0's port 1, the line's west end):
  // refused here, so the kernels' lookups need not look.
  Setup st3 = Line(2);
  const Lid h1 = st3.fabric.end_ports[1].base_lid;
  st3.tables.lft[0].out[h1] = 1;
  CU_ASSERT(
      Contains(NetworkError(st3), "LFT sends LID " + std::to_string(h1) + " to port 1, which is not cabled"));
}

// The CLI frees the Tables once the network is built (tens of MB of LFTs
// on large fabrics): the network must not read them afterwards.
void TestNetworkOwnsItsTables() {
  Params p = TestParams();
  Rig rig(Line(3), p);
  CU_ASSERT(rig.net->OwnsTables());
  rig.st.tables = Tables();
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 0, 2, 32);
  const PointResult r = sim.Run();
  CU_ASSERT_EQUAL(r.ops_measured, 1u);
  CU_ASSERT_EQUAL(int64_t(r.latency_avg_ns), ZeroLoad(3, 1, 32, p));
  CU_ASSERT(r.conservation_ok);
}

void TestSl2VlHook() {
  // All traffic forced onto VL 1 of 2 by the hook: still delivered, and
  // a hook returning an out-of-range VL is refused.
  Setup st = Line(3);
  sim::Network net(st.fabric, st.tables, 2, [](int, int, int, int) { return 1; });
  CU_ASSERT_EQUAL(net.Vl(0, 3, 2, 0), 1);
  CU_ASSERT_EQUAL(net.HostVl(0, 5), 1);
  std::string err;
  try {
    sim::Network bad(st.fabric, st.tables, 2, [](int, int, int, int) { return 2; });
  } catch (const Error& e) {
    err = e.what();
  }
  CU_ASSERT(Contains(err, "VL 2"));
}

}  // namespace

void RegisterTimingModelSuite() {
  CU_pSuite s = CU_add_suite("timing_model", nullptr, nullptr);
  CU_add_test(s, "zero-load latency, one packet, H = 1..5", TestZeroLoadOnePacket);
  CU_add_test(s, "zero-load latency with other parameters", TestZeroLoadOtherParams);
  CU_add_test(s, "multi-packet message: credit round trip vs line rate", TestMultiPacketMessage);
  CU_add_test(s, "1-byte and 33-byte messages, one-packet buffers", TestShortPacketsOneSlotBuffers);
  CU_add_test(s, "two sources, one output: exact times, credit of a waiting packet", TestTwoSourcesOneOutput);
  CU_add_test(s, "hot spot fed by three inputs: 0.25 bytes/ns exactly", TestHotSpotLinkExactly);
  CU_add_test(s, "two and four VLs: SL to VL, the link shared", TestVlsShareTheLink);
  CU_add_test(s, "a straight grant moves the round-robin pointer", TestStraightGrantMovesRoundRobin);
  CU_add_test(s, "one saturated link delivers 0.25 bytes/ns", TestSaturatedLink);
  CU_add_test(s, "single flow bandwidth, 1 and 3 packet buffers", TestSingleFlowBandwidth);
  CU_add_test(s, "hot spot never exceeds the destination link", TestHotSpotBounded);
  CU_add_test(s, "Workload names hot as given", TestWorkloadNamesParamsAsGiven);
  CU_add_test(s, "batch: no packet lost or duplicated, 1/2/4 VLs", TestConservationBatch);
  CU_add_test(s, "the window cuts link time at both ends", TestWindowCutsLinkTimeAtBothEnds);
  CU_add_test(s, "a batch cut at max_ns counts no link time past it", TestBatchCutAtMaxNsCountsNoLinkTimePastIt);
  CU_add_test(s, "steady state: accepted = offered below saturation", TestSteadyStateConservation);
  CU_add_test(s, "periodic arrivals offer the load, not rounded gaps", TestPeriodicArrivalsOfferTheLoad);
  CU_add_test(s, "exponential arrivals offer the load, not rounded gaps", TestExponentialArrivalsOfferTheLoad);
  CU_add_test(s, "a load of 1e-300 sends nothing, whatever the arrivals", TestTinyLoadSendsNothing);
  CU_add_test(s, "DLID without a route names switch and LID", TestNoRouteIsReported);
  CU_add_test(s, "a LID beyond every LFT row is no route", TestLidBeyondEveryLftIsNoRoute);
  CU_add_test(s, "routing loop is reported", TestRoutingLoopIsReported);
  CU_add_test(s, "a route through 100 switches is no loop", TestLongRouteIsNoLoop);
  CU_add_test(s, "latency samples equal the plain vector", TestLatencySamplesEqualVector);
  CU_add_test(s, "statistics from hand-made counters, the conservation ledger", TestSummariseFromCounters);
  CU_add_test(s, "tables not matching the fabric are refused", TestTablesMustMatchFabric);
  CU_add_test(s, "SL2VL hook", TestSl2VlHook);
  CU_add_test(s, "the network runs with its Tables freed", TestNetworkOwnsItsTables);
}

// The tests above whose set-up lean runs (unicast, one-packet buffers),
// again under kernel=lean: its times are the model's, exactly.
void RegisterTimingModelLeanSuite() {
  CU_pSuite s = CU_add_suite("timing_model_lean", nullptr, nullptr);
  CU_add_test(s, "lean: zero-load latency, one packet, H = 1..5", OnLean<TestZeroLoadOnePacket>);
  CU_add_test(s, "lean: zero-load latency with other parameters", OnLean<TestZeroLoadOtherParams>);
  CU_add_test(s, "lean: multi-packet message, one-packet buffers", OnLean<TestMultiPacketMessage>);
  CU_add_test(s, "lean: 1-byte and 33-byte messages", OnLean<TestShortPacketsOneSlotBuffers>);
  CU_add_test(s, "lean: two sources, one output: exact times", OnLean<TestTwoSourcesOneOutput>);
  CU_add_test(s, "lean: hot spot fed by three inputs: 0.25 bytes/ns exactly", OnLean<TestHotSpotLinkExactly>);
  CU_add_test(s, "lean: two and four VLs share the link", OnLean<TestVlsShareTheLink>);
  CU_add_test(s, "lean: a straight grant moves the round-robin pointer",
              OnLean<TestStraightGrantMovesRoundRobin>);
  CU_add_test(s, "lean: one saturated link delivers 0.25 bytes/ns", OnLean<TestSaturatedLink>);
  CU_add_test(s, "lean: single flow bandwidth, one-packet buffers", OnLean<TestSingleFlowBandwidth>);
  CU_add_test(s, "lean: hot spot never exceeds the destination link", OnLean<TestHotSpotBounded>);
  CU_add_test(s, "lean: batch conservation, 1/2/4 VLs", OnLean<TestConservationBatch>);
  CU_add_test(s, "lean: a batch cut at max_ns", OnLean<TestBatchCutAtMaxNsCountsNoLinkTimePastIt>);
  CU_add_test(s, "lean: the window cuts link time at both ends", OnLean<TestWindowCutsLinkTimeAtBothEnds>);
  CU_add_test(s, "lean: steady state conservation", OnLean<TestSteadyStateConservation>);
  CU_add_test(s, "lean: periodic arrivals offer the load", OnLean<TestPeriodicArrivalsOfferTheLoad>);
  CU_add_test(s, "lean: exponential arrivals offer the load", OnLean<TestExponentialArrivalsOfferTheLoad>);
  CU_add_test(s, "lean: a load of 1e-300 sends nothing", OnLean<TestTinyLoadSendsNothing>);
  CU_add_test(s, "lean: no route names switch and LID", OnLean<TestNoRouteIsReported>);
  CU_add_test(s, "lean: a LID beyond every LFT row is no route", OnLean<TestLidBeyondEveryLftIsNoRoute>);
  CU_add_test(s, "lean: routing loop is reported", OnLean<TestRoutingLoopIsReported>);
  CU_add_test(s, "lean: a route through 100 switches is no loop", OnLean<TestLongRouteIsNoLoop>);
}

}  // namespace ibu::simtest
