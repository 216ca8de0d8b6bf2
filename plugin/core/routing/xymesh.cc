#include "plugin/core/routing/xymesh.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "plugin/core/error.h"

namespace ibu {

namespace {

constexpr int kSls = 16;

void CheckMembers(const Fabric& f, const McastGroup& g) {
  const std::string group = "multicast group " + HexLid(g.mlid);
  if (g.members.empty()) throw Error(group + " has no members");
  auto check = [&](int ep, const char* what) {
    if (ep < 0 || ep >= static_cast<int>(f.end_ports.size()) || f.end_ports[ep].switch_index < 0)
      throw Error(group + ": " + what + " index " + std::to_string(ep) +
                  " is not a cabled end port of the fabric");
  };
  for (int m : g.members) check(m, "member");
  if (g.anchor >= 0) check(g.anchor, "anchor");
  for (int sw : g.switch_members)
    if (sw < 0 || sw >= static_cast<int>(f.switches.size()))
      throw Error(group + ": switch member index " + std::to_string(sw) + " is not a switch of the fabric");
}

}  // namespace

namespace {

// `key` taking one of `choices` into *field; a bad value is refused
// listing them ("expected xymesh_vls=1, 2 or 4").
template <typename T>
OptionKey ChoiceKey(const std::string& key, std::vector<std::pair<std::string, T>> choices, T* field) {
  std::string listed, expected;
  for (size_t i = 0; i < choices.size(); ++i) {
    listed += (i == 0 ? "" : "|") + choices[i].first;
    expected += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i].first;
  }
  return {key, listed, [key, choices, field, expected](const std::string& value, const std::string& word) {
            for (const auto& [text, choice] : choices)
              if (value == text) {
                *field = choice;
                return;
              }
            throw Error("option '" + word + "': expected " + key + "=" + expected);
          }};
}

}  // namespace

std::vector<OptionKey> XyMeshOptionKeys(XyMeshOptions* opt) {
  return {
      ChoiceKey<int>("xymesh_vls", {{"1", 1}, {"2", 2}, {"4", 4}}, &opt->vls),
      ChoiceKey<VlMode>("xymesh_vl_mode", {{"shared", VlMode::kShared}, {"dedicated", VlMode::kDedicated}},
                        &opt->mode),
      ChoiceKey<McastScheme>(
          "xymesh_mcast",
          {{"trunk", McastScheme::kTrunk}, {"paper", McastScheme::kPaper}, {"source", McastScheme::kSource}},
          &opt->mcast)};
}

XyRouter::XyRouter(const Fabric& f, Mesh mesh, XyMeshOptions opt)
    : f_(f), mesh_(std::move(mesh)), opt_(opt) {}

int XyRouter::NextPort(int sw, int target) const {
  const Mesh& m = mesh_;
  if (m.x[target] > m.x[sw]) return m.port[sw][kEast];
  if (m.x[target] < m.x[sw]) return m.port[sw][kWest];
  if (m.y[target] > m.y[sw]) return m.port[sw][kNorth];
  if (m.y[target] < m.y[sw]) return m.port[sw][kSouth];
  return 0;
}

void XyRouter::Route(Tables& t) const {
  t.Resize(f_);
  for (size_t s = 0; s < f_.switches.size(); ++s) {
    Lft& lft = t.lft[s];
    lft.out.assign(f_.max_lid() + 1, kNoPort);
    for (const EndPort& ep : f_.end_ports) {
      if (ep.base_lid == 0 || ep.switch_index < 0) continue;
      const int port = ep.switch_index == static_cast<int>(s)
                           ? ep.switch_port
                           : NextPort(static_cast<int>(s), ep.switch_index);
      for (int j = 0; j < ep.lid_count(); ++j)
        lft.out[ep.base_lid + j] = static_cast<uint8_t>(port);
    }
    for (size_t x = 0; x < f_.switches.size(); ++x) {
      const Switch& target = f_.switches[x];
      if (target.lid == 0) continue;
      const int port = NextPort(static_cast<int>(s), static_cast<int>(x));
      for (int j = 0; j < (1 << target.lmc); ++j)
        lft.out[target.lid + j] = static_cast<uint8_t>(port);
    }
  }
}

