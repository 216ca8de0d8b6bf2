// Flow analysis (ibunion sim --flows): flows counted per link from the
// tables, max-min fluid rates, and the timing model reaching those rates
// at saturation; for uniform and centric traffic the expected channel
// loads and their bound, which the model never passes (a hot host's own
// traffic saturates at it, the aggregate later); refusals and
// broken routes named.
#include <CUnit/CUnit.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include "plugin/core/engine.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"
#include "sim-harness/timing/flows.h"
#include "sim-harness/timing/sweep.h"
#include "tests/unit/test_util.h"
#include "tests/unit/timing_rig.h"

namespace ibu::simtest {

namespace {

using sim::FlowReport;
using sim::Params;
using test::Contains;

constexpr double kOneFlow = 32.0 / 268.0;  // 32 B per credit loop of 2 x 20 + 100 + 128 ns

bool Near(double a, double b, double rel = 1e-9) { return std::abs(a - b) <= rel * std::abs(b); }

// The model at full offered load, accepted bytes/ns/host.
double SimulatedAccepted(const sim::Network& net, const sim::Workload& wl, Params p) {
  p.warmup_ns = 20000;
  p.measure_ns = 100000;
  return sim::RunPoint(net, wl, p, 32, 1.0, 1, 0).accepted;
}

void TestChannelLimit() {
  Params p;
  CU_ASSERT(Near(sim::ChannelLimit(p, 32), kOneFlow));
  // 48 B: a 32-byte packet, then a 16-byte one with a shorter loop.
  CU_ASSERT(Near(sim::ChannelLimit(p, 48), 48.0 / (268.0 + 204.0)));
  // Four credits cover the loop: the link's rate.
  p.in_buf = 4;
  CU_ASSERT(Near(sim::ChannelLimit(p, 32), 0.25));
  p.in_buf = 2;
  CU_ASSERT(Near(sim::ChannelLimit(p, 32), 2 * kOneFlow));
}

// Two leaves of four hosts: shift:4 sends every flow over its leaf's up
// link, four flows a link; on one VL each gets a quarter of the channel,
// and the model delivers that.
void TestSharedUpLink() {
  Params p;
  Rig rig(Tree(2, 4), p, "shift:4");
  const FlowReport r = sim::AnalyseFlows(*rig.net, *rig.wl, p, 32);
  CU_ASSERT_EQUAL(r.flows, 8);
  CU_ASSERT_EQUAL(r.crossings, 8 * 4);
  CU_ASSERT_EQUAL(r.max_link_flows, 4);
  CU_ASSERT_EQUAL(r.max_channel_flows, 4);
  CU_ASSERT_EQUAL(r.links_with[4], 4);  // up and down between each leaf and the root
  CU_ASSERT_EQUAL(r.links_with[1], 16);  // the hosts' links, both ways
  CU_ASSERT(Near(r.fluid_accepted, kOneFlow / 4));
  CU_ASSERT(Near(r.min_rate, kOneFlow / 4) && Near(r.max_rate, kOneFlow / 4));
  CU_ASSERT(Near(r.link_util[size_t(rig.net->SwitchPort(1, 1))], 4 * (kOneFlow / 4) / 0.25));
  const double simulated = SimulatedAccepted(*rig.net, *rig.wl, p);
  CU_ASSERT(simulated > 0.97 * r.fluid_accepted && simulated < 1.01 * r.fluid_accepted);
}

// Below the share a link leaves each flow, a flow gets what its source
// offers (load x link rate), in the fluid rates and in the model; above,
// the share.
void TestLoadCapsFlows() {
  Params p;
  Rig rig(Tree(2, 4), p, "shift:4");
  const FlowReport low = sim::AnalyseFlows(*rig.net, *rig.wl, p, 32, 0.1);
  CU_ASSERT(Near(low.fluid_accepted, 0.1 * 0.25));
  CU_ASSERT(Near(low.max_rate, 0.1 * 0.25));
  // The rate at saturation comes with the capped one, exactly as a run
  // without a load gives it (run's flows_row reads both from one run).
  const FlowReport saturated = sim::AnalyseFlows(*rig.net, *rig.wl, p, 32);
  CU_ASSERT(Near(saturated.fluid_accepted, kOneFlow / 4));
  CU_ASSERT_EQUAL(low.fluid_saturated, saturated.fluid_accepted);
  CU_ASSERT_EQUAL(saturated.fluid_saturated, saturated.fluid_accepted);
  const FlowReport high = sim::AnalyseFlows(*rig.net, *rig.wl, p, 32, 0.5);
  CU_ASSERT(Near(high.fluid_accepted, kOneFlow / 4));
  CU_ASSERT_EQUAL(high.max_link_flows, 4);
  Params run = p;
  run.warmup_ns = 20000;
  run.measure_ns = 2000000;  // Bernoulli arrivals: a long window, so offered is near the nominal load
  const double simulated = sim::RunPoint(*rig.net, *rig.wl, run, 32, 0.1, 1, 0).accepted;
  CU_ASSERT(simulated > 0.97 * low.fluid_accepted && simulated < 1.03 * low.fluid_accepted);
}

// FT(8,3) routed by slid under bit reversal: 16 links carry 7 flows (the
// D-mod-K bad case docs/results.md describes), 16 hosts send nothing; on
// 4 VLs the flows of a link spread over channels and the link binds. The
// model's saturation throughput is within a few percent of the fluid
// rates, also under a random permutation.
struct FatTreeRun : EngineRig {
  FatTreeRun(const std::string& traffic, int vls)
      : EngineRig(Ft83(), MakeEngine("slid", {}, nullptr), VlParams(vls), traffic) {}
  static Fabric Ft83() {
    Fabric f = MakeFatTree(8, 3);
    AssignDefaultLids(f, 0);
    return f;
  }
  static Params VlParams(int vls) {
    Params p;
    p.vls = vls;
    return p;
  }
};

void TestBitReversalOnSlid() {
  FatTreeRun one("bitrev", 1);
  const FlowReport r = sim::AnalyseFlows(*one.net, *one.wl, one.p, 32);
  CU_ASSERT_EQUAL(r.flows, 112);
  CU_ASSERT_EQUAL(r.max_link_flows, 7);
  CU_ASSERT_EQUAL_FATAL(r.links_with.size(), 8u);
  CU_ASSERT_EQUAL(r.links_with[7], 16);
  CU_ASSERT_EQUAL(r.links_with[4], 16);
  CU_ASSERT_EQUAL(r.links_with[3], 16);
  CU_ASSERT(Near(r.fluid_accepted, kOneFlow / 7 * 112 / 128));
  const double simulated = SimulatedAccepted(*one.net, *one.wl, one.p);
  CU_ASSERT(simulated > 0.97 * r.fluid_accepted && simulated < 1.01 * r.fluid_accepted);

  FatTreeRun four("bitrev", 4);
  const FlowReport r4 = sim::AnalyseFlows(*four.net, *four.wl, four.p, 32);
  CU_ASSERT_EQUAL(r4.max_link_flows, 7);
  CU_ASSERT(r4.max_channel_flows < 7);
  CU_ASSERT(r4.fluid_accepted > 1.5 * r.fluid_accepted);
  const double simulated4 = SimulatedAccepted(*four.net, *four.wl, four.p);
  CU_ASSERT(simulated4 > 0.97 * r4.fluid_accepted && simulated4 < 1.01 * r4.fluid_accepted);
}

void TestRandomPermutationNearFluid() {
  FatTreeRun run("randperm", 1);
  const FlowReport r = sim::AnalyseFlows(*run.net, *run.wl, run.p, 32);
  CU_ASSERT_EQUAL(r.flows, 128);
  CU_ASSERT(r.min_rate < r.max_rate);  // max-min: not every flow is held to the busiest link's share
  CU_ASSERT(r.fluid_accepted > r.min_rate);
  const double simulated = SimulatedAccepted(*run.net, *run.wl, run.p);
  CU_ASSERT(simulated > 0.95 * r.fluid_accepted && simulated < 1.01 * r.fluid_accepted);
}

// What Workload::Share says a source sends where is what Destination
// draws: counted over many draws, within 1% of the share.
void TestSharesAreTheDraws() {
  Params p;
  p.hot = 5;
  Rig rig(Star(8), p, "centric:0.3");
  sim::Mt64 rng(7);
  for (int src : {0, 5}) {
    std::vector<int> drawn(8, 0);
    const int draws = 200000;
    for (int i = 0; i < draws; ++i) ++drawn[size_t(rig.wl->Destination(src, rng))];
    double sum = 0;
    for (int dst = 0; dst < 8; ++dst) {
      const double share = rig.wl->Share(src, dst);
      sum += share;
      CU_ASSERT(std::abs(double(drawn[size_t(dst)]) / draws - share) < 0.01);
    }
    CU_ASSERT(Near(sum, 1.0));
  }
  CU_ASSERT(Near(rig.wl->Share(0, 5), 0.3 + 0.7 / 7));  // to the hot host
  CU_ASSERT(Near(rig.wl->Share(5, 0), 1.0 / 7));        // from it: uniform
  CU_ASSERT_EQUAL(rig.wl->Share(3, 3), 0.0);
}

// The offered load at which the model saturates (the first of `loads`
// that accepts under 95% of what it offered), 0 when none does.
double ModelSaturates(const Rig& rig, const std::vector<double>& loads) {
  Params run = rig.p;
  run.warmup_ns = 20000;
  run.measure_ns = 400000;
  for (double load : loads)
    if (sim::IsSaturated(sim::RunPoint(*rig.net, *rig.wl, run, 32, load, 1, 0))) return load;
  return 0;
}

// Two leaves of four hosts, uniform traffic: a host's links carry load 1,
// a leaf's up link the 4 x 4/7 its hosts send to the other leaf. On one
// VL that link's channel fills first, at 0.4776 x 7/16 (a channel carries
// a packet per 268 ns credit loop). The model saturates below the bound
// and never sustains a load past it.
void TestUniformBoundOnTree() {
  Params p;
  Rig rig(Tree(2, 4), p, "uniform");
  const sim::LoadReport r = sim::AnalyseLoad(*rig.net, *rig.wl, p, 32);
  CU_ASSERT_EQUAL(r.pairs, 8 * 7);
  CU_ASSERT_EQUAL(r.sources, 8);
  CU_ASSERT(Near(r.mean_hops, (3 * 2 + 4 * 4) / 7.0));
  CU_ASSERT(Near(r.max_link_load, 16.0 / 7));
  CU_ASSERT_EQUAL(r.busiest_links, 4);  // each leaf's links to the root, both ways
  CU_ASSERT(Near(r.link_load[size_t(rig.net->HostPort(0))], 1.0));
  CU_ASSERT(r.bound_by_channel);
  const double bound = kOneFlow / 0.25 * 7 / 16;
  CU_ASSERT(Near(r.bound_load, bound));
  const double saturates = ModelSaturates(rig, {0.5 * bound, 0.75 * bound, bound, 1.1 * bound});
  CU_ASSERT(saturates > 0 && saturates <= 1.1 * bound);
  // 4 VLs: every VL channel of the up link carries a share; the link binds.
  Params four;
  four.vls = 4;
  Rig rig4(Tree(2, 4), four, "uniform");
  const sim::LoadReport r4 = sim::AnalyseLoad(*rig4.net, *rig4.wl, four, 32, 0.2);
  CU_ASSERT(!r4.bound_by_channel);
  CU_ASSERT(Near(r4.bound_load, 7.0 / 16));
  CU_ASSERT(Near(r4.max_channel_load * 4, r4.max_link_load) || r4.max_channel_load * 4 > r4.max_link_load);
  CU_ASSERT(Contains(sim::LoadJson(r4), "\"bound_by\":\"link\""));
  CU_ASSERT(Contains(sim::LoadJson(r4), "\"max_link_util\":" + sim::JsonNumber(0.2 * 16 / 7)));
}

// FT(8,3) with one leaf up-cable unplugged, uniform traffic: the leaf's
// four hosts send 124/127 of their messages out over the three up links
// left, 1.30 loads each when the failed link's LIDs are shared among them.
// The degraded routing used to move them all to the next up port (1.95 on
// that one link, under mlid and slid alike).
double BusiestLinkWithoutOneLeafUplink(const std::string& engine) {
  Fabric f = MakeFatTree(8, 3);
  AssignDefaultLids(f, 4);
  const int leaf = f.end_ports[0].switch_index;
  const int up = f.switches[leaf].num_ports;  // canonical cabling: the last port climbs
  const Peer parent = f.switches[leaf].ports[up];
  CU_ASSERT_FATAL(parent.is_switch());
  f.switches[parent.index].ports[parent.port] = Peer{};
  f.switches[leaf].ports[up] = Peer{};
  f.Finalize();
  Params p;
  p.vls = 4;
  EngineRig rig(std::move(f), MakeEngine(engine, {}, nullptr), p, "uniform");
  const Engine* e = rig.engine.get();
  const Fabric* fab = &rig.fabric;
  rig.wl->SetDlidFn([e, fab](int s, int d) { return e->SelectDlid(*fab, s, d); }, true);
  return sim::AnalyseLoad(*rig.net, *rig.wl, p, 32).max_link_load;
}

void TestFailedLinkLoadShared() {
  for (const char* engine : {"mlid", "slid"}) {
    const double busiest = BusiestLinkWithoutOneLeafUplink(engine);
    if (!(busiest < 1.35)) std::fprintf(stderr, "\n  %s: busiest link %.3f loads", engine, busiest);
    CU_ASSERT(busiest >= 4 * 124.0 / 127 / 3 - 1e-9);
    CU_ASSERT(busiest < 1.35);
  }
}

// sl=random on 4 VLs: every SL as likely, so each VL channel of a link
// carries a quarter of it (sl=hash spreads pairs unevenly).
void TestRandomSlsWeighed() {
  Params p;
  p.vls = 4;
  p.sl = sim::SlPolicy::kRandom;
  Rig rig(Tree(2, 4), p, "uniform");
  const sim::LoadReport r = sim::AnalyseLoad(*rig.net, *rig.wl, p, 32);
  CU_ASSERT(Near(r.max_link_load, 16.0 / 7));
  CU_ASSERT(Near(r.max_channel_load, 16.0 / 7 / 4));
  const int up = rig.net->SwitchPort(1, 1);  // leaf 0's up link
  for (int vl = 0; vl < 4; ++vl) CU_ASSERT(Near(r.channel_load[size_t(up) * 4 + size_t(vl)], 16.0 / 7 / 4));
}

// Half of every other host's messages to host 0: its link carries
// 7 x (0.5 + 0.5/7) = 4 loads, the root's channel down to its leaf what
// the four far hosts send to that leaf, 4 x (0.5 + 4 x 0.5/7). The
// channel fills first on 1 VL.
void TestHotSpotBound() {
  Params p;
  Rig rig(Tree(2, 4), p, "centric:0.5");
  const sim::LoadReport r = sim::AnalyseLoad(*rig.net, *rig.wl, p, 32);
  CU_ASSERT(Near(r.max_link_load, 4.0));
  CU_ASSERT_EQUAL(r.busiest_links, 1);
  CU_ASSERT_EQUAL(rig.net->port(rig.net->port(r.busiest_link).peer).node, 0);  // into host 0
  CU_ASSERT(Near(r.max_channel_load, 4 * (0.5 + 4 * 0.5 / 7)));
  CU_ASSERT(r.bound_by_channel);
  CU_ASSERT(Near(r.bound_load, kOneFlow / 0.25 / (4 * (0.5 + 4 * 0.5 / 7))));
  const double bound = r.bound_load;
  const double saturates = ModelSaturates(rig, {0.5 * bound, 0.75 * bound, bound, 1.1 * bound});
  CU_ASSERT(saturates > 0 && saturates <= 1.1 * bound);
}

// A tenth of every message to host 0 of FT(32,2) under slid on 4 VLs:
// its link carries 511 x (0.1 + 0.9/511) = 52 loads and binds at 1/52. Its
// messages are a tenth of all, and the other hosts' traffic mostly passes
// the congestion, so the aggregate rule (IsSaturated) sees the link full
// only well past the bound; the hot host's own rule (IsHotSaturated) at it.
void TestHotHostSaturatesAtTheBound() {
  Params p;
  p.vls = 4;
  Fabric f = MakeFatTree(32, 2);
  AssignDefaultLids(f, 0);
  EngineRig rig(std::move(f), MakeEngine("slid", {}, nullptr), p, "centric:0.1");
  const sim::LoadReport r = sim::AnalyseLoad(*rig.net, *rig.wl, p, 32);
  CU_ASSERT(Near(r.max_link_load, 52));
  CU_ASSERT(!r.bound_by_channel);
  Params run = rig.p;
  run.warmup_ns = 20000;
  run.measure_ns = 200000;
  std::vector<sim::PointResult> points;
  const std::vector<double> loads = {0.9, 1.0, 1.06, 1.13, 1.19, 1.25, 1.31, 1.38};
  for (double f : loads)
    points.push_back(sim::RunPoint(*rig.net, *rig.wl, run, 32, f * r.bound_load, int(points.size()), 0));
  for (const sim::PointResult& q : points) {
    // What the draws sent to host 0: 52 hosts' offers, within sampling.
    CU_ASSERT(std::abs(q.hot_offered / (52 * q.offered) - 1) < 0.05);
    CU_ASSERT(q.hot_accepted <= 0.25 + 32.0 / double(run.measure_ns));
  }
  const sim::Saturation s = sim::FindSaturation(points);
  CU_ASSERT_FATAL(s.hot_at >= 0 && s.at >= 0);
  // Not before the bound; by 1.13x it (95% of an offer past the link's
  // rate is still accepted up to 1/0.95 of the bound).
  CU_ASSERT(loads[size_t(s.hot_at)] > 1.0 && loads[size_t(s.hot_at)] <= 1.13);
  CU_ASSERT_EQUAL(s.hot_below, s.hot_at - 1);
  // The aggregate rule: two or more points later, past 1.25x.
  CU_ASSERT(s.at >= s.hot_at + 2 && loads[size_t(s.at)] > 1.25);
  CU_ASSERT(Contains(sim::SaturationText(s, points), "; the hot host: between load " +
                                                        sim::JsonNumber(points[size_t(s.hot_below)].load) + " and"));
  // Other traffic has no hot host, and the text does not mention one.
  Rig uniform(Star(4), Params(), "uniform");
  const std::vector<sim::PointResult> u = {sim::RunPoint(*uniform.net, *uniform.wl, run, 32, 0.5, 0, 0)};
  CU_ASSERT_EQUAL(u[0].hot_offered, 0.0);
  CU_ASSERT(!Contains(sim::SaturationText(sim::FindSaturation(u), u), "hot"));
}

// Far past saturation most measured messages still wait in their
// sources' adapters at the end, with no destination drawn yet. What the
// hot host was offered counts them by their share: FT(4,2), centric:0.5,
// periodic arrivals offer it 7 x L x 0.25 x (0.5 + 0.5/7) = L bytes/ns,
// more than its link carries from L = 0.25 on (at 0.1 it takes it all).
// Counting only the drawn ones gave 0.08 at load 8, below what it
// accepted, and the sweep "not saturated up to load 8".
void TestHotOfferedCountsBackloggedMessages() {
  Params p;
  p.arrival = sim::Arrival::kPeriodic;
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  EngineRig rig(std::move(f), MakeEngine("slid", {}, nullptr), p, "centric:0.5");
  std::vector<sim::PointResult> points;
  for (double load : {0.1, 2.0, 8.0})
    points.push_back(sim::RunPoint(*rig.net, *rig.wl, rig.p, 32, load, int(points.size()), 0));
  CU_ASSERT(points[2].ops_unfinished > 0);
  for (const sim::PointResult& q : points) CU_ASSERT(std::abs(q.hot_offered / q.load - 1) < 0.02);
  const sim::Saturation s = sim::FindSaturation(points);
  CU_ASSERT_EQUAL(s.hot_at, 1);
  CU_ASSERT(Contains(sim::SaturationText(s, points), "; the hot host: between load 0.1 and 2"));
}

std::string AnalysisError(const Rig& rig, const Params& p) {
  return test::ErrorOf([&] { sim::AnalyseFlows(*rig.net, *rig.wl, p, 32); });
}

std::string LoadError(const Rig& rig, const Params& p) {
  return test::ErrorOf([&] { sim::AnalyseLoad(*rig.net, *rig.wl, p, 32); });
}

void TestRefusals() {
  Params p;
  CU_ASSERT(Contains(AnalysisError(Rig(Star(4), p, "uniform"), p), "AnalyseLoad"));
  CU_ASSERT(Contains(LoadError(Rig(Star(4), p, "shift:1"), p), "AnalyseFlows"));
  CU_ASSERT_EQUAL(LoadError(Rig(Star(4), p, "centric:0.2"), p), "");
  CU_ASSERT(Contains(AnalysisError(Rig(Star(4), p, "mcast:1:all"), p), "expected unicast traffic"));
  CU_ASSERT(Contains(LoadError(Rig(Star(4), p, "mcast:1:all"), p), "expected unicast traffic"));
  Params random_dlid;
  random_dlid.dlid = sim::DlidPolicy::kRandom;
  CU_ASSERT(Contains(AnalysisError(Rig(Star(4), random_dlid, "shift:1"), random_dlid), "dlid=random"));
  CU_ASSERT_EQUAL(LoadError(Rig(Star(4), random_dlid, "uniform"), random_dlid), "");  // weighed, not refused
  Params random_sl;
  random_sl.sl = sim::SlPolicy::kRandom;
  CU_ASSERT(Contains(AnalysisError(Rig(Star(4), random_sl, "shift:1"), random_sl), "sl=random"));
}

// A triangle of switches A, B, C (port 1 clockwise, port 2 back) with a
// fourth, D, below A (A port 3 - D port 1); H0 on A, H1 on D (port 4).
// Each sends to the other; `loop` sends H1's LID round the triangle.
Setup TriangleWithTail(bool loop) {
  Setup st;
  Fabric& f = st.fabric;
  for (const char* name : {"A", "B", "C", "D"}) AddSwitch(f, 4, name);
  for (int s = 0; s < 3; ++s) ConnectSwitches(f, s, 1, (s + 1) % 3, 2);
  ConnectSwitches(f, 0, 3, 3, 1);
  AddHost(f, "H0");
  AddHost(f, "H1");
  ConnectEndPort(f, 0, 0, 4);
  ConnectEndPort(f, 1, 3, 4);
  NumberLids(f);
  st.tables.Resize(f);
  const Lid h0 = f.end_ports[0].base_lid, h1 = f.end_ports[1].base_lid;
  st.tables.lft[0].set(h0, 4);
  st.tables.lft[3].set(h0, 1);
  st.tables.lft[3].set(h1, 4);
  st.tables.lft[0].set(h1, loop ? 1 : 3);
  st.tables.lft[1].set(h1, 1);
  st.tables.lft[2].set(h1, 1);
  return st;
}

void TestBrokenRoutesNamed() {
  Params p;
  Rig fine(TriangleWithTail(false), p, "shift:1");
  CU_ASSERT_EQUAL(sim::AnalyseFlows(*fine.net, *fine.wl, p, 32).crossings, 2 * 3);
  const std::string loop = AnalysisError(Rig(TriangleWithTail(true), p, "shift:1"), p);
  CU_ASSERT(Contains(loop, "flow from end port H0 to H1 (LID 2): routing loop"));
  CU_ASSERT(Contains(LoadError(Rig(TriangleWithTail(true), p, "uniform"), p),
                     "flow from end port H0 to H1 (LID 2): routing loop"));
  // Two leaves of two hosts; leaf 0 sends host 2's LID to host 1. Both
  // analyses name the same first broken pair.
  for (const char* traffic : {"shift:2", "uniform"}) {
    const bool flows = std::string(traffic) != "uniform";
    auto error_of = [&](Setup st) {
      Rig rig(std::move(st), p, traffic);
      return flows ? AnalysisError(rig, p) : LoadError(rig, p);
    };
    Setup tree = Tree(2, 2);
    tree.tables.lft[1].set(tree.fabric.end_ports[2].base_lid, 3);
    const std::string wrong = error_of(std::move(tree));
    CU_ASSERT(Contains(wrong, "flow from end port H0 to H2"));
    CU_ASSERT(Contains(wrong, "misdelivery: the route ends at end port H1"));
    // The root has no entry for host 2's LID.
    Setup hole = Tree(2, 2);
    hole.tables.lft[0].set(hole.fabric.end_ports[2].base_lid, kNoPort);
    const std::string missing = error_of(std::move(hole));
    CU_ASSERT(Contains(missing, "flow from end port H0 to H2 (LID 3): no route"));
    CU_ASSERT(Contains(missing, "has no LFT entry for LID 3"));
  }
  // The root sends host 2's LID back down to leaf 0, whose packets came
  // from there: back out the arrival port.
  Setup back = Tree(2, 2);
  back.tables.lft[0].set(back.fabric.end_ports[2].base_lid, 1);
  const std::string bounced = LoadError(Rig(std::move(back), p, "uniform"), p);
  CU_ASSERT(Contains(bounced, "flow from end port H0 to H2 (LID 3)"));
}

// AnalyseLoad adds each destination LID's loads down the tree its LFT
// entries form; AnalyseLoadPairByPair follows every pair. Both must give
// the same loads on every link and VL channel, whatever the tables: several
// DLIDs per destination (mlid's selection, dlid=random), SLs drawn or
// hashed, per-hop SL2VL tables whose SLs fall into classes, a degraded tree.
void ExpectSameLoads(const sim::Network& net, const sim::Workload& wl, const Params& p) {
  const sim::LoadReport a = sim::AnalyseLoad(net, wl, p, 32);
  const sim::LoadReport b = sim::AnalyseLoadPairByPair(net, wl, p, 32);
  CU_ASSERT_EQUAL(a.pairs, b.pairs);
  CU_ASSERT(a.pairs > 0);
  CU_ASSERT(Near(a.mean_hops, b.mean_hops));
  CU_ASSERT_EQUAL_FATAL(a.link_load.size(), b.link_load.size());
  CU_ASSERT_EQUAL_FATAL(a.channel_load.size(), b.channel_load.size());
  int differ = 0;
  for (size_t i = 0; i < a.link_load.size(); ++i) differ += std::abs(a.link_load[i] - b.link_load[i]) > 1e-9;
  for (size_t i = 0; i < a.channel_load.size(); ++i)
    differ += std::abs(a.channel_load[i] - b.channel_load[i]) > 1e-9;
  if (differ) std::fprintf(stderr, "\n  %d loads differ", differ);
  CU_ASSERT_EQUAL(differ, 0);
  CU_ASSERT(Near(a.max_link_load, b.max_link_load));
  CU_ASSERT(Near(a.max_channel_load, b.max_channel_load));
}

// FT(4,3) at LMC 2 under an engine, the DLIDs its SelectDlid picks.
struct TreeUnder : EngineRig {
  TreeUnder(const std::string& engine, const Params& p, const std::string& traffic, int removed_cables = 0)
      : EngineRig(Degraded(removed_cables), MakeEngine(engine, {}, nullptr), p, traffic) {
    const Engine* e = engine_ptr();
    const Fabric* fab = &fabric;
    wl->SetDlidFn([e, fab](int s, int d) { return e->SelectDlid(*fab, s, d); }, true);
  }
  const Engine* engine_ptr() const { return engine.get(); }
  // Unplugs the first `n` up cables of the leaves, leaf by leaf.
  static Fabric Degraded(int n) {
    Fabric f = MakeFatTree(4, 3);
    AssignDefaultLids(f, 2);
    for (int leaf = 0; n > 0 && leaf < int(f.switches.size()); ++leaf) {
      if (f.switches[size_t(leaf)].ports.size() < 5) continue;
      const Peer up = f.switches[size_t(leaf)].ports[4];
      if (!up.is_switch()) continue;
      f.switches[up.index].ports[up.port] = Peer{};
      f.switches[size_t(leaf)].ports[4] = Peer{};
      --n;
    }
    f.Finalize();
    return f;
  }
};

void TestByDestinationMatchesPairByPair() {
  Params four;
  four.vls = 4;
  for (const char* traffic : {"uniform", "centric:0.3"}) {
    TreeUnder mlid("mlid", four, traffic);
    ExpectSameLoads(*mlid.net, *mlid.wl, four);
    TreeUnder degraded("mlid", four, traffic, 3);
    ExpectSameLoads(*degraded.net, *degraded.wl, four);
  }
  Params drawn = four;
  drawn.dlid = sim::DlidPolicy::kRandom;
  drawn.sl = sim::SlPolicy::kRandom;
  TreeUnder slid("slid", drawn, "uniform");
  ExpectSameLoads(*slid.net, *slid.wl, drawn);
  // Per-hop SL2VL tables: every SL its own class (out ports 0-3 take
  // different bits of it), then SLs in pairs.
  Rig tree(Tree(3, 3), four, "uniform");
  for (int pairs = 1; pairs <= 2; ++pairs) {
    const sim::Network net(tree.st.fabric, tree.st.tables, 4, [pairs](int sw, int in, int out, int sl) {
      const int s = sl / pairs;
      return sw < 0 ? (s + in) % 4 : ((s >> (out % 4)) + in + sw) % 4;
    });
    const std::array<uint8_t, 16> leaders = net.SlClassLeaders();
    for (int sl = 0; sl < 16; ++sl) CU_ASSERT_EQUAL(leaders[size_t(sl)], sl - sl % pairs);
    ExpectSameLoads(net, *tree.wl, four);
  }
  const sim::Network plain(tree.st.fabric, tree.st.tables, 4);
  const std::array<uint8_t, 16> by_vl = plain.SlClassLeaders();  // SL mod 4
  for (int sl = 0; sl < 16; ++sl) CU_ASSERT_EQUAL(by_vl[size_t(sl)], sl % 4);
}

}  // namespace

void RegisterTimingFlowsSuite() {
  CU_pSuite s = CU_add_suite("timing_flows", nullptr, nullptr);
  CU_add_test(s, "channel limit: credit loop, split messages, deeper buffers", TestChannelLimit);
  CU_add_test(s, "four flows on one up link: counts, quarter rates, model agrees", TestSharedUpLink);
  CU_add_test(s, "--load caps each flow at what its source offers", TestLoadCapsFlows);
  CU_add_test(s, "FT(8,3) slid bit reversal: 7 flows a link, model at the fluid rates", TestBitReversalOnSlid);
  CU_add_test(s, "FT(8,3) slid random permutation: model within 5% of fluid", TestRandomPermutationNearFluid);
  CU_add_test(s, "shares of centric traffic are what its draws give", TestSharesAreTheDraws);
  CU_add_test(s, "uniform on two leaves: expected loads, channel bound, model below it", TestUniformBoundOnTree);
  CU_add_test(s, "hot spot: the hot link's load, the channel into its leaf binds", TestHotSpotBound);
  CU_add_test(s, "hot spot: the hot host saturates at the bound, the aggregate later", TestHotHostSaturatesAtTheBound);
  CU_add_test(s, "hot spot: messages left in the adapters count in what the hot host was offered",
              TestHotOfferedCountsBackloggedMessages);
  CU_add_test(s, "sl=random weighed: a quarter of each link on each of 4 VLs", TestRandomSlsWeighed);
  CU_add_test(s, "a failed up link's load shared by the leaf's other up links", TestFailedLinkLoadShared);
  CU_add_test(s, "each analysis refuses the other's traffic and per-message draws", TestRefusals);
  CU_add_test(s, "loop, misdelivery and missing entry name the flow", TestBrokenRoutesNamed);
  CU_add_test(s, "expected loads by destination LID equal those pair by pair",
              TestByDestinationMatchesPairByPair);
}

}  // namespace ibu::simtest
