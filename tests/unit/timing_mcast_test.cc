// Multicast in the timing model: replication at switches by the MFT, one
// copy per member, never back to the arrival port; unicast emulation.
#include <CUnit/CUnit.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <utility>

#include "plugin/core/error.h"
#include "tests/unit/timing_rig.h"

namespace ibu::simtest {

namespace {

using sim::Params;
using sim::PointResult;
using sim::Simulator;

// What a run that must fail says ("" when it did not fail).
std::string RunFailure(Simulator& sim) {
  try {
    sim.Run();
  } catch (const sim::SimFailure& e) {
    return e.what();
  }
  return "";
}

constexpr Lid kMlid = 0xC001;
const std::vector<int> kMembers = {0, 1, 4, 7, 8};

void TestOneCopyPerMember() {
  Params p;
  Setup st = Tree(3, 3);
  TreeMulticast(st, 3, 3, kMlid, kMembers);
  Rig rig(std::move(st), p, "mcast:all:all", 1, kMlid);
  CU_ASSERT(rig.wl->group() == kMembers);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 4, -1, 96);  // 3 packets from member 4
  const PointResult r = sim.Run();
  CU_ASSERT(r.error.empty());
  CU_ASSERT(r.conservation_ok);
  CU_ASSERT_EQUAL(r.ops_measured, 1u);
  CU_ASSERT_EQUAL(r.packets_delivered, 4u * 3u);
  for (int h = 0; h < 9; ++h) {
    const bool member = std::set<int>(kMembers.begin(), kMembers.end()).count(h) && h != 4;
    CU_ASSERT_EQUAL(sim.DeliveredTo(h), member ? 3u : 0u);
  }
  // Host 4's leaf replicates to host 3? No: host 3 is not a member. The
  // farthest member is two switches up and down: 3 switches.
  const int64_t first = 4 * 20 + 3 * 100 + 128;
  CU_ASSERT(r.latency_avg_ns >= double(first));
}

void TestOneToThreeTiming() {
  // Tree(3,3), group {0, 1, 4, 7}, host 0 sends. Leaf 0 (routed at 120)
  // copies to host 1 and up, not back to host 0; the root (240) to leaves
  // 1 and 2, not back to leaf 0; they (360) to hosts 4 and 7. Completion
  // 4F + 3R + Lb = 508, 7 links. A second packet follows one credit round
  // trip (268) later at every switch: 776.
  for (const auto& [bytes, completion] : {std::pair{32u, 508}, std::pair{64u, 776}}) {
    Params p;
    Setup st = Tree(3, 3);
    TreeMulticast(st, 3, 3, kMlid, {0, 1, 4, 7});
    Rig rig(std::move(st), p, "mcast:all:all", 1, kMlid);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, 0, -1, bytes);
    const PointResult r = sim.Run();
    CU_ASSERT(r.error.empty());
    CU_ASSERT_EQUAL(r.completion_ns, completion);
    CU_ASSERT_EQUAL(int64_t(r.latency_max_ns), completion);
    CU_ASSERT_EQUAL(r.packets_delivered, 3u * (bytes / 32));
    CU_ASSERT_EQUAL(r.packet_hops, 7u * (bytes / 32));
    CU_ASSERT_EQUAL(sim.DeliveredTo(0), 0u);
  }
}

