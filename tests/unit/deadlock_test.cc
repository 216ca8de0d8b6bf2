// The channel-dependency (credit-loop) checker: acyclic where the theory
// says so, one named cycle where it does not.
#include "plugin/core/verify/deadlock.h"

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/find_cycle.h"
#include "plugin/core/netfile.h"
#include "plugin/core/routing/xymesh.h"
#include "plugin/core/topology/generate.h"
#include "plugin/core/topology/mesh.h"
#include "plugin/core/verify/multicast.h"
#include "plugin/core/verify/unicast.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

// `count` random groups (sizes 2 .. all hosts, MLIDs in a row so every
// multicast class appears), every other one with a random explicit anchor.
std::vector<McastGroup> RandomGroups(std::mt19937_64& rng, int hosts, int count) {
  std::vector<McastGroup> groups;
  for (int i = 0; i < count; ++i) {
    McastGroup g;
    g.mlid = static_cast<Lid>(0xC000 + i);
    g.members = RandomMembers(rng, hosts, 2 + static_cast<int>(rng() % (hosts - 1)));
    if (i % 2) g.anchor = static_cast<int>(rng() % hosts);
    groups.push_back(g);
  }
  return groups;
}

// Switch i of a ring: port 1 to the next, 2 to the previous, 3 a host.
Switch RingSwitch(int i) {
  Switch sw;
  sw.guid = 0x200000 + i;
  sw.name = "R" + std::to_string(i);
  sw.num_ports = 3;
  sw.ports.resize(4);
  return sw;
}

// A ring of n switches (port 1 to the next, 2 to the previous, 3 a host).
Fabric Ring(int n) {
  Fabric f;
  for (int i = 0; i < n; ++i) {
    f.switches.push_back(RingSwitch(i));
    EndPort ep;
    ep.node_guid = 0x100000 + 2 * i;
    ep.port_guid = ep.node_guid + 1;
    ep.name = "h" + std::to_string(i);
    f.end_ports.push_back(ep);
  }
  for (int i = 0; i < n; ++i) {
    ConnectSwitches(f, i, 1, (i + 1) % n, 2);
    ConnectEndPort(f, i, i, 3);
  }
  AssignDefaultLids(f, 0);
  return f;
}

// Everything goes clockwise (port 1) until it is home.
Tables Clockwise(const Fabric& f) {
  Tables t;
  t.Resize(f);
  for (size_t s = 0; s < f.switches.size(); ++s) {
    t.lft[s].out.assign(f.max_lid() + 1, 1);
    t.lft[s].out[0] = kNoPort;
    t.lft[s].set(f.end_ports[s].base_lid, 3);
    t.lft[s].set(f.switches[s].lid, 0);
  }
  return t;
}

void RingHasACycle() {
  Fabric f = Ring(5);
  Tables t = Clockwise(f);
  // Every route arrives (the verifier only finds them longer than the
  // diameter), yet the channels wait on each other all the way round.
  const std::vector<std::string> errors = VerifyUnicast(f, t).errors;
  CU_ASSERT(!errors.empty());
  for (const std::string& err : errors) CU_ASSERT(Contains(err, "too long"));
  // One link over the diameter counts already (not only the 4-link routes).
  CU_ASSERT(std::any_of(errors.begin(), errors.end(),
                        [](const std::string& e) { return Contains(e, ": 3 links, the diameter is 2"); }));
  DeadlockReport r = CheckDeadlock(f, t, {});
  CU_ASSERT(!r.acyclic());
  CU_ASSERT_EQUAL_FATAL(r.cycle.size(), 5u);
  for (size_t i = 0; i < r.cycle.size(); ++i) {
    const DeadlockChannel& c = r.cycle[i];
    CU_ASSERT_EQUAL(c.port, 1);
    CU_ASSERT_EQUAL(c.vl, 0);
    CU_ASSERT_EQUAL(r.cycle[(i + 1) % 5].sw, (c.sw + 1) % 5);
  }
  CU_ASSERT_EQUAL(r.channels, 5);
  CU_ASSERT_EQUAL(r.dependencies, 5);
  CU_ASSERT_EQUAL(r.unicast_routes, 5 * 10 - 5);
  const std::string s = r.Summary(f);
  CU_ASSERT(
      Contains(s, "credit loop of 5 channels: " + f.PortLabel(r.cycle[0].sw, 1) + " VL 0 -> "));
  CU_ASSERT(Contains(s, "back to the first"));
  // Never using the link from R4 to R0 (either way) makes it a line: no loop.
  for (int sw = 0; sw < 5; ++sw)
    for (int h = 0; h < 5; ++h) {
      if (h == sw) continue;
      t.lft[sw].set(f.end_ports[h].base_lid, h > sw ? 1 : 2);
      t.lft[sw].set(f.switches[h].lid, h > sw ? 1 : 2);
    }
  DeadlockReport ok = CheckDeadlock(f, t, {});
  CU_ASSERT(ok.acyclic());
  CU_ASSERT(Contains(ok.Summary(f), "acyclic"));
}