int XyRouter::McastClasses() const { return opt_.mode == VlMode::kShared ? opt_.vls : 1; }

int XyRouter::McastClass(const McastGroup& g) const {
  const unsigned key = g.sl >= 0 ? static_cast<unsigned>(g.sl)
                                 : static_cast<unsigned>(g.mlid - kMulticastLidBase);
  return static_cast<int>(key % McastClasses());
}

int XyRouter::TrunkRow(const McastGroup& g) const { return TrunkRowOfClass(McastClass(g)); }

int XyRouter::TrunkRowOfClass(int c) const { return (2 * c + 1) * mesh_.Y / (2 * McastClasses()); }

uint8_t XyRouter::McastSl(const McastGroup& g) const {
  if (g.sl >= 0) return static_cast<uint8_t>(g.sl);
  // Shared mode maps SL c to VL c, so the class's SL is its VL.
  return static_cast<uint8_t>(opt_.mode == VlMode::kShared ? McastClass(g) : 0);
}

std::vector<std::pair<int, PortMask>> XyRouter::McastTree(const McastGroup& g) const {
  if (opt_.mcast == McastScheme::kSource) return SourceTree(g);
  CheckMembers(f_, g);
  std::vector<int> reach;
  for (int m : g.members) reach.push_back(f_.end_ports[m].switch_index);
  if (g.anchor >= 0) reach.push_back(f_.end_ports[g.anchor].switch_index);
  reach.insert(reach.end(), g.switch_members.begin(), g.switch_members.end());
  std::vector<int> cols, rows;
  for (int s : reach) cols.push_back(mesh_.x[s]), rows.push_back(mesh_.y[s]);
  std::sort(cols.begin(), cols.end());
  if (cols.front() == cols.back()) {
    // One column: the segment between its ends, no turns (see xymesh.h).
    const int bottom = *std::min_element(rows.begin(), rows.end());
    return UnionTree(mesh_.SwitchAt(cols.front(), bottom), reach, g.members, g.switch_members);
  }
  const int col =
      g.anchor >= 0 ? mesh_.x[f_.end_ports[g.anchor].switch_index] : cols[(cols.size() - 1) / 2];
  return UnionTree(mesh_.SwitchAt(col, TrunkRow(g)), reach, g.members, g.switch_members);
}

int XyRouter::PaperAnchor(const McastGroup& g) const {
  CheckMembers(f_, g);
  if (g.anchor >= 0) return g.anchor;
  // Twice the bounding box's centre, so distances stay integers.
  int x_lo = mesh_.X, x_hi = -1, y_lo = mesh_.Y, y_hi = -1;
  for (int m : g.members) {
    const int s = f_.end_ports[m].switch_index;
    x_lo = std::min(x_lo, mesh_.x[s]), x_hi = std::max(x_hi, mesh_.x[s]);
    y_lo = std::min(y_lo, mesh_.y[s]), y_hi = std::max(y_hi, mesh_.y[s]);
  }
  auto off_centre = [&](int m) {
    const int s = f_.end_ports[m].switch_index;
    return std::abs(2 * mesh_.x[s] - x_lo - x_hi) + std::abs(2 * mesh_.y[s] - y_lo - y_hi);
  };
  int best = g.members.front();
  for (int m : g.members) {
    const int d = off_centre(m), best_d = off_centre(best);
    if (d < best_d || (d == best_d && f_.end_ports[m].base_lid < f_.end_ports[best].base_lid))
      best = m;
  }
  return best;
}

std::vector<std::pair<int, PortMask>> XyRouter::AnchorTree(const McastGroup& g) const {
  const int anchor = PaperAnchor(g);
  std::vector<int> reach;
  for (int m : g.members) reach.push_back(f_.end_ports[m].switch_index);
  reach.insert(reach.end(), g.switch_members.begin(), g.switch_members.end());
  return UnionTree(f_.end_ports[anchor].switch_index, reach, g.members, g.switch_members);
}

std::vector<std::pair<int, PortMask>> XyRouter::SourceTree(const McastGroup& g) const {
  CheckMembers(f_, g);
  if (g.anchor < 0 || g.anchor >= static_cast<int>(f_.end_ports.size()) ||
      f_.end_ports[g.anchor].switch_index < 0)
    throw Error(
        "multicast group " + HexLid(g.mlid) +
        ": xymesh_mcast=source roots the tree at the group's one sender, and it names none (anchor=)");
  return AnchorTree(g);  // the paper's union from the anchor, which is given here
}