void TestDeadEndBranchFreesSlotWhenTailIsIn() {
  // Tree(2,2), group {0, 1} on leaf 0, whose MFT also sends up to the root;
  // the root's mask holds only that link, so the root consumes each copy.
  // Host 0 multicasts at 0 (B bytes, Lb = 4B), host 1 sends 32 bytes to
  // host 2 at 1, up the same link. Leaf 0 routes the copy at 120 and sends
  // it up from 120 to 120 + Lb; the unicast, routed at 121, is granted the
  // up port then and waits for the root's credit. The root looks the copy
  // up at 240; its tail is in at 140 + Lb. The slot is free at the later
  // of the two, the credit back at leaf 0 F = 20 after: the unicast leaves
  // then and needs F + R to the root, F + R to leaf 1 and F + 128 to host
  // 2 (2F + 2R + F + 128 = 388 ns).
  //   B = 32 (Lb 128 > R): free 268, credit 288, delivered 676, latency 675.
  //   B = 16 (Lb 64 < R):  free 240, credit 260, delivered 648, latency 647.
  // Both on SL 0, so on VL 0 also with 8 VLs (the general engine).
  for (const auto& [bytes, delivered] : {std::pair{32u, 676}, std::pair{16u, 648}})
    for (const int vls : {1, 8}) {
      Params p;
      p.vls = vls;
      Setup st = Tree(2, 2);
      TreeMulticast(st, 2, 2, kMlid, {0, 1});
      st.tables.mft[1].groups[kMlid].set(1);  // leaf 0: up too
      PortMask back;
      back.set(1);  // the root: only the arrival port
      st.tables.mft[0].groups[kMlid] = back;
      Rig rig(std::move(st), p, "mcast:all:all", 1, kMlid);
      Simulator sim(*rig.net, *rig.wl, p, 0, 1);
      sim.AddMessage(0, 0, -1, bytes, 0);
      sim.AddMessage(1, 1, 2, 32, 0);
      const PointResult r = sim.Run();
      CU_ASSERT(r.error.empty());
      CU_ASSERT(r.conservation_ok);
      CU_ASSERT_EQUAL(r.completion_ns, delivered);
      CU_ASSERT_EQUAL(int64_t(r.latency_max_ns), delivered - 1);
      CU_ASSERT_EQUAL(sim.DeliveredTo(1), 1u);
      CU_ASSERT_EQUAL(sim.DeliveredTo(2), 1u);
      CU_ASSERT_EQUAL(r.packet_hops, 3u + 4u);
    }
}

void TestDumpedGroupSourceCount() {
  // Sources come from the dumped group's 5 members: 5 is all of them, 6
  // is refused (it was taken as all, as a fraction would be).
  for (const int sources : {5, 6}) {
    Params p;
    Setup st = Tree(3, 3);
    TreeMulticast(st, 3, 3, kMlid, kMembers);
    std::string err;
    try {
      Rig rig(std::move(st), p, "mcast:" + std::to_string(sources) + ":all", 1, kMlid);
      CU_ASSERT_EQUAL(rig.wl->sources(), kMembers);
    } catch (const Error& e) {
      err = e.what();
    }
    const std::string want = "SOURCES 6 is more hosts than the 5 members of the dumped group (MLID 0xc001)";
    CU_ASSERT(sources == 5 ? err.empty() : err.find(want) != std::string::npos);
  }
}

void TestAllMembersSend() {
  Params p;
  p.batch = 2;
  p.vls = 2;
  Setup st = Tree(3, 3);
  TreeMulticast(st, 3, 3, kMlid, kMembers);
  Rig rig(std::move(st), p, "mcast:all:all", 1, kMlid);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.SetMessageBytes(64);
  const PointResult r = sim.Run();
  CU_ASSERT(!r.deadlock);
  CU_ASSERT(r.error.empty());
  CU_ASSERT(r.conservation_ok);
  CU_ASSERT_EQUAL(r.ops_measured, 5u * 2u);
  for (int h : kMembers) CU_ASSERT_EQUAL(sim.DeliveredTo(h), 2u * 4u * 2u);  // 2 msgs x 4 others x 2 pkts
  for (int h : {2, 3, 5, 6}) CU_ASSERT_EQUAL(sim.DeliveredTo(h), 0u);
  CU_ASSERT(r.completion_ns > 0);
}

