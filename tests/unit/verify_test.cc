// The unicast verifier must catch what breaks a route, and say where.
#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

#include "plugin/core/engine.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/generate.h"
#include "plugin/core/verify/paths.h"
#include "plugin/core/verify/scheme.h"
#include "plugin/core/verify/unicast.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

struct Fixture {
  Fabric f;
  Tables t;
  explicit Fixture(int lmc = 0) {
    f = MakeFatTree(4, 3);
    AssignDefaultLids(f, lmc);
    MakeEngine("mlid", {}, nullptr)->RouteUnicast(f, t);
  }
};

std::string AllErrors(const UnicastReport& r) {
  std::string out;
  for (const std::string& e : r.errors) out += e + "\n";
  return out;
}

void CleanTablesPass() {
  Fixture x;
  UnicastReport r = VerifyUnicast(x.f, x.t);
  CU_ASSERT(r.ok());
  // 16 hosts * (16 host LIDs + 20 switch LIDs) routes, minus 16 to self.
  CU_ASSERT_EQUAL(r.routes_checked, 16 * 36 - 16);
  CU_ASSERT_EQUAL(r.diameter, 4);
  // At LMC 2 the LIDs below the first aligned block are nobody's: the
  // summary counts the 16 x 4 + 20 assigned ones, not the top LID.
  Fixture lmc2(2);
  const UnicastReport r2 = VerifyUnicast(lmc2.f, lmc2.t);
  CU_ASSERT(r2.ok());
  CU_ASSERT(lmc2.f.max_lid() > 84);
  CU_ASSERT_EQUAL(r2.lids_checked, 84);
  CU_ASSERT(r2.Summary(lmc2.f).find("from 16 end ports to 84 LIDs checked") != std::string::npos);
}

void BlackHoleIsNamed() {
  Fixture x;
  const int sw = SwitchNamed(x.f, "SW<00,1>");
  x.t.lft[sw].set(9, kNoPort);
  UnicastReport r = VerifyUnicast(x.f, x.t);
  CU_ASSERT(!r.ok());
  CU_ASSERT(Contains(AllErrors(r), "black hole: switch SW<00,1>"));
  CU_ASSERT(Contains(AllErrors(r), "LID 9 has no out port"));
}

void LoopIsNamed() {
  Fixture x;
  // SW<00,2> sends LID 9 up through port 3 to SW<00,1>; send it back down.
  const int leaf = SwitchNamed(x.f, "SW<00,2>"), mid = SwitchNamed(x.f, "SW<00,1>");
  const Lid lid = 9;  // P(200) at LMC 0
  x.t.lft[leaf].set(lid, 3);
  x.t.lft[mid].set(lid, 1);
  UnicastReport r = VerifyUnicast(x.f, x.t);
  CU_ASSERT(!r.ok());
  CU_ASSERT(Contains(AllErrors(r), "loop: switch SW<00,"));
  // The loop's switches in route order, not only where the walk closed it.
  CU_ASSERT(Contains(AllErrors(r), "(SW<00,2> -> SW<00,1> -> SW<00,2>)") ||
            Contains(AllErrors(r), "(SW<00,1> -> SW<00,2> -> SW<00,1>)"));
}

void WrongHostIsNamed() {
  Fixture x;
  const int leaf = SwitchNamed(x.f, "SW<20,2>");
  x.t.lft[leaf].set(x.f.end_ports[EndPortNamed(x.f, "P(200)")].base_lid, 2);
  UnicastReport r = VerifyUnicast(x.f, x.t);
  CU_ASSERT(Contains(AllErrors(r), "leads to end port P(201), which does not own the LID"));
}