int XyRouter::McastVl() const { return opt_.mcast == McastScheme::kPaper ? opt_.vls : -1; }

int XyRouter::TotalVls() const { return opt_.vls + (opt_.mcast == McastScheme::kPaper ? 1 : 0); }

std::vector<std::pair<int, PortMask>> XyRouter::UnionTree(int root, const std::vector<int>& reach,
                                                          const std::vector<int>& members,
                                                          const std::vector<int>& switch_members) const {
  std::map<int, PortMask> masks;
  masks[root];  // the root is on the tree even when it is alone
  // XY paths from one root share their prefixes (the path to a switch on
  // the path to a target is that path's beginning), so each target's path
  // is walked back from the target until it meets the tree: cost O(tree +
  // members), not members x path length (a 64x64 mesh: 1,638 members x up
  // to 126 hops a group).
  const Mesh& m = mesh_;
  std::vector<char> on_tree(f_.switches.size(), 0);
  on_tree[root] = 1;
  for (int target : reach) {
    for (int s = target; !on_tree[s];) {
      on_tree[s] = 1;
      // The switch before s on the path: back along s's column toward
      // root's row, or on root's row back toward root's column.
      const int prev = m.y[s] != m.y[root] ? m.SwitchAt(m.x[s], m.y[s] + (m.y[root] > m.y[s] ? 1 : -1))
                                           : m.SwitchAt(m.x[s] + (m.x[root] > m.x[s] ? 1 : -1), m.y[s]);
      const int p = NextPort(prev, s);
      const Peer& peer = f_.switches[prev].ports[p];
      if (peer.index != s) throw Error("xymesh: internal: " + m.Label(prev) + " is no neighbour of " + m.Label(s));
      masks[prev].set(p);
      masks[s].set(peer.port);
      s = prev;
    }
  }
  for (int m : members) {
    const EndPort& ep = f_.end_ports[m];
    masks[ep.switch_index].set(ep.switch_port);
  }
  for (int sw : switch_members) masks[sw].set(0);  // the switch's own copy
  return {masks.begin(), masks.end()};
}

uint8_t XyRouter::UnicastSl(int end_port) const {
  if (opt_.mode == VlMode::kDedicated) return 0;
  const int s = f_.end_ports[end_port].switch_index;
  return static_cast<uint8_t>((mesh_.x[s] + mesh_.y[s]) % opt_.vls);
}

uint8_t XyRouter::Vl(int sw, int out_port, int sl) const {
  if (opt_.mcast == McastScheme::kPaper && sl == kPaperMcastSl) return static_cast<uint8_t>(McastVl());
  if (opt_.mode == VlMode::kShared) return static_cast<uint8_t>(sl % opt_.vls);
  const int d = mesh_.DirOf(sw, out_port);
  if (d == kNoDir || opt_.vls == 1) return 0;  // host and management ports: sinks
  if (opt_.vls == 2) return d == kEast || d == kNorth ? 0 : 1;
  return static_cast<uint8_t>(d);  // E 0, N 1, W 2, S 3: the MeshDir order
}

void XyRouter::RouteSl2Vl(Tables& t) const {
  t.sl2vl.resize(f_.switches.size());
  for (size_t s = 0; s < f_.switches.size(); ++s) {
    Sl2Vl& table = t.sl2vl[s];
    const int np = f_.switches[s].num_ports;
    table.Init(np);
    for (int out = 0; out <= np; ++out)
      for (int sl = 0; sl < kSls; ++sl) {
        const uint8_t vl = Vl(static_cast<int>(s), out, sl);
        for (int in = 0; in <= np; ++in) table.set(in, out, sl, vl);
      }
  }
  t.end_port_sl.assign(f_.end_ports.size(), 0);
  for (size_t e = 0; e < f_.end_ports.size(); ++e)
    if (f_.end_ports[e].switch_index >= 0) t.end_port_sl[e] = UnicastSl(static_cast<int>(e));
}