// No recursion: a 1000-switch loop is found, a 1500-switch line is clean.
void LargeGraphsNeedNoRecursion() {
  Fabric f = Ring(1000);
  DeadlockReport r = CheckDeadlock(f, Clockwise(f), {});
  CU_ASSERT_EQUAL(r.cycle.size(), 1000u);
  Fabric line = MakeMesh(1, 1500);
  AssignDefaultLids(line, 0);
  Tables t;
  MakeEngine("xymesh", {}, nullptr)->RouteUnicast(line, t);
  CU_ASSERT(CheckDeadlock(line, t, {}).acyclic());
  // Nothing routed: nothing to depend on.
  DeadlockReport none = CheckDeadlock(line, Tables{}, {});
  CU_ASSERT(none.acyclic() && none.channels == 0);
}

void XyUnicastIsAcyclic() {
  for (auto xy : {std::pair{4, 4}, {16, 16}, {3, 7}}) {
    Fabric f = MakeMesh(xy.first, xy.second);
    ShufflePorts(f, 3);
    AssignDefaultLids(f, 1);
    Tables t;
    MakeEngine("xymesh", {}, nullptr)->RouteUnicast(f, t);
    DeadlockReport r = CheckDeadlock(f, t, {});
    CU_ASSERT(r.acyclic());
    // XY uses every directed switch link.
    const long links = 2L * (xy.first - 1) * xy.second + 2L * xy.first * (xy.second - 1);
    CU_ASSERT_EQUAL(r.channels, links);
  }
}

// Destinations with x + y even are reached XY, the others YX: minimal
// routes, every LID reachable, and a credit loop.
void MixedXyYxHasACycle() {
  Fabric f = MakeMesh(4, 4);
  AssignDefaultLids(f, 0);
  Tables t;
  MakeEngine("xymesh", {}, nullptr)->RouteUnicast(f, t);
  const Mesh m = RecognizeMesh(f);
  for (size_t s = 0; s < f.switches.size(); ++s)
    for (size_t h = 0; h < f.end_ports.size(); ++h) {
      const int d = f.end_ports[h].switch_index;
      if (d == static_cast<int>(s) || (m.x[d] + m.y[d]) % 2 == 0) continue;
      int dir = m.y[d] > m.y[s]   ? kNorth
                : m.y[d] < m.y[s] ? kSouth
                : m.x[d] > m.x[s] ? kEast
                                  : kWest;
      t.lft[s].set(f.end_ports[h].base_lid, static_cast<uint8_t>(m.port[s][dir]));
    }
  UnicastReport u = VerifyUnicast(f, t);
  CU_ASSERT(u.ok());
  CU_ASSERT_EQUAL(u.hops_histogram.rbegin()->first, 6);  // minimal: the diameter
  DeadlockReport r = CheckDeadlock(f, t, {});
  CU_ASSERT(!r.acyclic());
  CU_ASSERT(r.cycle.size() >= 4);
  // Consecutive channels of the cycle are joined: each ends where the next starts.
  for (size_t i = 0; i < r.cycle.size(); ++i) {
    const Peer& p = f.switches[r.cycle[i].sw].ports[r.cycle[i].port];
    CU_ASSERT(p.is_switch() && p.index == r.cycle[(i + 1) % r.cycle.size()].sw);
  }
}

// SL (src + dlid) mod 2, on VL = SL: a route's VL depends on its LID, so a
// graph built from the wrong LID's entries differs.
uint8_t TwoSls(int src, Lid dlid) { return static_cast<uint8_t>((src + dlid) % 2); }

using Channel = std::tuple<int, int, int>;  // switch, out port, VL

// The dependencies of every route walked on its own, LID by LID and hop by
// hop from each source (end ports, and switches toward end-port LIDs, on
// the SL of the end port's route to the switch's LID), on TwoSls: the graph
// CheckDeadlock must build, whatever order it reads the LFTs in. A walk
// stops after as many hops as there are links, within which every
// dependency of a looping route is found.
std::set<std::pair<Channel, Channel>> DependenciesRouteByRoute(const Fabric& f, const Tables& t,
                                                               std::set<Channel>& channels) {
  long links = 0;
  for (const Switch& s : f.switches) links += s.num_ports;
  std::set<std::pair<Channel, Channel>> deps;
  const auto walk = [&](Lid lid, int sw, int sl) {
    Channel from{-1, 0, 0};
    for (long hop = 0; hop <= links && sw < static_cast<int>(t.lft.size()); ++hop) {
      const int out = t.lft[sw].port(lid);
      if (out < 1 || out > f.switches[sw].num_ports || !f.switches[sw].ports[out].is_switch()) return;
      const Channel c{sw, out, sl};
      channels.insert(c);
      if (std::get<0>(from) >= 0) deps.insert({from, c});
      from = c;
      sw = f.switches[sw].ports[out].index;
    }
  };
  for (int lid = 1; lid <= f.max_lid(); ++lid) {
    const LidOwner o = f.owner(static_cast<Lid>(lid));
    if (!o.valid()) continue;
    for (size_t e = 0; e < f.end_ports.size(); ++e)
      if (f.end_ports[e].switch_index >= 0 &&
          !(o.kind == Peer::Kind::kEndPort && o.index == static_cast<int>(e)))
        walk(static_cast<Lid>(lid), f.end_ports[e].switch_index,
             TwoSls(static_cast<int>(e), static_cast<Lid>(lid)));
    if (o.kind == Peer::Kind::kEndPort)
      for (size_t sw = 0; sw < f.switches.size(); ++sw)
        walk(static_cast<Lid>(lid), static_cast<int>(sw), TwoSls(o.index, f.switches[sw].lid));
  }
  return deps;
}

