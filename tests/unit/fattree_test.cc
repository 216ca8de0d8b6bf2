// FT(m,n) generator and recognition.
#include <regex>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/generate.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

long Pow(long b, int e) { return e == 0 ? 1 : b * Pow(b, e - 1); }

void GeneratorCounts() {
  const int sizes[][2] = {{4, 1}, {4, 2}, {4, 3}, {4, 4}, {8, 2}, {8, 3}, {16, 3}, {32, 2},
                          {6, 1}, {6, 3}, {12, 3}, {36, 2}, {40, 2}};
  for (const auto& mn : sizes) {
    const int m = mn[0], n = mn[1];
    Fabric f = MakeFatTree(m, n);
    CU_ASSERT_EQUAL(static_cast<long>(f.end_ports.size()), 2 * Pow(m / 2, n));
    CU_ASSERT_EQUAL(static_cast<long>(f.switches.size()), (2 * n - 1) * Pow(m / 2, n - 1));
  }
}

// "Port P of A leads to B port Q", by the generator's node names.
void AssertCable(const Fabric& f, const char* a, int pa, const char* b, int pb) {
  int s = SwitchNamed(f, a);
  CU_ASSERT_FATAL(s >= 0);
  const Peer& peer = f.switches[s].ports[pa];
  std::string name = peer.is_switch() ? f.switches[peer.index].name
                                      : peer.is_end_port() ? f.end_ports[peer.index].name : "";
  CU_ASSERT_EQUAL(name, b);
  CU_ASSERT_EQUAL(peer.port, pb);
}

void WiringRule() {
  Fabric f = MakeFatTree(4, 3);
  AssertCable(f, "SW<00,2>", 3, "SW<00,1>", 1);
  AssertCable(f, "SW<00,1>", 3, "SW<00,0>", 1);
  AssertCable(f, "SW<20,2>", 1, "P(200)", 1);
  // Seed 001's example path Q: SW<00,0> port 4 reaches SW<30,1> port 3.
  AssertCable(f, "SW<00,0>", 4, "SW<30,1>", 3);
  AssertCable(f, "SW<30,1>", 1, "SW<30,2>", 3);
}

void CanonicalLabelsAreThePapers() {
  // Any even m: 36- and 40-port switches (m/2 = 18, 20) are the usual ones.
  for (auto mn : {std::pair{4, 3}, {8, 3}, {4, 4}, {16, 2}, {4, 1}, {6, 3}, {6, 1}, {36, 2}, {10, 3}}) {
    Fabric f = MakeFatTree(mn.first, mn.second);
    FatTree t = RecognizeFatTree(f);
    CU_ASSERT_EQUAL(t.m, mn.first);
    CU_ASSERT_EQUAL(t.n, mn.second);
    for (size_t s = 0; s < f.switches.size(); ++s)
      CU_ASSERT_EQUAL(t.SwitchLabel(static_cast<int>(s)), f.switches[s].name);
    for (size_t e = 0; e < f.end_ports.size(); ++e) {
      CU_ASSERT_EQUAL(t.HostLabel(static_cast<int>(e)), f.end_ports[e].name);
      CU_ASSERT_EQUAL(t.pid[e], static_cast<int>(e));
    }
  }
}

// On shuffled cabling, labels may differ from the names but must be a
// consistent FT labelling: every cable obeys the wiring rule in label space.
void ShuffledLabelsObeyTheWiringRule() {
  for (auto [m, seed] : {std::pair{8, 1u}, {8, 2u}, {8, 3u}, {6, 4u}, {12, 5u}}) {
    Fabric f = MakeFatTree(m, 3);
    ShufflePorts(f, seed);
    FatTree t = RecognizeFatTree(f);
    const int k = t.k;
    for (size_t s = 0; s < f.switches.size(); ++s) {
      const int l = t.level[s];
      if (l == t.n - 1) continue;
      for (int x = 0; x < (l == 0 ? t.m : k); ++x) {
        const Peer& child = f.switches[s].ports[t.down_port[s][x]];
        CU_ASSERT_FATAL(child.is_switch());
        std::vector<int> want(t.w[s].begin(), t.w[s].begin() + l);
        want.push_back(x);
        want.insert(want.end(), t.w[s].begin() + l, t.w[s].end() - 1);
        CU_ASSERT(t.w[child.index] == want);
        // The child's up digit for this cable is our last digit.
        CU_ASSERT_EQUAL(t.up_port[child.index][t.w[s].back()], child.port);
      }
    }
  }
}

