// MLID unicast: seed 001's worked examples, disjointness, spreading.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

#include "plugin/core/engine.h"
#include "plugin/core/netfile.h"
#include "plugin/core/path_map.h"
#include "plugin/core/routing/mlid.h"
#include "plugin/core/topology/generate.h"
#include "plugin/core/verify/paths.h"
#include "plugin/core/verify/unicast.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

struct Routed {
  Fabric f;
  Tables t;
  std::unique_ptr<Engine> engine;
};

std::unique_ptr<Routed> Route(int m, int n, int lmc, const std::string& options,
                              uint64_t shuffle = 0, const std::string& engine = "mlid") {
  auto r = std::make_unique<Routed>();
  r->f = MakeFatTree(m, n);
  AssignDefaultLids(r->f, lmc);
  if (shuffle) ShufflePorts(r->f, shuffle);
  r->engine = MakeEngine(engine, OptionWords(options), nullptr);
  r->engine->RouteUnicast(r->f, r->t);
  return r;
}

int Host(const Fabric& f, const std::string& name) { return EndPortNamed(f, name); }

void PaperLidSet() {
  auto r = Route(4, 3, 2, "mlid_rotate=off");
  const EndPort& p300 = r->f.end_ports[Host(r->f, "P(300)")];
  CU_ASSERT_EQUAL(p300.base_lid, 52);
  CU_ASSERT_EQUAL(p300.lid_count(), 4);  // {52, 53, 54, 55}
}

void PaperPathSelectionToP300() {
  auto r = Route(4, 3, 2, "mlid_rotate=off");
  const int dst = Host(r->f, "P(300)");
  std::set<int> tops;
  Lid want = 52;
  for (const char* src : {"P(000)", "P(001)", "P(010)", "P(011)"}) {
    const int s = Host(r->f, src);
    const Lid dlid = r->engine->SelectDlid(r->f, s, dst);
    CU_ASSERT_EQUAL(dlid, want++);
    auto hops = Trace(r->f, r->t, s, dlid);
    CU_ASSERT_EQUAL(hops.size(), 5u);
    CU_ASSERT_EQUAL(r->f.switches[hops[2].first].name.back(), '>');
    tops.insert(hops[2].first);  // the third switch is the top one
    CU_ASSERT(Contains(r->f.switches[hops[2].first].name, ",0>"));
    CU_ASSERT_EQUAL(r->f.switches[hops.back().first].name, "SW<30,2>");
  }
  CU_ASSERT_EQUAL(tops.size(), 4u);
}

void PaperPathOfDlid36() {
  auto r = Route(4, 3, 2, "mlid_rotate=off");
  auto hops = Trace(r->f, r->t, Host(r->f, "P(000)"), 36);
  const std::vector<std::pair<std::string, int>> want = {
      {"SW<00,2>", 3}, {"SW<00,1>", 3}, {"SW<00,0>", 3}, {"SW<20,1>", 1}, {"SW<20,2>", 1}};
  CU_ASSERT_EQUAL_FATAL(hops.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    CU_ASSERT_EQUAL(r->f.switches[hops[i].first].name, want[i].first);
    CU_ASSERT_EQUAL(hops[i].second, want[i].second);
  }
  // And seed 001's path Q (paper DLID 49, ours 52) from P(000).
  hops = Trace(r->f, r->t, Host(r->f, "P(000)"), 52);
  const std::vector<std::pair<std::string, int>> q = {
      {"SW<00,2>", 3}, {"SW<00,1>", 3}, {"SW<00,0>", 4}, {"SW<30,1>", 1}, {"SW<30,2>", 1}};
  CU_ASSERT_EQUAL_FATAL(hops.size(), q.size());
  for (size_t i = 0; i < q.size(); ++i) {
    CU_ASSERT_EQUAL(r->f.switches[hops[i].first].name, q[i].first);
    CU_ASSERT_EQUAL(hops[i].second, q[i].second);
  }
}

// For every destination, sources in one subtree that pick different offsets
// share no up link inside it.
void DisjointUpLinks(const Routed& r) {
  DisjointReport rep = CheckDisjointUpLinks(
      r.f, r.t, RecognizeFatTree(r.f), [&](int s, int d) { return r.engine->SelectDlid(r.f, s, d); });
  for (const std::string& e : rep.errors) fprintf(stderr, "\n  %s", e.c_str());
  CU_ASSERT(rep.ok());
  CU_ASSERT(rep.subtrees_checked > 0);
}

// And the check can fail: SLID's tables send every LID of a destination
// one way, so sources of one subtree that select different LIDs share up
// links. Sources on one DLID may share them (a folded LMC, or everyone on
// the base LID): that is no violation.
void SharedUpLinksAreCaught() {
  auto r = Route(4, 3, 2, "", 0, "slid");
  DisjointReport rep = CheckDisjointUpLinks(r->f, r->t, RecognizeFatTree(r->f), [&](int s, int d) {
    const EndPort& ep = r->f.end_ports[d];
    return Lid(ep.base_lid + s % ep.lid_count());
  });
  CU_ASSERT(!rep.ok());
  CU_ASSERT(!rep.errors.empty() && (Contains(rep.errors[0], "both leave their subtree through") ||
                                    Contains(rep.errors[0], "inside their subtree")));
  rep = CheckDisjointUpLinks(r->f, r->t, RecognizeFatTree(r->f),
                             [&](int, int d) { return r->f.end_ports[d].base_lid; });
  CU_ASSERT(rep.ok());
  for (const std::string& e : rep.errors) fprintf(stderr, "\n  %s", e.c_str());
}

// Sharing a link inside the subtree counts too, not only the one leaving
// it (seed 001's Fig. 11: the routes Q, R, S, T are disjoint all the way
// up). P(001) taking P(010)'s DLID toward P(100) leaves the pod on another
// link than P(000) but shares P(000)'s leaf up link: one violation.
void SharedLeafUpLinkIsCaught() {
  auto r = Route(4, 3, 2, "mlid_rotate=off");
  const FatTree tree = RecognizeFatTree(r->f);
  const auto host = [&](std::vector<int> p) {
    return static_cast<int>(std::find(tree.p.begin(), tree.p.end(), p) - tree.p.begin());
  };
  const int p000 = host({0, 0, 0}), p001 = host({0, 0, 1}), p010 = host({0, 1, 0}), p100 = host({1, 0, 0});
  const auto engine = [&](int s, int d) { return r->engine->SelectDlid(r->f, s, d); };
  CU_ASSERT_FATAL(engine(p001, p100) != engine(p010, p100));
  DisjointReport rep = CheckDisjointUpLinks(r->f, r->t, tree, [&](int s, int d) {
    return s == p001 && d == p100 ? engine(p010, p100) : engine(s, d);
  });
  CU_ASSERT_EQUAL(rep.violations, 1);
  const std::string leaf_link = r->f.PortLabel(TraceRoute(r->f, r->t, p000, engine(p000, p100))[0].first,
                                               TraceRoute(r->f, r->t, p000, engine(p000, p100))[0].second);
  CU_ASSERT(rep.errors.size() == 1 &&
            rep.errors[0] == DisjointViolation("P(001)", "P(000)", leaf_link, false, "P(100)",
                                               engine(p010, p100), engine(p000, p100)));
}