// Three switches in a ring (port 1 to the next one's port 2), each with
// one host on port 3: H0..H2 on T0..T2, LIDs numbered, no tables yet.
Setup FloodingTriangle() {
  Setup st;
  Fabric& f = st.fabric;
  for (int s = 0; s < 3; ++s) AddSwitch(f, 3, "T" + std::to_string(s));
  ConnectSwitches(f, 0, 1, 1, 2);
  ConnectSwitches(f, 1, 1, 2, 2);
  ConnectSwitches(f, 2, 1, 0, 2);
  for (int h = 0; h < 3; ++h) {
    AddHost(f, "H" + std::to_string(h));
    ConnectEndPort(f, h, h, 3);
  }
  NumberLids(f);
  st.tables.Resize(f);
  return st;
}

void TestFloodingLoopIsCaught() {
  // A triangle of switches whose MFTs flood every port: the copies come
  // back around, and the model reports the duplicate instead of looping.
  Setup st = FloodingTriangle();
  PortMask all;
  all.set(1).set(2).set(3);
  for (int s = 0; s < 3; ++s) st.tables.mft[s].groups[kMlid] = all;
  Params p;
  Rig rig(std::move(st), p, "mcast:all:all", 1, kMlid);
  Simulator sim(*rig.net, *rig.wl, p, 0, 1);
  sim.AddMessage(0, 0, -1, 32);
  const std::string err = RunFailure(sim);
  CU_ASSERT(err.find("duplicate") != std::string::npos || err.find("stray") != std::string::npos ||
            err.find("loop") != std::string::npos);
}

void TestDuplicateIsNamedByMember() {
  // The triangle floods every port but the source's own: the copies come
  // back around to the other members, and the first to get a packet more
  // than the message has is named. Messages of 1 and 2 packets: the
  // per-member counts are kept as bits and as bytes (a long message
  // deadlocks in the ring before any member's count overflows).
  for (const uint32_t packets : {1u, 2u}) {
    Params p;
    Rig rig(FloodingTriangle(), p, "mcast:1:all");
    const int src = rig.wl->sources().at(0);
    const Lid mlid = rig.wl->trees().at(0).mlid;
    const int src_switch = rig.st.fabric.end_ports[src].switch_index;
    PortMask all, switches_only;
    all.set(1).set(2).set(3);
    switches_only.set(1).set(2);
    for (int s = 0; s < 3; ++s) rig.st.tables.mft[s].groups[mlid] = s == src_switch ? switches_only : all;
    sim::Network net(rig.st.fabric, rig.st.tables, 1);
    Simulator sim(net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, src, -1, packets * uint32_t(p.packet_bytes));
    const std::string err = RunFailure(sim);
    CU_ASSERT(err.find("duplicate: end port H") != std::string::npos);
  }
}

void TestUnicastEmulation() {
  // mcast_mode=unicast: the source sends one unicast copy per member; the
  // same delivery counts, later completion than the hardware tree.
  int64_t completion[2] = {0, 0};
  for (int mode = 0; mode < 2; ++mode) {
    Params p;
    p.mcast_mode = mode ? sim::McastMode::kUnicast : sim::McastMode::kHardware;
    Setup st = Tree(3, 3);
    TreeMulticast(st, 3, 3, kMlid, kMembers);
    Rig rig(std::move(st), p, "mcast:all:all", 1, mode ? 0 : kMlid);
    if (mode) CU_ASSERT_EQUAL(rig.wl->group().size(), 9u);
    Simulator sim(*rig.net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, 4, -1, 320);
    const PointResult r = sim.Run();
    CU_ASSERT(r.conservation_ok);
    CU_ASSERT_EQUAL(r.ops_measured, 1u);
    const uint64_t receivers = mode ? 8u : 4u;
    CU_ASSERT_EQUAL(r.packets_delivered, receivers * 10u);
    completion[mode] = r.completion_ns;
  }
  CU_ASSERT(completion[0] < completion[1]);
}