// CheckDeadlock reads the LFTs 64 LIDs at a time: on an 8x8 mesh (128
// LIDs) with random entries changed and some rows cut short (the LIDs past
// a row's end have no entry), its graph is the one of every route walked on
// its own, and its cycle, when there is one, is a cycle of that graph.
void GraphIsTheRoutesOwn() {
  std::mt19937_64 rng(5);
  DeadlockOptions two_sls;
  two_sls.path_sl = TwoSls;
  int cyclic = 0;
  for (int round = 0; round < 12; ++round) {
    Fabric f = MakeMesh(8, 8);
    AssignDefaultLids(f, 0);
    Tables t;
    MakeXyMeshEngine({}, nullptr)->RouteUnicast(f, t);
    t.sl2vl.assign(f.switches.size(), Sl2Vl{});
    for (size_t sw = 0; sw < f.switches.size(); ++sw) {
      t.sl2vl[sw].Init(f.switches[sw].num_ports);
      for (auto& vls : t.sl2vl[sw].vl) vls[1] = 1;  // SL s on VL s
    }
    for (int i = 0; i < round * 3; ++i) {
      const size_t sw = rng() % f.switches.size();
      t.lft[sw].set(static_cast<Lid>(1 + rng() % f.max_lid()), static_cast<uint8_t>(rng() % 6));
    }
    for (int i = 0; i < round % 4; ++i) t.lft[rng() % f.switches.size()].out.resize(rng() % f.max_lid());
    std::set<Channel> channels;
    const auto deps = DependenciesRouteByRoute(f, t, channels);
    const DeadlockReport r = CheckDeadlock(f, t, {}, two_sls);
    CU_ASSERT_EQUAL(r.channels, static_cast<long>(channels.size()));
    CU_ASSERT_EQUAL(r.dependencies, static_cast<long>(deps.size()));
    for (size_t i = 0; i < r.cycle.size(); ++i) {
      const DeadlockChannel& a = r.cycle[i];
      const DeadlockChannel& b = r.cycle[(i + 1) % r.cycle.size()];
      CU_ASSERT(deps.count({{a.sw, a.port, a.vl}, {b.sw, b.port, b.vl}}) == 1);
    }
    // Acyclic exactly when the route-by-route graph is.
    std::map<Channel, int> id;
    for (const Channel& c : channels) id.emplace(c, static_cast<int>(id.size()));
    std::vector<std::vector<int>> succ(id.size());
    for (const auto& [from, to] : deps) succ[id[from]].push_back(id[to]);
    const auto next = [&](int v) -> const std::vector<int>& { return succ[v]; };
    const bool want_cycle =
        !FindCycle(static_cast<int>(succ.size()), next, [](int) { return false; }).empty();
    CU_ASSERT_EQUAL(!r.acyclic(), want_cycle);
    cyclic += want_cycle;
  }
  CU_ASSERT(cyclic > 0 && cyclic < 12);  // both kinds compared
}