// Paper mode with fewer LIDs than paths (FT(4,3) at LMC 1: 2 LIDs, 4
// paths): the destination picks the path digits the LIDs cannot, so one
// source's routes to all other pods still spread over all 4 top switches
// (by offset alone they would use 2).
void FoldedPaperModeSpreadsOverEveryTop() {
  auto r = Route(4, 3, 1, "mlid_rotate=off");
  const FatTree tree = RecognizeFatTree(r->f);
  const int src = Host(r->f, "P(000)");
  std::set<int> tops;
  for (size_t d = 0; d < r->f.end_ports.size(); ++d) {
    if (tree.p[d][0] == tree.p[src][0]) continue;  // same pod: no top on the way
    const EndPort& ep = r->f.end_ports[d];
    for (Lid lid = ep.base_lid; lid < ep.base_lid + ep.lid_count(); ++lid)
      for (auto [sw, port] : TraceRoute(r->f, r->t, src, lid))
        if (tree.level[sw] == 0) tops.insert(sw);
  }
  CU_ASSERT_EQUAL(tops.size(), 4u);
}

// The disjointness check pair by pair: every pair's route traced, and the
// up links kept in maps keyed by subtree digits. O(end ports^2 x (hops +
// log)) with large constants (9 s on FT(32,3)); the reference
// CheckDisjointUpLinks is held to.
DisjointReport CheckDisjointUpLinksPairByPair(const Fabric& f, const Tables& t, const FatTree& tree,
                                              const std::function<Lid(int, int)>& select, size_t max_errors) {
  DisjointReport r;
  const int ne = static_cast<int>(f.end_ports.size());
  for (int d = 0; d < ne; ++d) {
    // Per source subtree (LCA level a, prefix p_0..p_a): the up links used
    // inside it, and the first source (and its DLID) that used each.
    // Sources that select the same DLID share their route by design (a
    // folded LMC has fewer LIDs than the subtree has sources): only
    // different DLIDs must use different links.
    std::map<std::vector<int>, std::map<std::pair<int, int>, std::pair<int, Lid>>> ups;
    for (int s = 0; s < ne; ++s) {
      if (s == d) continue;
      int a = 0;
      while (a < tree.n - 1 && tree.p[s][a] == tree.p[d][a]) ++a;
      if (a == tree.n - 1) continue;  // same leaf: no up link
      std::vector<int> key(tree.p[s].begin(), tree.p[s].begin() + a + 1);
      key.push_back(-a);  // subtrees of different levels never share a key
      const Lid dlid = select(s, d);
      // The route's first hop at each level, climbed from the leaf.
      std::map<int, std::pair<int, int>> first_at;
      for (auto [sw, port] : TraceRoute(f, t, s, dlid))
        first_at.emplace(tree.level[sw], std::make_pair(sw, port));
      for (int level = tree.n - 1; level > a; --level) {
        const auto hop = first_at.find(level);
        if (hop == first_at.end()) continue;
        auto [it, fresh] = ups[key].emplace(hop->second, std::make_pair(s, dlid));
        if (fresh || it->second.second == dlid) continue;
        ++r.violations;
        if (r.errors.size() < max_errors)
          r.errors.push_back(DisjointViolation(tree.HostLabel(s), tree.HostLabel(it->second.first),
                                               f.PortLabel(hop->second.first, hop->second.second),
                                               level == a + 1, tree.HostLabel(d), dlid, it->second.second));
        break;
      }
    }
    r.subtrees_checked += static_cast<long>(ups.size());
  }
  return r;
}

// CheckDisjointUpLinks gives the pair-by-pair reference's report: counts,
// errors and their order, on tables and selections that pass and that
// fail (random LFT entries, DLIDs of another destination), and on labels
// that disagree with the cabling (two hosts' digits swapped across
// subtrees), where sources of two subtrees leave through one link.
bool SameDisjointReports(const DisjointReport& got, const DisjointReport& want) {
  const bool same = got.subtrees_checked == want.subtrees_checked && got.violations == want.violations &&
                    got.errors == want.errors;
  if (!same)
    fprintf(stderr, "\n  %ld/%ld subtrees, %ld/%ld violations, first error %s / %s", got.subtrees_checked,
            want.subtrees_checked, got.violations, want.violations,
            got.errors.empty() ? "-" : got.errors[0].c_str(),
            want.errors.empty() ? "-" : want.errors[0].c_str());
  return same;
}

void DisjointMatchesPairByPair() {
  struct Case {
    int m, n, lmc;
    const char* engine;
  } cases[] = {{4, 3, 2, "mlid"}, {4, 3, 2, "slid"}, {8, 3, 4, "mlid"}, {6, 3, 2, "mlid"},
               {4, 4, 3, "mlid"}, {8, 2, 2, "mlid"}, {4, 1, 0, "mlid"}};
  std::mt19937 rng(7);
  int checked = 0, failing = 0;
  for (const Case& c : cases) {
    auto r = Route(c.m, c.n, c.lmc, "", 3, c.engine);
    const Fabric& f = r->f;
    const int ne = static_cast<int>(f.end_ports.size());
    const auto engine = [&](int s, int d) { return r->engine->SelectDlid(f, s, d); };
    const auto by_source = [&](int s, int d) {
      return Lid(f.end_ports[d].base_lid + s % f.end_ports[d].lid_count());
    };
    const auto elsewhere = [&](int s, int d) {  // now and then another destination's LID
      return (s + d) % 7 ? engine(s, d) : f.end_ports[(d + 1) % ne].base_lid;
    };
    FatTree swapped = RecognizeFatTree(f);
    std::swap(swapped.p[0], swapped.p[ne - 1]);
    for (int changed : {0, 3, 40, -1}) {
      Tables t = r->t;
      for (int i = 0; i < changed; ++i) {
        const int sw = static_cast<int>(rng() % f.switches.size());
        t.lft[sw].set(static_cast<Lid>(1 + rng() % f.max_lid()),
                      static_cast<uint8_t>(1 + rng() % f.switches[sw].num_ports));
      }
      if (changed < 0) {  // the last host's LIDs: no entry at one leaf, a port beyond another's
        const EndPort& last = f.end_ports[ne - 1];
        for (auto [e, port] : {std::pair{0, int{kNoPort}}, {ne / 2, 0}}) {
          const int leaf = f.end_ports[e].switch_index;
          for (int k = 0; k < last.lid_count(); ++k)
            t.lft[leaf].set(last.base_lid + k,
                            static_cast<uint8_t>(port ? port : f.switches[leaf].num_ports + 1));
        }
      }
      for (const FatTree& tree : {RecognizeFatTree(f), swapped})
        for (const std::function<Lid(int, int)>& select :
             std::vector<std::function<Lid(int, int)>>{engine, by_source, elsewhere})
          for (size_t max_errors : {size_t{20}, size_t{100000}}) {
            const DisjointReport want = CheckDisjointUpLinksPairByPair(f, t, tree, select, max_errors);
            CU_ASSERT(SameDisjointReports(CheckDisjointUpLinks(f, t, tree, select, max_errors), want));
            ++checked;
            failing += !want.ok();
          }
    }
  }
  CU_ASSERT(failing > 0 && failing < checked);  // both kinds were compared
}

