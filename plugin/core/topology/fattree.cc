#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/fattree_labels.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <queue>

#include "plugin/core/error.h"
#include "plugin/core/int_math.h"

namespace ibu {

namespace {

// The recogniser works in passes; each one checks the rule it relies on and
// names the first switch/port that breaks it.
class Recognizer {
 public:
  explicit Recognizer(const Fabric& f) : f_(f) {}

  FatTree Run() {
    FindLevels();
    CheckDegrees();
    counts_complete_ = true;
    FormBlocks();
    AssignPrefixes();
    AssignSuffixes();
    BuildPortMaps();
    LabelHostDigits(f_, t_);
    return std::move(t_);
  }

  // Every switch had the links and hosts FT(m,n) gives it: a later failure
  // is miscabling, with nothing missing.
  bool counts_complete() const { return counts_complete_; }

 private:
  [[noreturn]] void Fail(int sw, int port, const std::string& rule) const {
    std::string where = port > 0 ? f_.PortLabel(sw, port) : f_.SwitchLabel(sw);
    throw Error("not an m-port n-tree: " + where + ": " + rule);
  }

  int HostCount(int s) const {
    int c = 0;
    for (const Peer& p : f_.switches[s].ports) c += p.is_end_port();
    return c;
  }

  void FindLevels() {
    const int ns = static_cast<int>(f_.switches.size());
    std::vector<int> dist(ns, -1);
    std::queue<int> q;
    for (int s = 0; s < ns; ++s)
      if (HostCount(s) > 0) {
        dist[s] = 0;
        q.push(s);
      }
    if (q.empty()) throw Error("not an m-port n-tree: no switch has hosts attached");
    while (!q.empty()) {
      int s = q.front();
      q.pop();
      for (const Peer& p : f_.switches[s].ports)
        if (p.is_switch() && dist[p.index] < 0) {
          dist[p.index] = dist[s] + 1;
          q.push(p.index);
        }
    }
    int maxd = 0;
    for (int s = 0; s < ns; ++s) {
      if (dist[s] < 0) Fail(s, 0, "not connected to any switch with hosts");
      maxd = std::max(maxd, dist[s]);
    }
    t_.n = maxd + 1;
    t_.level.resize(ns);
    for (int s = 0; s < ns; ++s) t_.level[s] = t_.n - 1 - dist[s];
    // k from the leaves; a single-switch tree FT(m,1) has m hosts.
    int leaf = -1;
    for (int s = 0; s < ns && leaf < 0; ++s)
      if (t_.level[s] == t_.n - 1) leaf = s;
    int hosts = HostCount(leaf);
    t_.k = t_.n == 1 ? hosts / 2 : hosts;
    t_.m = 2 * t_.k;
    if (t_.n == 1 && ns > 1)  // a mesh, say: no switch lies above the leaves
      Fail(leaf, 0, "every one of the " + std::to_string(ns) +
                        " switches has hosts; an m-port n-tree with more than one switch has switches "
                        "without hosts above its leaves");
    // Any even m >= 4: 36- and 40-port switches are the common ones. A k
    // that is no power of two leaves some of a host's 2^LMC LIDs without a
    // path of their own; mlid maps them onto paths again (PathIndex).
    if (t_.k < 2 || (t_.n == 1 && hosts % 2))
      Fail(leaf, 0,
           t_.n == 1 ? "a single switch with " + std::to_string(hosts) +
                           " hosts; FT(m,1) has m hosts, m even and >= 4"
                     : "a leaf has " + std::to_string(hosts) + " hosts; m/2 must be at least 2");
    if (t_.m > kMaxSwitchPorts) Fail(leaf, 0, "m exceeds 254 ports");
    const std::string beyond = FatTreeBeyondLids(t_.k, t_.n);
    if (!beyond.empty()) Fail(leaf, 0, beyond);
  }