// A switch answers LID-routed GMPs (perfquery) and sends traps with its own
// LFT: its entry for an end port's LID must deliver even where no host's
// route passes it. --host-lids (degraded trees) checks hosts' routes only.
void SwitchWithoutHostRoutesIsChecked() {
  Fixture x;
  const Lid lid = x.f.end_ports[EndPortNamed(x.f, "P(000)")].base_lid;
  std::vector<char> on_route(x.f.switches.size(), 0);
  for (size_t s = 0; s < x.f.end_ports.size(); ++s)
    if (x.f.end_ports[s].base_lid != lid)
      for (auto [sw, port] : Trace(x.f, x.t, static_cast<int>(s), lid)) on_route[sw] = 1;
  const int idle = static_cast<int>(std::find(on_route.begin(), on_route.end(), 0) - on_route.begin());
  CU_ASSERT_FATAL(idle < static_cast<int>(x.f.switches.size()));
  x.t.lft[idle].set(lid, kNoPort);
  UnicastReport r = VerifyUnicast(x.f, x.t);
  CU_ASSERT(Contains(AllErrors(r), "black hole: " + x.f.SwitchLabel(idle) + ", LID " + std::to_string(lid)));
  CU_ASSERT(VerifyUnicast(x.f, x.t, 20, /*switch_lids=*/false).ok());
}

// --host-lids leaves switch LIDs free to be unrouted (valleys on degraded
// trees), but an entry for one that loops or delivers to a host is wrong:
// such tables passed, as switch LIDs were not walked at all.
void HostLidsStillCheckSwitchLids() {
  Fixture x;
  const int leaf = SwitchNamed(x.f, "SW<00,2>"), mid = SwitchNamed(x.f, "SW<00,1>");
  const Lid mid_lid = x.f.switches[mid].lid;
  x.t.lft[leaf].set(mid_lid, 1);  // to host P(000), not to the switch above
  UnicastReport r = VerifyUnicast(x.f, x.t, 20, /*switch_lids=*/false);
  CU_ASSERT(Contains(AllErrors(r), "wrong destination: switch SW<00,2>"));
  CU_ASSERT(Contains(AllErrors(r), "leads to end port P(000), which does not own the LID"));
  x.t.lft[leaf].set(mid_lid, kNoPort);  // unrouted: allowed here
  CU_ASSERT(VerifyUnicast(x.f, x.t, 20, /*switch_lids=*/false).ok());
  CU_ASSERT(!VerifyUnicast(x.f, x.t).ok());
}

void UncabledPortIsNamed() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  Tables t;
  MakeEngine("mlid", {}, nullptr)->RouteUnicast(f, t);
  t.lft[0].set(1, 4);  // top switches of FT(4,2) have 4 ports, all used...
  Switch& sw = f.switches[0];
  sw.num_ports = 5;
  sw.ports.resize(6);
  f.Finalize();
  t.lft[0].set(1, 5);
  UnicastReport r = VerifyUnicast(f, t);
  CU_ASSERT(Contains(AllErrors(r), "points to port 5, which is not cabled"));
}

// A loop through every switch shows its repeat: on an 8x8 mesh (64
// switches) a route that snakes through all of them and steps back takes
// 65 hops to come round, one more than the old limit, where trace called
// the last (cabled) step "not connected".
void LoopThroughEverySwitchShowsItsRepeat() {
  Fabric f = MakeMesh(8, 8);
  AssignDefaultLids(f, 0);
  Tables t;
  MakeEngine("xymesh", {}, nullptr)->RouteUnicast(f, t);
  std::vector<int> order;  // serpentine: N(0,0) .. N(0,7), N(1,7) .. N(1,0), ...
  for (int x = 0; x < 8; ++x)
    for (int k = 0; k < 8; ++k)
      order.push_back(
          SwitchNamed(f, "N(" + std::to_string(x) + "," + std::to_string(x % 2 ? 7 - k : k) + ")"));
  auto port_to = [&](int a, int b) {
    for (int p = 1; p <= f.switches[a].num_ports; ++p)
      if (f.switches[a].ports[p].is_switch() && f.switches[a].ports[p].index == b) return p;
    return 0;
  };
  const Lid lid = f.end_ports.back().base_lid;
  for (size_t i = 0; i + 1 < order.size(); ++i) t.lft[order[i]].set(lid, port_to(order[i], order[i + 1]));
  t.lft[order.back()].set(lid, port_to(order.back(), order[order.size() - 2]));
  int src = -1;
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    if (f.end_ports[e].switch_index == order[0]) src = static_cast<int>(e);
  const auto hops = TraceRoute(f, t, src, lid);
  CU_ASSERT_EQUAL_FATAL(hops.size(), 65u);
  CU_ASSERT_EQUAL(hops.back().first, order[62]);  // back at a switch crossed before
}