// Emulated copies are made one per VL as the adapter takes them, not all
// at generation: every member still gets its copy on the VL its SL maps
// to; a script entry's SL holds for every copy; the random policies draw
// a copy's DLID and SL from the op's own stream, the same for a seed.
PointResult EmulatedOnFourVls(sim::SlPolicy sl, int script_sl, uint64_t seed = 1) {
  Params p;
  p.vls = 4;
  p.sl = sl;
  p.mcast_mode = sim::McastMode::kUnicast;
  Rig rig(Tree(3, 3), p, "mcast:all:all", seed);
  Simulator sim(*rig.net, *rig.wl, p, 0, seed);
  sim.AddMessage(0, 4, -1, 320, script_sl);
  sim.AddMessage(0, 5, -1, 96, script_sl);
  return sim.Run();
}

int VlsUsed(const PointResult& r) {
  return int(std::count_if(r.vl_hops.begin(), r.vl_hops.end(), [](uint64_t n) { return n > 0; }));
}

void TestEmulatedCopiesOnEveryVl() {
  for (sim::SlPolicy sl : {sim::SlPolicy::kHash, sim::SlPolicy::kRandom}) {
    const PointResult r = EmulatedOnFourVls(sl, -1);
    CU_ASSERT(r.conservation_ok);
    CU_ASSERT_EQUAL(r.ops_measured, 2u);
    CU_ASSERT_EQUAL(r.packets_delivered, 8u * 10u + 8u * 3u);
    CU_ASSERT(VlsUsed(r) > 1);
    const PointResult again = EmulatedOnFourVls(sl, -1);
    CU_ASSERT_EQUAL(again.completion_ns, r.completion_ns);
    CU_ASSERT(again.vl_hops == r.vl_hops);
  }
  const PointResult fixed = EmulatedOnFourVls(sim::SlPolicy::kHash, 2);
  CU_ASSERT_EQUAL(fixed.packets_delivered, 8u * 10u + 8u * 3u);
  CU_ASSERT_EQUAL(VlsUsed(fixed), 1);
  CU_ASSERT(fixed.vl_hops.at(2) > 0);
}

void TestMissingMemberIsReported() {
  // The engine-style workload puts every host in the group; the MFT built
  // here leaves one member out: reported as lost deliveries naming it.
  // Messages of 1, 2 and 300 packets: the counts are kept as bits, bytes
  // and 32-bit words.
  for (const uint32_t packets : {1u, 2u, 300u}) {
    Params p;
    Rig rig(Tree(3, 3), p, "mcast:1:all");
    const sim::McastTree& t = rig.wl->trees().at(0);
    const int src = rig.wl->sources().at(0);
    const int dropped = src == 2 ? 3 : 2;
    std::vector<int> partial;
    for (int h : rig.wl->Members(0))
      if (h != dropped) partial.push_back(h);
    TreeMulticast(rig.st, 3, 3, t.mlid, partial);
    sim::Network net(rig.st.fabric, rig.st.tables, 1);
    Simulator sim(net, *rig.wl, p, 0, 1);
    sim.AddMessage(0, src, -1, packets * uint32_t(p.packet_bytes));
    const std::string err = RunFailure(sim);
    CU_ASSERT(err.find("lost deliveries") != std::string::npos);
    CU_ASSERT(err.find("member H" + std::to_string(dropped) + " got 0 of " + std::to_string(packets)) !=
              std::string::npos);
  }
}