  void CheckDegrees() {
    const int n = t_.n, k = t_.k;
    // Misplaced cables first: they explain the wrong counts they cause.
    for (size_t s = 0; s < f_.switches.size(); ++s) {
      const int l = t_.level[s];
      const Switch& sw = f_.switches[s];
      for (int p = 1; p <= sw.num_ports; ++p) {
        const Peer& peer = sw.ports[p];
        if (peer.is_end_port() && l != n - 1)
          Fail(s, p, "a host is cabled to a level-" + std::to_string(l) + " switch; hosts belong on leaves");
        if (peer.is_switch())
          if (const CableFault fault = LevelLinkFault(f_, t_.level, s, p); !fault.what.empty())
            Fail(fault.s, fault.p, fault.what);
      }
    }
    std::vector<long> per_level(n, 0);
    for (size_t s = 0; s < f_.switches.size(); ++s) {
      const int l = t_.level[s];
      ++per_level[l];
      int up = 0, down = 0, hosts = 0;
      for (const Peer& peer : f_.switches[s].ports) {
        if (peer.is_end_port()) ++hosts;
        else if (peer.is_switch()) (t_.level[peer.index] < l ? up : down)++;
      }
      const int want_up = l == 0 ? 0 : k;
      const int want_down = l == n - 1 ? 0 : (l == 0 ? 2 * k : k);
      const int want_hosts = l != n - 1 ? 0 : (n == 1 ? 2 * k : k);
      if (up != want_up || down != want_down || hosts != want_hosts)
        Fail(s, 0, "level " + std::to_string(l) + " switch has " + std::to_string(hosts) +
                       " hosts, " + std::to_string(down) + " down and " + std::to_string(up) +
                       " up links; expected " + std::to_string(want_hosts) + ", " +
                       std::to_string(want_down) + " and " + std::to_string(want_up));
    }
    for (int l = 0; l < n; ++l) {
      long want = l == 0 ? IntPow(k, n - 1) : 2 * IntPow(k, n - 1);
      if (n == 1) want = 1;
      if (per_level[l] != want)
        throw Error("not an m-port n-tree: level " + std::to_string(l) + " has " +
                    std::to_string(per_level[l]) + " switches, FT(" + std::to_string(t_.m) +
                    "," + std::to_string(n) + ") has " + std::to_string(want));
    }
  }

  // Ports of `s` toward level l+1 (children) or l-1 (parents), in port order.
  std::vector<int> PortsToward(int s, int delta) const {
    return PortsTowardLevel(f_, t_, s, delta);
  }

  // Blocks: switches of one level whose down-subtrees hold the same hosts
  // (the paper's prefix w_0..w_{l-1}). Each leaf is its own block.
  void FormBlocks() {
    const int ns = static_cast<int>(f_.switches.size());
    block_.assign(ns, -1);
    int next = 0;
    for (int s = 0; s < ns; ++s)
      if (t_.level[s] == t_.n - 1) {
        block_[s] = next++;
        block_level_.push_back(t_.n - 1);
        block_members_.push_back({s});
      }
    block_parent_.assign(next, -1);
    for (int l = t_.n - 2; l >= 0; --l) {
      std::map<std::vector<int>, int> by_children;
      for (int s = 0; s < ns; ++s) {
        if (t_.level[s] != l) continue;
        std::vector<std::pair<int, int>> down;  // (child block, port), by block
        for (int p : PortsToward(s, +1)) down.push_back({block_[f_.switches[s].ports[p].index], p});
        std::sort(down.begin(), down.end());
        for (size_t i = 1; i < down.size(); ++i)
          if (down[i].first == down[i - 1].first) {
            const int first = f_.switches[s].ports[down[i - 1].second].index;
            const int second = f_.switches[s].ports[down[i].second].index;
            const std::string other_port = "port " + std::to_string(down[i - 1].second);
            Fail(s, down[i].second,
                 first == second
                     ? "a second cable to " + f_.SwitchLabel(first) + " (the first on " + other_port + ")"
                     : "leads into the same subtree as " + other_port + " (" + f_.SwitchLabel(first) +
                           " and " + f_.SwitchLabel(second) + " hold the same hosts)");
          }
        std::vector<int> key;
        for (const auto& d : down) key.push_back(d.first);
        auto [it, fresh] = by_children.emplace(key, next);
        if (fresh) {
          ++next;
          block_level_.push_back(l);
          block_members_.emplace_back();
          block_parent_.push_back(-1);
          block_children_.resize(next);
          block_children_[it->second] = key;
          for (const auto& [c, port] : down) {
            // Another switch of this level reaches that subtree beside others.
            if (block_parent_[c] >= 0)
              Fail(s, port,
                   "leads to " + f_.SwitchLabel(f_.switches[s].ports[port].index) + ", a subtree that " +
                       f_.SwitchLabel(block_members_[block_parent_[c]][0]) +
                       " reaches too, beside other subtrees than this switch's: the two share subtrees "
                       "only in part");
            block_parent_[c] = it->second;
          }
        }
        block_[s] = it->second;
        block_members_[it->second].push_back(s);
      }
    }
    block_children_.resize(next);
    for (int b = 0; b < next; ++b) {
      const int l = block_level_[b];
      long want = IntPow(t_.k, t_.n - 1 - l);
      if (static_cast<long>(block_members_[b].size()) != want)
        Fail(block_members_[b][0], 0, "its subtree is shared by " +
                                          std::to_string(block_members_[b].size()) +
                                          " switches; expected " + std::to_string(want));
    }
    int roots = 0;
    for (int b = 0; b < next; ++b) roots += block_level_[b] == 0;
    if (roots != 1) throw Error("not an m-port n-tree: the top switches do not all reach every host");
  }