void RefusesWhatIsNotAFatTree() {
  // One extra cable between two leaves' free... there are none: swap a
  // host for a cross link instead.
  Fabric f = MakeFatTree(4, 3);
  int a = SwitchNamed(f, "SW<00,1>"), b = SwitchNamed(f, "SW<01,1>");
  // Re-cable SW<00,1> port 4 (up) to SW<01,1> port 4 (up): same level.
  f.switches[f.switches[a].ports[4].index].ports[f.switches[a].ports[4].port] = Peer{};
  f.switches[f.switches[b].ports[4].index].ports[f.switches[b].ports[4].port] = Peer{};
  ConnectSwitches(f, a, 4, b, 4);
  f.Finalize();
  std::string msg = ErrorOf([&] { RecognizeFatTree(f); });
  CU_ASSERT(Contains(msg, "not an m-port n-tree"));
  CU_ASSERT(Contains(msg, "port 4"));

  Fabric mesh = MakeMesh(4, 4);
  msg = ErrorOf([&] { RecognizeFatTree(mesh); });
  CU_ASSERT(Contains(msg, "not an m-port n-tree"));
  CU_ASSERT(Contains(msg, "switch N("));
}

// Swaps the far ends of the cables on switch `a` port `pa` and switch `b`
// port `pb`.
void SwapFarEnds(Fabric& f, int a, int pa, int b, int pb) {
  const Peer far_a = f.switches[a].ports[pa], far_b = f.switches[b].ports[pb];
  f.switches[far_a.index].ports[far_a.port] = Peer{};
  f.switches[far_b.index].ports[far_b.port] = Peer{};
  ConnectSwitches(f, a, pa, far_b.index, far_b.port);
  ConnectSwitches(f, b, pb, far_a.index, far_a.port);
  f.Finalize();
}

// Two cables swapped between pods: the subtrees of two middle switches
// overlap only in part. The port and both switches are named; the switch
// alone (port 0) was, with "another switch's subtrees". Swapped inside a
// pod, two cables join the same pair of switches: named as such.
void NamesBothSwitchesOfPartlySharedSubtrees() {
  Fabric f = MakeFatTree(4, 3);
  SwapFarEnds(f, SwitchNamed(f, "SW<00,2>"), 3, SwitchNamed(f, "SW<10,2>"), 3);
  std::string msg = ErrorOf([&] { RecognizeFatTree(f); });
  CU_ASSERT(std::regex_search(
      msg, std::regex("not an m-port n-tree: switch SW<[01]{2},1> [^:]*port [1-4]: leads to "
                      "switch SW<[01]{2},2> \\([^)]*\\), a subtree that switch SW<[01]{2},1> ")));
  CU_ASSERT(Contains(msg, "beside other subtrees than this switch's: the two share subtrees only in part"));

  Fabric g = MakeFatTree(4, 3);
  SwapFarEnds(g, SwitchNamed(g, "SW<00,1>"), 2, SwitchNamed(g, "SW<01,1>"), 1);
  msg = ErrorOf([&] { RecognizeFatTree(g); });
  CU_ASSERT(std::regex_search(
      msg, std::regex("not an m-port n-tree: switch SW<0[01],1> [^:]*port [12]: a second "
                      "cable to switch SW<0[01],2> \\([^)]*\\) \\(the first on port [12]\\)")));
  CU_ASSERT(!Contains(msg, "parts missing"));

  // Up cables of two pods crossed: every count is right, so the reason of
  // the labelling that tolerates missing parts ("too many links missing")
  // is not added: nothing is missing.
  Fabric h = MakeFatTree(4, 3);
  SwapFarEnds(h, SwitchNamed(h, "SW<00,1>"), 4, SwitchNamed(h, "SW<01,1>"), 3);
  msg = ErrorOf([&] { RecognizeFatTree(h); });
  CU_ASSERT(Contains(msg, "its parents are not the replicas one subtree needs"));
  CU_ASSERT(!Contains(msg, "parts missing"));
}

// A cable from a switch back to itself (a loopback plug, or two of its
// ports joined) is named as such by both recognisers; it was "link to a
// switch of level 0 from level 0", as if another top switch were cabled.
void NamesACableBackToItsOwnSwitch() {
  for (const auto& [port, peer_port] : {std::pair{1, 1}, {1, 2}}) {
    Fabric f = MakeFatTree(4, 2);
    const int top = SwitchNamed(f, "SW<0,0>");
    for (int p : {port, peer_port}) {
      const Peer leaf = f.switches[top].ports[p];
      f.switches[leaf.index].ports[leaf.port] = Peer{};
    }
    ConnectSwitches(f, top, port, top, peer_port);
    f.Finalize();
    const std::string want = "port " + std::to_string(port) + ": cabled back to its own switch (port " +
                             std::to_string(peer_port) + ")";
    const std::string msg = ErrorOf([&] { RecognizeFatTree(f); });
    CU_ASSERT(Contains(msg, "not an m-port n-tree: switch SW<0,0>"));
    CU_ASSERT(Contains(msg, want));
    CU_ASSERT(!Contains(msg, "link to a switch of level"));
    CU_ASSERT(msg.find(want) == msg.rfind(want));  // said once, not by both labellings
    CU_ASSERT(Contains(ErrorOf([&] { RecognizeDegradedFatTree(f); }), want));
  }
}