std::vector<std::string> XyRouter::Notes() const {
  std::vector<std::string> notes;
  const int origin = mesh_.SwitchAt(0, 0);
  notes.push_back(std::to_string(mesh_.X) + "x" + std::to_string(mesh_.Y) +
                  " mesh, N(0,0) is " + f_.SwitchLabel(origin) + "; XY unicast");
  const auto hostless = std::find(mesh_.host.begin(), mesh_.host.end(), -1);
  if (hostless != mesh_.host.end())
    notes.push_back(std::to_string(std::count(hostless, mesh_.host.end(), -1)) +
                    " switch(es) without a host (first " +
                    f_.SwitchLabel(static_cast<int>(hostless - mesh_.host.begin())) +
                    "), routed as grid points: a host down or unplugged");
  // Classes share a row on a mesh fewer rows high than there are classes
  // (rising with the class, so a repeat follows its first): listed once.
  std::string rows;
  for (int c = 0, last = -1; c < McastClasses(); ++c) {
    const int row = TrunkRowOfClass(c);
    if (row != last) rows += (rows.empty() ? "" : ",") + std::to_string(row);
    last = row;
  }
  const std::string vls = std::to_string(opt_.vls) + " data VL" + (opt_.vls > 1 ? "s" : "");
  // Where multicast trees are rooted ("row" or "row(s)" as the mode has one or several).
  auto rooted = [&](const std::string& row_word) {
    return opt_.mcast == McastScheme::kSource ? std::string("at each group's anchor")
                                              : "on " + row_word + " " + rows;
  };
  if (opt_.mode == VlMode::kShared && opt_.vls == 1)
    notes.push_back(vls + ", shared: every data SL on VL 0, multicast rooted " + rooted("trunk row"));
  else if (opt_.mode == VlMode::kShared)
    notes.push_back(vls + ", shared: SL s on VL s mod " + std::to_string(opt_.vls) +
                    ", unicast SL (x+y) mod " + std::to_string(opt_.vls) +
                    ", multicast SL (MLID-0xC000) mod " + std::to_string(opt_.vls) + " rooted " +
                    rooted("trunk row(s)"));
  else
    notes.push_back(vls + ", dedicated: VL by out direction" +
                    (opt_.vls == 2   ? " (E,N VL0; W,S VL1)"
                     : opt_.vls == 4 ? " (E0 N1 W2 S3)"
                                     : " (all on VL0: the same tables as shared)") +
                    ", SL 0, multicast rooted " + rooted("trunk row"));
  if (opt_.mcast == McastScheme::kSource)
    notes.push_back(
        "multicast xymesh_mcast=source: union of XY paths from each group's anchor, its one "
        "sender (per-source trees), on the data VLs with the class SL; not for groups whose "
        "other members send");
  if (opt_.mcast == McastScheme::kPaper)
    notes.push_back("multicast xymesh_mcast=paper: union of XY paths from each group's "
                    "anchor, on its own VL " + std::to_string(McastVl()) + " (SL " +
                    std::to_string(kPaperMcastSl) + "; " + std::to_string(TotalVls()) +
                    " VLs in all); a group whose tree would close a credit loop there gets "
                    "the trunk-row tree instead");
  return notes;
}

namespace {

// Paper mode's admission control: the channel dependencies of the anchor
// trees on the multicast VL (a copy arriving on a switch link waits for
// every other switch link of the mask), counted per edge so one group can
// be taken out again. A tree is admitted only if the graph stays acyclic.
// The graph was acyclic before the tree came, so a new cycle runs through
// one of the tree's edges: the search starts at their tails only. Cost per
// admission: O(tree) plus the part of the graph reachable from the tree,
// at most every channel (4 x switches on a mesh) and edge once.
class McastVlGraph {
 public:
  bool TryAdmit(const Fabric& f, Lid mlid, const std::vector<std::pair<int, PortMask>>& tree) {
    Remove(mlid);
    if (succ_.empty()) Size(f);
    std::vector<Edge> edges = TreeEdges(f, tree);
    for (const Edge& e : edges) Add(e);
    if (NoCycleFrom(edges)) {
      edges_[mlid] = std::move(edges);
      return true;
    }
    Drop(edges);
    return false;
  }