void MlidPathsAreDisjoint() {
  DisjointUpLinks(*Route(4, 3, 2, "mlid_rotate=off"));
  DisjointUpLinks(*Route(4, 3, 2, ""));
  DisjointUpLinks(*Route(8, 3, 4, "", 5));
  DisjointUpLinks(*Route(4, 4, 3, "", 9));
  // Folded and LMC 0: sources that share a DLID share its route.
  DisjointUpLinks(*Route(8, 3, 2, ""));
  DisjointUpLinks(*Route(8, 3, 0, ""));
}

void AllPairsCorrectOnManyShapes() {
  struct Case {
    int m, n, lmc;
    uint64_t shuffle;
  } cases[] = {{4, 2, 0, 0}, {4, 3, 0, 0}, {4, 3, 1, 3}, {4, 3, 2, 0}, {4, 4, 3, 4},
               {8, 3, 0, 7}, {8, 3, 4, 7}, {8, 2, 2, 0}, {16, 2, 3, 2}, {4, 1, 0, 0},
               {6, 2, 2, 0}, {6, 3, 4, 3}, {6, 3, 2, 0}, {10, 3, 5, 1}, {36, 2, 5, 6}, {6, 1, 0, 0}};
  for (const Case& c : cases)
    for (const char* opt : {"", "mlid_rotate=off"}) {
      auto r = Route(c.m, c.n, c.lmc, opt, c.shuffle);
      UnicastReport rep = VerifyUnicast(r->f, r->t);
      if (!rep.ok()) fprintf(stderr, "\n%s", rep.Summary(r->f).c_str());
      CU_ASSERT(rep.ok());
      CU_ASSERT(rep.routes_checked > 0);
    }
}

// Hosts that always use the base LID (what the SA gives them) still spread
// over every top switch with rotation; without it they pile onto one.
void RotationSpreadsBaseLidTraffic() {
  for (bool rotate : {true, false}) {
    auto r = Route(4, 3, 2, rotate ? "" : "mlid_rotate=off");
    std::map<int, int> per_top;
    const int ne = static_cast<int>(r->f.end_ports.size());
    for (int s = 0; s < ne; ++s)
      for (int d = 0; d < ne; ++d)
        for (auto [sw, port] : Trace(r->f, r->t, s, r->f.end_ports[d].base_lid))
          if (Contains(r->f.switches[sw].name, ",0>")) ++per_top[sw];
    if (rotate) {
      CU_ASSERT_EQUAL(per_top.size(), 4u);
      int lo = 1 << 30, hi = 0;
      for (auto [sw, c] : per_top) lo = std::min(lo, c), hi = std::max(hi, c);
      CU_ASSERT_EQUAL(lo, hi);  // D-mod-K: perfectly even on a full tree
    } else {
      CU_ASSERT_EQUAL(per_top.size(), 1u);
    }
  }
}

// Rotation only changes what the base LID means: a source that selects its
// DLID follows the paper's path whether the tables are rotated or not.
void SelectedPathsIgnoreRotation() {
  for (auto mnl : {std::tuple{4, 3, 2}, {8, 3, 4}, {4, 4, 3}}) {
    auto [m, n, lmc] = mnl;
    auto rotated = Route(m, n, lmc, "");
    auto paper = Route(m, n, lmc, "mlid_rotate=off");
    const int ne = static_cast<int>(rotated->f.end_ports.size());
    int differ = 0;
    for (int s = 0; s < ne; ++s)
      for (int d = 0; d < ne; ++d) {
        if (s == d) continue;
        auto a = Trace(rotated->f, rotated->t, s, rotated->engine->SelectDlid(rotated->f, s, d));
        auto b = Trace(paper->f, paper->t, s, paper->engine->SelectDlid(paper->f, s, d));
        differ += a != b;
      }
    CU_ASSERT_EQUAL(differ, 0);
  }
}

// m/2 no power of two (FT(6,3): 9 paths per pair, LMC 4 gives 16 LIDs;
// FT(36,2): 18 paths, 32 LIDs): a selecting source still gets its own
// path, so one subtree's sources leave on different links; the LIDs
// beyond the paths, and those of a folded LMC beyond the largest power of
// k, are routed but not selected.
void AnyEvenRadix() {
  for (auto mnl : {std::tuple{6, 3, 4}, {6, 3, 2}, {6, 3, 0}, {36, 2, 5}, {36, 2, 3}, {10, 3, 5}})
    for (const char* opt : {"", "mlid_rotate=off"}) {
      auto [m, n, lmc] = mnl;
      auto r = Route(m, n, lmc, opt, m == 6 && lmc == 4 ? 11 : 0);
      CU_ASSERT(VerifyUnicast(r->f, r->t).ok());
      DisjointUpLinks(*r);
    }
  // Every selected DLID is one of the destination's 9 path LIDs, and the
  // 9 sources of each other level-1 subtree (P(1xx) .. P(5xx)) reach P(000)
  // over the 9 top switches, one each.
  auto r = Route(6, 3, 4, "");
  const int ne = static_cast<int>(r->f.end_ports.size());
  std::map<char, std::set<int>> tops_by_subtree;
  for (int s = 0; s < ne; ++s)
    for (int d = 0; d < ne; ++d) {
      const EndPort& ep = r->f.end_ports[d];
      const Lid dlid = r->engine->SelectDlid(r->f, s, d);
      CU_ASSERT(dlid >= ep.base_lid && dlid < ep.base_lid + 9);
      const char subtree = r->f.end_ports[s].name[2];
      if (d != 0 || subtree == '0') continue;
      for (auto [sw, port] : Trace(r->f, r->t, s, dlid))
        if (Contains(r->f.switches[sw].name, ",0>")) tops_by_subtree[subtree].insert(sw);
    }
  CU_ASSERT_EQUAL(tops_by_subtree.size(), 5u);
  for (const auto& [subtree, tops] : tops_by_subtree) CU_ASSERT_EQUAL(tops.size(), 9u);
}

