// Host numbering of the traffic patterns: hot=, a permutation's pairs and
// a drawn multicast group count hosts by the recognised fat-tree's P()
// labels or mesh's N(x,y), so the same traffic reaches the same hosts
// whatever order the net file lists them in (a shuffled cabling, or
// ibnetdiscover's discovery order in a dump), and with the same tables a
// run is the same run, digit for digit; host_order=file keeps the file's
// order.
#include <CUnit/CUnit.h>

#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/generate.h"
#include "plugin/core/topology/host_order.h"
#include "plugin/core/topology/mesh.h"
#include "sim-harness/timing/simulator.h"
#include "sim-harness/timing/traffic.h"
#include "tests/unit/test_util.h"
#include "tests/unit/timing_fabrics.h"
#include "tests/unit/timing_rig.h"

namespace ibu::simtest {

namespace {

using sim::Params;
using test::Contains;

// Ports and records shuffled, as `ibunion topo ... --shuffle SEED` writes.
Fabric Shuffled(Fabric f, uint64_t seed) {
  const std::vector<int> order = ShufflePorts(f, seed);
  return test::ReadBack(f, order, "shuffled.net");
}

// As a dump's fabric.net lists it (test::ReversedRecords).
Fabric Reversed(const Fabric& f) { return test::ReadBack(f, test::ReversedRecords(f), "reversed.net"); }

// How a test names a host: its name in the file (the generator's are its
// labels), or the label recognition gives it (a shuffled cabling is
// labelled anew: another labelling of the same tree).
using Namer = std::function<std::string(int ep)>;
Namer ByName(const Fabric& f) {
  return [&f](int ep) { return f.end_ports[size_t(ep)].name; };
}
Namer ByLabel(const Fabric& f) {
  auto tree = std::make_shared<FatTree>(RecognizeFatTree(f));
  return [tree](int ep) { return tree->HostLabel(ep); };
}

Namer ByMeshLabel(const Fabric& f) {
  const Mesh m = RecognizeMesh(f);
  auto label = std::make_shared<std::vector<std::string>>(f.end_ports.size());
  for (size_t sw = 0; sw < m.host.size(); ++sw)
    if (m.host[sw] >= 0) (*label)[size_t(m.host[sw])] = m.Label(int(sw));
  return [label](int ep) { return (*label)[size_t(ep)]; };
}

// What a workload does, by host: each source's partner under a
// permutation, the hot host, the multicast group and its sources.
struct Traffic {
  std::set<std::pair<std::string, std::string>> pairs;
  std::string hot;
  std::set<std::string> group, sources;
  bool operator==(const Traffic& o) const {
    return pairs == o.pairs && hot == o.hot && group == o.group && sources == o.sources;
  }
};

Traffic TrafficOf(const Fabric& f, const Namer& name, const std::string& pattern, const Params& p) {
  const sim::Workload wl(sim::ParseTraffic(pattern), p, f, 1);
  Traffic t;
  sim::Mt64 rng(1);
  if (wl.spec().pattern == sim::Pattern::kCentric) t.hot = name(wl.hot());
  if (wl.is_mcast()) {
    for (int h : wl.group()) t.group.insert(name(h));
    for (int h : wl.sources()) t.sources.insert(name(h));
  } else if (wl.spec().pattern != sim::Pattern::kCentric) {
    for (int h : wl.sources()) t.pairs.emplace(name(h), name(wl.Destination(h, rng)));
  }
  return t;
}

Params InFileOrder(Params p) {
  p.host_order = sim::HostNumbering::kFile;
  return p;
}

// On the generator's files the address order is the file's own, so
// results made before host_order existed stand.
void TestGeneratedFilesAreInAddressOrder() {
  for (const Fabric& f : {MakeFatTree(4, 3), MakeFatTree(8, 3), MakeFatTree(12, 2), MakeMesh(4, 4), MakeMesh(3, 7)}) {
    const HostOrder o = HostsInAddressOrder(f);
    CU_ASSERT_EQUAL_FATAL(o.end_ports.size(), f.end_ports.size());
    for (size_t i = 0; i < o.end_ports.size(); ++i) CU_ASSERT_EQUAL(o.end_ports[i], int(i));
  }
  CU_ASSERT(Contains(HostsInAddressOrder(MakeFatTree(8, 3)).name, "FT(8,3) address order"));
  CU_ASSERT(Contains(HostsInAddressOrder(MakeMesh(3, 7)).name, "3x7 mesh order"));
}

constexpr const char* kPatterns[] = {"bitrev", "shift:3", "randperm", "centric:0.1", "mcast:5:20"};

// FT(8,3) listed in reverse, as a dump of an ibsim run is: a shift, a
// random permutation, a hot host and a multicast group reach the hosts
// they reach on the generator's file. Numbered in file order they reached
// others (a bit reversal alone maps onto itself when every host is
// renumbered N-1-i).
void TestReversedFatTreeGetsTheSameTraffic() {
  const Fabric canon = MakeFatTree(8, 3);
  const Fabric reversed = Reversed(canon);
  Params p;
  p.hot = 37;
  for (const char* pattern : kPatterns) {
    const Traffic want = TrafficOf(canon, ByName(canon), pattern, p);
    CU_ASSERT(TrafficOf(reversed, ByName(reversed), pattern, p) == want);
    CU_ASSERT(TrafficOf(canon, ByName(canon), pattern, InFileOrder(p)) == want);
    if (std::string(pattern) != "bitrev")
      CU_ASSERT(!(TrafficOf(reversed, ByName(reversed), pattern, InFileOrder(p)) == want));
  }
  CU_ASSERT_EQUAL(TrafficOf(reversed, ByName(reversed), "centric:0.1", p).hot, "P(211)");  // PID 37 = 2 * 16 + 1 * 4 + 1
}

// A replay of a dump is the same run, not only the same traffic: FT(8,3)
// listed in reverse and routed by slid (which routes by the tree's labels)
// gives every number of the generator's file, on 1 and 4 VLs, for drawn
// destinations, a permutation and multicast by unicast copies; so does a
// reversed 4x4 mesh under xymesh. Arrivals, uniform destinations and the
// copies' order by end-port index gave other numbers.
sim::PointResult RunOn(Fabric f, const std::string& engine, const std::string& traffic, int vls) {
  AssignDefaultLids(f, 0);
  Params p;
  p.vls = vls;
  if (traffic.rfind("mcast", 0) == 0) p.mcast_mode = sim::McastMode::kUnicast;
  p.warmup_ns = 10000;
  p.measure_ns = 40000;
  EngineRig rig(std::move(f), MakeEngine(engine, {}, nullptr), p, traffic);
  return sim::Simulator(*rig.net, *rig.wl, rig.p, 0.7, 3).Run();
}

void CheckSameRun(const Fabric& canon, const std::string& engine, const std::string& traffic, int vls) {
  const sim::PointResult a = RunOn(canon, engine, traffic, vls);
  const sim::PointResult b = RunOn(Reversed(canon), engine, traffic, vls);
  CU_ASSERT(a.packets_delivered > 1000);
  CU_ASSERT_EQUAL(b.packets_delivered, a.packets_delivered);
  CU_ASSERT_EQUAL(b.packet_hops, a.packet_hops);
  CU_ASSERT_EQUAL(b.events, a.events);
  CU_ASSERT_EQUAL(b.ops_measured, a.ops_measured);
  CU_ASSERT_EQUAL(b.latency_avg_ns, a.latency_avg_ns);
  CU_ASSERT_EQUAL(b.latency_p99_ns, a.latency_p99_ns);
  CU_ASSERT_EQUAL(b.latency_max_ns, a.latency_max_ns);
  CU_ASSERT_EQUAL(b.accepted, a.accepted);
  CU_ASSERT_EQUAL(b.link_util_max, a.link_util_max);
  CU_ASSERT(b.vl_hops == a.vl_hops);
  if (b.latency_avg_ns != a.latency_avg_ns)
    std::fprintf(stderr, "\n  %s %s, %d VL(s): latency %.3f ns reversed, %.3f ns as generated\n", engine.c_str(),
                 traffic.c_str(), vls, b.latency_avg_ns, a.latency_avg_ns);
}

void TestReversedFabricRunsTheSameRun() {
  const Fabric tree = MakeFatTree(8, 3);
  for (const char* traffic : {"uniform", "centric:0.1", "randperm", "mcast:5:20"})
    for (int vls : {1, 4}) CheckSameRun(tree, "slid", traffic, vls);
  CheckSameRun(MakeMesh(4, 4), "xymesh", "uniform", 1);
}

// FT(8,3) with ports and records shuffled is labelled anew; by those
// labels every pattern pairs, heats and groups the hosts the generator's
// file does by its labels, so mlid (which routes by them) meets the same
// traffic. In file order none did.
void TestShuffledFatTreeGetsTheSameTrafficByLabel() {
  const Fabric canon = MakeFatTree(8, 3);
  const Fabric shuffled = Shuffled(MakeFatTree(8, 3), 7);
  Params p;
  p.hot = 37;
  for (const char* pattern : kPatterns) {
    const Traffic want = TrafficOf(canon, ByLabel(canon), pattern, p);
    CU_ASSERT(TrafficOf(shuffled, ByLabel(shuffled), pattern, p) == want);
    CU_ASSERT(!(TrafficOf(shuffled, ByLabel(shuffled), pattern, InFileOrder(p)) == want));
  }
}

// randperm draws every permutation with no host sending to itself alike:
// over 3000 seeds on 8 hosts, host k+1 sends to k (or to any given other
// host) in 1/7 of them. Repairing a fixed point by a swap with the next
// host had made k+1 -> k about twice as likely.
void TestRandpermIsUniformOverDerangements() {
  const Fabric f = MakeFatTree(4, 2);
  const Params p;
  const int n = 8, seeds = 3000;
  int to_previous = 0, to_next = 0;
  sim::Mt64 rng(1);  // not drawn from: a permutation's Destination is fixed
  for (int seed = 1; seed <= seeds; ++seed) {
    const sim::Workload w(sim::ParseTraffic("randperm"), p, f, uint64_t(seed));
    CU_ASSERT_EQUAL_FATAL(int(w.sources().size()), n);
    std::vector<int> hit(n, 0);
    for (int h : w.sources()) {
      const int from = w.Number(h), to = w.Number(w.Destination(h, rng));
      CU_ASSERT(to != from);
      ++hit[size_t(to)];
      to_previous += to == (from + n - 1) % n;
      to_next += to == (from + 1) % n;
    }
    CU_ASSERT(std::count(hit.begin(), hit.end(), 1) == n);
  }
  const double expected = double(seeds) * n / (n - 1);  // 1/7 of 8 hosts x 3000
  CU_ASSERT(std::abs(to_previous / expected - 1) < 0.08);
  CU_ASSERT(std::abs(to_next / expected - 1) < 0.08);
}

// A pair's hashed SL (a dump without the SA's path SLs, or sl=hash) is
// keyed by host numbers as well: on 4 VLs the reversed file's replay gives
// each flow the VL the generator's file gives it. Keyed by end-port
// index, as before, most pairs moved.
void TestHashedSlFollowsHostNumbers() {
  const Fabric canon = MakeFatTree(8, 3);
  const Fabric reversed = Reversed(canon);
  const Params p;
  const sim::Workload a(sim::ParseTraffic("randperm"), p, canon, 1);
  const sim::Workload b(sim::ParseTraffic("randperm"), p, reversed, 1);
  std::map<std::pair<std::string, std::string>, int> sl;
  sim::Mt64 rng(1);
  for (int h : a.sources()) {
    const int d = a.Destination(h, rng);
    sl[{canon.end_ports[size_t(h)].name, canon.end_ports[size_t(d)].name}] =
        sim::MessageSl(a, p, h, a.PairKey(h, d), 0, rng);
  }
  int same = 0, same_by_index = 0;
  for (int h : b.sources()) {
    const int d = b.Destination(h, rng);
    const int want = sl.at({reversed.end_ports[size_t(h)].name, reversed.end_ports[size_t(d)].name});
    same += sim::MessageSl(b, p, h, b.PairKey(h, d), 0, rng) == want;
    same_by_index += sim::MessageSl(b, p, h, uint64_t(h) * 128 + uint64_t(d), 0, rng) == want;
  }
  CU_ASSERT_EQUAL(same, int(b.sources().size()));
  CU_ASSERT(same_by_index < same / 2);
}

// Square meshes shuffled (labelled anew, as a fat-tree is): transpose sends
// N(x,y)'s host to N(y,x)'s, on 4x4 (a power of four: the number's bit
// halves swapped) and 6x6 alike. A host count that is not a square is
// refused, as bitrev refuses one that is not a power of two.
void TestShuffledMeshTransposes() {
  for (int k : {4, 6}) {
    const Fabric mesh = Shuffled(MakeMesh(k, k), 3);
    const Traffic t = TrafficOf(mesh, ByMeshLabel(mesh), "transpose", Params());
    CU_ASSERT_EQUAL(t.pairs.size(), size_t(k * k - k));  // the diagonal's hosts are their own partners
    for (const auto& [src, dst] : t.pairs)
      CU_ASSERT_EQUAL(dst, "N(" + src.substr(4, 1) + "," + src.substr(2, 1) + ")");
  }
  auto refusal = [](const Fabric& f, const std::string& traffic) {
    try {
      sim::Workload(sim::ParseTraffic(traffic), Params(), f, 1);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CU_ASSERT(Contains(refusal(MakeMesh(4, 2), "transpose"),
                     "transpose needs a square host count (k x k, as a square mesh has); the fabric has 8"));
  CU_ASSERT(Contains(refusal(MakeMesh(6, 6), "bitrev"),
                     "bitrev needs a power-of-two host count; the fabric has 36"));
}

// Neither a fat-tree nor a mesh (a ring of three switches): file order,
// and the traffic's description says so.
void TestOtherFabricsKeepFileOrder() {
  const Setup ring = ClockwiseRing(3);
  const HostOrder o = HostsInAddressOrder(ring.fabric);
  CU_ASSERT(Contains(o.name, "net-file order (neither a fat-tree nor a 2-D mesh is recognised)"));
  for (size_t i = 0; i < o.end_ports.size(); ++i) CU_ASSERT_EQUAL(o.end_ports[i], int(i));
  const sim::Workload wl(sim::ParseTraffic("shift:1"), Params(), ring.fabric, 1);
  CU_ASSERT(Contains(wl.Describe(), "numbered in net-file order (neither"));
}

}  // namespace

void RegisterTimingTrafficSuite() {
  CU_pSuite s = CU_add_suite("timing_traffic", nullptr, nullptr);
  CU_add_test(s, "generated files are in address order", TestGeneratedFilesAreInAddressOrder);
  CU_add_test(s, "FT(8,3) in a dump's reversed order: the same hosts paired, hot, grouped",
              TestReversedFatTreeGetsTheSameTraffic);
  CU_add_test(s, "FT(8,3) and a 4x4 mesh in a dump's reversed order: the same run, digit for digit",
              TestReversedFabricRunsTheSameRun);
  CU_add_test(s, "shuffled FT(8,3): the same traffic by its labels", TestShuffledFatTreeGetsTheSameTrafficByLabel);
  CU_add_test(s, "a pair's hashed SL follows the host numbers", TestHashedSlFollowsHostNumbers);
  CU_add_test(s, "randperm: every derangement alike", TestRandpermIsUniformOverDerangements);
  CU_add_test(s, "shuffled 4x4 and 6x6 meshes: transpose swaps x and y; not a square: refused",
              TestShuffledMeshTransposes);
  CU_add_test(s, "neither tree nor mesh: file order, said", TestOtherFabricsKeepFileOrder);
}

}  // namespace ibu::simtest