  int ReferenceSwitch(int block) const {
    const auto& members = block_members_[block];
    return *std::min_element(members.begin(), members.end(), [&](int a, int b) {
      return f_.switches[a].guid < f_.switches[b].guid;
    });
  }

  // Prefix digits top-down: a block's children are numbered by the order of
  // the down ports of one reference switch (any switch, on canonical cabling).
  void AssignPrefixes() {
    const int nb = static_cast<int>(block_members_.size());
    prefix_.assign(nb, {});
    child_rank_.assign(nb, -1);
    for (int l = 0; l < t_.n - 1; ++l) {
      for (int b = 0; b < nb; ++b) {
        if (block_level_[b] != l) continue;
        int ref = ReferenceSwitch(b);
        int rank = 0;
        for (int p : PortsToward(ref, +1)) {
          int child = block_[f_.switches[ref].ports[p].index];
          prefix_[child] = prefix_[b];
          prefix_[child].push_back(rank);
          child_rank_[child] = rank++;
        }
      }
    }
  }

  // Suffix digits. A top switch's label is the sequence of up-port ranks on
  // its one up-path from a reference leaf (on canonical cabling: the
  // paper's w). Every other switch's suffix is what its parents' labels
  // share; the parents must differ only in their last digit.
  void AssignSuffixes() {
    const int ns = static_cast<int>(f_.switches.size());
    suffix_.assign(ns, {});
    std::vector<char> labelled(ns, 0);
    int leaf = -1;
    for (int s = 0; s < ns; ++s)
      if (t_.level[s] == t_.n - 1 && (leaf < 0 || f_.switches[s].guid < f_.switches[leaf].guid))
        leaf = s;
    Climb(leaf, {}, labelled);  // FT(m,1): the leaf is the top, label empty
    for (int s = 0; s < ns; ++s)
      if (t_.level[s] == 0 && !labelled[s])
        Fail(s, 0, "top switch is not above the reference leaf " + f_.SwitchLabel(leaf));
    for (int l = 1; l < t_.n; ++l)
      for (int s = 0; s < ns; ++s) {
        if (t_.level[s] != l) continue;
        const std::vector<int> up = PortsToward(s, -1);
        std::vector<int> common = suffix_[f_.switches[s].ports[up[0]].index];
        common.pop_back();
        std::vector<char> seen(t_.k, 0);
        for (int p : up) {
          const std::vector<int>& parent = suffix_[f_.switches[s].ports[p].index];
          if (!std::equal(common.begin(), common.end(), parent.begin()) || seen[parent.back()]++)
            Fail(s, p, "its parents are not the replicas one subtree needs (cabling breaks the m-port n-tree rule)");
        }
        suffix_[s] = common;
      }
    std::map<std::pair<int, std::vector<int>>, int> unique;
    for (int s = 0; s < ns; ++s)
      if (!unique.emplace(std::make_pair(block_[s], suffix_[s]), s).second)
        Fail(s, 0, "two switches of one subtree get the same label");
    t_.w.assign(ns, {});
    for (int s = 0; s < ns; ++s) {
      t_.w[s] = prefix_[block_[s]];
      t_.w[s].insert(t_.w[s].end(), suffix_[s].begin(), suffix_[s].end());
    }
  }