void SlidIsOneLidPerHost() {
  auto r = Route(8, 3, 0, "", 0, "slid");
  CU_ASSERT(VerifyUnicast(r->f, r->t).ok());
  CU_ASSERT_EQUAL(r->engine->SelectDlid(r->f, 0, 77), r->f.end_ports[77].base_lid);
}

void FoldingIsLogged() {
  Fabric f = MakeFatTree(8, 3);
  AssignDefaultLids(f, 2);
  std::vector<std::string> notes;
  auto e = MakeEngine("mlid", {}, [&](LogLevel, const std::string& m) { notes.push_back(m); });
  Tables t;
  e->RouteUnicast(f, t);
  CU_ASSERT(!notes.empty() && Contains(notes[0], "folded"));
  CU_ASSERT(VerifyUnicast(f, t).ok());
}

// FT(6,3) at LMC 2: a path digit takes 3 values, a port has 4 LIDs. The
// note says which LIDs selection by digit uses and what the fourth does,
// and the tables agree: with rotation a far source's 4 LIDs toward one port
// cross 4 different top switches; in paper mode the fourth repeats the
// first's path.
void DigitWiderThanLidsIsSaid() {
  for (const bool rotate : {true, false}) {
    Fabric f = MakeFatTree(6, 3);
    AssignDefaultLids(f, 2);
    std::vector<std::string> notes;
    auto e = MakeEngine("mlid", {rotate ? "mlid_rotate=on" : "mlid_rotate=off"},
                        [&](LogLevel, const std::string& m) { notes.push_back(m); });
    Tables t;
    e->RouteUnicast(f, t);
    const std::string said =
        rotate ? "(a path digit takes 3 values, a port has 4 LIDs; with rotation the 4 LIDs "
                 "still lead over 4 different paths)"
               : "(a path digit takes 3 values, a port has 4 LIDs; its other LID repeats "
                 "one of them)";
    CU_ASSERT(!notes.empty() &&
              Contains(notes[0], "LMC is 2, so 3 paths are selectable by path digit " + said));
    const int src = 0, dst = static_cast<int>(f.end_ports.size()) - 1;  // under different tops
    std::vector<int> tops;
    for (int j = 0; j < 4; ++j) tops.push_back(Trace(f, t, src, f.end_ports[dst].base_lid + j)[2].first);
    const std::set<int> distinct(tops.begin(), tops.end());
    CU_ASSERT_EQUAL(distinct.size(), rotate ? 4u : 3u);
    if (!rotate) CU_ASSERT_EQUAL(tops[3], tops[0]);
  }
}

// A guid2lid file may give end ports different LMCs: each port keeps the
// paths its own LIDs give, and the note says so rather than "LMC is 0, so
// 1 path is selectable" (the smallest, said of the whole fabric).
void MixedLmcIsPerPort() {
  Fabric f = MakeFatTree(4, 3);  // 4 paths per pair
  AssignDefaultLids(f, 2);
  Tables all;
  MakeEngine("mlid", {}, nullptr)->RouteUnicast(f, all);
  f.end_ports[5].lmc = 0;  // its base LID only
  f.Finalize();
  std::vector<std::string> notes;
  auto e = MakeEngine("mlid", {}, [&](LogLevel, const std::string& m) { notes.push_back(m); });
  Tables t;
  e->RouteUnicast(f, t);
  CU_ASSERT(VerifyUnicast(f, t).ok());
  const std::string want = "FT(4,3) has 4 paths per pair (LMC 2 wanted); the end ports' LMCs differ: LMC 0 on 1 end "
                           "port (" + f.end_ports[5].name + "), LMC 2 on 15 (first " + f.end_ports[0].name +
                           "); each port gets 2^LMC selectable paths, and toward a port with fewer LIDs than paths "
                           "the remaining path digits are folded onto the destination";
  if (notes.empty() || notes[0] != want) fprintf(stderr, "\n  got '%s'", notes.empty() ? "" : notes[0].c_str());
  CU_ASSERT(!notes.empty() && notes[0] == want);
  // Every other port's LIDs route as with LMC 2 everywhere.
  long differ = 0;
  for (size_t s = 0; s < f.switches.size(); ++s)
    for (size_t ep = 0; ep < f.end_ports.size(); ++ep)
      for (int j = 0; ep != 5 && j < 4; ++j)
        differ += t.lft[s].port(f.end_ports[ep].base_lid + j) != all.lft[s].port(f.end_ports[ep].base_lid + j);
  CU_ASSERT_EQUAL(differ, 0);
  CU_ASSERT_EQUAL(e->SelectDlid(f, 0, 5), f.end_ports[5].base_lid);
}

// The LMC a fabric without LIDs gets for mlid (ibunion sim): every path
// where the LIDs fit, folded where not, as topologies/regenerate.sh chose.
void DefaultLmcIsThePapers() {
  for (auto [m, n, lmc] : {std::tuple{4, 2, 1}, {4, 3, 2}, {4, 4, 3}, {8, 2, 2}, {8, 3, 4}, {16, 3, 5}, {32, 2, 4}})
    CU_ASSERT_EQUAL(MlidDefaultLmc(MakeFatTree(m, n)), lmc);
  Fabric f = MakeFatTree(16, 3);
  CU_ASSERT(DefaultLidsFit(f, 5) && !DefaultLidsFit(f, 6));
  AssignDefaultLids(f, 5);  // fits, as DefaultLidsFit says
  CU_ASSERT(Contains(ErrorOf([] { Fabric g = MakeFatTree(16, 3); AssignDefaultLids(g, 6); }), "unicast LID space"));
}