// A leaf cabled straight to a top switch (on spare ports) pulls that top
// switch down a level by distance, and its four correct cables then joined
// "level 1 from level 1": port 1 was blamed. The cable that skips a level
// is named. A loopback on a leaf counted as two switch links and blamed the
// leaf's host for sitting on a middle switch; the loopback is named.
void NamesTheCableThatSkipsALevel() {
  auto with_spare_ports = [](Fabric& f, std::initializer_list<int> switches, int ports) {
    for (int s : switches) {
      f.switches[s].num_ports = ports;
      f.switches[s].ports.resize(static_cast<size_t>(ports) + 1);
    }
  };
  {
    Fabric f = MakeFatTree(4, 3);
    const int leaf = SwitchNamed(f, "SW<00,2>"), top = SwitchNamed(f, "SW<00,0>");
    with_spare_ports(f, {leaf, top}, 5);
    ConnectSwitches(f, leaf, 5, top, 5);
    f.Finalize();
    const std::string msg = ErrorOf([&] { RecognizeFatTree(f); });
    CU_ASSERT(Contains(msg, "switch SW<00,0>"));
    CU_ASSERT(Contains(msg, "port 5: link to switch SW<00,2>"));
    CU_ASSERT(Contains(msg, "a cable that skips a level?"));
    CU_ASSERT(!Contains(msg, "port 1:"));
  }
  {
    Fabric f = MakeFatTree(4, 3);
    const int leaf = SwitchNamed(f, "SW<00,2>");
    with_spare_ports(f, {leaf}, 6);
    ConnectSwitches(f, leaf, 5, leaf, 6);
    f.Finalize();
    const std::string msg = ErrorOf([&] { RecognizeFatTree(f); });
    CU_ASSERT(Contains(msg, "switch SW<00,2>"));
    CU_ASSERT(Contains(msg, "port 5: cabled back to its own switch (port 6)"));
    CU_ASSERT(!Contains(msg, "hosts belong on leaves"));
  }
}

// A chain of 70 switches with two hosts at one end reads as FT(4,70) by
// its depth: refused for its size before any k^n is computed (2*2^70
// overflowed, UBSan's "signed integer overflow", and the degraded
// labelling said "FT(4,70) has 0" switches on level 0).
void RefusesADeepChainByItsSize() {
  std::string net;
  const int n = 70;
  for (int i = 0; i < n; ++i) {
    net += "switchguid=" + std::to_string(0x200000 + i) + "\nSwitch 4 \"S" + std::to_string(i) + "\"\n";
    if (i > 0) net += "[1] \"S" + std::to_string(i - 1) + "\"[2]\n";
    if (i < n - 1) net += "[2] \"S" + std::to_string(i + 1) + "\"[1]\n";
    else net += "[3] \"H0\"[1]\n[4] \"H1\"[1]\n";
    net += "\n";
  }
  net += "caguid=0x100000\nCa 1 \"H0\"\n[1] \"S69\"[3]\n\ncaguid=0x100002\nCa 1 \"H1\"\n[1] \"S69\"[4]\n";
  std::istringstream in(net);
  const Fabric f = ParseNetFile(in, "chain.net");
  const std::string msg = ErrorOf([&] { RecognizeFatTree(f); });
  CU_ASSERT(Contains(msg, "not an m-port n-tree"));
  CU_ASSERT(Contains(msg, "FT(4,70) has more than 49151 hosts (2*(m/2)^n), beyond the unicast LID space"));
  CU_ASSERT(!Contains(msg, "has 0"));
  CU_ASSERT(Contains(ErrorOf([&] { RecognizeDegradedFatTree(f); }), "FT(4,70) has more than 49151 hosts"));
  CU_ASSERT_EQUAL(FatTreeBeyondLids(2, 14), "");  // FT(4,14): 32768 hosts
  CU_ASSERT(Contains(FatTreeBeyondLids(2, 15), "FT(4,15) has more than"));
}

}  // namespace

void RegisterFatTreeSuite() {
  CU_pSuite s = CU_add_suite("fat-tree generator and recognition", nullptr, nullptr);
  CU_add_test(s, "two cables swapped between pods: port and both switches named",
              NamesBothSwitchesOfPartlySharedSubtrees);
  CU_add_test(s, "generator counts", GeneratorCounts);
  CU_add_test(s, "wiring rule spot checks", WiringRule);
  CU_add_test(s, "canonical labels are the paper's", CanonicalLabelsAreThePapers);
  CU_add_test(s, "shuffled labels obey the wiring rule", ShuffledLabelsObeyTheWiringRule);
  CU_add_test(s, "refuses what is not a fat-tree", RefusesWhatIsNotAFatTree);
  CU_add_test(s, "names a cable back to its own switch", NamesACableBackToItsOwnSwitch);
  CU_add_test(s, "names the cable that skips a level", NamesTheCableThatSkipsALevel);
  CU_add_test(s, "refuses a deep chain by its size, without overflow", RefusesADeepChainByItsSize);
}

}  // namespace ibu::test