  void Remove(Lid mlid) {
    auto it = edges_.find(mlid);
    if (it == edges_.end()) return;
    Drop(it->second);
    edges_.erase(it);
  }

  bool Admitted(Lid mlid) const { return edges_.count(mlid) > 0; }
  void Clear() { succ_.clear(), mark_.clear(), edges_.clear(); }

 private:
  using Channel = int;  // switch x stride_ + out port
  using Edge = std::pair<Channel, Channel>;
  struct Succ {
    Channel to;
    int count;
  };

  void Size(const Fabric& f) {
    stride_ = 1;
    for (const Switch& s : f.switches) stride_ = std::max(stride_, s.num_ports + 1);
    succ_.assign(f.switches.size() * size_t(stride_), {});
    mark_.assign(succ_.size(), 0);
  }

  std::vector<Edge> TreeEdges(const Fabric& f, const std::vector<std::pair<int, PortMask>>& tree) const {
    std::vector<Edge> edges;
    for (const auto& [sw, mask] : tree) {
      const Switch& s = f.switches[sw];
      for (int in = 1; in <= s.num_ports; ++in) {
        if (!mask.test(in) || !s.ports[in].is_switch()) continue;
        const Channel arrival = s.ports[in].index * stride_ + s.ports[in].port;
        for (int out = 1; out <= s.num_ports; ++out)
          if (out != in && mask.test(out) && s.ports[out].is_switch())
            edges.push_back({arrival, sw * stride_ + out});
      }
    }
    return edges;
  }

  void Add(const Edge& e) {
    std::vector<Succ>& out = succ_[size_t(e.first)];
    for (Succ& d : out)
      if (d.to == e.second) return void(++d.count);
    out.push_back({e.second, 1});
  }

  void Drop(const std::vector<Edge>& edges) {
    for (const Edge& e : edges) {
      std::vector<Succ>& out = succ_[size_t(e.first)];
      const auto it = std::find_if(out.begin(), out.end(), [&](const Succ& d) { return d.to == e.second; });
      if (--it->count > 0) continue;
      *it = out.back();
      out.pop_back();
    }
  }

  // Iterative DFS with white/grey/black colours from the edges' tails;
  // colours are stamps of this search, so nothing is cleared between them.
  bool NoCycleFrom(const std::vector<Edge>& edges) {
    stamp_ += 2;
    const uint32_t grey = stamp_ - 1, black = stamp_;
    std::vector<std::pair<Channel, size_t>> stack;
    for (const Edge& root : edges) {
      if (mark_[size_t(root.first)] >= grey) continue;
      stack.push_back({root.first, 0});
      mark_[size_t(root.first)] = grey;
      while (!stack.empty()) {
        auto& [c, next] = stack.back();
        const std::vector<Succ>& out = succ_[size_t(c)];
        if (next == out.size()) {
          mark_[size_t(c)] = black;
          stack.pop_back();
          continue;
        }
        const Channel d = out[next++].to;
        if (mark_[size_t(d)] == grey) return false;
        if (mark_[size_t(d)] == black) continue;
        mark_[size_t(d)] = grey;
        stack.push_back({d, 0});
      }
    }
    return true;
  }

  int stride_ = 1;
  std::vector<std::vector<Succ>> succ_;  // by channel
  std::vector<uint32_t> mark_;           // by channel: grey or black of search stamp_
  uint32_t stamp_ = 0;
  std::unordered_map<Lid, std::vector<Edge>> edges_;
};

class XyMeshEngine : public Engine {
  using Tree = std::vector<std::pair<int, PortMask>>;

 public:
  XyMeshEngine(XyMeshOptions opt, LogSink log) : opt_(opt), log_(std::move(log)) {}

  const char* name() const override { return "xymesh"; }