void BadOptionsAreRefused() {
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("mlid", {"mlid_rotate=maybe"}, nullptr); }),
                     "expected on or off"));
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("mlid", {"mlid_bogus=1"}, nullptr); }),
                     "unknown key for engine mlid"));
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("mlid", {"rotate"}, nullptr); }), "expected key=value"));
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("nope", {}, nullptr); }), "unknown routing engine"));
  // Blanks around '=' are named whole, with the word meant: OptionWords
  // keeps the pieces together and the engine names them once it knows the key.
  const std::vector<std::string> offered = {"mlid", "xymesh"};
  auto mlid_error = [&](const char* text) {
    return ErrorOf([&] { MakeEngine("mlid", OptionWords(text), nullptr, offered); });
  };
  auto xymesh_error = [&](const char* text) {
    return ErrorOf([&] { MakeEngine("xymesh", OptionWords(text), nullptr, offered); });
  };
  // A key given twice names both words; distinct keys are fine.
  CU_ASSERT(Contains(mlid_error("mlid_rotate=on xymesh_vls=2 mlid_rotate=off"),
                     "option 'mlid_rotate=off': key mlid_rotate given twice (first as 'mlid_rotate=on')"));
  CU_ASSERT_EQUAL(OptionWords(" mlid_rotate=on  xymesh_vls=2 ").size(), 2u);
  CU_ASSERT_EQUAL(mlid_error(" mlid_rotate=on  xymesh_vls=2 "), "");
  CU_ASSERT(OptionWords("mlid_dump=on mlid_rotate =off xymesh_vls= 2") ==
            std::vector<std::string>({"mlid_dump=on", "mlid_rotate =off", "xymesh_vls= 2"}));
  for (const char* text : {"mlid_rotate = off", "mlid_rotate =off", "mlid_rotate= off xymesh_vls=2"})
    CU_ASSERT(
        Contains(mlid_error(text), "': blanks around '='; expected key=value as one word (mlid_rotate=off)"));
  CU_ASSERT(Contains(mlid_error("mlid_rotate = off"), "option 'mlid_rotate = off': blanks"));
  CU_ASSERT_EQUAL(xymesh_error("xymesh_vls= 2"),
                  "option 'xymesh_vls= 2': blanks around '='; expected key=value as one word (xymesh_vls=2)");
  // No word meant to offer when closing the blanks gives none.
  const std::string twice = mlid_error("mlid_rotate= = off");
  CU_ASSERT(
      Contains(twice, "option 'mlid_rotate= = off': blanks around '='; expected key=value as one word") &&
      !Contains(twice, "("));
  // The words' problems come in their order: an unknown key before the
  // blanks of a later word (the blanks came first, whatever the order).
  CU_ASSERT(Contains(xymesh_error("xymesh_bogus=1 xymesh_vls= 2"),
                     "option 'xymesh_bogus=1': unknown key for engine xymesh"));
  CU_ASSERT(Contains(mlid_error("mlid_bogus=1 mlid_rotate= off"),
                     "option 'mlid_bogus=1': unknown key for engine mlid"));
  CU_ASSERT(Contains(xymesh_error("xymesh_vl_mode=both xymesh_vls= 2"),
                     "option 'xymesh_vl_mode=both': expected xymesh_vl_mode=shared or dedicated"));
  // A word with blanks and an unknown key is refused for its key, named as
  // written (closing the blanks, "(xymesh_vlz=2)", was no fix).
  CU_ASSERT(Contains(xymesh_error("xymesh_vlz= 2"),
                     "option 'xymesh_vlz= 2': unknown key for engine xymesh (known: "));
  CU_ASSERT(
      Contains(mlid_error("foo = 2"), "option 'foo = 2': unknown key (keys start with mlid_ or xymesh_)"));
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("mlid", OptionWords("xymesh_vls= 2"), nullptr); }),
                     "option 'xymesh_vls= 2': unknown key (keys start with mlid_)"));
  // Another engine's word is that engine's to refuse, blanks or not.
  CU_ASSERT_EQUAL(mlid_error("mlid_rotate=off xymesh_vls= 2"), "");
  // A key given twice is found with blanks too.
  CU_ASSERT(Contains(xymesh_error("xymesh_vls=2 xymesh_vls = 4"),
                     "option 'xymesh_vls = 4': key xymesh_vls given twice (first as 'xymesh_vls=2')"));
  // OpenSM's one options line: the pieces go with their key, not to other plugins.
  std::vector<std::string> others;
  CU_ASSERT_EQUAL(OwnOptionWords("verbose mlid_rotate = off perfx=1", &others), "mlid_rotate = off");
  CU_ASSERT(others == std::vector<std::string>({"verbose", "perfx=1"}));
  others.clear();
  CU_ASSERT_EQUAL(OwnOptionWords("mlid_rotate =off verbose", &others), "mlid_rotate =off");
  CU_ASSERT(others == std::vector<std::string>({"verbose"}));
  others.clear();
  CU_ASSERT_EQUAL(OwnOptionWords("perfx=1 mlid_rotate= off", &others), "mlid_rotate= off");
  CU_ASSERT(others == std::vector<std::string>({"perfx=1"}));
  others.clear();
  CU_ASSERT_EQUAL(OwnOptionWords("mlid_rotate= = off verbose", &others), "mlid_rotate= = off");
  CU_ASSERT(others == std::vector<std::string>({"verbose"}));
  // An empty value before another key=value word is no blank: the engine refuses the value.
  CU_ASSERT(OptionWords("mlid_dump= mlid_rotate=off") ==
            std::vector<std::string>({"mlid_dump=", "mlid_rotate=off"}));
  CU_ASSERT(Contains(mlid_error("mlid_rotate= xymesh_vls=2"), "option 'mlid_rotate=': expected on or off"));
  // A byte that is no printable ASCII is shown as \xNN: a no-break space
  // read as a blank, a control character as nothing ("option
  // 'mlid_rotate=off': expected on or off").
  CU_ASSERT(Contains(mlid_error("mlid_rotate=off\xc2\xa0mlid_dump=off"),
                     "option 'mlid_rotate=off\\xc2\\xa0mlid_dump=off': byte \\xc2 is not printable ASCII"));
  CU_ASSERT(Contains(mlid_error("xymesh_vls=2 mlid_rotate=off\x01"),
                     "option 'mlid_rotate=off\\x01': byte \\x01 is not printable ASCII"));
  // One checker reads the words in their order: a later word's repeated
  // key or odd byte came first, whatever the order (a check of the whole
  // text ran before the engine's).
  CU_ASSERT(Contains(mlid_error("mlid_rotate=maybe mlid_rotate=off"),
                     "option 'mlid_rotate=maybe': expected on or off"));
  CU_ASSERT(Contains(mlid_error("mlid_bogus=1 mlid_rotate=off\x01"),
                     "option 'mlid_bogus=1': unknown key for engine mlid"));
  // A front door's own key (the adapter's <engine>_dump) is read in its
  // place among the words, and listed first among the known keys.
  bool dump = false;
  const std::vector<OptionKey> dump_key = {OnOffKey("mlid_dump", &dump)};
  CU_ASSERT(MakeEngine("mlid", OptionWords("mlid_rotate=off mlid_dump=yes"), nullptr, offered, dump_key) !=
            nullptr);
  CU_ASSERT(dump);
  CU_ASSERT_EQUAL(
      ErrorOf([&] { MakeEngine("mlid", {"mlid_dumps=on"}, nullptr, offered, dump_key); }),
      "option 'mlid_dumps=on': unknown key for engine mlid (known: mlid_dump=on|off, mlid_rotate=on|off)");
  CU_ASSERT(Contains(ErrorOf([&] {
                       MakeEngine("mlid", OptionWords("mlid_rotate=x mlid_dump=x"), nullptr, offered,
                                  dump_key);
                     }),
                     "option 'mlid_rotate=x': expected on or off"));
  CU_ASSERT(Contains(ErrorOf([&] {
                       MakeEngine("mlid", OptionWords("mlid_dump=on mlid_dump = off"), nullptr, offered,
                                  dump_key);
                     }),
                     "option 'mlid_dump = off': key mlid_dump given twice (first as 'mlid_dump=on')"));
  // Keys of an engine the front door does not offer are unknown.
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("mlid", {"slid_rotate=off"}, nullptr, {"mlid", "xymesh"}); }),
                     "option 'slid_rotate=off': unknown key (keys start with mlid_ or xymesh_)"));
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("xymesh", {"slid_rotate=off"}, nullptr, {"mlid", "xymesh"}); }),
                     "unknown key (keys start with mlid_ or xymesh_)"));
  CU_ASSERT(MakeEngine("xymesh", {"mlid_rotate=off"}, nullptr, {"mlid", "xymesh"}) != nullptr);  // mlid's
  // A command that runs one engine takes only its keys: another engine's
  // would be ignored without a word.
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("slid", {"mlid_rotate=off"}, nullptr); }),
                     "option 'mlid_rotate=off': unknown key (keys start with slid_)"));
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("mlid", {"xymesh_vls=2"}, nullptr); }),
                     "option 'xymesh_vls=2': unknown key (keys start with mlid_)"));
  CU_ASSERT(Contains(ErrorOf([] { MakeEngine("mlid", {"ftree_x=1"}, nullptr); }),
                     "unknown key (keys start with mlid_)"));
}