// Every kind of step the walks share, and which of them end at the owner.
void StepKindsAndOwners() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  Tables t;
  MakeEngine("mlid", {}, nullptr)->RouteUnicast(f, t);
  Switch& sw = f.switches[0];
  sw.num_ports = 5;
  sw.ports.resize(6);  // port 5 exists, uncabled
  f.Finalize();
  const int host = 0, leaf = f.end_ports[host].switch_index;
  const Lid lid = f.end_ports[host].base_lid, other = f.end_ports[1].base_lid;
  using K = LftStep::Kind;
  LftStep step = StepOf(f, t, leaf, lid);
  CU_ASSERT(step.kind == K::kEndPort && step.next == host && EndsAtOwner(f, leaf, step, lid));
  t.lft[leaf].set(other, t.lft[leaf].port(lid));  // another host's LID to this host
  step = StepOf(f, t, leaf, other);
  CU_ASSERT(step.kind == K::kEndPort && !EndsAtOwner(f, leaf, step, other));
  step = StepOf(f, t, 0, f.switches[0].lid);
  CU_ASSERT(step.kind == K::kPortZero && EndsAtOwner(f, 0, step, f.switches[0].lid));
  t.lft[0].set(lid, 0);
  step = StepOf(f, t, 0, lid);
  CU_ASSERT(step.kind == K::kPortZero && !EndsAtOwner(f, 0, step, lid));
  // Another switch's LID to this one's port 0: delivered to the wrong switch.
  const Lid other_switch = f.switches[1].lid;
  const uint8_t kept = t.lft[0].port(other_switch);
  t.lft[0].set(other_switch, 0);
  step = StepOf(f, t, 0, other_switch);
  CU_ASSERT(step.kind == K::kPortZero && !EndsAtOwner(f, 0, step, other_switch));
  t.lft[0].set(other_switch, kept);
  t.lft[0].set(lid, 5);
  CU_ASSERT(StepOf(f, t, 0, lid).kind == K::kUncabled);
  t.lft[0].set(lid, 7);
  CU_ASSERT(StepOf(f, t, 0, lid).kind == K::kNoSuchPort);
  t.lft[0].set(lid, kNoPort);
  CU_ASSERT(StepOf(f, t, 0, lid).kind == K::kNoEntry);
  t.lft[0].set(lid, 1);
  step = StepOf(f, t, 0, lid);
  CU_ASSERT(step.kind == K::kSwitch && step.next == f.switches[0].ports[1].index &&
            !EndsAtOwner(f, 0, step, lid));
}

// BaseLidLoad walks once per source switch; it must count what tracing every
// (source, destination) pair counts, leaving out the routes that do not
// arrive (black holes, loops), which it counts apart.
BaseLidLoadReport NaiveBaseLidLoad(const Fabric& f, const Tables& t) {
  BaseLidLoadReport r;
  r.load.assign(f.switches.size(), 0);
  for (size_t s = 0; s < f.end_ports.size(); ++s)
    for (size_t d = 0; d < f.end_ports.size(); ++d) {
      if (s == d) continue;
      const Lid lid = f.end_ports[d].base_lid;
      const auto hops = Trace(f, t, static_cast<int>(s), lid);
      const int last = hops.back().first;
      if (static_cast<int>(hops.size()) < TraceHopLimit(f) &&
          EndsAtOwner(f, last, StepOf(f, t, last, lid), lid)) {
        for (auto [sw, port] : hops) ++r.load[sw];
      } else {
        ++r.broken;
      }
    }
  return r;
}