  void Climb(int s, std::vector<int> digits, std::vector<char>& labelled) {
    if (t_.level[s] == 0) {
      if (labelled[s]) Fail(s, 0, "reached twice going up from one leaf");
      labelled[s] = 1;
      suffix_[s] = std::move(digits);
      return;
    }
    int rank = 0;
    for (int p : PortsToward(s, -1)) {
      std::vector<int> next = digits;
      next.push_back(rank++);
      Climb(f_.switches[s].ports[p].index, std::move(next), labelled);
    }
  }

  void BuildPortMaps() {
    const int ns = static_cast<int>(f_.switches.size());
    t_.down_port.assign(ns, {});
    t_.up_port.assign(ns, {});
    for (int s = 0; s < ns; ++s) {
      const int l = t_.level[s];
      const Switch& sw = f_.switches[s];
      if (l < t_.n - 1) {
        t_.down_port[s].assign(l == 0 ? t_.m : t_.k, 0);
        for (int p : PortsToward(s, +1)) {
          int c = sw.ports[p].index;
          t_.down_port[s][prefix_[block_[c]][l]] = p;
        }
      }
      if (l > 0) {
        t_.up_port[s].assign(t_.k, 0);
        for (int p : PortsToward(s, -1)) {
          int u = sw.ports[p].index;
          int& slot = t_.up_port[s][suffix_[u].back()];
          if (slot) Fail(s, p, "two up links lead to replicas with the same digit");
          slot = p;
        }
      }
    }
  }