// The exported map reads back to the engine's selection, and a map that
// does not fit the fabric names the line.
void PathMapRoundTripAndErrors() {
  auto r = Route(4, 3, 2, "");
  const Fabric& f = r->f;
  std::ostringstream os;
  WritePathMap(os, f, [&](int s, int d) { return r->engine->SelectDlid(f, s, d); });
  std::istringstream in("# comment\n\n" + os.str());
  const PathMap map = ReadPathMap(in, "p", f);
  const int n = static_cast<int>(f.end_ports.size());
  CU_ASSERT_EQUAL(map.pairs(), size_t(n) * size_t(n - 1));
  int selected_beyond_base = 0;
  for (int s = 0; s < n; ++s)
    for (int d = 0; d < n; ++d)
      if (s != d) {
        CU_ASSERT_EQUAL(map.Select(s, d), r->engine->SelectDlid(f, s, d));
        selected_beyond_base += map.Select(s, d) != f.end_ports[d].base_lid;
      }
  CU_ASSERT(selected_beyond_base > 0);  // LMC 2: the map is more than base LIDs
  {
    // Blanks as a stream reads them (tab, CR, \v, \f), 0X and upper-case
    // hex, lines in reverse order (the next-port guess misses every time):
    // the same map.
    std::vector<std::string> lines;
    std::istringstream split(os.str());
    for (std::string l; std::getline(split, l);) lines.push_back(l);
    std::string odd;
    const char* blanks[] = {"\t", " \v", "\f ", "  "};
    for (size_t i = lines.size(); i-- > 0;) {
      std::string l = lines[i];
      l.replace(l.find(' '), 1, blanks[i % 4]);
      if (i % 3 == 0) l.replace(0, 2, "0X");
      if (i % 5 == 0)
        for (char& c : l) c = char(std::toupper(static_cast<unsigned char>(c)));
      odd += l + (i % 2 ? "\r\n" : "\n");
    }
    std::istringstream in2(odd + "\f\n");
    const PathMap same = ReadPathMap(in2, "p", f);
    CU_ASSERT_EQUAL(same.pairs(), map.pairs());
    long differ = 0;
    for (int s = 0; s < n; ++s)
      for (int d = 0; d < n; ++d) differ += s != d && same.Select(s, d) != map.Select(s, d);
    CU_ASSERT_EQUAL(differ, 0);
  }

  auto guid = [&](int ep) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%016llx", static_cast<unsigned long long>(f.end_ports[ep].port_guid));
    return std::string(b);
  };
  auto error = [&](const std::string& text) {
    std::istringstream is(text);
    return ErrorOf([&] { ReadPathMap(is, "p", f); });
  };
  const std::string a = guid(0), b = guid(5);
  const Lid base5 = f.end_ports[5].base_lid;
  // A pair left out falls back to the base LID.
  std::istringstream one(a + " " + b + " " + std::to_string(base5 + 3) + "\n");
  const PathMap partial = ReadPathMap(one, "p", f);
  CU_ASSERT_EQUAL(partial.Select(0, 5), base5 + 3);
  CU_ASSERT_EQUAL(partial.Select(5, 0), f.end_ports[0].base_lid);
  CU_ASSERT(Contains(error(""), "p: no pair in it"));
  CU_ASSERT(Contains(error(a + " " + b + "\n"), "p:1: expected 'src_port_guid dst_port_guid dlid'"));
  CU_ASSERT(Contains(error(a + " " + b + " 9 9\n"), "p:1: expected"));
  CU_ASSERT(Contains(error("zz " + b + " 9\n"), "p:1: 'zz': expected a port GUID"));
  CU_ASSERT(Contains(error("0x0badbeef " + b + " 9\n"), "p:1: port GUID 0x0badbeef is no end port"));
  // GUIDs by the core's one rule, as WritePathMap prints them: 0x and up to
  // 16 hex digits; strtoull took bare hex, a sign and a 17th leading zero.
  for (const std::string& bad : {a.substr(2), "+" + a, "0x0" + a.substr(2), a + "g"})
    CU_ASSERT(Contains(error(bad + " " + b + " " + std::to_string(base5) + "\n"),
                       "p:1: '" + bad + "': expected a port GUID, 0x and up to 16 hex digits"));
  CU_ASSERT(Contains(error(a + " " + b.substr(2) + " " + std::to_string(base5) + "\n"),
                     "p:1: '" + b.substr(2) + "': expected a port GUID"));
  CU_ASSERT(Contains(error(a + " " + a + " 9\n"), "p:1: source and destination are the same port"));
  CU_ASSERT(Contains(error(a + " " + b + " " + std::to_string(base5 + 4) + "\n"),
                     "p:1: DLID " + std::to_string(base5 + 4) + ": expected one of"));
  CU_ASSERT(Contains(error(a + " " + b + " -1\n"), "p:1: DLID -1: expected"));
  // Never octal: a leading 0 is decimal (strtoul's base 0 read "0" + base+3
  // in octal), 0x is hex; signs and trailing text are refused.
  if (base5 + 3 >= 8) {
    std::istringstream lead0(a + " " + b + " 0" + std::to_string(base5 + 3) + "\n");
    CU_ASSERT_EQUAL(ReadPathMap(lead0, "p", f).Select(0, 5), base5 + 3);
  }
  char hex[16];
  std::snprintf(hex, sizeof hex, "0x%x", unsigned(base5 + 1));
  std::istringstream hexed(a + " " + b + " " + hex + "\n");
  CU_ASSERT_EQUAL(ReadPathMap(hexed, "p", f).Select(0, 5), base5 + 1);
  CU_ASSERT(Contains(error(a + " " + b + " +" + std::to_string(base5) + "\n"), "p:1: DLID +"));
  // After 0x hex digits only: strtoll's base 16 took a second 0x ("0x0x15").
  CU_ASSERT(
      Contains(error(a + " " + b + " 0x" + hex + "\n"), std::string("p:1: DLID 0x") + hex + ": expected"));
  CU_ASSERT(Contains(error(a + " " + b + " " + std::to_string(base5) + "x\n"), "p:1: DLID "));
  CU_ASSERT(Contains(error(a + " " + b + " " + std::to_string(base5) + "\n" + a + " " + b + " " +
                           std::to_string(base5) + "\n"),
                     "p:2: pair " + a + " " + b + " appears again (first at line 1)"));
  // The first line is found by reading the map again: past comments and
  // the reverse pair.
  const Lid base0 = f.end_ports[0].base_lid;
  CU_ASSERT(Contains(error("# map\n" + a + " " + b + " " + std::to_string(base5) + "\n" + b + " " + a + " " +
                           std::to_string(base0) + "\n" + a + " " + b + " " + std::to_string(base5) + "\n"),
                     "p:4: pair " + a + " " + b + " appears again (first at line 2)"));
  CU_ASSERT(Contains(error(a + " " + b + " " + std::to_string(base5) + "\n# c\n\n" + a + " " + b + " " +
                           std::to_string(base5 + 1) + "\n"),
                     "p:4: pair " + a + " " + b + " appears again (first at line 1)"));
}