void BaseLidLoadEqualsTracingEveryPair() {
  Fixture x;
  const BaseLidLoadReport whole = BaseLidLoad(x.f, x.t);
  CU_ASSERT(whole.load == NaiveBaseLidLoad(x.f, x.t).load);
  CU_ASSERT_EQUAL(whole.broken, 0);
  // Every host sends to 15 others: the leaf of 2 hosts carries 2*15 routes
  // out and 14*2 in.
  CU_ASSERT_EQUAL(whole.load[SwitchNamed(x.f, "SW<00,2>")], 2 * 15 + 14 * 2);
  const int leaf = SwitchNamed(x.f, "SW<00,2>"), mid = SwitchNamed(x.f, "SW<00,1>");
  x.t.lft[leaf].set(9, 3);  // loop, as in LoopIsNamed
  x.t.lft[mid].set(9, 1);
  const BaseLidLoadReport looped = BaseLidLoad(x.f, x.t);
  const BaseLidLoadReport naive_looped = NaiveBaseLidLoad(x.f, x.t);
  CU_ASSERT(looped.load == naive_looped.load);
  CU_ASSERT(looped.broken > 0 && looped.broken == naive_looped.broken);
  CU_ASSERT(looped.broken_loops);
  CU_ASSERT_EQUAL(x.f.end_ports[looped.broken_to].base_lid, 9);
  // The loop's switches carry no more than the routes that arrive.
  CU_ASSERT(looped.load[mid] <= whole.load[mid]);
  x.t.lft[SwitchNamed(x.f, "SW<10,0>")].set(3, kNoPort);  // black hole
  const BaseLidLoadReport holed = BaseLidLoad(x.f, x.t);
  CU_ASSERT(holed.load == NaiveBaseLidLoad(x.f, x.t).load);
  CU_ASSERT_EQUAL(holed.broken, NaiveBaseLidLoad(x.f, x.t).broken);
  CU_ASSERT(holed.broken >= looped.broken);
  Fabric m = MakeMesh(3, 4);
  AssignDefaultLids(m, 0);
  Tables mt;
  MakeEngine("xymesh", {}, nullptr)->RouteUnicast(m, mt);
  CU_ASSERT(BaseLidLoad(m, mt).load == NaiveBaseLidLoad(m, mt).load);
  CU_ASSERT_EQUAL(BaseLidLoad(m, mt).broken, 0);
}

// LinkSharing counts with a stamp per link; sets of every pair's ends,
// link by link, must give the same means and maxima.
LinkSharingReport NaiveLinkSharing(const Fabric& f, const Tables& t, const FatTree& tree,
                                   const std::function<Lid(int, int)>& select) {
  std::map<std::pair<int, int>, std::pair<std::set<int>, std::set<int>>> ends;
  LinkSharingReport r;
  for (int s = 0; s < static_cast<int>(f.end_ports.size()); ++s)
    for (int d = 0; d < static_cast<int>(f.end_ports.size()); ++d) {
      if (s == d) continue;
      const Lid lid = select(s, d);
      const auto hops = Trace(f, t, s, lid);
      const int last = hops.back().first;
      if (static_cast<int>(hops.size()) >= TraceHopLimit(f) ||
          !EndsAtOwner(f, last, StepOf(f, t, last, lid), lid)) {
        ++r.broken;
        continue;
      }
      for (size_t h = 0; h + 1 < hops.size(); ++h) {
        ends[hops[h]].first.insert(s);
        ends[hops[h]].second.insert(d);
      }
    }
  double sums[2][2] = {};
  for (const auto& [link, e] : ends) {
    const bool up = tree.level[f.switches[link.first].ports[link.second].index] < tree.level[link.first];
    LinkSharingReport::Direction& d = up ? r.up : r.down;
    ++d.links;
    sums[up][0] += static_cast<double>(e.first.size());
    sums[up][1] += static_cast<double>(e.second.size());
    d.max_sources = std::max(d.max_sources, static_cast<long>(e.first.size()));
    d.max_destinations = std::max(d.max_destinations, static_cast<long>(e.second.size()));
  }
  for (bool up : {false, true}) {
    LinkSharingReport::Direction& d = up ? r.up : r.down;
    if (d.links) d.mean_sources = sums[up][0] / d.links, d.mean_destinations = sums[up][1] / d.links;
  }
  return r;
}

bool SameSharing(const LinkSharingReport& a, const LinkSharingReport& b) {
  auto same = [](const LinkSharingReport::Direction& x, const LinkSharingReport::Direction& y) {
    return x.links == y.links && x.max_sources == y.max_sources && x.max_destinations == y.max_destinations &&
           std::abs(x.mean_sources - y.mean_sources) < 1e-9 &&
           std::abs(x.mean_destinations - y.mean_destinations) < 1e-9;
  };
  return same(a.up, b.up) && same(a.down, b.down) && a.broken == b.broken;
}