  void RouteUnicast(const Fabric& f, Tables& t) override {
    // OpenSM rebuilds every group after each routing, in MLID order. From
    // an empty multicast VL, first come first served became MLID order: a
    // heavy sweep of an unchanged mesh gave a lower MLID that had grown the
    // place of a group admitted before it, which lost multicast (or a kept
    // tree was forgotten, the group refused). With the same switches and
    // switch links the VL's trees stay admitted until their group is
    // rebuilt. (When those change the VL starts empty: the groups are
    // admitted in MLID order then.)
    std::vector<uint64_t> cabling = CablingOf(f);
    if (cabling != cabling_) {
      paper_trees_.Clear();
      vl_trees_.clear();
      cabling_ = std::move(cabling);
    }
    router_.reset();
    trees_.Clear();
    group_sl_.clear();
    router_ = std::make_unique<XyRouter>(f, RecognizeMesh(f), opt_);
    if (log_)
      for (const std::string& note : router_->Notes()) log_(LogLevel::kInfo, note);
    router_->Route(t);
  }

  // Touches only this group's entries: the switches of its previous tree
  // and of its new one.
  void RouteMulticast(const Fabric& f, const McastGroup& g, Tables& t) override {
    if (!router_) throw Error("xymesh: multicast needs unicast routing first");
    // Its tree on the multicast VL now (kept across a routing of the same
    // switch links): what the group keeps if no new one fits.
    left_out_.clear();
    const Tree had = TakeVlTree(g.mlid);
    group_sl_.erase(g.mlid);
    auto tree = router_->McastTree(g);
    uint8_t sl = router_->McastSl(g);
    if (OnMcastVl(g)) {
      if (!PlaceOnMcastVl(f, g, tree, sl)) {
        KeepPreviousTree(f, g, had, t);
        return;
      }
      if (paper_trees_.Admitted(g.mlid)) vl_trees_[g.mlid] = tree;
    } else if (opt_.mcast == McastScheme::kPaper && noted_off_vl_.insert(g.mlid).second) {
      Log("multicast group " + HexLid(g.mlid) + ": SL " + std::to_string(g.sl) +
          " from the SA, not " + std::to_string(kPaperMcastSl) + ": trunk-row tree on the data VLs");
    }
    group_sl_[g.mlid] = sl;
    trees_.Apply(f, g.mlid, tree, t);
  }

  const std::vector<int>* McastSwitches(Lid mlid) const override { return trees_.Switches(mlid); }

  std::vector<std::pair<int, std::string>> SwitchMembersLeftOut() const override { return left_out_; }

  // Its tree leaves the multicast VL's admission graph too, so later
  // groups are not turned away for a loop with a tree that is gone.
  void ForgetMulticast(const Fabric& f, Lid mlid, Tables& t) override {
    trees_.Apply(f, mlid, {}, t);
    TakeVlTree(mlid);
    group_sl_.erase(mlid);
    noted_off_vl_.erase(mlid);
  }

  void RouteSl2Vl(const Fabric& f, Tables& t) override {
    (void)f;
    if (!router_) throw Error("xymesh: SL2VL tables need unicast routing first");
    router_->RouteSl2Vl(t);
  }

  uint8_t PathSl(const Fabric& f, Lid slid, Lid dlid) const override {
    if (!router_) return 0;
    if (dlid >= kMulticastLidBase) return McastSl(dlid);
    const LidOwner o = f.owner(slid);
    if (o.kind != Peer::Kind::kEndPort) return 0;
    return router_->UnicastSl(o.index);
  }

  // The SL picks the VL in shared mode with several VLs (the unicast SLs
  // keep each VL's graph acyclic), and paper mode keeps SL 15 for its
  // multicast VL: unicast there must not get it from a QoS policy. A trunk
  // mesh on one VL, or dedicated VLs by direction, ignores the SL.
  bool HasSlPolicy() const override {
    return opt_.mcast == McastScheme::kPaper || (opt_.mode == VlMode::kShared && opt_.vls > 1);
  }

  bool TreesForAnchorOnly() const override { return opt_.mcast == McastScheme::kSource; }

  // Known before routing: OpenSM's adapter installs update_sl2vl from it.
  int DataVls() const override { return opt_.vls + (opt_.mcast == McastScheme::kPaper ? 1 : 0); }

 private:
  // Paper mode: a group goes for the multicast VL when its SL is 15 or
  // the engine's to choose.
  bool OnMcastVl(const McastGroup& g) const {
    return opt_.mcast == McastScheme::kPaper && (g.sl < 0 || g.sl == kPaperMcastSl);
  }