  const Fabric& f_;
  FatTree t_;
  std::vector<int> block_;  // per switch
  std::vector<int> block_level_;
  std::vector<std::vector<int>> block_members_;
  std::vector<std::vector<int>> block_children_;
  std::vector<int> block_parent_;
  std::vector<std::vector<int>> prefix_;  // per block
  std::vector<int> child_rank_;           // per block: its digit in the parent
  std::vector<std::vector<int>> suffix_;  // per switch
  bool counts_complete_ = false;
};

}  // namespace

std::vector<int> PortsTowardLevel(const Fabric& f, const FatTree& t, int s, int delta) {
  std::vector<int> out;
  const Switch& sw = f.switches[s];
  for (int p = 1; p <= sw.num_ports; ++p) {
    const Peer& peer = sw.ports[p];
    if (peer.is_switch() && t.level[peer.index] == t.level[s] + delta) out.push_back(p);
  }
  return out;
}

namespace {

// The first cable from below of switch `x` when more of its switch links
// join its own level than come from below (a switch pulled down a level by
// a cable that skips one), or 0.
int PulledDownBy(const Fabric& f, const std::vector<int>& level, int x) {
  const Switch& sw = f.switches[x];
  int same = 0, below = 0, first_below = 0;
  for (int p = 1; p <= sw.num_ports; ++p) {
    const Peer& peer = sw.ports[p];
    if (!peer.is_switch() || peer.index == x) continue;
    if (level[peer.index] == level[x]) ++same;
    if (level[peer.index] == level[x] + 1 && below++ == 0) first_below = p;
  }
  return same > below ? first_below : 0;
}

}  // namespace

CableFault LevelLinkFault(const Fabric& f, const std::vector<int>& level, int s, int p) {
  const Peer& peer = f.switches[s].ports[p];
  if (peer.index == s)
    return {s, p,
            "cabled back to its own switch (port " + std::to_string(peer.port) +
                "); links join switches of adjacent levels"};
  const int l = level[s], lp = level[peer.index];
  if (std::abs(lp - l) == 1) return {};
  if (l == lp)
    for (const int x : {s, peer.index})
      if (const int q = PulledDownBy(f, level, x)) {
        const Peer& low = f.switches[x].ports[q];
        return {x, q,
                "link to " + f.SwitchLabel(low.index) + " of level " + std::to_string(level[low.index]) +
                    ", while more of this switch's links go to switches of its own level " +
                    std::to_string(level[x]) +
                    ": a cable that skips a level? (links join adjacent levels only)"};
      }
  return {s, p,
          "link to a switch of level " + std::to_string(lp) + " from level " + std::to_string(l) +
              "; links join adjacent levels only"};
}

namespace {

// Links to other switches: a cable back to the switch itself (two of its
// ports) made a leaf look like a middle switch, its host blamed.
int SwitchLinks(const Fabric& f, int s) {
  int c = 0;
  for (const Peer& p : f.switches[s].ports) c += p.is_switch() && p.index != s;
  return c;
}

// The most common number of switch links among switches without hosts
// (the tops and middles, 2k each when intact); 0 when every switch has hosts.
int UsualInnerLinks(const Fabric& f) {
  std::map<int, int> count;
  for (size_t s = 0; s < f.switches.size(); ++s) {
    bool hosts = false;
    for (const Peer& p : f.switches[s].ports) hosts |= p.is_end_port();
    if (!hosts) ++count[SwitchLinks(f, static_cast<int>(s))];
  }
  int best = 0, seen = 0;
  for (auto [links, c] : count)
    if (c > seen) best = links, seen = c;
  return best;
}

}  // namespace

std::string HostOnInnerSwitchFault(const Fabric& f) {
  const int inner = UsualInnerLinks(f);
  if (inner == 0) return "";
  int most_hosts = 0;  // k on an intact leaf
  for (const Switch& sw : f.switches)
    most_hosts = std::max<int>(most_hosts, std::count_if(sw.ports.begin(), sw.ports.end(),
                                                         [](const Peer& p) { return p.is_end_port(); }));
  for (size_t s = 0; s < f.switches.size(); ++s) {
    const Switch& sw = f.switches[s];
    const int links = SwitchLinks(f, static_cast<int>(s));
    // A leaf has at most m/2 switch links (k + a doubled cable or two); a
    // top or middle switch about m (2k). Three quarters of the usual inner
    // count lies between them even when a few links are missing. When many
    // are missing (FT(4,2) whose tops kept 2 links) that count sinks to a
    // leaf's, and a leaf had its host blamed for a tree that fell apart: no
    // more switch links than a leaf has hosts is a leaf's count too.
    if (4 * links <= 3 * inner || links <= most_hosts) continue;
    for (int p = 1; p <= sw.num_ports; ++p) {
      const Peer& peer = sw.ports[p];
      if (!peer.is_end_port()) continue;
      return f.PortLabel(static_cast<int>(s), p) + ": host " + f.end_ports[peer.index].name +
             " is cabled to a switch with " + std::to_string(links) +
             " links to other switches, as a top or middle switch has (" + std::to_string(inner) +
             " on the switches without hosts); hosts belong on leaves";
    }
  }
  return "";
}

void LabelHostDigits(const Fabric& f, FatTree& t) {
  const int ne = static_cast<int>(f.end_ports.size());
  t.p.assign(ne, {});
  t.pid.assign(ne, -1);
  t.end_port_by_pid.assign(static_cast<size_t>(2 * IntPow(t.k, t.n)), -1);
  for (size_t s = 0; s < f.switches.size(); ++s) {
    if (t.level[s] != t.n - 1) continue;
    const Switch& sw = f.switches[s];
    int rank = 0;
    for (int p = 1; p <= sw.num_ports; ++p) {
      if (!sw.ports[p].is_end_port()) continue;
      const int ep = sw.ports[p].index;
      t.p[ep] = t.w[s];
      t.p[ep].resize(t.n - 1);
      t.p[ep].push_back(rank++);
      t.down_port[s].push_back(p);  // leaf: down_port[x] = host digit x
      // p_0 has radix m, the rest radix k: PID = sum p_i * k^(n-1-i).
      long pid = 0;
      for (int i = 0; i < t.n; ++i) pid += t.p[ep][i] * IntPow(t.k, t.n - 1 - i);
      t.pid[ep] = static_cast<int>(pid);
      t.end_port_by_pid[pid] = ep;
    }
  }
}

int FatTree::paths() const { return static_cast<int>(IntPow(k, n - 1)); }

std::string FatTreeBeyondLids(int k, int n) {
  if (IntPowAtMost(k, n, kMaxUnicastLid / 2) >= 0) return "";
  return "FT(" + std::to_string(2 * k) + "," + std::to_string(n) + ") has more than " +
         std::to_string(kMaxUnicastLid) + " hosts (2*(m/2)^n), beyond the unicast LID space (0xBFFF)";
}

std::string DigitString(const std::vector<int>& digits, int radix) {
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (radix > 10 && i) out += '.';
    out += std::to_string(digits[i]);
  }
  return out;
}