// Seed 001's picture on FT(4,3) at LMC 2: the paper's MLID tables give
// every up link one source, SLID's every down link one destination
// (results.md's table, once a Python helper's); rotated MLID (the default)
// walks like the paper's tables since fe97c9b.
void LinkSharingShowsThePapersPicture() {
  Fabric f = MakeFatTree(4, 3);
  AssignDefaultLids(f, 2);
  const FatTree tree = RecognizeFatTree(f);
  for (const char* options : {"mlid_rotate=off", "mlid_rotate=on", "slid"}) {
    const bool slid = std::string(options) == "slid";
    auto engine = slid ? MakeEngine("slid", {}, nullptr) : MakeEngine("mlid", {options}, nullptr);
    Tables t;
    engine->RouteUnicast(f, t);
    auto select = [&](int s, int d) { return engine->SelectDlid(f, s, d); };
    const LinkSharingReport r = LinkSharing(f, t, tree, select);
    CU_ASSERT(SameSharing(r, NaiveLinkSharing(f, t, tree, select)));
    CU_ASSERT_EQUAL(r.up.links, 32);
    CU_ASSERT_EQUAL(r.down.links, 32);
    CU_ASSERT_EQUAL(r.broken, 0);
    CU_ASSERT_EQUAL(slid ? r.down.max_destinations : r.up.max_sources, 1);
    CU_ASSERT(slid ? r.up.max_sources > 1 : r.down.max_destinations > 1);
  }
  // A black hole at LID 3's leaf: the routes to it are counted apart, the
  // first named.
  Fixture x;
  x.t.lft[x.f.end_ports[x.f.owner(3).index].switch_index].set(3, kNoPort);
  const FatTree xtree = RecognizeFatTree(x.f);
  auto base = [&](int, int d) { return x.f.end_ports[d].base_lid; };
  const LinkSharingReport holed = LinkSharing(x.f, x.t, xtree, base);
  CU_ASSERT(holed.broken > 0);
  CU_ASSERT(SameSharing(holed, NaiveLinkSharing(x.f, x.t, xtree, base)));
  CU_ASSERT_EQUAL(holed.broken_dlid, 3);
  CU_ASSERT_EQUAL(x.f.end_ports[holed.broken_dst].base_lid, 3);
}

}  // namespace

// Tables against an engine's scheme: mlid's own tables are mlid's; one
// changed entry is named with both ports; of two LIDs unrouted on all 20
// switches, 20 entries are worded and all 40 counted.
void SchemeComparisonNamesEntries() {
  Fixture x;
  const SchemeReference mlid = RouteScheme(x.f, {}, MakeEngine("mlid", {}, nullptr));
  CU_ASSERT(CompareLftsWithScheme(x.f, x.t, mlid).ok());
  Tables changed = x.t;
  const Lid lid = x.f.end_ports[5].base_lid;
  const int was = changed.lft[0].port(lid);
  changed.lft[0].set(lid, was == 3 ? 4 : 3);
  const SchemeReport one = CompareLftsWithScheme(x.f, changed, mlid);
  CU_ASSERT_EQUAL(one.differ, 1);
  CU_ASSERT_FATAL(one.errors.size() == 1);
  CU_ASSERT(Contains(one.errors[0], "LID " + std::to_string(lid) + ": table says port " +
                                        std::to_string(was == 3 ? 4 : 3) + ", mlid says port " +
                                        std::to_string(was)));
  Tables broken = x.t;
  const Lid other = x.f.end_ports[9].base_lid;
  for (size_t s = 0; s < x.f.switches.size(); ++s)
    broken.lft[s].set(lid, kNoPort), broken.lft[s].set(other, kNoPort);
  const SchemeReport many = CompareLftsWithScheme(x.f, broken, mlid);
  CU_ASSERT_EQUAL(many.differ, 2 * long(x.f.switches.size()));
  CU_ASSERT_EQUAL(many.errors.size(), 20u);
  // The top LID is compared too.
  Tables top = x.t;
  const Lid last = x.f.max_lid();
  CU_ASSERT_FATAL(x.f.owner(last).valid());
  top.lft[0].set(last, top.lft[0].port(last) == 1 ? 2 : 1);
  CU_ASSERT_EQUAL(CompareLftsWithScheme(x.f, top, mlid).differ, 1);
}