  // Paper mode: the anchor tree on SL 15 if admission takes it; else the
  // trunk-row tree `tree` (on its own SL when the engine picks, on the
  // multicast VL when the SA fixed SL 15, which admission must take).
  // False when the SA fixed SL 15 and neither tree fits.
  bool PlaceOnMcastVl(const Fabric& f, const McastGroup& g, Tree& tree, uint8_t& sl) {
    Tree anchored = router_->AnchorTree(g);
    if (paper_trees_.TryAdmit(f, g.mlid, anchored)) {
      tree = std::move(anchored);
      sl = kPaperMcastSl;
      return true;
    }
    Log("multicast group " + HexLid(g.mlid) +
        ": its anchor tree would close a credit loop on the multicast VL; trunk-row tree" +
        (g.sl < 0 ? " on the data VLs instead" : " instead"));
    return g.sl < 0 || paper_trees_.TryAdmit(f, g.mlid, tree);
  }

  // No tree for the new membership fits on the multicast VL. OpenSM has
  // cleared the MLID before asking, so failing here would take multicast
  // from every member a working tree served (a join turning a group off):
  // the group keeps that tree without the branches that now serve no
  // member (a port that left gets nothing more), which admission takes
  // back (its dependencies are some of those it had), and the members it
  // misses are named. A group without one is refused.
  void KeepPreviousTree(const Fabric& f, const McastGroup& g, const Tree& had, Tables& t) {
    const std::string why = "SL 15 (the multicast VL) and no tree with its " +
                            std::to_string(g.members.size()) + " members fits on it without a credit loop";
    const Tree previous = PrunedToMembers(f, had, g);
    if (previous.empty() || !paper_trees_.TryAdmit(f, g.mlid, previous)) {
      trees_.Apply(f, g.mlid, {}, t);
      throw McastRefused("multicast group " + HexLid(g.mlid) + ": " + why +
                         "; create the group with another SL");
    }
    group_sl_[g.mlid] = kPaperMcastSl;
    vl_trees_[g.mlid] = previous;
    trees_.Apply(f, g.mlid, previous, t);
    std::string missed;
    for (int ep : g.members)
      if (!Reaches(f, previous, ep)) missed += (missed.empty() ? "" : ", ") + f.end_ports[ep].name;
    // A switch that joined since: the kept tree has no port 0 for it.
    for (int sw : g.switch_members)
      if (!ReachesPortZero(previous, sw)) {
        missed += (missed.empty() ? "" : ", ") + f.switches[sw].name;
        left_out_.push_back({sw,
                             "no tree with it fits on SL 15's VL without a credit loop, and the tree "
                             "the group keeps does not reach it"});
      }
    if (log_)
      log_(LogLevel::kError, "multicast group " + HexLid(g.mlid) + ": " + why +
                                 "; it keeps its previous tree" +
                                 (previous == had ? "" : " without the branches to ports that left") +
                                 (missed.empty() ? "" : ", which does not reach " + missed) +
                                 "; create the group with another SL");
  }

  // `tree` without the host ports of end ports outside g's members (or of
  // none: a tree kept across a routing where its host went) and port 0 of
  // switches that are no switch members, then without the switches left as
  // dead ends (one tree link, no member below), repeatedly. What stays is
  // a subtree: still exactly once.
  static Tree PrunedToMembers(const Fabric& f, const Tree& tree, const McastGroup& g) {
    std::unordered_map<int, PortMask> mask;
    for (const auto& [sw, m] : tree) mask.emplace(sw, m);
    std::vector<char> member(f.end_ports.size(), 0);
    for (int ep : g.members)
      if (ep >= 0 && ep < static_cast<int>(member.size())) member[ep] = 1;
    for (auto& [sw, m] : mask)
      if (std::find(g.switch_members.begin(), g.switch_members.end(), sw) == g.switch_members.end())
        m.reset(0);
    std::vector<int> dead_ends;
    const auto check = [&](int sw) {
      const Switch& s = f.switches[sw];
      int links = 0, hosts = 0;
      for (int p = 1; p <= s.num_ports; ++p)
        if (mask[sw].test(p)) (s.ports[p].is_switch() ? links : hosts)++;
      if (links <= 1 && hosts == 0 && !mask[sw].test(0)) dead_ends.push_back(sw);
    };
    for (auto& [sw, m] : mask) {
      const Switch& s = f.switches[sw];
      for (int p = 1; p <= s.num_ports; ++p)
        if (m.test(p) && !s.ports[p].is_switch() && !(s.ports[p].is_end_port() && member[s.ports[p].index]))
          m.reset(p);  // a non-member's host port, or one whose host is gone
    }
    for (const auto& [sw, m] : tree) check(sw);
    while (!dead_ends.empty()) {
      const int sw = dead_ends.back();
      dead_ends.pop_back();
      if (mask[sw].none()) continue;
      const Switch& s = f.switches[sw];
      for (int p = 1; p <= s.num_ports; ++p)
        if (mask[sw].test(p) && s.ports[p].is_switch()) {
          mask[s.ports[p].index].reset(s.ports[p].port);
          check(s.ports[p].index);
        }
      mask[sw].reset();
    }
    Tree pruned;
    for (const auto& [sw, m] : tree)
      if (mask[sw].any()) pruned.emplace_back(sw, mask[sw]);
    return pruned;
  }