void TestTakenMftsForwardAsTheTables() {
  // The simulator moves each tree's MFT entries out of the engine's tables
  // as it is routed (FlatMfts::Take): a network built from those forwards
  // as one built from the tables, and the tables keep none of them.
  Setup st = Tree(3, 3);
  TreeMulticast(st, 3, 3, kMlid, {0, 1, 4, 8});
  TreeMulticast(st, 3, 3, kMlid + 1, {2, 3, 4, 5, 6});
  const sim::Network whole(st.fabric, st.tables, 1);
  Tables rest = st.tables;
  const int switches = int(st.fabric.switches.size());
  sim::FlatMfts taken(switches);
  taken.Take(st.fabric, kMlid + 1, rest);
  for (const Mft& m : rest.mft) CU_ASSERT_EQUAL(m.groups.count(kMlid + 1), 0u);
  const sim::Network joined(st.fabric, rest, 1, nullptr, &taken);
  int entries = 0;
  for (const Lid mlid : {kMlid, Lid(kMlid + 1), Lid(kMlid + 2)})
    for (int sw = 0; sw < switches; ++sw) {
      int n = -1, m = -1;
      const uint8_t* a = whole.Mft(sw, mlid, &n);
      const uint8_t* b = joined.Mft(sw, mlid, &m);
      CU_ASSERT_EQUAL(a == nullptr, b == nullptr);
      if (!a || !b) continue;
      ++entries;
      CU_ASSERT(std::vector<uint8_t>(a, a + n) == std::vector<uint8_t>(b, b + m));
    }
  CU_ASSERT(entries > 4);
}

void TestMftPortsOffTheSwitchAreRefused() {
  // A switch of 3 ports, hosts on ports 1 and 2: an MFT naming port 3
  // (not cabled) or port 200 (beyond its ports) is refused by name.
  auto refusal = [](int port) {
    Setup st;
    Fabric& f = st.fabric;
    AddSwitch(f, 3, "S");
    for (int h = 0; h < 2; ++h) {
      AddHost(f, "H" + std::to_string(h));
      ConnectEndPort(f, h, 0, h + 1);
    }
    NumberLids(f);
    st.tables.Resize(f);
    PortMask mask;
    mask.set(1).set(2).set(size_t(port));
    st.tables.mft[0].groups[kMlid] = mask;
    try {
      sim::Network net(st.fabric, st.tables, 1);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CU_ASSERT(refusal(3).find("MFT of MLID 0xc001 names port 3, which is not cabled") != std::string::npos);
  CU_ASSERT(refusal(200).find("MFT of MLID 0xc001 names port 200 beyond the switch's ports") !=
            std::string::npos);
}

void TestTreeMembersAndRanks() {
  // A tree is the group plus its sources outside it (kept apart, not as a
  // copy of the group per tree): Members merges them in order and Rank is
  // the place in that merge, -1 off the tree. mcast:3:3 on 9 hosts with
  // one shared tree and with one per source, over seeds with outsiders.
  for (const int trees : {0, 1})
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      Params p;
      p.mcast_trees = trees;
      Setup st = Tree(3, 3);
      sim::Workload wl(sim::ParseTraffic("mcast:3:3"), p, st.fabric, seed);
      for (int t = 0; t < int(wl.trees().size()); ++t) {
        std::set<int> expected(wl.group().begin(), wl.group().end());
        for (int s : wl.sources())
          if (wl.TreeOf(s) == t) expected.insert(s);
        const std::vector<int> members = wl.Members(t);
        CU_ASSERT(members == std::vector<int>(expected.begin(), expected.end()));
        CU_ASSERT_EQUAL(wl.MemberCount(t), int(members.size()));
        for (int h = 0; h < 9; ++h) {
          const auto it = std::find(members.begin(), members.end(), h);
          CU_ASSERT_EQUAL(wl.Rank(t, h), it == members.end() ? -1 : int(it - members.begin()));
        }
      }
    }
}

void TestSharedTreeSourcesOutsideTheGroupReceiveNothing() {
  // mcast_trees=1: one tree for every source, so it spans the group and
  // the sources. A source outside the group is on the tree only to send:
  // copies reach its port over the links (its adapter drops them), but it
  // is no receiver. It was counted as one: deliveries, offered and
  // accepted bytes and the completion time included the other sources.
  // Tree(3,3), mcast:3:3: seeds where some source is not in the group.
  int checked = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    Params p;
    p.mcast_trees = 1;
    Setup st = Tree(3, 3);
    sim::Workload wl(sim::ParseTraffic("mcast:3:3"), p, st.fabric, seed);
    const std::vector<int>& group = wl.group();
    const std::set<int> in_group(group.begin(), group.end());
    bool outsider = false;
    for (int s : wl.sources()) outsider |= !in_group.count(s);
    if (!outsider) continue;
    ++checked;
    const sim::McastTree& tree = wl.trees().at(0);
    TreeMulticast(st, 3, 3, tree.mlid, wl.Members(0));
    sim::Network net(st.fabric, st.tables, p.vls);
    Simulator sim(net, wl, p, 0, 1);
    uint64_t expected = 0;
    for (int s : wl.sources()) {
      sim.AddMessage(0, s, -1, 64);  // 2 packets
      expected += 2 * (group.size() - in_group.count(s));
    }
    const PointResult r = sim.Run();
    CU_ASSERT(r.error.empty());
    CU_ASSERT(r.conservation_ok);
    CU_ASSERT_EQUAL(r.packets_delivered, expected);
    CU_ASSERT_EQUAL(r.ops_measured, wl.sources().size());
    for (int h = 0; h < 9; ++h)
      if (!in_group.count(h)) CU_ASSERT_EQUAL(sim.DeliveredTo(h), 0u);
    // Offered and accepted count group members only: 64 bytes per
    // receiver over the run (which may end with a dropped copy's tail).
    CU_ASSERT_EQUAL(r.offered, r.accepted);
    CU_ASSERT(std::fabs(r.offered * double(r.simulated_ns) * 9 - 32.0 * double(expected)) < 1e-6);
    // Steady state: a message lives until its dropped copies have landed
    // too, or a late one would name the op that took over its slot.
    Params q = p;
    q.warmup_ns = 2000;
    q.measure_ns = 50000;
    Simulator steady(net, wl, q, 0.05, seed);
    std::string err;
    try {
      const PointResult s = steady.Run();
      CU_ASSERT(s.conservation_ok);
      CU_ASSERT_EQUAL(s.ops_unfinished, 0u);
      CU_ASSERT(std::fabs(s.accepted - s.offered) < 0.1 * s.offered);
    } catch (const sim::SimFailure& e) {
      err = e.what();
    }
    CU_ASSERT_EQUAL(err, "");
  }
  CU_ASSERT(checked > 0);
}

}  // namespace