// Trees rooted on two different rows of one VL close a loop: why the
// engine roots every tree of a VL on that VL's trunk row.
void TreesOnTwoRowsHaveACycle() {
  Fabric f = MakeMesh(4, 4);
  AssignDefaultLids(f, 0);
  auto e = MakeEngine("xymesh", {}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  XyRouter router(f, RecognizeMesh(f), {});
  const std::vector<int> members = {0, 1, 4, 5};  // H(0,0) H(0,1) H(1,0) H(1,1)
  std::vector<int> reach;
  for (int m : members) reach.push_back(f.end_ports[m].switch_index);
  std::vector<McastGroup> groups = {{0xC000, members, -1}, {0xC001, members, -1}};
  const int roots[2] = {SwitchNamed(f, "N(0,0)"), SwitchNamed(f, "N(0,1)")};
  for (int i = 0; i < 2; ++i)
    for (auto& [sw, mask] : router.UnionTree(roots[i], reach, members))
      t.mft[sw].groups[groups[i].mlid] = mask;
  for (const McastGroup& g : groups) CU_ASSERT(VerifyMulticast(f, t, g).ok());
  CU_ASSERT(CheckDeadlock(f, t, {groups[0]}).acyclic());  // one tree alone is fine
  CU_ASSERT(!CheckDeadlock(f, t, groups).acyclic());
  Tables mcast_only;
  mcast_only.Resize(f);
  mcast_only.mft = t.mft;
  CU_ASSERT(!CheckDeadlock(f, mcast_only, groups).acyclic());  // even on a VL of their own
  // The engine's trees for the same groups, even anchored on both rows, are fine.
  groups[0].anchor = 0;
  groups[1].anchor = 1;
  for (const McastGroup& g : groups) e->RouteMulticast(f, g, t);
  CU_ASSERT(CheckDeadlock(f, t, groups).acyclic());
}

// Unicast + multicast in every VL mode, with the SLs the engine hands out.
void EveryVlModeIsAcyclic() {
  std::mt19937_64 rng(17);
  for (int vls : {1, 2, 4})
    for (const char* mode : {"shared", "dedicated"})
      for (auto xy : {std::pair{6, 6}, {5, 7}}) {
        Fabric f = MakeMesh(xy.first, xy.second);
        ShufflePorts(f, 21);
        AssignDefaultLids(f, 0);
        auto e = MakeEngine(
            "xymesh", {"xymesh_vls=" + std::to_string(vls), std::string("xymesh_vl_mode=") + mode}, nullptr);
        Tables t;
        e->RouteUnicast(f, t);
        e->RouteSl2Vl(f, t);
        const std::vector<McastGroup> groups =
            RandomGroups(rng, static_cast<int>(f.end_ports.size()), 24);
        for (const McastGroup& g : groups) {
          e->RouteMulticast(f, g, t);
          CU_ASSERT(VerifyMulticast(f, t, g).ok());
        }
        DeadlockReport r = CheckDeadlock(f, t, groups, EngineSls(f, *e));
        if (!r.acyclic()) fprintf(stderr, "\n  vls=%d %s: %s", vls, mode, r.Summary(f).c_str());
        CU_ASSERT(r.acyclic());
        CU_ASSERT_EQUAL(r.mcast_senders, [&] {
          long n = 0;
          for (const McastGroup& g : groups) n += static_cast<long>(g.members.size());
          return n;
        }());
        const long links = 2L * (xy.first - 1) * xy.second + 2L * xy.first * (xy.second - 1);
        // Dedicated (or one VL): one VL per directed link. Shared: several.
        if (mode[0] == 'd' || vls == 1) CU_ASSERT_EQUAL(r.channels, links);
        if (mode[0] == 's' && vls > 1) CU_ASSERT(r.channels > links && r.channels <= links * vls);
        if (mode[0] != 's') continue;
        // Shared mode holds whatever SL each unicast packet carries.
        DeadlockOptions any;
        DeadlockOptions engine = EngineSls(f, *e);
        any.path_sl = [&](int src, Lid dlid) {
          return dlid >= kMulticastLidBase ? engine.path_sl(src, dlid)
                                           : static_cast<uint8_t>((src + dlid) % 16);
        };
        CU_ASSERT(CheckDeadlock(f, t, groups, any).acyclic());
      }
}

// xymesh_mcast=paper: anchor trees on a VL of their own, admitted only
// while that VL stays acyclic; the rest fall back to trunk-row trees.
void PaperTreesAreAcyclic() {
  // Two anchor trees on rows 0 and 4 over the same corners would close a
  // loop on the multicast VL: the second falls back to the trunk row.
  Fabric f = MakeMesh(5, 5);
  AssignDefaultLids(f, 0);
  auto e = MakeEngine("xymesh", {"xymesh_mcast=paper"}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  e->RouteSl2Vl(f, t);
  const std::vector<int> corners = {EndPortNamed(f, "H(0,0)"), EndPortNamed(f, "H(0,4)"),
                                    EndPortNamed(f, "H(4,0)"), EndPortNamed(f, "H(4,4)")};
  std::vector<McastGroup> pair = {{0xC000, corners, corners[0]}, {0xC001, corners, corners[1]}};
  for (const McastGroup& g : pair) e->RouteMulticast(f, g, t);
  const Lid lid = f.end_ports[corners[0]].base_lid;
  CU_ASSERT_EQUAL(e->PathSl(f, lid, 0xC000), kPaperMcastSl);
  CU_ASSERT_NOT_EQUAL(e->PathSl(f, lid, 0xC001), kPaperMcastSl);
  CU_ASSERT(CheckDeadlock(f, t, pair, EngineSls(f, *e)).acyclic());
  // Both on the multicast VL (what admission prevents) is a credit loop.
  DeadlockOptions both_on_mcast_vl;
  both_on_mcast_vl.path_sl = [](int, Lid dlid) {
    return dlid >= kMulticastLidBase ? kPaperMcastSl : uint8_t{0};
  };
  Tables anchored = t;
  XyRouter router(f, RecognizeMesh(f), {});
  for (auto& [sw, mask] : router.AnchorTree(pair[1])) anchored.mft[sw].groups[0xC001] = mask;
  CU_ASSERT(!CheckDeadlock(f, anchored, pair, both_on_mcast_vl).acyclic());
  // Once the first group is gone, the second fits on the multicast VL.
  e->ForgetMulticast(f, 0xC000, t);
  CU_ASSERT(TreeSwitches(t, 0xC000).empty());
  e->RouteMulticast(f, pair[1], t);
  CU_ASSERT_EQUAL(e->PathSl(f, lid, 0xC001), kPaperMcastSl);

  // Many random groups in every VL mode: exactly once and acyclic.
  std::mt19937_64 rng(29);
  for (int vls : {1, 2, 4})
    for (const char* mode : {"shared", "dedicated"}) {
      Fabric m = MakeMesh(6, 5);
      ShufflePorts(m, 7);
      AssignDefaultLids(m, 0);
      auto paper = MakeEngine(
          "xymesh",
          {"xymesh_vls=" + std::to_string(vls), std::string("xymesh_vl_mode=") + mode, "xymesh_mcast=paper"},
          nullptr);
      CU_ASSERT_EQUAL(paper->DataVls(), vls + 1);
      Tables tm;
      paper->RouteUnicast(m, tm);
      paper->RouteSl2Vl(m, tm);
      const std::vector<McastGroup> groups =
          RandomGroups(rng, static_cast<int>(m.end_ports.size()), 24);
      int on_mcast_vl = 0;
      for (const McastGroup& g : groups) {
        paper->RouteMulticast(m, g, tm);
        CU_ASSERT(VerifyMulticast(m, tm, g).ok());
        on_mcast_vl += paper->PathSl(m, 1, g.mlid) == kPaperMcastSl;
      }
      CU_ASSERT(on_mcast_vl > 0);
      DeadlockReport r = CheckDeadlock(m, tm, groups, EngineSls(m, *paper));
      if (!r.acyclic()) fprintf(stderr, "\n  paper vls=%d %s: %s", vls, mode, r.Summary(m).c_str());
      CU_ASSERT(r.acyclic());
    }
}

// xymesh_mcast=source: one group per source, anchored at it, all hosts
// members (the timing model's per-source trees): each mask is seed 000's
// union of XY paths from the source, port for port (AnchorTree with that
// anchor), exactly once, and acyclic with XY unicast on the data VLs in
// every VL mode when each tree carries its anchor's packets only. Flooded
// from every member, as an SA group's would be, they loop: hence the
// adapter's refusal and the check's anchor_sends_only.
void SourceTreesAreAcyclicForTheirAnchor() {
  for (int vls : {1, 2, 4})
    for (const char* mode : {"shared", "dedicated"}) {
      Fabric f = MakeMesh(6, 5);
      ShufflePorts(f, 11);
      AssignDefaultLids(f, 0);
      auto e = MakeEngine(
          "xymesh",
          {"xymesh_vls=" + std::to_string(vls), std::string("xymesh_vl_mode=") + mode, "xymesh_mcast=source"},
          nullptr);
      CU_ASSERT(e->TreesForAnchorOnly());
      CU_ASSERT_EQUAL(e->DataVls(), vls);
      Tables t;
      e->RouteUnicast(f, t);
      e->RouteSl2Vl(f, t);
      std::vector<int> all;
      for (int h = 0; h < static_cast<int>(f.end_ports.size()); ++h) all.push_back(h);
      std::vector<McastGroup> groups;
      XyRouter router(f, RecognizeMesh(f), {});
      for (int h = 0; h < static_cast<int>(f.end_ports.size()); h += 3) {
        McastGroup g{static_cast<Lid>(0xC001 + groups.size()), all, h};
        e->RouteMulticast(f, g, t);
        CU_ASSERT(VerifyMulticast(f, t, g).ok());
        for (const auto& [sw, mask] : router.AnchorTree(g)) CU_ASSERT(t.mft[sw].groups.at(g.mlid) == mask);
        groups.push_back(g);
      }
      DeadlockOptions from_anchor = EngineSls(f, *e);
      from_anchor.anchor_sends_only = true;
      const DeadlockReport r = CheckDeadlock(f, t, groups, from_anchor);
      if (!r.acyclic()) fprintf(stderr, "\n  source vls=%d %s: %s", vls, mode, r.Summary(f).c_str());
      CU_ASSERT(r.acyclic());
      CU_ASSERT_EQUAL(r.mcast_senders, static_cast<long>(groups.size()));
      if (vls == 1) CU_ASSERT(!CheckDeadlock(f, t, groups, EngineSls(f, *e)).acyclic());
      // An anchor no port of the fabric sends from: every member is walked,
      // not none (which would pass as acyclic).
      std::vector<McastGroup> lost = groups;
      for (McastGroup& g : lost) g.anchor = static_cast<int>(f.end_ports.size());
      const DeadlockReport no_anchor = CheckDeadlock(f, t, lost, from_anchor);
      CU_ASSERT_EQUAL(no_anchor.mcast_senders, static_cast<long>(groups.size() * all.size()));
    }
  // The tree is rooted at its sender: a group without an anchor is refused.
  Fabric f = MakeMesh(3, 3);
  AssignDefaultLids(f, 0);
  auto e = MakeEngine("xymesh", {"xymesh_mcast=source"}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  const McastGroup no_anchor{0xC001, {0, 4, 8}, -1};
  CU_ASSERT(Contains(ErrorOf([&] { e->RouteMulticast(f, no_anchor, t); }),
                     "multicast group 0xc001: xymesh_mcast=source roots the tree at the group's one sender"));
}

// Groups whose SL the SA fixed (any SL, not the MLID's class): each tree
// is built for the VL its SL rides, so the whole stays acyclic in every
// mode; in paper mode an SL-15 group that fits nowhere is refused.
void GroupSlFromTheSa() {
  std::mt19937_64 rng(31);
  for (const char* scheme : {"trunk", "paper"})
    for (int vls : {2, 4})
      for (const char* mode : {"shared", "dedicated"}) {
        Fabric f = MakeMesh(6, 6);
        AssignDefaultLids(f, 0);
        auto e = MakeEngine("xymesh",
                            {"xymesh_vls=" + std::to_string(vls), std::string("xymesh_vl_mode=") + mode,
                             std::string("xymesh_mcast=") + scheme},
                            nullptr);
        Tables t;
        e->RouteUnicast(f, t);
        e->RouteSl2Vl(f, t);
        std::vector<McastGroup> routed;
        for (McastGroup g : RandomGroups(rng, static_cast<int>(f.end_ports.size()), 24)) {
          g.sl = rng() % 2 ? kPaperMcastSl : static_cast<int>(rng() % 16);
          try {
            e->RouteMulticast(f, g, t);
          } catch (const Error&) {
            CU_ASSERT(scheme[0] == 'p' && g.sl == kPaperMcastSl);  // refused, no tree left
            CU_ASSERT(TreeSwitches(t, g.mlid).empty());
            continue;
          }
          CU_ASSERT_EQUAL(e->PathSl(f, 1, g.mlid), g.sl);
          CU_ASSERT(VerifyMulticast(f, t, g).ok());
          routed.push_back(g);
        }
        DeadlockReport r = CheckDeadlock(f, t, routed, EngineSls(f, *e));
        if (!r.acyclic())
          fprintf(stderr, "\n  %s vls=%d %s: %s", scheme, vls, mode, r.Summary(f).c_str());
        CU_ASSERT(r.acyclic());
      }
}

// Tables read back from switches, checked without --engine: a group's own
// SL (the groups file's sl=, the SA's) picks the VL its packets take.
// Taking SL 0 put the anchor trees on the data VLs, a credit loop with XY
// unicast that the switches never see.
void GroupSlWithoutEngine() {
  Fabric f = MakeMesh(4, 4);
  AssignDefaultLids(f, 0);
  auto e = MakeEngine("xymesh", {"xymesh_vls=2", "xymesh_vl_mode=dedicated", "xymesh_mcast=paper"}, nullptr);
  Tables routed;
  e->RouteUnicast(f, routed);
  e->RouteSl2Vl(f, routed);
  auto group = [&](Lid mlid, std::vector<const char*> names) {
    McastGroup g;
    g.mlid = mlid;
    for (const char* n : names) g.members.push_back(EndPortNamed(f, n));
    g.sl = kPaperMcastSl;
    return g;
  };
  const std::vector<McastGroup> groups = {group(0xC001, {"H(0,0)", "H(3,3)", "H(1,2)", "H(3,0)"}),
                                          group(0xC002, {"H(2,0)", "H(2,1)", "H(0,3)", "H(3,1)"}),
                                          group(0xC003, {"H(0,1)", "H(3,2)", "H(1,3)"})};
  for (const McastGroup& g : groups) e->RouteMulticast(f, g, routed);
  Tables read_back;  // what verify reads: LFTs, MFTs, SL2VL; no engine SLs
  read_back.lft = routed.lft;
  read_back.mft = routed.mft;
  read_back.sl2vl = routed.sl2vl;
  DeadlockReport r = CheckDeadlock(f, read_back, groups);
  if (!r.acyclic()) fprintf(stderr, "\n  %s", r.Summary(f).c_str());
  CU_ASSERT(r.acyclic());
  // SL 15 mapped to a data VL on every switch: the trees loop with unicast.
  for (Sl2Vl& m : read_back.sl2vl)
    for (auto& vls : m.vl) vls[kPaperMcastSl] = 0;
  CU_ASSERT(!CheckDeadlock(f, read_back, groups).acyclic());
}

// The fat-tree engines' up*/down* tables with cyclic multicast trees.
void FatTreeIsAcyclic() {
  std::mt19937_64 rng(23);
  for (const char* engine : {"mlid", "slid"})
    for (auto mn : {std::pair{4, 3}, {8, 3}}) {
      Fabric f = MakeFatTree(mn.first, mn.second);
      AssignDefaultLids(f, mn.first == 4 ? 2 : 0);
      ShufflePorts(f, 5);
      auto e = MakeEngine(engine, {}, nullptr);
      Tables t;
      e->RouteUnicast(f, t);
      const std::vector<McastGroup> groups =
          RandomGroups(rng, static_cast<int>(f.end_ports.size()), 16);
      for (const McastGroup& g : groups) e->RouteMulticast(f, g, t);
      DeadlockReport r = CheckDeadlock(f, t, groups);
      CU_ASSERT(r.acyclic());
      CU_ASSERT(r.channels > 0 && r.mcast_senders > 0);
    }
}

// A ring of 4 switches (port 1 to the next, 2 to the previous) with hosts
// on R0 and R2 only (port 3): R1 and R3 send to hosts but no host's route
// starts there.
Fabric RingWithTwoHosts() {
  Fabric f;
  for (int i = 0; i < 4; ++i) {
    f.switches.push_back(RingSwitch(i));
  }
  for (int i = 0; i < 2; ++i) {
    EndPort ep;
    ep.node_guid = 0x100000 + 2 * i;
    ep.port_guid = ep.node_guid + 1;
    ep.name = "h" + std::to_string(2 * i);
    f.end_ports.push_back(ep);
  }
  for (int i = 0; i < 4; ++i) ConnectSwitches(f, i, 1, (i + 1) % 4, 2);
  ConnectEndPort(f, 0, 0, 3);
  ConnectEndPort(f, 1, 2, 3);
  AssignDefaultLids(f, 0);
  return f;
}

// Hosts' routes: h0 -> h2 over R1, h2 -> h0 over R3 (both clockwise), and
// switch LIDs one hop either way (the opposite switch clockwise); every
// switch sends to a host clockwise, R1 and R3 the long way round.
Tables LongWayRound(const Fabric& f) {
  Tables t;
  t.Resize(f);
  for (int s = 0; s < 4; ++s) {
    t.lft[s].out.assign(f.max_lid() + 1, kNoPort);
    for (int x = 0; x < 4; ++x) t.lft[s].set(f.switches[x].lid, x == s ? 0 : x == (s + 3) % 4 ? 2 : 1);
    for (int h = 0; h < 2; ++h) t.lft[s].set(f.end_ports[h].base_lid, s == 2 * h ? 3 : 1);
  }
  return t;
}

// LongWayRound's host-sent routes close no loop; R1's route to h0 and R3's to h2 go clockwise the long way,
// closing R0->R1->R2->R3->R0: a loop only switch-sent packets (perfquery's responses) close.
void SwitchSentRoutesCloseALoop() {
  Fabric f = RingWithTwoHosts();
  Tables t = LongWayRound(f);
  DeadlockOptions host_lids;
  host_lids.switch_sources = false;
  const DeadlockReport old_rule = CheckDeadlock(f, t, {}, host_lids);
  CU_ASSERT(old_rule.acyclic());
  CU_ASSERT_EQUAL(old_rule.switch_routes, 0);
  const DeadlockReport r = CheckDeadlock(f, t, {});
  CU_ASSERT_EQUAL(r.switch_routes, 4 * 2);
  CU_ASSERT_EQUAL_FATAL(r.cycle.size(), 4u);
  for (const DeadlockChannel& c : r.cycle) CU_ASSERT_EQUAL(c.port, 1);
  CU_ASSERT(Contains(r.Summary(f), "credit loop of 4 channels"));
  // R1 and R3 sending counter-clockwise (one hop to the host's switch)
  // open it again.
  t.lft[1].set(f.end_ports[0].base_lid, 2);
  t.lft[3].set(f.end_ports[1].base_lid, 2);
  CU_ASSERT(CheckDeadlock(f, t, {}).acyclic());
  // With the SA's path SLs (verify --path-sl) only routes between end ports
  // are walked: the file has no SL for a switch's LID.
  DeadlockOptions end_ports;
  end_ports.switch_sources = false;
  end_ports.end_port_lids_only = true;
  const DeadlockReport hosts_only = CheckDeadlock(f, t, {}, end_ports);
  CU_ASSERT_EQUAL(hosts_only.unicast_routes, 2);  // h0 -> h2 and back
  CU_ASSERT_EQUAL(hosts_only.switch_routes, 0);
  CU_ASSERT_EQUAL(CheckDeadlock(f, t, {}, host_lids).unicast_routes, 2 * (2 + 4) - 2);
}

// A switch-sent packet leaves on the VL its port 0's SL2VL entry gives:
// with in-port 0 on VL 1 and every other in-port on VL 0, the loop of
// SwitchSentRoutesCloseALoop has a VL change in each switch-sent route and
// is open (walked from a host port's VL, it would be closed).
void SwitchSentRoutesUseInPortZeroVl() {
  Fabric f = RingWithTwoHosts();
  Tables t = LongWayRound(f);
  // Switch-sent packets on VL 1, host-sent on VL 0: the two halves of the
  // loop never share a VL, so it is open; SL 0 throughout.
  t.sl2vl.resize(4);
  for (int s = 0; s < 4; ++s) {
    t.sl2vl[s].Init(3);
    for (int out = 0; out <= 3; ++out) t.sl2vl[s].set(0, out, 0, 1);
  }
  const DeadlockReport split = CheckDeadlock(f, t, {});
  CU_ASSERT(split.acyclic());
  CU_ASSERT_EQUAL(split.switch_routes, 8);
}

// A data packet an SL2VL entry maps to VL 15 is dropped by the switch: a
// hop of a walked route mapped there is an error, named by switch, ports
// and SL, on a last hop into a host too; an SL no route uses is not.
void Vl15HopsAreErrors() {
  Fabric f = MakeMesh(4, 4);
  ShufflePorts(f, 5);
  AssignDefaultLids(f, 0);
  auto e = MakeEngine("xymesh", {"xymesh_vls=2", "xymesh_vl_mode=dedicated"}, nullptr);
  Tables clean;
  e->RouteUnicast(f, clean);
  e->RouteSl2Vl(f, clean);
  const DeadlockOptions sls = EngineSls(f, *e);
  CU_ASSERT(CheckDeadlock(f, clean, {}, sls).ok());

  const int hosts = static_cast<int>(f.end_ports.size());
  uint32_t used = 0;  // SLs of end-port routes and of the switches' replies
  for (int a = 0; a < hosts; ++a)
    for (int b = 0; b < hosts; ++b) used |= 1u << sls.path_sl(a, f.end_ports[b].base_lid);
  for (const Switch& sw : f.switches)
    for (int a = 0; a < hosts; ++a) used |= 1u << sls.path_sl(a, sw.lid);
  int unused = 0;
  while (used & (1u << unused)) ++unused;
  CU_ASSERT_FATAL(unused < 16);

  const EndPort& src = f.end_ports.front();
  const EndPort& dst = f.end_ports.back();
  const int sw = src.switch_index, in = src.switch_port;
  const int out = clean.lft[sw].port(dst.base_lid);
  const int sl = sls.path_sl(0, dst.base_lid);
  Tables t = clean;
  t.sl2vl[sw].set(in, out, unused, 15);
  CU_ASSERT(CheckDeadlock(f, t, {}, sls).ok());

  t.sl2vl[sw].set(in, out, sl, 15);
  const DeadlockReport first = CheckDeadlock(f, t, {}, sls);
  CU_ASSERT(first.acyclic());
  CU_ASSERT(!first.ok());
  CU_ASSERT_EQUAL(first.vl15_hops, 1);
  CU_ASSERT_FATAL(first.vl15_examples.size() == 1);
  CU_ASSERT(first.vl15_examples[0].sw == sw && first.vl15_examples[0].in == in &&
            first.vl15_examples[0].out == out && first.vl15_examples[0].sl == sl);
  const std::string named = f.SwitchLabel(sw) + " SL " + std::to_string(sl) + " from port " +
                            std::to_string(in) + " to port " + std::to_string(out);
  CU_ASSERT(first.Summary(f).find(named) != std::string::npos);

  // The destination's own switch, every in-port into its host port.
  Tables last = clean;
  const int dsw = dst.switch_index;
  for (int p = 1; p <= f.switches[dsw].num_ports; ++p)
    if (p != dst.switch_port) last.sl2vl[dsw].set(p, dst.switch_port, sl, 15);
  const DeadlockReport into = CheckDeadlock(f, last, {}, sls);
  CU_ASSERT(!into.ok());
  CU_ASSERT(into.vl15_hops >= 1);
  for (const Vl15Hop& h : into.vl15_examples) CU_ASSERT(h.sw == dsw && h.out == dst.switch_port);

  // The source's own table (read back with --sl2vl): dropped as it leaves.
  Tables host = clean;
  host.end_port_sl2vl[0] = EndPortVls(f, clean, 0);
  CU_ASSERT(CheckDeadlock(f, host, {}, sls).ok());
  host.end_port_sl2vl[0][sl] = 15;
  const DeadlockReport out_of_host = CheckDeadlock(f, host, {}, sls);
  CU_ASSERT(!out_of_host.ok());
  CU_ASSERT_EQUAL(out_of_host.vl15_hops, 1);
  CU_ASSERT(Contains(out_of_host.Summary(f),
                     "end port " + src.name + " SL " + std::to_string(sl) + " (its own table)"));
}

// The search both credit-loop checks use: a cycle in edge order, from the
// first node of it the DFS reached; nodes left out break cycles through
// them; a DAG has none.
void FindCycleReturnsOneInEdgeOrder() {
  // 0 -> 1 -> 2 -> 3 -> 1, and 0 -> 4 -> 0 through 4.
  const std::vector<std::vector<int>> succ = {{1, 4}, {2}, {3}, {1}, {0}};
  const auto of = [&succ](int v) -> const std::vector<int>& { return succ[size_t(v)]; };
  CU_ASSERT(FindCycle(5, of, [](int) { return false; }) == (std::vector<int>{1, 2, 3}));
  CU_ASSERT(FindCycle(5, of, [](int v) { return v == 2; }) == (std::vector<int>{0, 4}));
  CU_ASSERT(FindCycle(5, of, [](int v) { return v == 2 || v == 4; }).empty());
  const std::vector<std::vector<int>> dag = {{1, 2}, {2}, {}};
  CU_ASSERT(
      FindCycle(
          3, [&dag](int v) -> const std::vector<int>& { return dag[size_t(v)]; }, [](int) { return false; })
          .empty());
}
}  // namespace

void RegisterDeadlockSuite() {
  CU_pSuite s = CU_add_suite("channel dependency checker", nullptr, nullptr);
  CU_add_test(s, "FindCycle: one cycle, in edge order", FindCycleReturnsOneInEdgeOrder);
  CU_add_test(s, "a ring of LFTs has a cycle", RingHasACycle);
  CU_add_test(s, "large graphs need no recursion", LargeGraphsNeedNoRecursion);
  CU_add_test(s, "XY unicast on meshes is acyclic", XyUnicastIsAcyclic);
  CU_add_test(s, "mixed XY/YX routing has a cycle", MixedXyYxHasACycle);
  CU_add_test(s, "the graph is every route walked on its own (LFTs read in blocks)", GraphIsTheRoutesOwn);
  CU_add_test(s, "trees rooted on two rows have a cycle", TreesOnTwoRowsHaveACycle);
  CU_add_test(s, "xymesh: every VL mode acyclic", EveryVlModeIsAcyclic);
  CU_add_test(s, "xymesh paper trees: own VL, admission, acyclic", PaperTreesAreAcyclic);
  CU_add_test(s, "xymesh source trees: the paper's, acyclic for their anchor",
              SourceTreesAreAcyclicForTheirAnchor);
  CU_add_test(s, "xymesh groups with the SA's SL: acyclic", GroupSlFromTheSa);
  CU_add_test(s, "xymesh groups with the SA's SL, no engine: acyclic", GroupSlWithoutEngine);
  CU_add_test(s, "fat-tree mlid/slid with multicast acyclic", FatTreeIsAcyclic);
  CU_add_test(s, "switch-sent routes close a loop (--host-lids: not walked)", SwitchSentRoutesCloseALoop);
  CU_add_test(s, "switch-sent routes leave on in-port 0's VL", SwitchSentRoutesUseInPortZeroVl);
  CU_add_test(s, "data mapped to VL 15: the hops are errors", Vl15HopsAreErrors);
}

}  // namespace ibu::test