  // The group's tree on the multicast VL (none: empty), out of the VL's
  // admission graph and the record, for the group's rebuild or end.
  Tree TakeVlTree(Lid mlid) {
    paper_trees_.Remove(mlid);
    const auto it = vl_trees_.find(mlid);
    if (it == vl_trees_.end()) return {};
    Tree tree = std::move(it->second);
    vl_trees_.erase(it);
    return tree;
  }

  // Switches and their switch-to-switch links in index order: two fabrics
  // with equal ones number every (switch, port) of a tree alike, and give
  // the VL's admission graph the same channels. Hosts are left out: one
  // coming or going changes no switch link (a kept tree's host ports are
  // pruned to the members when it is kept again).
  static std::vector<uint64_t> CablingOf(const Fabric& f) {
    std::vector<uint64_t> out;
    for (const Switch& sw : f.switches) {
      out.push_back(sw.guid);
      for (const Peer& p : sw.ports)
        out.push_back(
            p.is_switch() ? 1ull << 48 | uint64_t(uint32_t(p.index)) << 16 | uint64_t(uint16_t(p.port)) : 0);
    }
    return out;
  }

  static bool Reaches(const Fabric& f, const Tree& tree, int ep) {
    const EndPort& e = f.end_ports[ep];
    for (const auto& [sw, mask] : tree)
      if (sw == e.switch_index) return mask.test(e.switch_port);
    return false;
  }
  static bool ReachesPortZero(const Tree& tree, int switch_index) {
    for (const auto& [sw, mask] : tree)
      if (sw == switch_index) return mask.test(0);
    return false;
  }

  // The SL recorded when the group was routed; for an MLID never routed
  // here (offline checks of other tables), what routing it would choose
  // first: SL 15 in paper mode, else its class's.
  uint8_t McastSl(Lid mlid) const {
    const auto it = group_sl_.find(mlid);
    if (it != group_sl_.end()) return it->second;
    if (opt_.mcast == McastScheme::kPaper) return kPaperMcastSl;
    McastGroup g;
    g.mlid = mlid;
    return router_->McastSl(g);
  }

  void Log(const std::string& line) const {
    if (log_) log_(LogLevel::kInfo, line);
  }

  XyMeshOptions opt_;
  LogSink log_;
  std::unique_ptr<XyRouter> router_;
  McastTreeTables trees_;
  std::vector<std::pair<int, std::string>> left_out_;  // of the last RouteMulticast
  McastVlGraph paper_trees_;                // paper mode: trees on the multicast VL
  std::unordered_map<Lid, Tree> vl_trees_;  // ... and each such group's tree
  std::vector<uint64_t> cabling_;           // CablingOf the fabric they were admitted on
  std::unordered_map<Lid, uint8_t> group_sl_;  // SL of each routed group
  // Paper mode: groups told they are not on SL 15, once a group's lifetime
  // (OpenSM rebuilds it on every join and leave, and on every routing).
  std::unordered_set<Lid> noted_off_vl_;
};

}  // namespace

std::unique_ptr<Engine> MakeXyMeshEngine(const XyMeshOptions& opt, LogSink log) {
  return std::make_unique<XyMeshEngine>(opt, std::move(log));
}

}  // namespace ibu