// Hosts with dual-port HCAs, each port on another leaf (multi-rail):
// every cabled port is an end port of its own, routed as any host; the
// fabric is still FT(4,2) (8 end ports on 4 leaves), and every port reaches
// every other, the other port of its own HCA too.
void DualPortHcasOnTwoLeaves() {
  std::string net;
  const char* leaf_of[4][2] = {{"SW<0,1>", "SW<1,1>"}, {"SW<0,1>", "SW<1,1>"}, {"SW<2,1>", "SW<3,1>"},
                               {"SW<2,1>", "SW<3,1>"}};
  for (int h = 0; h < 4; ++h)
    net += "caguid=" + std::to_string(0x100000 + 4 * h) + "\nHca\t2 \"H" + std::to_string(h) +
           "\"\n[1]\t\"" + leaf_of[h][0] + "\"[" + std::to_string(h % 2 + 1) + "]\n[2]\t\"" + leaf_of[h][1] +
           "\"[" + std::to_string(h % 2 + 1) + "]\n\n";
  for (int top = 0; top < 2; ++top) {
    net += "switchguid=" + std::to_string(0x200000 + top) + "\nSwitch\t4 \"SW<" + std::to_string(top) + ",0>\"\n";
    for (int leaf = 0; leaf < 4; ++leaf)
      net += "[" + std::to_string(leaf + 1) + "]\t\"SW<" + std::to_string(leaf) + ",1>\"[" + std::to_string(top + 3) +
             "]\n";
    net += "\n";
  }
  for (int leaf = 0; leaf < 4; ++leaf) {
    const int h = leaf / 2 * 2;  // H0,H1 on leaves 0 and 1; H2,H3 on 2 and 3
    const int port = leaf % 2 + 1;
    net += "switchguid=" + std::to_string(0x200002 + leaf) + "\nSwitch\t4 \"SW<" + std::to_string(leaf) +
           ",1>\"\n[1]\t\"H" + std::to_string(h) + "\"[" + std::to_string(port) + "]\n[2]\t\"H" +
           std::to_string(h + 1) + "\"[" + std::to_string(port) + "]\n[3]\t\"SW<0,0>\"[" + std::to_string(leaf + 1) +
           "]\n[4]\t\"SW<1,0>\"[" + std::to_string(leaf + 1) + "]\n\n";
  }
  std::istringstream in(net);
  Fabric f = ParseNetFile(in, "dual.net");
  CU_ASSERT_EQUAL(f.end_ports.size(), 8u);
  AssignDefaultLids(f, DefaultLmc(f));
  auto engine = MakeEngine("mlid", {}, nullptr);
  Tables t;
  engine->RouteUnicast(f, t);
  const UnicastReport u = VerifyUnicast(f, t);
  for (const std::string& e : u.errors) fprintf(stderr, "\n  %s", e.c_str());
  CU_ASSERT(u.ok());
  CU_ASSERT(u.routes_checked >= 8L * 7);  // every port to every other port's LIDs, at least
}

// SelectDlid as b736950 wrote it, before its packed-key fast path: the
// digits walked one by one, the LID chosen by mask (k a power of two) or
// modulo the selectable LIDs (the largest power of k within the LIDs and
// the paths). The rule the fast path must keep, pair for pair.
Lid ReferenceDlid(const Fabric& f, const FatTree& tree, MlidOptions opt, int src, int dst) {
  const EndPort& d = f.end_ports[dst];
  if (opt.single_lid || src == dst) return d.base_lid;
  const std::vector<int>& s = tree.p[src];
  const std::vector<int>& t = tree.p[dst];
  int a = 0;
  while (a < tree.n - 1 && s[a] == t[a]) ++a;
  long rank = 0;
  for (int i = a + 1; i < tree.n; ++i) rank = rank * tree.k + s[i];
  const long want = opt.rotate ? rank - tree.pid[dst] : rank;
  if ((tree.k & (tree.k - 1)) == 0) return static_cast<Lid>(d.base_lid + (want & (d.lid_count() - 1)));
  const long within = std::min<long>(d.lid_count(), tree.paths());
  long m = 1;
  while (m * tree.k <= within) m *= tree.k;
  return static_cast<Lid>(d.base_lid + (want % m + m) % m);
}