void RegisterTimingMcastSuite() {
  CU_pSuite s = CU_add_suite("timing_mcast", nullptr, nullptr);
  CU_add_test(s, "multicast delivers one copy per member", TestOneCopyPerMember);
  CU_add_test(s, "1-to-3 group: exact completion, no copy back", TestOneToThreeTiming);
  CU_add_test(s, "a dead-end branch frees its slot when the tail is in",
              TestDeadEndBranchFreesSlotWhenTailIsIn);
  CU_add_test(s, "dumped group: a source count beyond its members is refused", TestDumpedGroupSourceCount);
  CU_add_test(s, "all members send at once", TestAllMembersSend);
  CU_add_test(s, "flooding MFT loop is reported", TestFloodingLoopIsCaught);
  CU_add_test(s, "a duplicate copy is named by member (1 and 2 packets)", TestDuplicateIsNamedByMember);
  CU_add_test(s, "unicast emulation of multicast", TestUnicastEmulation);
  CU_add_test(s, "unicast emulation: copies made per VL as sent, every member served",
              TestEmulatedCopiesOnEveryVl);
  CU_add_test(s, "a member the MFTs do not reach is reported", TestMissingMemberIsReported);
  CU_add_test(s, "tree members: the group plus its outside sources, ranked", TestTreeMembersAndRanks);
  CU_add_test(s, "MFTs taken from the tables forward as the tables", TestTakenMftsForwardAsTheTables);
  CU_add_test(s, "an MFT port off the switch is refused by name", TestMftPortsOffTheSwitchAreRefused);
  CU_add_test(s, "shared tree: sources outside the group receive nothing",
              TestSharedTreeSourcesOutsideTheGroupReceiveNothing);
}

}  // namespace ibu::simtest
