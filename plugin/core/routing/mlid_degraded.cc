// MLID routing on a degraded fat-tree (links, hosts or switches missing).
// Complete trees never come here: their tables stay those of mlid.cc.
//
// Per target switch (each leaf for its hosts' LIDs, each switch for its own
// LID) two sets: `down` = the switches that reach it going down only (its
// ancestors over links that exist) and `any` = those that reach it going up
// and then down (everything below some ancestor). A switch in `down` sends
// down; otherwise one in `any` sends up, on the preferred digit's port when
// that parent is still in `any`, else on the next digit whose parent is. A
// parent sends down only to a child in `down`, so a packet never has to
// turn upward again: every route is up*/down*, hence free of loops and of
// credit loops.
//
// Cost: O(switches + links) per target, O((leaves + switches) x links) in
// all, which is quadratic in the fabric where complete trees are linear in
// the table size. Only degraded fabrics pay it (FT(16,4): ~10^8 steps).
#include <algorithm>
#include <queue>
#include <utility>
#include <vector>

#include "plugin/core/error.h"
#include "plugin/core/int_math.h"
#include "plugin/core/routing/mlid.h"

namespace ibu {

void MlidRouter::MarkReach(int target, Reach& r) const {
  const size_t ns = f_.switches.size();
  r.down.assign(ns, 0);
  r.any.assign(ns, 0);
  std::queue<int> q;
  r.down[target] = 1;
  q.push(target);
  std::vector<int> ancestors;
  while (!q.empty()) {  // upward: the ancestors still linked to the target
    const int s = q.front();
    q.pop();
    ancestors.push_back(s);
    for (int port : tree_.up_port[s]) {
      if (!port) continue;
      const int p = f_.switches[s].ports[port].index;
      if (!r.down[p]) r.down[p] = 1, q.push(p);
    }
  }
  for (int s : ancestors) r.any[s] = 1, q.push(s);
  while (!q.empty()) {  // downward from them: whoever can climb to one
    const int s = q.front();
    q.pop();
    if (tree_.level[s] == tree_.n - 1) continue;
    for (int port : tree_.down_port[s]) {
      if (!port) continue;
      const Peer& c = f_.switches[s].ports[port];
      if (c.is_switch() && !r.any[c.index]) r.any[c.index] = 1, q.push(c.index);
    }
  }
}

// The up port of `s` at `digit` when it is cabled and its parent still
// reaches the target; 0 otherwise.
int MlidRouter::UpPortIfReaching(int s, int digit, const Reach& r) const {
  const int port = tree_.up_port[s][digit];
  return port && r.any[f_.switches[s].ports[port].index] ? port : 0;
}

// The up port of `s` whose parent still reaches the target, trying the
// preferred digit first and then the following ones; 0 if none.
int MlidRouter::UpPortReaching(int s, int preferred_digit, const Reach& r) const {
  if (tree_.level[s] == 0) return 0;
  for (int i = 0; i < tree_.k; ++i)
    if (const int port = UpPortIfReaching(s, (preferred_digit + i) % tree_.k, r)) return port;
  return 0;
}

// For a host LID: the preferred digit's up port when its parent still
// reaches the target, else one of the parents that do, picked by the LID
// plus the sum of the switch's label digits (so that SLID's 2^LMC-aligned
// base LIDs spread too, switch by switch). Sending all of a failed
// parent's LIDs to the next digit's parent (UpPortReaching, which switch
// LIDs keep) doubled the load on that one link: over 8 random draws each of
// FT(8,3) minus 1, 2, 4, 8, 16 and 32 cables, uniform traffic under mlid,
// the busiest link's mean load went from 1.91 / 1.94 / 1.96 / 2.32 / 2.96 /
// 3.28 to 1.34 / 1.40 / 1.41 / 1.85 / 2.38 / 3.06 (1.30 is one leaf's four
// hosts on three up links). Any parent that reaches the target keeps the
// route up*/down*.
int MlidRouter::UpPortAround(int s, int preferred_digit, Lid lid, const Reach& r) const {
  if (tree_.level[s] == 0) return 0;
  if (const int port = UpPortIfReaching(s, preferred_digit, r)) return port;
  // Two passes over the m/2 up ports rather than a list: no allocation per
  // rerouted LFT entry.
  uint32_t alive = 0;
  for (int d = 0; d < tree_.k; ++d) alive += UpPortIfReaching(s, d, r) != 0;
  if (alive == 0) return 0;
  uint32_t spread = lid;
  for (int digit : tree_.w[s]) spread += static_cast<uint32_t>(digit);
  uint32_t pick = spread % alive;
  for (int d = 0; d < tree_.k; ++d)
    if (const int port = UpPortIfReaching(s, d, r); port && pick-- == 0) return port;
  return 0;  // not reached: pick < alive
}

// The down port of ancestor `s` toward `target` (its one child in the
// target's subtree), 0 if that link is gone.
int MlidRouter::DownPortToward(int s, int target, const Reach& r) const {
  const int port = tree_.down_port[s][tree_.w[target][tree_.level[s]]];
  if (!port || !r.down[f_.switches[s].ports[port].index]) return 0;
  return port;
}

void MlidRouter::RouteDegraded(Tables& t, const LidPlan& plan) const {
  const Lid max_lid = f_.max_lid();
  for (auto& lft : t.lft) lft.out.assign(max_lid + 1, kNoPort);
  stats_ = {};
  std::vector<std::vector<int>> hosts_of(f_.switches.size());
  for (size_t e = 0; e < f_.end_ports.size(); ++e)
    if (f_.end_ports[e].base_lid) hosts_of[f_.end_ports[e].switch_index].push_back(static_cast<int>(e));
  std::vector<int> bottom_up(f_.switches.size());
  for (size_t s = 0; s < bottom_up.size(); ++s) bottom_up[s] = static_cast<int>(s);
  std::stable_sort(bottom_up.begin(), bottom_up.end(),
                   [&](int a, int b) { return tree_.level[a] > tree_.level[b]; });
  Reach r;
  for (size_t x = 0; x < f_.switches.size(); ++x) {
    const int target = static_cast<int>(x);
    MarkReach(target, r);
    for (int e : hosts_of[target]) {
      const EndPort& ep = f_.end_ports[e];
      for (int j = 0; j < ep.lid_count(); ++j) RouteDegradedHostLid(target, ep.base_lid + j, r, plan, t);
    }
    if (f_.switches[target].lid) RouteDegradedSwitchLid(target, r, bottom_up, t);
    long dst_hosts = static_cast<long>(hosts_of[target].size());
    for (size_t y = 0; y < f_.switches.size() && dst_hosts; ++y) {
      if (r.any[y] || hosts_of[y].empty()) continue;
      if (stats_.unroutable_pairs == 0)
        stats_.first_cut_src = hosts_of[y][0], stats_.first_cut_dst = hosts_of[target][0];
      stats_.unroutable_pairs += dst_hosts * static_cast<long>(hosts_of[y].size());
    }
  }
}

// A host LID on `leaf`: the healthy rule where its links exist (down inside
// the subtree, else up on the LID's path digit), another up port where not.
void MlidRouter::RouteDegradedHostLid(int leaf, Lid lid, const Reach& r, const LidPlan& plan,
                                      Tables& t) const {
  const std::vector<int>& lw = tree_.w[leaf];
  for (size_t x = 0; x < f_.switches.size(); ++x) {
    const int s = static_cast<int>(x);
    const int l = tree_.level[s];
    uint8_t& out = t.lft[s].out[lid];
    if (l < 0) {  // cut off from below: no route through it, none from it
      ++stats_.lost_preferred;
      continue;
    }
    if (s == leaf) {
      const int ep = f_.owner(lid).index;
      out = static_cast<uint8_t>(f_.end_ports[ep].switch_port);
      continue;
    }
    // Preferred: down when the label says the leaf is below, else the
    // LID's up digit at this level.
    bool below = true;
    for (int i = 0; below && i < l; ++i) below = tree_.w[s][i] == lw[i];
    const int digit = plan.UpDigit(l, lid);
    int port = 0;
    if (r.down[s]) {
      port = DownPortToward(s, leaf, r);
    } else if (r.any[s]) {
      port = UpPortAround(s, digit, lid, r);
      stats_.lost_preferred += below || port != tree_.up_port[s][digit];
    } else {
      stats_.lost_preferred += 1;
    }
    if (port) out = static_cast<uint8_t>(port);
  }
}

// A switch LID: down from its ancestors, up where an ancestor can be
// climbed to (digit from the LID, so discovery order does not matter). A
// leaf that cannot climb to an ancestor any more gets no route: its hosts'
// packets would need a valley (down, then up), and valleys toward several
// switches close credit loops with the host traffic (the unit tests found
// one); the SM reaches switches by directed route, so only LID-routed
// management traffic from those hosts to that switch is lost, and
// DegradedNote counts the (switch LID, leaf) pairs. Other switches that
// cannot climb go down to a child that can (or that has such a way), as
// complete trees do from the top: only packets a switch sends itself take
// that valley, never host traffic, which stays inside `any`.
void MlidRouter::RouteDegradedSwitchLid(int target, const Reach& r, const std::vector<int>& bottom_up,
                                        Tables& t) const {
  const Switch& ts = f_.switches[target];
  std::vector<int> port(f_.switches.size(), kNoPort);
  for (int s : bottom_up) {  // leaves first, so a child's valley is known
    const int l = tree_.level[s];
    if (s == target) {
      port[s] = 0;
    } else if (r.down[s]) {
      port[s] = DownPortToward(s, target, r);
    } else if (r.any[s]) {
      port[s] = UpPortReaching(s, l > 0 ? Digit(ts.lid, l - 1) : 0, r);
    } else if (l == tree_.n - 1) {
      stats_.switch_lids_cut += 1;
    } else if (l >= 0) {
      for (int p : tree_.down_port[s]) {
        const Peer& c = f_.switches[s].ports[p];
        if (p && c.is_switch() && port[c.index] != kNoPort) {
          port[s] = p;
          break;
        }
      }
    }
    for (int j = 0; j < (1 << ts.lmc); ++j) t.lft[s].out[ts.lid + j] = static_cast<uint8_t>(port[s]);
  }
}

// Whether the labelled down path from `s` to `leaf` has all its links.
// O(n).
bool MlidRouter::DownReaches(int s, int leaf) const {
  while (s != leaf) {
    const int l = tree_.level[s];
    if (l >= tree_.n - 1) return false;
    const int port = tree_.down_port[s][tree_.w[leaf][l]];
    if (!port) return false;
    const Peer& c = f_.switches[s].ports[port];
    if (!c.is_switch()) return false;
    s = c.index;
  }
  return true;
}

// Depth-first over the anchor's ancestors, each tried once (`dead` marks
// those that failed): O(ancestors x leaves) a candidate at worst, with
// (m/2)^(n-1) ancestors, not linear; in practice the preferred chain
// succeeds at once. Tries the default anchor's chain first, then, on a
// degraded tree, other members' (by PID), one member a leaf switch:
// members of one leaf share their digits above it, so their chains reach
// the same members or fail alike (trying each member made a refused group
// of 3,456 cost 71 ms a rebuild, members^2). A refused group costs
// O(leaves x (members + switches)). An explicit anchor is kept. Switch
// targets are reached as leaves are, at the level their labels leave the
// candidate's. Fills `chain` and `root_level` for the anchor it returns.
int MlidRouter::SearchedAnchorChain(const McastGroup& g, int anchor, const std::vector<int>& up_digit,
                                    const std::vector<int>& switch_targets, std::vector<int>& chain,
                                    int& root_level) const {
  const int n = tree_.n;
  std::vector<int> candidates(g.members);
  std::sort(candidates.begin(), candidates.end(), [&](int x, int y) { return tree_.pid[x] < tree_.pid[y]; });
  candidates.insert(candidates.begin(), anchor);
  const size_t switches = f_.switches.size();
  std::vector<char> leaf_tried(switches, 0);
  std::vector<int> listed_for(switches, -1);  // the candidate a leaf was listed for
  std::vector<char> dead(switches);
  for (int c : candidates) {
    if (g.anchor >= 0 && c != g.anchor) break;
    // A complete tree has a chain from any anchor to every end port, and
    // whether one also reaches the switch targets depends on its up
    // digits alone (their suffixes), not on the anchor: one try decides.
    // (Trying every leaf made a failing group of 8,192 cost 0.4 s a try.)
    if (!tree_.degraded && c != anchor) break;
    if (std::exchange(leaf_tried[f_.end_ports[c].switch_index], 1)) continue;
    std::vector<std::vector<int>> leaves_by_lca(n);  // each member's leaf once
    int root = n - 1;
    // Switch targets first: FindChain checks a level's list in order, and
    // they are what fails when a chain is refused for them.
    for (int sw : switch_targets) {  // reached down from the chain as a leaf is
      const int lca = SwitchBranchLevel(sw, c);
      root = std::min(root, lca);
      if (std::exchange(listed_for[sw], c) != c) leaves_by_lca[lca].push_back(sw);
    }
    for (int d : g.members) {
      const int lca = BranchLevel(d, c);
      root = std::min(root, lca);
      const int leaf = f_.end_ports[d].switch_index;
      if (std::exchange(listed_for[leaf], c) != c) leaves_by_lca[lca].push_back(leaf);
    }
    std::fill(chain.begin(), chain.end(), -1);
    chain[n - 1] = f_.end_ports[c].switch_index;
    std::fill(dead.begin(), dead.end(), 0);
    if (FindChain(chain[n - 1], n - 1, root, up_digit, leaves_by_lca, chain, dead)) {
      root_level = root;
      return c;
    }
  }
  throw McastRefused(
      "multicast group " + HexLid(g.mlid) + ": in the degraded tree " +
      (g.anchor >= 0 ? "its anchor does not reach every member" : "no member reaches all others") +
      " over up*/down* links");
}

std::vector<int> MlidRouter::ServableSwitchMembers(const McastGroup& g, int& anchor,
                                                   const std::vector<int>& up_digit, std::vector<int>& chain,
                                                   int& root_level,
                                                   std::vector<std::pair<int, std::string>>* left_out) const {
  std::vector<int> wanted;
  for (int sw : g.switch_members) {
    if (tree_.level[sw] >= 0) {
      wanted.push_back(sw);
    } else if (left_out) {
      left_out->push_back({sw, "it is not in the recognised tree"});
    }
  }
  const int given_anchor = anchor;
  auto chain_for = [&](const std::vector<int>& switches) {
    try {
      anchor = SearchedAnchorChain(g, given_anchor, up_digit, switches, chain, root_level);
      return true;
    } catch (const McastRefused&) {
      return false;
    }
  };
  if (chain_for(wanted)) return wanted;
  // Some switch members force up digits others contradict (two top
  // switches): keep those that fit, in the group's order, one search each.
  std::vector<int> served;
  anchor = SearchedAnchorChain(g, given_anchor, up_digit, served, chain,
                               root_level);  // the end ports' refusal is the group's
  for (int sw : wanted) {
    served.push_back(sw);
    if (chain_for(served)) continue;
    served.pop_back();
    if (left_out)
      left_out->push_back({sw,
                           "no up*/down* tree reaches it together with the group's end ports and the "
                           "switch members before it (a tree without a valley has one root)"});
  }
  if (!chain_for(served)) throw Error("mlid: internal: the switch members kept have no chain");
  return served;
}

bool MlidRouter::FindChain(int sw, int level, int root_level, const std::vector<int>& up_digit,
                           const std::vector<std::vector<int>>& leaves_by_lca,
                           std::vector<int>& chain, std::vector<char>& dead) const {
  for (int leaf : leaves_by_lca[level])
    if (!DownReaches(sw, leaf)) return false;
  if (level == root_level) return true;
  for (int i = 0; i < tree_.k; ++i) {
    const int port = tree_.up_port[sw][(up_digit[level] + i) % tree_.k];
    if (!port) continue;
    const int parent = f_.switches[sw].ports[port].index;
    if (dead[parent]) continue;
    if (FindChain(parent, level - 1, root_level, up_digit, leaves_by_lca, chain, dead)) {
      chain[level - 1] = parent;
      return true;
    }
    dead[parent] = 1;
  }
  return false;
}

std::string MlidRouter::DegradedNote() const {
  if (!tree_.degraded) return "";
  return tree_.DegradedSummary() + "; " + std::to_string(stats_.lost_preferred) +
         " (destination LID, switch) entries lost their preferred route; " +
         std::to_string(stats_.unroutable_pairs) + " host pairs have no up*/down* path left" +
         (stats_.unroutable_pairs
              ? " (first: " + f_.end_ports[static_cast<size_t>(stats_.first_cut_src)].name + " -> " +
                    f_.end_ports[static_cast<size_t>(stats_.first_cut_dst)].name +
                    "; mlid refuses the fabric, for the next engine of routing_engine: updn routes every pair, deadlock-free)"
              : std::string()) +
         "; " + std::to_string(stats_.switch_lids_cut) + " (switch LID, leaf) pairs have no route";
}

}  // namespace ibu
