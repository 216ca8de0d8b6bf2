// Recognition of an m-port n-tree with links, hosts or whole switches
// missing. The complete-tree recogniser (fattree.cc) runs first; this one
// only sees fabrics it refused. It labels the switches so that every link
// left is a legal FT(m,n) link between the labels and no two switches share
// a label: the fabric is then provably an FT(m,n) minus some parts. Where
// the cabling left is not enough to tell the parts apart it refuses, naming
// the switch and what it could not tell.
//
// Cost: union-find and sorting over switches and links, O(links log links),
// plus O(links x m log m) once for the 4-cycles that place switches without
// hosts below them; the labelling six times (guesses x arities) per
// plausible top distance (a peak's, one nearer, or down to half the
// farthest peak's; at most 14 but the first: FT(4,15) is beyond the LIDs).
//
// Per top distance also at most 2 x 16 runs that pin doubtful switches
// below, one at a time (RecognizeDegradedFatTree).
#include <algorithm>
#include <climits>
#include <map>
#include <numeric>
#include <optional>
#include <set>

#include "plugin/core/error.h"
#include "plugin/core/int_math.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/fattree_labels.h"

namespace ibu {

namespace {

class UnionFind {
 public:
  explicit UnionFind(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Unite(int a, int b) {
    a = Find(a);
    b = Find(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<int> parent_;
};

// Where a switch without hosts goes when no 4-cycle fixes its level. One
// beyond the tops is placed below them, or left out (kLeaveOut). One with a
// single neighbour nearer the hosts, below the tops, is that neighbour's
// parent (kAbove), or if nothing farther climbs from it (a leaf on one
// link) its child (kBelow) or left out (kLeaveOut).
enum class Guess { kAbove, kBelow, kLeaveOut };
// m/2 is the largest degree seen per role (a degraded switch has fewer
// links, never more), or that rounded up to a power of two, in case every
// switch of the largest degree lost a link of its role.
enum class Arity { kSeen, kPowerOfTwo };

class DegradedRecognizer {
 public:
  // The distances depend on the fabric only: computed once here and shared
  // by the copies For() makes for each top distance and guess.
  explicit DegradedRecognizer(const Fabric& f) : f_(f), ns_(static_cast<int>(f.switches.size())) { Distances(); }

  // top_distance: the tops' distance from the nearest switch with hosts,
  // n-1 (see FindLevels); guess: see Guess.
  DegradedRecognizer For(int top_distance, Guess guess, Arity arity) const {
    DegradedRecognizer r(*this);
    r.top_ = top_distance, r.guess_ = guess, r.arity_ = arity;
    return r;
  }

  // The same run with `switches` placed below their one nearer neighbour
  // whatever guess_ says (see Doubtful).
  DegradedRecognizer PinnedBelow(const std::vector<int>& switches) const {
    DegradedRecognizer r(*this);
    r.pinned_.assign(ns_, 0);
    for (int s : switches) r.pinned_[s] = 1;
    return r;
  }

  // Switches without hosts that this run placed above their one nearer
  // neighbour, no 4-cycle confirming it, in switch order; at most
  // kMaxDoubtful, each tried in two runs (arities). Such a switch may be a
  // leaf whose hosts are down, hanging below that neighbour: Guess is one
  // flag for the whole run, and is not made at all where a farther
  // neighbour might climb from the switch. Placed above, it was an extra
  // top: a level-1 switch had k+1 up links, and FT(4,3) was read as
  // FT(6,3), FT(4,4) as FT(6,4) (37 of 44 wrong shapes in a probe of 2,450
  // random degradations). Read from the levels the run found (Run hands
  // them out before the labelling changes them): Doubtful.
  static constexpr size_t kMaxDoubtful = 16;

  // Distances at which peaks (switches whose neighbours are all one step
  // closer to the hosts, but for those without hosts below them, which
  // SameLevelClasses finds) sit, the most common first. Real tops are peaks at
  // n-1; a switch that lost every up link is a peak below them, one that
  // lost every down link a peak above. Tops are the most numerous. A
  // distance too deep for the LID space is kept only first, to be refused
  // with that reason. Nearer distances follow, where no peak sits: the tops
  // need not be peaks (a leaf without hosts hanging on a top by one link is
  // one step farther; when such leaves were the only peaks, FT(4,2) was
  // read as FT(4,3) or FT(8,3)), and the smallest tree that labels the
  // fabric wins anyway. One step nearer than each peak, then every
  // distance down to half the farthest peak's: a switch of an intact tree
  // is at most twice the tops' distance from the hosts (up to a top, down
  // to a leaf), and FT(4,3) with the hosts of six leaves down and two
  // links gone had its only peaks two steps beyond the tops (read as
  // FT(6,4)). No nearer: a chain of 70 switches is refused for its size,
  // not labelled FT(4,5) with 65 switches left out.
  std::vector<int> TopCandidates() const {
    std::map<int, int> count;
    for (int s = 0; s < ns_; ++s)
      if (IsPeak(s)) ++count[dist_[s]];
    std::vector<std::pair<int, int>> by_count;
    for (auto [d, c] : count) by_count.emplace_back(-c, -d);
    std::sort(by_count.begin(), by_count.end());
    std::vector<int> out;
    for (auto [c, d] : by_count)
      if (out.empty() || FatTreeBeyondLids(2, 1 - d).empty()) out.push_back(-d);
    if (out.empty()) throw Error("no top switch: no switch has only links toward the hosts");
    const int farthest = count.rbegin()->first;
    auto add_nearer = [&](int d) {  // FT(m, d + 1)
      if (d > 0 && !count.count(d) && std::find(out.begin(), out.end(), d) == out.end() &&
          FatTreeBeyondLids(2, d + 1).empty())
        out.push_back(d);
    };
    for (auto [c, minus_d] : by_count) add_nearer(-minus_d - 1);
    for (int d = farthest - 2; 2 * d >= farthest; --d) add_nearer(d);
    return out;
  }

  // Nothing when the arity rule gives the arity kSeen gave already.
  // `doubtful`, when given, gets Doubtful() once the levels are found
  // (nothing when FindLevels refuses), whatever the labelling says after.
  std::optional<FatTree> Run(std::vector<int>* doubtful = nullptr) {
    FindLevels();
    if (doubtful) *doubtful = Doubtful();
    if (!FindArity()) return std::nullopt;
    CheckLinks();
    FormBlocks();
    AssignPrefixes();
    AssignSuffixes();
    BuildPortMaps();
    LabelHostDigits(f_, t_);  // as for complete trees
    CountMissing();
    return std::move(t_);
  }

 private:
  // After FindLevels: see kMaxDoubtful.
  std::vector<int> Doubtful() const {
    std::vector<int> out;
    for (int s = 0; s < ns_ && out.size() < kMaxDoubtful; ++s)
      if (doubtful_[s] && !CutOff(s)) out.push_back(s);
    return out;
  }

  [[noreturn]] void Fail(int sw, int port, const std::string& rule) const {
    std::string where = port > 0 ? f_.PortLabel(sw, port) : f_.SwitchLabel(sw);
    throw Error(where + ": " + rule);
  }

  int HostCount(int s) const {
    int c = 0;
    for (const Peer& p : f_.switches[s].ports) c += p.is_end_port();
    return c;
  }

  // Ports of `s` toward level l+1 (delta +1, children) or l-1 (parents).
  std::vector<int> PortsToward(int s, int delta) const {
    return PortsTowardLevel(f_, t_, s, delta);
  }
  int Neighbour(int s, int port) const { return f_.switches[s].ports[port].index; }

  // Distances to the nearest switch with hosts, and the switches nearest
  // first (breadth-first order).
  void Distances() {
    dist_.assign(ns_, -1);
    order_.clear();
    for (int s = 0; s < ns_; ++s)
      if (HostCount(s) > 0) dist_[s] = 0, order_.push_back(s);
    if (order_.empty()) throw Error("no switch has hosts attached");
    for (size_t i = 0; i < order_.size(); ++i)
      for (const Peer& p : f_.switches[order_[i]].ports)
        if (p.is_switch() && dist_[p.index] < 0)
          dist_[p.index] = dist_[order_[i]] + 1, order_.push_back(p.index);
    for (int s = 0; s < ns_; ++s)
      if (dist_[s] < 0) Fail(s, 0, "not connected to any switch with hosts");
    SameLevelClasses();
  }

  // Neighbours of `s` one step nearer the hosts, in port order.
  std::vector<int> Nearer(int s) const {
    std::vector<int> out;
    for (const Peer& p : f_.switches[s].ports)
      if (p.is_switch() && dist_[p.index] == dist_[s] - 1) out.push_back(p.index);
    return out;
  }

  // Switches that share two neighbours sit at one level: in FT(m,n) a
  // 4-cycle joins two switches of one level to two of the next (a switch
  // above two siblings would link into their subtree twice), so opposite
  // corners share a level; the relation is transitive. A switch is never
  // nearer the hosts than its level allows (each link changes the level by
  // one), so the member of its class nearest the hosts shows the level of
  // all: a switch farther than that member has no hosts below it on the
  // short way down (a leaf whose hosts are down, a subtree without hosts,
  // one that lost its down links to the hosts), and the distances alone
  // would place it above the ones nearer the hosts, or make it a top.
  // Corners reached only sideways count as well as those below: a switch
  // whose one link toward the hosts goes up, and that shares its hostless
  // children with a replica, was taken for a top, and FT(4,4) read as
  // FT(8,4). twin_[s]: that nearest member when nearer than s, else -1.
  void SameLevelClasses() {
    UnionFind same_level(ns_);
    for (int s = 0; s < ns_; ++s) {
      std::map<int, int> seen;  // z -> the neighbour of s it was reached through
      for (const Peer& y : f_.switches[s].ports) {
        if (!y.is_switch() || y.index == s) continue;
        for (const Peer& z : f_.switches[y.index].ports) {
          if (!z.is_switch() || z.index == s || z.index == y.index) continue;
          auto [it, fresh] = seen.emplace(z.index, y.index);
          if (!fresh && it->second != y.index) same_level.Unite(s, z.index);
        }
      }
    }
    std::vector<int> nearest(ns_, -1);  // per class root; order_ is nearest first
    for (int s : order_)
      if (nearest[same_level.Find(s)] < 0) nearest[same_level.Find(s)] = s;
    twin_.assign(ns_, -1);
    for (int s = 0; s < ns_; ++s) {
      const int z = nearest[same_level.Find(s)];
      if (dist_[z] < dist_[s]) twin_[s] = z;
    }
  }

  bool IsPeak(int s) const {
    bool peak = HostCount(s) == 0 && twin_[s] < 0, has_switch = false;
    for (const Peer& p : f_.switches[s].ports)
      if (p.is_switch()) has_switch = true, peak = peak && (dist_[p.index] < dist_[s] || twin_[p.index] >= 0);
    return peak && has_switch;
  }

  // Levels, nearest the hosts first. A switch with hosts is a leaf, level
  // n-1; a switch that keeps a link down toward the hosts climbs one level
  // per link (distance n-1-level). A switch without hosts below it is found
  // by a 4-cycle (SameLevelClasses) or lies beyond the tops: from there the
  // levels descend again, so leaves whose hosts are down are leaves. A
  // switch with nothing below it (not a leaf, every down link lost, or
  // only to such switches) carries no host traffic (a route may not turn
  // upward again), so it is left out of the tree: level kCutOff while
  // labelling, -1 in the result, no ports in the maps.
  // The switches without hosts below them whose level no 4-cycle fixes go
  // where guess_ says, but those pinned below (PinnedBelow). With pins, a
  // switch whose nearer neighbours are two levels apart goes between them,
  // and one whose nearer neighbours are all leaves without hosts goes above
  // them, not below the leaves: the other parents of a leaf pinned below.
  static constexpr int kCutOff = -100;
  bool CutOff(int s) const { return t_.level[s] == kCutOff; }
  void FindLevels() {
    const int n = t_.n = top_ + 1;
    t_.level.assign(ns_, kCutOff);
    doubtful_.assign(ns_, 0);
    std::vector<char> descending(ns_, 0);
    const bool pins = !pinned_.empty();
    for (int s : order_) {
      std::vector<int> nearer = Nearer(s);
      const size_t nearer_in_fabric = nearer.size();  // left out or not
      nearer.erase(std::remove_if(nearer.begin(), nearer.end(), [&](int y) { return CutOff(y); }),
                   nearer.end());
      const int twin = twin_[s];
      const auto climbs = [&](int y) { return !descending[y] && t_.level[y] > 0; };
      const auto up = std::find_if(nearer.begin(), nearer.end(), climbs);
      int min_level = INT_MAX, max_level = INT_MIN;  // of the nearer ones; read only with pins
      if (pins)
        for (int y : nearer)
          min_level = std::min(min_level, t_.level[y]), max_level = std::max(max_level, t_.level[y]);
      const bool pinned = pins && pinned_[s];
      bool guessed = false;
      if (dist_[s] == 0) {
        t_.level[s] = n - 1;
      } else if (nearer.empty()) {
        continue;  // only reached through switches left out
      } else if (twin >= 0) {
        t_.level[s] = t_.level[twin], descending[s] = 1;
      } else if (pins && max_level - min_level == 2) {
        t_.level[s] = min_level + 1, descending[s] = 1;  // a child of one, a parent of the other
      } else if (up != nearer.end() && HostCount(s) == 0 &&
                 (pinned || (nearer_in_fabric == 1 && FartherOnesPlaced(s)))) {
        guessed = !pinned;  // its one nearer neighbour's parent, or its child without hosts?
        descending[s] = pinned || guess_ == Guess::kBelow;
        t_.level[s] = t_.level[*up] + (descending[s] ? 1 : -1);
      } else if (up != nearer.end()) {
        t_.level[s] = t_.level[*up] - 1;
      } else if (pins && min_level == n - 1) {
        t_.level[s] = n - 2;  // another parent of leaves pinned below
      } else {
        t_.level[s] = t_.level[nearer[0]] + 1, descending[s] = guessed = true;
      }
      if (guessed && guess_ == Guess::kLeaveOut) t_.level[s] = kCutOff;
      doubtful_[s] = up != nearer.end() && twin < 0 && HostCount(s) == 0 && nearer_in_fabric == 1 &&
                     t_.level[s] == t_.level[*up] - 1;  // placed above it
      if (t_.level[s] > n - 1) FailBelowLeaves(s);
    }
    LeaveOutSwitchesWithNothingBelow();
  }

  // Whether every neighbour of `s` farther from the hosts has its level
  // from a 4-cycle: then none climbs from `s`.
  bool FartherOnesPlaced(int s) const {
    for (const Peer& p : f_.switches[s].ports)
      if (p.is_switch() && dist_[p.index] > dist_[s] && twin_[p.index] < 0) return false;
    return true;
  }

  [[noreturn]] void FailBelowLeaves(int s) const {
    Fail(s, 0,
         "farther below the top switches than the leaves (" + std::to_string(t_.n - 1) +
             " links): cannot place it in FT(m," + std::to_string(t_.n) + ")");
  }

  // Bottom-up: a switch above the leaves none of whose children are left.
  void LeaveOutSwitchesWithNothingBelow() {
    for (int l = t_.n - 2; l >= 0; --l)
      for (int s = 0; s < ns_; ++s)
        if (t_.level[s] == l && PortsToward(s, +1).empty()) t_.level[s] = kCutOff;
  }

  // k = m/2 by arity_; false when rounding changes nothing.
  bool FindArity() {
    int k = 2, others = 2, widest = -1;  // others: the most any other switch needs
    std::string why;
    for (int s = 0; s < ns_; ++s) {
      if (CutOff(s)) continue;
      int up = 0, down = 0;
      for (const Peer& p : f_.switches[s].ports)
        if (p.is_switch() && !CutOff(p.index)) (t_.level[p.index] < t_.level[s] ? up : down)++;
      const int below = t_.level[s] == 0 ? (down + 1) / 2 : down;
      const int needs = std::max({HostCount(s), up, below});
      if (needs <= k) {
        others = std::max(others, needs);
        continue;
      }
      others = k, k = needs, widest = s;
      why = needs == HostCount(s) ? std::to_string(needs) + " hosts"
            : needs == up         ? std::to_string(up) + " up links"
                                  : std::to_string(down) + " down links";
    }
    if (arity_ == Arity::kPowerOfTwo) {
      if ((k & (k - 1)) == 0) return false;
      k = 1 << CeilLog2(k);
      others = 1 << CeilLog2(others);
    }
    t_.arity_note.clear();
    if (k > others && widest >= 0)
      t_.arity_note = "m = " + std::to_string(2 * k) + " because " + f_.switches[widest].name + " has " +
                      why + ", while every other switch fits m = " + std::to_string(2 * others);
    t_.k = k;
    t_.m = 2 * t_.k;
    if (t_.m > kMaxSwitchPorts) throw Error("m exceeds 254 ports");
    const std::string beyond = FatTreeBeyondLids(t_.k, t_.n);
    if (!beyond.empty()) throw Error(beyond);
    return true;
  }

  void CheckLinks() {
    const int n = t_.n, k = t_.k;
    std::vector<long> per_level(n, 0);
    for (int s = 0; s < ns_; ++s) {
      if (CutOff(s)) continue;
      const int l = t_.level[s];
      ++per_level[l];
      const Switch& sw = f_.switches[s];
      int up = 0, down = 0, hosts = 0;
      for (int p = 1; p <= sw.num_ports; ++p) {
        const Peer& peer = sw.ports[p];
        if (peer.is_end_port() && l != n - 1)
          Fail(s, p, "a host is cabled to a level-" + std::to_string(l) + " switch; hosts belong on leaves");
        if (!peer.is_switch()) {
          hosts += peer.is_end_port();
          continue;
        }
        if (CutOff(peer.index)) continue;
        if (const CableFault fault = LevelLinkFault(f_, t_.level, s, p); !fault.what.empty())
          Fail(fault.s, fault.p, fault.what);
        (t_.level[peer.index] < l ? up : down)++;
      }
      if (up > k || down > (l == 0 ? 2 * k : k) || hosts > k)
        Fail(s, 0, "too many links for a level-" + std::to_string(l) + " switch of FT(" +
                       std::to_string(t_.m) + "," + std::to_string(n) + ")");
    }
    for (int l = 0; l < n; ++l) {
      const long want = l == 0 ? IntPow(k, n - 1) : 2 * IntPow(k, n - 1);
      if (per_level[l] > want)
        throw Error("level " + std::to_string(l) + " has " + std::to_string(per_level[l]) +
                    " switches, FT(" + std::to_string(t_.m) + "," + std::to_string(n) +
                    ") has " + std::to_string(want));
    }
  }

  // Blocks (subtrees sharing a prefix), bottom-up: level-l switches that
  // reach a common child block are one block.
  void FormBlocks() {
    const int n = t_.n, k = t_.k;
    block_.assign(ns_, -1);
    for (int s = 0; s < ns_; ++s)
      if (t_.level[s] == n - 1) NewBlock(s, n - 1);
    for (int l = n - 2; l >= 0; --l) {
      UnionFind uf(ns_);
      std::map<int, int> first_parent;  // child block -> a level-l switch above it
      for (int c = 0; c < ns_; ++c) {
        if (t_.level[c] != l + 1) continue;
        for (int p : PortsToward(c, -1)) {
          auto [it, fresh] = first_parent.emplace(block_[c], Neighbour(c, p));
          if (!fresh) uf.Unite(it->second, Neighbour(c, p));
        }
      }
      std::map<int, int> block_of_root;
      for (int s = 0; s < ns_; ++s) {
        if (t_.level[s] != l) continue;
        const int root = uf.Find(s);
        auto it = block_of_root.find(root);
        if (it == block_of_root.end())
          block_of_root.emplace(root, NewBlock(s, l));
        else AddToBlock(s, it->second);
        std::set<int> children;
        for (int p : PortsToward(s, +1))
          if (!children.insert(block_[Neighbour(s, p)]).second)
            Fail(s, p, "two down links lead into the same subtree");
      }
      for (int b = 0; b < static_cast<int>(members_.size()); ++b) {
        if (level_of_block_[b] != l + 1) continue;
        auto it = first_parent.find(b);
        if (it == first_parent.end())
          Fail(members_[b][0], 0, "its subtree has lost every link upward; the tree fell apart");
        const int parent = block_[it->second];
        parent_block_[b] = parent;
        children_[parent].push_back(b);
      }
    }
    int roots = 0;
    for (int b = 0; b < static_cast<int>(members_.size()); ++b) {
      const int l = level_of_block_[b];
      if (l == 0) ++roots;
      if (static_cast<long>(members_[b].size()) > IntPow(k, n - 1 - l))
        Fail(members_[b][0], 0, "its subtree is shared by " + std::to_string(members_[b].size()) +
                                    " switches; FT(" + std::to_string(t_.m) + "," + std::to_string(n) +
                                    ") has at most " + std::to_string(IntPow(k, n - 1 - l)));
      if (l < n - 1 && static_cast<int>(children_[b].size()) > (l == 0 ? 2 * k : k))
        Fail(members_[b][0], 0,
             "its subtree has " + std::to_string(children_[b].size()) + " child subtrees, too many for FT(" +
                 std::to_string(t_.m) + "," + std::to_string(n) +
                 ") (the switches of a subtree that no longer share a subtree below them read "
                 "as several)");
    }
    if (roots != 1)
      throw Error("the top switches fall into " + std::to_string(roots) +
                  " groups with no subtree in common: too many links missing to tell one tree");
  }

  int NewBlock(int s, int l) {
    const int b = static_cast<int>(members_.size());
    members_.push_back({});
    level_of_block_.push_back(l);
    parent_block_.push_back(-1);
    children_.emplace_back();
    AddToBlock(s, b);
    return b;
  }
  void AddToBlock(int s, int b) {
    block_[s] = b;
    members_[b].push_back(s);
  }

  // Members in the order whose cabling decides digits: by GUID, as the
  // complete-tree recogniser does (its reference switch is the lowest GUID).
  std::vector<int> ByGuid(std::vector<int> v) const {
    std::sort(v.begin(), v.end(), [&](int a, int b) { return f_.switches[a].guid < f_.switches[b].guid; });
    return v;
  }

  // Whether switch s kept every link toward `delta` (-1 up, +1 down) that
  // FT(m,n) gives it.
  bool Intact(int s, int delta) const {
    const int want = delta < 0 ? t_.k : (t_.level[s] == 0 ? t_.m : t_.k);
    return static_cast<int>(PortsToward(s, delta).size()) == want;
  }

  // `v` with the switches that kept every link toward `delta` first, each
  // part in its order. Digits are handed out in a switch's port order: one
  // that lost a link ranks the ports after the gap one lower, and numbering
  // from it relabelled switches whose links were all there (the tops above
  // a cut, on FT(8,3) minus two cables 2,080 of 16,256 host pairs moved
  // routes that had lost nothing). An intact switch numbers as the complete
  // tree does wherever the cabling repeats the same port order.
  std::vector<int> IntactFirst(std::vector<int> v, int delta) const {
    std::stable_partition(v.begin(), v.end(), [&](int s) { return Intact(s, delta); });
    return v;
  }

  // Prefix digits top-down: a block's children are numbered in the port
  // order of its lowest-GUID member that kept all its down links (else of
  // its lowest-GUID member), then of the others for children that member
  // lost its link to.
  void AssignPrefixes() {
    prefix_.assign(members_.size(), {});
    for (int l = 0; l < t_.n - 1; ++l)
      for (int b = 0; b < static_cast<int>(members_.size()); ++b) {
        if (level_of_block_[b] != l) continue;
        int rank = 0;
        std::set<int> ranked;
        for (int s : IntactFirst(ByGuid(members_[b]), +1))
          for (int p : PortsToward(s, +1)) {
            const int child = block_[Neighbour(s, p)];
            if (!ranked.insert(child).second) continue;
            prefix_[child] = prefix_[b];
            prefix_[child].push_back(rank++);
          }
      }
  }

  // Suffix digits. Node S(s) stands for s's suffix, D(s) for that suffix
  // without its last digit, which is the suffix of each of s's children; a
  // link child c -> parent p says S(c) = D(p). Equal suffixes have equal
  // heads, so switches of one S class share one D class. Classes then get
  // digits bottom-up; the sibling classes above one class are numbered in
  // the up-port order of its members, those with all their up links first,
  // of them the ones above the lowest-GUID leaf first (as the complete-tree
  // recogniser climbs from that leaf).
  void AssignSuffixes() {
    const int n = t_.n;
    UnionFind uf(2 * ns_);
    auto S = [&](int s) { return uf.Find(s); };
    auto D = [&](int s) { return uf.Find(ns_ + s); };
    int leaf0 = -1;
    for (int s = 0; s < ns_; ++s)
      if (t_.level[s] == n - 1 && (leaf0 < 0 || f_.switches[s].guid < f_.switches[leaf0].guid))
        leaf0 = s;
    for (int s = 0; s < ns_; ++s)
      if (t_.level[s] == n - 1) uf.Unite(leaf0, s);  // every leaf's suffix is empty
    // A switch below the top without parents: no parent pins its label down.
    auto is_free = [&](int s) { return t_.level[s] > 0 && PortsToward(s, -1).empty(); };
    for (int l = 0; l < n - 1; ++l) {
      std::map<int, int> first_of_class;
      for (int s = 0; s < ns_; ++s) {
        if (t_.level[s] != l || l == 0) continue;
        auto [it, fresh] = first_of_class.emplace(S(s), s);
        if (!fresh) uf.Unite(ns_ + it->second, ns_ + s);
      }
      for (int c = 0; c < ns_; ++c)
        if (t_.level[c] == l + 1)
          for (int p : PortsToward(c, -1)) uf.Unite(c, ns_ + Neighbour(c, p));
    }
    // Blocks holding the lowest-GUID leaf's ancestors come first.
    std::vector<char> above_leaf0(members_.size(), 0);
    for (int b = block_[leaf0]; b >= 0; b = parent_block_[b]) above_leaf0[b] = 1;
    std::map<int, std::vector<int>> class_digits;  // class root -> suffix
    class_digits[S(leaf0)] = {};
    suffix_.assign(ns_, {});
    std::set<std::pair<int, std::vector<int>>> used;  // (block, suffix)
    for (int l = n - 2; l >= 0; --l) {
      std::vector<int> below;
      for (int c = 0; c < ns_; ++c)
        if (t_.level[c] == l + 1) below.push_back(c);
      below = ByGuid(below);
      std::stable_partition(below.begin(), below.end(), [&](int c) { return above_leaf0[block_[c]]; });
      below = IntactFirst(below, -1);
      std::map<int, int> next_digit;  // class of the children -> digits handed out
      std::vector<int> free_switches;
      for (int c : below)
        for (int p : PortsToward(c, -1)) {
          const int s = Neighbour(c, p);
          if (is_free(s) || class_digits.count(S(s))) continue;
          const int head = D(s);
          int& digit = next_digit[head];
          if (digit >= t_.k)
            Fail(s, 0, "more than m/2 replica groups above one subtree: too many links missing "
                       "to tell the replicas apart");
          std::vector<int> digits = class_digits.at(head);
          digits.push_back(digit++);
          class_digits[S(s)] = digits;
        }
      for (int s = 0; s < ns_; ++s) {
        if (t_.level[s] != l) continue;
        if (is_free(s)) {
          free_switches.push_back(s);
          continue;
        }
        suffix_[s] = class_digits.at(S(s));
        if (!used.emplace(block_[s], suffix_[s]).second)
          Fail(s, 0, "two switches of one subtree get the same label: too many links missing "
                     "to tell them apart");
      }
      for (int s : ByGuid(free_switches)) LabelFreeSwitch(s, class_digits.at(D(s)), used);
    }
    t_.w.assign(ns_, {});
    for (int s = 0; s < ns_; ++s) {
      if (CutOff(s)) continue;
      t_.w[s] = prefix_[block_[s]];
      t_.w[s].insert(t_.w[s].end(), suffix_[s].begin(), suffix_[s].end());
    }
  }

  // A switch without parents takes the lowest last digit not taken in its
  // subtree: nothing above it depends on which.
  void LabelFreeSwitch(int s, const std::vector<int>& head,
                       std::set<std::pair<int, std::vector<int>>>& used) {
    for (int j = 0; j < t_.k; ++j) {
      std::vector<int> digits = head;
      digits.push_back(j);
      if (used.emplace(block_[s], digits).second) {
        suffix_[s] = digits;
        return;
      }
    }
    Fail(s, 0, "no label left for it in its subtree");
  }

  // Port maps with 0 where the cable is gone; every link left must join a
  // child to a parent whose labels FT(m,n) cables together.
  void BuildPortMaps() {
    t_.down_port.assign(ns_, {});
    t_.up_port.assign(ns_, {});
    for (int s = 0; s < ns_; ++s) {
      const int l = t_.level[s];
      if (l < t_.n - 1) {
        t_.down_port[s].assign(l == 0 ? t_.m : t_.k, 0);
        for (int p : PortsToward(s, +1)) t_.down_port[s][prefix_[block_[Neighbour(s, p)]][l]] = p;
      }
      if (l == 0) continue;
      t_.up_port[s].assign(t_.k, 0);
      for (int p : PortsToward(s, -1)) {
        const std::vector<int>& parent = suffix_[Neighbour(s, p)];
        if (!std::equal(suffix_[s].begin(), suffix_[s].end(), parent.begin()))
          Fail(s, p, "its parent's label does not extend its own (cabling breaks the m-port n-tree rule)");
        int& slot = t_.up_port[s][parent.back()];
        if (slot) Fail(s, p, "two up links lead to replicas with the same digit");
        slot = p;
      }
    }
  }

  void CountMissing() {
    const int n = t_.n, k = t_.k;
    FatTree::Missing& m = t_.missing;
    m.total_switches = (2L * n - 1) * IntPow(k, n - 1);
    m.total_links = 2L * (n - 1) * IntPow(k, n);
    m.total_hosts = 2 * IntPow(k, n);
    long links = 0, hosts = 0;
    // Each cable once, by switch index: by level, a cable between two
    // switches left out (both kCutOff) went uncounted, as if missing.
    for (int s = 0; s < ns_; ++s)
      for (const Peer& p : f_.switches[s].ports) {
        links += p.is_switch() && p.index > s;
        hosts += p.is_end_port();
      }
    for (int s = 0; s < ns_; ++s)
      if (CutOff(s)) ++m.cut_off, t_.level[s] = -1;
    // Switches left out are still there: a tree too small to hold them all
    // is not the one they are missing from.
    if (ns_ > m.total_switches || links > m.total_links)
      throw Error(std::to_string(ns_) + " switches and " + std::to_string(links) +
                  " switch links, more than FT(" + std::to_string(t_.m) + "," + std::to_string(n) +
                  ") has (" + std::to_string(m.total_switches) + " and " + std::to_string(m.total_links) +
                  ")");
    m.switches = m.total_switches - ns_;
    m.links = m.total_links - links;
    m.hosts = m.total_hosts - hosts;
    t_.degraded = true;
  }

  const Fabric& f_;
  const int ns_;
  int top_ = -1;
  Guess guess_ = Guess::kAbove;
  Arity arity_ = Arity::kSeen;
  std::vector<int> dist_;  // per switch: links to the nearest switch with hosts
  std::vector<int> order_;  // switches by dist_
  std::vector<int> twin_;   // per switch: SameLevelClasses
  std::vector<char> pinned_;    // per switch, or empty: PinnedBelow
  std::vector<char> doubtful_;  // per switch: see kMaxDoubtful
  FatTree t_;
  std::vector<int> block_;  // per switch
  std::vector<std::vector<int>> members_;  // per block
  std::vector<int> level_of_block_;
  std::vector<int> parent_block_;
  std::vector<std::vector<int>> children_;
  std::vector<std::vector<int>> prefix_;  // per block
  std::vector<std::vector<int>> suffix_;  // per switch
};

using TreeSize = std::pair<long, long>;  // hosts and switches of the complete FT(m,n)

// Per-switch guesses for one top distance: pins the doubtful switches of
// the kLeaveOut run (`doubtful`, from its Run) below one at a time,
// keeping each pin after which the fabric is still labelled by a tree no
// larger than before (`size`: the kLeaveOut run's, nothing if it refused),
// so that several extra tops go together. `run(r)` runs `r` and returns
// its tree's size.
template <typename RunFn>
void PinDoubtfulOneByOne(const DegradedRecognizer& recognizer, int top, const std::vector<int>& doubtful,
                         std::optional<TreeSize> size, RunFn& run) {
  std::vector<int> pinned;
  for (int s : doubtful) {
    pinned.push_back(s);
    const std::optional<TreeSize> got =
        run(recognizer.For(top, Guess::kLeaveOut, Arity::kSeen).PinnedBelow(pinned));
    run(recognizer.For(top, Guess::kLeaveOut, Arity::kPowerOfTwo).PinnedBelow(pinned));
    if (got && (!size || *got <= *size)) {
      size = got;
    } else {
      pinned.pop_back();  // refused, or a larger tree
    }
  }
}

}  // namespace

// Tries each plausible top distance, guess and arity, and keeps the smallest
// FT(m,n) that labels the fabric (the first of equals): the tree that
// needs the fewest parts missing. A leaf without hosts hanging on one link
// read as a top made a larger tree of which almost everything was missing
// (FT(4,2) as FT(8,3)). Reports the first candidate's refusal when none
// labels the fabric.
FatTree RecognizeDegradedFatTree(const Fabric& f) {
  // With no switch above the leaf, the search for tops said "no switch has
  // only links toward the hosts" of a switch that has nothing else.
  if (f.switches.size() == 1)
    throw Error("a single switch is labelled only whole, with m hosts (any engine routes one switch alike)");
  std::string first_error;
  std::optional<FatTree> best;
  auto size = [](const FatTree& t) { return TreeSize{t.missing.total_hosts, t.missing.total_switches}; };
  // Nothing when `r` refuses or its arity rule changes nothing;
  // `doubtful`: see Run.
  auto run = [&](DegradedRecognizer r, std::vector<int>* doubtful = nullptr) -> std::optional<TreeSize> {
    try {
      std::optional<FatTree> t = r.Run(doubtful);
      if (!t) return std::nullopt;
      const TreeSize got = size(*t);
      if (!best || got < size(*best)) best = std::move(t);
      return got;
    } catch (const Error& e) {
      if (first_error.empty()) first_error = e.what();
      return std::nullopt;
    }
  };
  const DegradedRecognizer recognizer(f);
  for (int top : recognizer.TopCandidates()) {
    std::optional<TreeSize> left_out;
    std::vector<int> doubtful;  // the kLeaveOut run's, for the pins
    for (Guess guess : {Guess::kAbove, Guess::kBelow, Guess::kLeaveOut})
      for (Arity arity : {Arity::kSeen, Arity::kPowerOfTwo}) {
        const bool leave_out = guess == Guess::kLeaveOut && arity == Arity::kSeen;
        const std::optional<TreeSize> got =
            run(recognizer.For(top, guess, arity), leave_out ? &doubtful : nullptr);
        if (leave_out) left_out = got;
      }
    PinDoubtfulOneByOne(recognizer, top, doubtful, left_out, run);
  }
  if (!best) throw Error(first_error);
  return std::move(*best);
}

std::string FatTree::DegradedSummary() const {
  const std::string shape = "FT(" + std::to_string(m) + "," + std::to_string(n) + ")";
  if (!degraded) return shape + " complete";
  std::string out = "degraded " + shape + ": " + std::to_string(missing.links) + " of " +
                    std::to_string(missing.total_links) + " switch links, " +
                    std::to_string(missing.switches) + " of " + std::to_string(missing.total_switches) +
                    " switches and " + std::to_string(missing.hosts) + " of " +
                    std::to_string(missing.total_hosts) + " hosts missing";
  if (missing.cut_off)
    out += ", " + std::to_string(missing.cut_off) + " switch(es) with no host below them left out";
  if (!arity_note.empty()) out += " (" + arity_note + ")";
  return out;
}

std::vector<int> FatTree::ParentDigits(int sw, int j) const {
  // SW<w,l> cables down digit x to SW<w_0..w_{l-1}, x, w_l..w_{n-3}, l+1>
  // on the child's up digit w_{n-2}: the child drops digit l, appends j.
  const int parent_level = level[sw] - 1;
  std::vector<int> up(w[sw].begin(), w[sw].begin() + parent_level);
  up.insert(up.end(), w[sw].begin() + parent_level + 1, w[sw].end());
  up.push_back(j);
  return up;
}

namespace {

// "kind A, B, C and N more" for at most `max` names.
void AppendList(std::string& out, const char* kind, const std::vector<std::string>& names, size_t max) {
  if (names.empty()) return;
  if (!out.empty()) out += "; ";
  out += kind;
  for (size_t i = 0; i < names.size() && i < max; ++i) out += (i ? ", " : " ") + names[i];
  if (names.size() > max) out += " and " + std::to_string(names.size() - max) + " more";
}

}  // namespace

FatTree::MissingLabels FatTree::MissingPartLabels() const {
  MissingLabels out;
  if (!degraded || n < 2) return out;
  // Per level, the switch at each label's place in FT(m,n)'s order (-1:
  // none has that label).
  const auto first_radix = [this](int l) { return l == 0 ? k : m; };
  std::vector<std::vector<int>> at(static_cast<size_t>(n));
  for (int l = 0; l < n; ++l) at[l].assign(static_cast<size_t>((l == 0 ? 1 : 2) * IntPow(k, n - 1)), -1);
  const auto switch_at = [&](const std::vector<int>& digits, int l) {
    const long i = LabelIndex(digits, first_radix(l), k);
    return i >= 0 && i < static_cast<long>(at[l].size()) ? at[l][i] : -1;
  };
  for (size_t s = 0; s < w.size(); ++s)
    if (level[s] >= 0) at[level[s]][LabelIndex(w[s], first_radix(level[s]), k)] = static_cast<int>(s);
  std::vector<std::string>& links = out.links;
  std::vector<std::string>& switches = out.switches;
  std::vector<std::string>& hosts = out.hosts;
  for (size_t s = 0; s < w.size(); ++s) {
    const int l = level[s];
    if (l > 0)
      for (int j = 0; j < k; ++j) {
        if (up_port[s][j]) continue;
        const int parent = switch_at(ParentDigits(static_cast<int>(s), j), l - 1);
        if (parent >= 0) links.push_back(SwitchLabel(static_cast<int>(s)) + "-" + SwitchLabel(parent));
      }
    // A leaf's hosts take its first digits in port order (LabelHostDigits):
    // those missing are its last.
    if (l == n - 1)
      for (int x = static_cast<int>(down_port[s].size()); x < k; ++x) {
        std::vector<int> digits = w[s];
        digits.push_back(x);
        hosts.push_back(HostLabelText(digits, m));
      }
  }
  for (int l = 0; l < n; ++l)
    for (size_t i = 0; i < at[l].size(); ++i)
      if (at[l][i] < 0)
        switches.push_back(SwitchLabelText(LabelDigits(long(i), n - 1, first_radix(l), k), l, m));
  return out;
}

std::string FatTree::MissingParts(size_t max) const {
  const MissingLabels parts = MissingPartLabels();
  std::string out;
  AppendList(out, "links", parts.links, max);
  // A switch left out (cut_off: no place in the tree) holds no label either.
  AppendList(out, missing.cut_off ? "switches missing or left out" : "switches", parts.switches, max);
  AppendList(out, "hosts", parts.hosts, max);
  // Hosts below a switch that is missing have no label to list: counted,
  // so the list adds up to DegradedSummary's count.
  const long unlisted = missing.hosts - static_cast<long>(parts.hosts.size());
  if (unlisted > 0)
    out += std::string(out.empty() ? "" : "; ") + std::to_string(unlisted) +
           (parts.hosts.empty() ? "" : " more") +
           (missing.cut_off ? " hosts below the switches missing or left out"
                            : " hosts below the switches missing");
  return out;
}

}  // namespace ibu