// SL2VL tables against xymesh's dedicated VLs: a switch entry of in-port 0
// (the switches' own packets) and of a host port each count once, named
// by switch, ports and SL; a host's own table too.
void Sl2VlComparisonNamesEntries() {
  Fabric f = MakeMesh(4, 4);
  AssignDefaultLids(f, 0);
  const SchemeReference ref =
      RouteScheme(f, {}, MakeEngine("xymesh", {"xymesh_vls=2", "xymesh_vl_mode=dedicated"}, nullptr));
  Tables t = ref.want;
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    t.end_port_sl2vl[static_cast<int>(e)] = EndPortVls(f, ref.want, static_cast<int>(e));
  const SchemeReport same = CompareSl2VlWithScheme(f, t, ref);
  CU_ASSERT_EQUAL(same.differ, 0);
  CU_ASSERT(same.compared > 0);
  const int sw = 5, out = 1;  // N(1,1): every side cabled
  int host_port = -1;
  for (const EndPort& ep : f.end_ports)
    if (ep.switch_index == sw) host_port = ep.switch_port;
  CU_ASSERT_FATAL(host_port > 0 && f.switches[sw].ports[out].is_switch());
  for (int in : {0, host_port}) {
    Tables changed = t;
    const int was = changed.sl2vl[sw].get(in, out, 3);
    changed.sl2vl[sw].set(in, out, 3, static_cast<uint8_t>(was ? 0 : 1));
    const SchemeReport one = CompareSl2VlWithScheme(f, changed, ref);
    CU_ASSERT_EQUAL(one.differ, 1);
    CU_ASSERT(one.errors.size() == 1 &&
              Contains(one.errors[0], "SL2VL mismatch: " + f.SwitchLabel(sw) + " in " + std::to_string(in) +
                                          " out 1 SL 3: table says VL " + std::to_string(was ? 0 : 1) +
                                          ", xymesh says VL " + std::to_string(was)));
  }
  Tables hosted = t;
  hosted.end_port_sl2vl[0][7] ^= 1;
  const SchemeReport h = CompareSl2VlWithScheme(f, hosted, ref);
  CU_ASSERT_EQUAL(h.differ, 1);
  CU_ASSERT(h.errors.size() == 1 && Contains(h.errors[0], "host " + f.end_ports[0].name + " SL 7"));
}

void RegisterVerifySuite() {
  CU_pSuite s = CU_add_suite("unicast verifier", nullptr, nullptr);
  CU_add_test(s, "clean tables pass", CleanTablesPass);
  CU_add_test(s, "black hole is named", BlackHoleIsNamed);
  CU_add_test(s, "loop is named", LoopIsNamed);
  CU_add_test(s, "wrong host is named", WrongHostIsNamed);
  CU_add_test(s, "uncabled port is named", UncabledPortIsNamed);
  CU_add_test(s, "route steps: kinds and where they end", StepKindsAndOwners);
  CU_add_test(s, "a loop through every switch shows its repeat", LoopThroughEverySwitchShowsItsRepeat);
  CU_add_test(s, "--host-lids: switch LIDs may be unrouted, not wrong", HostLidsStillCheckSwitchLids);
  CU_add_test(s, "a switch on no host's route is checked", SwitchWithoutHostRoutesIsChecked);
  CU_add_test(s, "base-LID load equals tracing every pair", BaseLidLoadEqualsTracingEveryPair);
  CU_add_test(s, "link sharing: the papers' picture, as tracing every pair",
              LinkSharingShowsThePapersPicture);
  CU_add_test(s, "tables against an engine's scheme: entries named, counted", SchemeComparisonNamesEntries);
  CU_add_test(s, "SL2VL against an engine's VLs: entries named, counted", Sl2VlComparisonNamesEntries);
}

}  // namespace ibu::test
