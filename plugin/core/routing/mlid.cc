#include "plugin/core/routing/mlid.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "plugin/core/error.h"
#include "plugin/core/int_math.h"
#include "plugin/core/netfile.h"

namespace ibu {

int MlidDefaultLmc(const Fabric& f) {
  return std::max(0, LargestFittingLmc(f, CeilLog2(RecognizeFatTree(f).paths())));
}

int DefaultLmc(const Fabric& f) {
  try {
    return MlidDefaultLmc(f);
  } catch (const Error&) {
    return 0;  // no fat-tree: an engine that needs one says so when it routes
  }
}

MlidRouter::MlidRouter(const Fabric& f, FatTree tree, MlidOptions opt)
    : f_(f), tree_(std::move(tree)), opt_(opt), k_power_of_two_((tree_.k & (tree_.k - 1)) == 0) {
  for (int e = 0; e <= tree_.n; ++e) place_.push_back(IntPow(tree_.k, e));
  const long paths = tree_.paths();
  for (int lmc = 0; lmc <= kMaxLmc; ++lmc) {
    const long within = std::min(1L << lmc, paths);
    long m = 1;
    while (m * tree_.k <= within) m *= tree_.k;
    selectable_[lmc] = k_power_of_two_ ? within : m;
  }
  if (!k_power_of_two_ || opt_.single_lid) return;  // SelectDlid reads no keys
  // A bit in p_0's field keeps all of p_1..p_{n-1} for the rank; one in
  // p_{n-1}'s keeps none.
  const int bits = CeilLog2(tree_.k), low = (tree_.n - 1) * bits;
  for (int h = 0; h < 32; ++h) rank_mask_[h] = (1u << (h < low ? h / bits * bits : low)) - 1;
  keys_.resize(f_.end_ports.size());
  for (size_t e = 0; e < f_.end_ports.size(); ++e) {
    const EndPort& ep = f_.end_ports[e];
    DlidKey& key = keys_[e];
    for (int digit : tree_.p[e]) key.digits = (key.digits << bits) | static_cast<uint32_t>(digit);
    key.base_lid = ep.base_lid;
    key.mask = static_cast<uint8_t>(ep.lid_count() - 1);
    key.minus_pid = static_cast<uint8_t>(opt_.rotate ? -tree_.pid[e] & key.mask : 0);
  }
}

long MlidRouter::PathIndex(int ep, int offset) const {
  const long paths = tree_.paths();
  const long pid = tree_.pid[ep];
  if (opt_.single_lid) return pid % paths;
  if (opt_.rotate) return (offset + pid) % paths;
  // Paper mode: the offset picks the low digits, and where the LIDs are
  // fewer than the paths (folded) the destination the rest, so the missing
  // LIDs still spread over all top switches.
  const long m = selectable_[f_.end_ports[ep].lmc];
  return offset % m + m * (pid % (paths / m));
}

Lid MlidRouter::SelectDlid(int src, int dst) const {
  if (opt_.single_lid || src == dst) return f_.end_ports[dst].base_lid;
  // s's path index: its rank inside the level-(a+1) subtree, a being the
  // first digit where s and d differ (at most n-1).
  // With rotation the tables add PID(d) to the offset; choosing
  // rank - PID(d) undoes it, so sources that select follow the paper's path
  // (rank) exactly, while base-LID users still get the rotated spread.
  // (docs/results.md: +20% saturation throughput on FT(8,3), 1 VL.) The
  // offset only has to be right modulo the selectable LIDs, whose path
  // indices then keep rank's low digits (PathIndex). The timing model asks
  // once per message: when k is a power of two, so are the LIDs and the
  // paths, one divides the other, and the modulo is a mask over the LIDs
  // (two's complement keeps it right for a negative difference, so -PID(d)
  // is masked once, at construction). The digits are then bit fields of
  // one key per end port: a's field holds the highest bit in which the
  // keys differ, and rank is s's key below that field.
  if (k_power_of_two_) [[likely]] {
    const DlidKey& s = keys_[src];
    const DlidKey& d = keys_[dst];
    const int high = 31 - __builtin_clz((s.digits ^ d.digits) | 1);  // no difference: rank 0
    const uint32_t rank = s.digits & rank_mask_[high];
    return static_cast<Lid>(d.base_lid + ((rank + d.minus_pid) & d.mask));
  }
  const EndPort& d = f_.end_ports[dst];
  const std::vector<int>& s = tree_.p[src];
  const std::vector<int>& t = tree_.p[dst];
  int a = 0;
  while (a < tree_.n - 1 && s[a] == t[a]) ++a;
  long rank = 0;
  for (int i = a + 1; i < tree_.n; ++i) rank = rank * tree_.k + s[i];
  const long want = opt_.rotate ? rank - tree_.pid[dst] : rank;
  const long m = selectable_[d.lmc];
  return static_cast<Lid>(d.base_lid + (want % m + m) % m);
}

std::vector<std::string> MlidRouter::Notes() const {
  std::vector<std::string> notes;
  const long paths = tree_.paths();
  // End ports by LMC: the count and the first. Each port gets the paths its
  // own LIDs give (PathIndex, SelectDlid); a guid2lid file may give ports
  // different LMCs.
  std::map<int, std::pair<long, int>> by_lmc;
  for (size_t e = 0; e < f_.end_ports.size(); ++e) {
    auto& [count, first] = by_lmc.try_emplace(f_.end_ports[e].lmc, 0L, static_cast<int>(e)).first->second;
    ++count;
  }
  const int min_lmc = by_lmc.empty() ? 0 : by_lmc.begin()->first;
  const int want = CeilLog2(paths);
  std::string shape = "FT(" + std::to_string(tree_.m) + "," + std::to_string(tree_.n) + ")";
  if (opt_.single_lid) {
    notes.push_back(shape + ": SLID, one path per destination (D-mod-K spreading)");
  } else if (by_lmc.size() > 1) {
    // One LMC for all would be the smallest's: "LMC is 0, so 1 path is
    // selectable" said of a fabric where most ports have their paths.
    std::string list;
    for (const auto& [lmc, ports] : by_lmc)
      list += (list.empty() ? "" : ", ") + std::string("LMC ") + std::to_string(lmc) + " on " +
              std::to_string(ports.first) +
              (!list.empty() ? "" : ports.first == 1 ? " end port" : " end ports") +
              (ports.first == 1 ? " (" : " (first ") + f_.end_ports[ports.second].name + ")";
    notes.push_back(shape + " has " + std::to_string(paths) + " paths per pair (LMC " + std::to_string(want) +
                    " wanted); the end ports' LMCs differ: " + list +
                    "; each port gets 2^LMC selectable paths" +
                    (min_lmc < want ? ", and toward a port with fewer LIDs than paths the remaining path digits "
                                      "are folded onto the destination"
                                    : ""));
  } else if (min_lmc < want) {
    // With m/2 no power of two a digit may not fit in the LIDs (FT(24,3):
    // 12 values, 8 LIDs at LMC 3): selection by digit then uses fewer LIDs
    // than there are, while rotation still gives each LID its own path
    // ("1 path is selectable" read as if the LIDs all took one path).
    const long lids = 1L << min_lmc, digit = selectable_[min_lmc];
    const std::string unused =
        digit == lids
            ? ""
            : " (a path digit takes " + std::to_string(tree_.k) + " values, a port has " +
                  std::to_string(lids) + " LIDs; " +
                  (opt_.rotate ? "with rotation the " + std::to_string(lids) + " LIDs still lead over " +
                                     std::to_string(lids) + " different paths)"
                   : lids - digit == 1 ? std::string("its other LID repeats one of them)")
                                       : "its other " + std::to_string(lids - digit) + " LIDs repeat " +
                                             (digit == 1 ? "that path)" : "those paths)"));
    notes.push_back(shape + " has " + std::to_string(paths) + " paths per pair (LMC " + std::to_string(want) +
                    " wanted); LMC is " + std::to_string(min_lmc) + ", so " + std::to_string(digit) +
                    (digit == 1 ? " path is" : " paths are") + " selectable by path digit" + unused +
                    " and the remaining path digits are folded onto the destination" +
                    (want > 7 ? " (LMC is at most 7)" : ""));
  } else {
    // More LIDs than paths: m/2 no power of two (2^LMC cannot match the
    // paths exactly), or an LMC above the tree's (FT(4,3) at LMC 7: 124 of
    // a port's 128 LIDs repeat its 4 paths, which the note left unsaid).
    const long spare = (1L << min_lmc) - paths;
    notes.push_back(shape + ": " + std::to_string(paths) + " selectable paths per pair (LMC " +
                    std::to_string(min_lmc) + ")" +
                    (spare > 0 ? "; the " + std::to_string(spare) + " LIDs beyond them repeat paths" : ""));
  }
  // slid's one LID per host takes no path index: rotation moves only its
  // multicast trees' roots (slid_rotate changes the MFTs, never the LFTs).
  if (opt_.single_lid)
    notes.push_back(std::string("multicast roots rotated by MLID: ") +
                    (opt_.rotate ? "on" : "off (the paper's anchor rule)") +
                    "; unicast is D-mod-K either way");
  else
    notes.push_back(std::string("path index rotation ") + (opt_.rotate ? "on" : "off (paper mode)"));
  return notes;
}

void MlidRouter::Route(Tables& t) const {
  t.Resize(f_);
  const LidPlan plan = MakeLidPlan();
  if (tree_.degraded) return RouteDegraded(t, plan);
  for (size_t s = 0; s < f_.switches.size(); ++s) RouteSwitch(static_cast<int>(s), plan, t.lft[s]);
}

// Per-LID facts every switch needs, computed once: O(levels x LIDs).
MlidRouter::LidPlan MlidRouter::MakeLidPlan() const {
  LidPlan plan;
  plan.lids = f_.max_lid() + 1;
  plan.pid.assign(plan.lids, -1);
  plan.down_digit.assign(tree_.n * plan.lids, 0);
  plan.up_digit.assign(tree_.n * plan.lids, 0);
  for (size_t e = 0; e < f_.end_ports.size(); ++e) {
    const EndPort& ep = f_.end_ports[e];
    if (ep.base_lid == 0) continue;
    const long pid = tree_.pid[e];
    for (int j = 0; j < ep.lid_count(); ++j) {
      const size_t lid = ep.base_lid + j;
      const long path = PathIndex(static_cast<int>(e), j);
      plan.pid[lid] = static_cast<int32_t>(pid);
      for (int l = 0; l < tree_.n; ++l) {
        const long place = place_[tree_.n - 1 - l];
        const long down_radix = l == 0 ? 2L * tree_.k : tree_.k;  // at most 254
        plan.down_digit[l * plan.lids + lid] = static_cast<uint8_t>(pid / place % down_radix);
        plan.up_digit[l * plan.lids + lid] = static_cast<uint8_t>(path / place % tree_.k);
      }
    }
  }
  return plan;
}

// One switch's LFT: host LIDs by equations (1) and (2) of seed 001 (digits
// taken from the recognised labels and port maps, so any cabling works),
// then switch LIDs. Cost O(LIDs) per switch, O(switches x LIDs) in all: the
// size of the tables themselves.
void MlidRouter::RouteSwitch(int s, const LidPlan& plan, Lft& lft) const {
  const Lid max_lid = f_.max_lid();
  lft.out.assign(max_lid + 1, kNoPort);
  const int l = tree_.level[s];
  const int n = tree_.n;
  const int k = tree_.k;
  // Hosts below SW<w,l> are the PID range with digits p_0..p_{l-1} = w_0..w_{l-1}.
  long lo = 0;
  for (int i = 0; i < l; ++i) lo += tree_.w[s][i] * IntPow(k, n - 1 - i);
  const long hi = l == 0 ? 2 * IntPow(k, n) : lo + IntPow(k, n - l);
  const int* down = tree_.down_port[s].data();
  const int* up = tree_.up_port[s].data();
  const int32_t* pid = plan.pid.data();
  const uint8_t* down_digit = plan.down_digit.data() + size_t(l) * plan.lids;
  const uint8_t* up_digit = plan.up_digit.data() + size_t(l) * plan.lids;
  uint8_t* out = lft.out.data();
  for (Lid lid = 1; lid <= max_lid; ++lid) {
    const long p = pid[lid];
    if (p < 0) continue;
    out[lid] = static_cast<uint8_t>(p >= lo && p < hi ? down[down_digit[lid]] : up[up_digit[lid]]);
  }
  for (size_t x = 0; x < f_.switches.size(); ++x) {
    const Switch& target = f_.switches[x];
    if (target.lid == 0) continue;
    const uint8_t port = static_cast<uint8_t>(SwitchLidPort(s, static_cast<int>(x)));
    for (int j = 0; j < (1 << target.lmc); ++j) out[target.lid + j] = port;
  }
}

// Route toward switch `target` from switch `x`: down if the target is in
// x's subtree, up along the target's suffix digits if some ancestor has it
// below, otherwise down to any leaf (whose ancestors reach everything). The
// last case only serves packets that x itself originates (management).
// Free up digits come from the target's LID, so the tables do not depend
// on the order in which switches were discovered.
int MlidRouter::SwitchLidPort(int x, int target) const {
  if (x == target) return 0;
  const int n = tree_.n;
  const int lx = tree_.level[x], lt = tree_.level[target];
  const std::vector<int>& wx = tree_.w[x];
  const std::vector<int>& wt = tree_.w[target];
  // Suffix of a level-l switch: w_l..w_{n-2}; descending drops its last digit.
  const int sx = n - 1 - lx, st = n - 1 - lt;
  bool prefix_match = lx < lt;
  for (int i = 0; prefix_match && i < lx; ++i) prefix_match = wx[i] == wt[i];
  bool suffix_match = true;
  for (int i = 0; suffix_match && i < std::min(sx, st); ++i) suffix_match = wx[lx + i] == wt[lt + i];
  if (prefix_match && suffix_match) return tree_.down_port[x][wt[lx]];
  if (suffix_match && lx > 0) {
    const int digit = sx < st ? wt[lt + sx] : Digit(f_.switches[target].lid, lx - 1);
    return tree_.up_port[x][digit];
  }
  return tree_.down_port[x][0];
}

namespace {

// Switch masks of a multicast tree: an edge sets the port at both ends.
class TreeMasks {
 public:
  explicit TreeMasks(const Fabric& f) : f_(f) {}
  void AddEdge(int sw, int port) {
    masks_[sw].set(port);
    const Peer& peer = f_.switches[sw].ports[port];
    if (peer.is_switch()) masks_[peer.index].set(peer.port);
  }
  void AddSwitch(int sw) { masks_[sw]; }
  void AddPortZero(int sw) { masks_[sw].set(0); }  // the switch's own copy
  std::vector<std::pair<int, PortMask>> BySwitch() const {
    std::vector<std::pair<int, PortMask>> out(masks_.begin(), masks_.end());
    std::sort(out.begin(), out.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
    return out;
  }

 private:
  const Fabric& f_;
  std::unordered_map<int, PortMask> masks_;
};

}  // namespace

void MlidRouter::CheckMembers(const McastGroup& g) const {
  if (g.members.empty()) throw Error("multicast group " + HexLid(g.mlid) + " has no members");
  for (int m : g.members)
    if (m < 0 || m >= static_cast<int>(f_.end_ports.size()))
      throw Error("multicast group " + HexLid(g.mlid) + ": member index " +
                  std::to_string(m) + " is not an end port of the fabric");
  for (int sw : g.switch_members)
    if (sw < 0 || sw >= static_cast<int>(f_.switches.size()))
      throw Error("multicast group " + HexLid(g.mlid) + ": switch member index " + std::to_string(sw) +
                  " is not a switch of the fabric");
}

int MlidRouter::BranchLevel(int member, int anchor) const {
  const std::vector<int>& p = tree_.p[member];
  const std::vector<int>& a = tree_.p[anchor];
  int l = 0;
  while (l < tree_.n - 1 && p[l] == a[l]) ++l;
  return l;
}

// Above its level a chain switch reaches `sw` going down only where their
// prefixes agree; its suffix must be sw's too, which the chain's up digits
// below sw's level decide (FindChain checks that by DownReaches).
int MlidRouter::SwitchBranchLevel(int sw, int anchor) const {
  const std::vector<int>& w = tree_.w[sw];
  const std::vector<int>& a = tree_.p[anchor];
  const int level = tree_.level[sw];
  int l = 0;
  while (l < level && w[l] == a[l]) ++l;
  return l;
}

// Up digit per level: the anchor's own digits (paper) or the MLID's index.
std::vector<int> MlidRouter::McastUpDigits(const McastGroup& g, int anchor) const {
  const int n = tree_.n;
  std::vector<int> up_digit(tree_.p[anchor]);
  if (g.anchor < 0 && opt_.rotate) {
    const long index = (static_cast<long>(g.mlid) - kMulticastLidBase) % tree_.paths();
    for (int l = 1; l < n; ++l) up_digit[l] = Digit(index, n - 1 - l);
  }
  return up_digit;
}

std::vector<std::pair<int, PortMask>> MlidRouter::McastTree(
    const McastGroup& g, std::vector<std::pair<int, std::string>>* left_out) const {
  CheckMembers(g);
  int anchor = g.anchor;
  if (anchor < 0)
    for (int m : g.members)
      if (anchor < 0 || tree_.pid[m] < tree_.pid[anchor]) anchor = m;
  const int n = tree_.n;
  const std::vector<int> up_digit = McastUpDigits(g, anchor);
  // The anchor's chain: chain[l] is the level-l switch on its way up.
  std::vector<int> chain(n, -1);
  chain[n - 1] = f_.end_ports[anchor].switch_index;
  int root_level = n - 1;
  for (int d : g.members) root_level = std::min(root_level, BranchLevel(d, anchor));
  // A degraded tree's links, or switch members' labels, decide the chain.
  const bool searched = tree_.degraded || !g.switch_members.empty();
  std::vector<int> switches;  // the switch members the tree reaches
  if (!g.switch_members.empty())
    switches = ServableSwitchMembers(g, anchor, up_digit, chain, root_level, left_out);
  else if (searched)
    anchor = SearchedAnchorChain(g, anchor, up_digit, switches, chain, root_level);
  TreeMasks masks(f_);
  for (int l = n - 1; l > root_level; --l) {
    if (searched) {  // SearchedAnchorChain picked the switches; find the link
      for (int port : tree_.up_port[chain[l]])
        if (port && f_.switches[chain[l]].ports[port].index == chain[l - 1]) masks.AddEdge(chain[l], port);
      continue;
    }
    const int port = tree_.up_port[chain[l]][up_digit[l]];
    masks.AddEdge(chain[l], port);
    chain[l - 1] = f_.switches[chain[l]].ports[port].index;
  }
  masks.AddSwitch(chain[n - 1]);  // the anchor's leaf is on the tree even when alone
  for (int d : g.members) {
    const std::vector<int>& p = tree_.p[d];
    int l = BranchLevel(d, anchor);
    for (int sw = chain[l];; ++l) {
      const int port = tree_.down_port[sw][p[l]];
      masks.AddEdge(sw, port);
      const Peer& next = f_.switches[sw].ports[port];
      if (!next.is_switch()) break;
      sw = next.index;
    }
  }
  for (int target : switches) {
    const std::vector<int>& w = tree_.w[target];
    for (int sw = chain[SwitchBranchLevel(target, anchor)]; sw != target;) {
      const int port = tree_.down_port[sw][w[tree_.level[sw]]];
      masks.AddEdge(sw, port);
      sw = f_.switches[sw].ports[port].index;
    }
    masks.AddPortZero(target);
  }
  return masks.BySwitch();
}

}  // namespace ibu