std::string SwitchLabelText(const std::vector<int>& w, int level, int m) {
  return "SW<" + DigitString(w, m) + "," + std::to_string(level) + ">";
}

std::string HostLabelText(const std::vector<int>& p, int m) { return "P(" + DigitString(p, m) + ")"; }

std::vector<int> LabelDigits(long idx, int count, int r0, int k) {
  std::vector<int> d(count);
  for (int i = count - 1; i >= 0; --i) {
    const int radix = i == 0 ? r0 : k;
    d[i] = static_cast<int>(idx % radix);
    idx /= radix;
  }
  return d;
}

long LabelIndex(const std::vector<int>& digits, int r0, int k) {
  long idx = 0;
  for (size_t i = 0; i < digits.size(); ++i) idx = idx * (i == 0 ? r0 : k) + digits[i];
  return idx;
}

std::string FatTree::SwitchLabel(int sw) const { return SwitchLabelText(w[sw], level[sw], m); }

std::string FatTree::HostLabel(int ep) const { return HostLabelText(p[ep], m); }

int FatTree::SwitchByLabel(const std::string& label) const {
  for (size_t s = 0; s < w.size(); ++s)
    if (SwitchLabel(static_cast<int>(s)) == label) return static_cast<int>(s);
  return -1;
}

int FatTree::EndPortByLabel(const std::string& label) const {
  for (size_t e = 0; e < p.size(); ++e)
    if (HostLabel(static_cast<int>(e)) == label) return static_cast<int>(e);
  return -1;
}

FatTree RecognizeFatTree(const Fabric& f) {
  Recognizer recognizer(f);
  try {
    return recognizer.Run();
  } catch (const Error& complete) {
    // Missing parts break the complete-tree counts; try the labelling that
    // tolerates them before refusing.
    try {
      return RecognizeDegradedFatTree(f);
    } catch (const Error& degraded) {
      // Both labellings misread a host on a top or middle switch as a leaf,
      // and their reasons describe what follows from that, not the cable.
      if (const std::string fault = HostOnInnerSwitchFault(f); !fault.empty())
        throw Error("not an m-port n-tree: " + fault);
      // Both labellings can stop at the same fault (a cable back to its own
      // switch): said twice, it read as two faults.
      const std::string first = complete.what(), second = degraded.what();
      if (first.size() >= second.size() && first.compare(first.size() - second.size(), second.size(), second) == 0)
        throw Error(first);
      // Nothing is missing: why a labelling with parts missing failed too
      // ("too many links missing") misled.
      if (recognizer.counts_complete()) throw Error(first);
      throw Error(first + "; nor is it one with parts missing: " + second);
    }
  }
}

}  // namespace ibu