// Every (src, dst) pair on `f` under rotation on and off and SLID: the
// router's SelectDlid against ReferenceDlid. Returns the pairs compared.
long CompareAllPairs(const Fabric& f, const std::string& what) {
  long pairs = 0;
  const int ne = static_cast<int>(f.end_ports.size());
  for (MlidOptions opt : {MlidOptions{true, false}, MlidOptions{false, false}, MlidOptions{true, true}}) {
    const MlidRouter router(f, RecognizeFatTree(f), opt);
    const FatTree& tree = router.tree();
    long unlabelled = 0;
    for (int e = 0; e < ne; ++e)  // every end port has its digits, degraded or not
      if (tree.p[e].size() != static_cast<size_t>(tree.n) || tree.pid[e] < 0) ++unlabelled;
    CU_ASSERT_EQUAL(unlabelled, 0);
    long differ = 0;
    for (int s = 0; s < ne; ++s)
      for (int d = 0; d < ne; ++d, ++pairs) {
        const Lid got = router.SelectDlid(s, d), want = ReferenceDlid(f, tree, opt, s, d);
        if (got != want && differ++ == 0)
          fprintf(stderr, "\n  %s rotate=%d slid=%d: %s -> %s: DLID %d, want %d", what.c_str(), opt.rotate,
                  opt.single_lid, f.end_ports[s].name.c_str(), f.end_ports[d].name.c_str(), got, want);
      }
    CU_ASSERT_EQUAL(differ, 0);
  }
  return pairs;
}

// SelectDlid, however it is computed, chooses what the digit walk chose,
// for every pair: power-of-two and other k, several depths, folded, exact
// and surplus LMCs, LMCs differing per port, shuffled cabling, and trees
// missing hosts, switches and links.
void SelectDlidMatchesDigitWalk() {
  long pairs = 0;
  for (auto [m, n] : {std::pair{4, 3}, {8, 3}, {4, 4}, {16, 3}, {4, 1}, {6, 3}, {36, 2}, {12, 2}}) {
    const Fabric base = MakeFatTree(m, n);
    const std::string shape = "FT(" + std::to_string(m) + "," + std::to_string(n) + ")";
    for (int lmc : std::set<int>{0, 1, 7, MlidDefaultLmc(base)}) {
      Fabric f = base;
      if (!DefaultLidsFit(f, lmc)) continue;
      AssignDefaultLids(f, lmc);
      pairs += CompareAllPairs(f, shape + " LMC " + std::to_string(lmc));
      if (lmc < 2) continue;
      // Per-port LMCs below the layout's: each keeps its aligned base.
      for (size_t e = 0; e < f.end_ports.size(); ++e)
        f.end_ports[e].lmc = static_cast<uint8_t>(e * 7 % (lmc + 1));
      f.Finalize();
      ShufflePorts(f, 3 + lmc);
      pairs += CompareAllPairs(f, shape + " mixed LMCs up to " + std::to_string(lmc) + ", shuffled");
    }
  }
  // Degraded: a leaf gone with its hosts, a host gone (its leaf's digits
  // close up), a middle switch gone, cables pulled; rotation's -PID(d) and
  // the fold see PIDs with gaps.
  for (auto [m, lmc] : {std::pair{8, 4}, {8, 2}, {6, 3}}) {
    Fabric f = MakeFatTree(m, 3);
    AssignDefaultLids(f, lmc);
    const FatTree full = RecognizeFatTree(f);
    int leaf = -1, middle = -1;
    for (size_t s = 0; s < f.switches.size(); ++s) {
      if (full.level[s] == 2 && leaf < 0 && s > 0) leaf = static_cast<int>(s);
      if (full.level[s] == 1 && middle < 0) middle = static_cast<int>(s);
    }
    f = WithoutSwitch(f, leaf);
    f = WithoutEndPort(f, 0);
    f = WithoutEndPort(f, static_cast<int>(f.end_ports.size()) / 2);
    RemoveRandomSwitchLinks(f, 7, 3);
    f.Finalize();
    CU_ASSERT(RecognizeFatTree(f).degraded);
    const std::string shape = "degraded FT(" + std::to_string(m) + ",3) LMC " + std::to_string(lmc);
    pairs += CompareAllPairs(f, shape);
    f = WithoutSwitch(f, middle < leaf ? middle : middle - 1);
    CU_ASSERT(RecognizeFatTree(f).degraded);
    pairs += CompareAllPairs(f, shape + " without a middle switch");
  }
  CU_ASSERT(pairs > 3000000);
}

}  // namespace

void RegisterMlidSuite() {
  CU_pSuite s = CU_add_suite("MLID unicast", nullptr, nullptr);
  CU_add_test(s, "LIDset(P(300)) = {52..55}", PaperLidSet);
  CU_add_test(s, "dual-port HCAs on two leaves each", DualPortHcasOnTwoLeaves);
  CU_add_test(s, "P(000..011) -> P(300): DLIDs 52..55, four tops", PaperPathSelectionToP300);
  CU_add_test(s, "DLID 36 and path Q port for port", PaperPathOfDlid36);
  CU_add_test(s, "different offsets share no up link inside a subtree", MlidPathsAreDisjoint);
  CU_add_test(s, "disjointness: a shared leaf up link is a violation", SharedLeafUpLinkIsCaught);
  CU_add_test(s, "paper mode, folded LMC: routes still reach every top", FoldedPaperModeSpreadsOverEveryTop);
  CU_add_test(s, "shared up links are caught", SharedUpLinksAreCaught);
  CU_add_test(s, "disjointness: the pair-by-pair reference's report", DisjointMatchesPairByPair);
  CU_add_test(s, "all pairs correct on many shapes", AllPairsCorrectOnManyShapes);
  CU_add_test(s, "rotation spreads base-LID traffic", RotationSpreadsBaseLidTraffic);
  CU_add_test(s, "selected paths ignore rotation", SelectedPathsIgnoreRotation);
  CU_add_test(s, "any even m: 36-port FT(36,2), FT(6,3), FT(10,3)", AnyEvenRadix);
  CU_add_test(s, "SLID baseline", SlidIsOneLidPerHost);
  CU_add_test(s, "folding is logged", FoldingIsLogged);
  CU_add_test(s, "mixed LMCs: per port, and said so", MixedLmcIsPerPort);
  CU_add_test(s, "a path digit wider than the LIDs: said, and the tables agree", DigitWiderThanLidsIsSaid);
  CU_add_test(s, "bad options are refused", BadOptionsAreRefused);
  CU_add_test(s, "path-selection map: round trip, bad lines", PathMapRoundTripAndErrors);
  CU_add_test(s, "default LMC: every path where the LIDs fit", DefaultLmcIsThePapers);
  CU_add_test(s, "SelectDlid: the digit walk's DLID for every pair", SelectDlidMatchesDigitWalk);
}

}  // namespace ibu::test
