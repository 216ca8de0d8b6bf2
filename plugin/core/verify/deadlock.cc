#include "plugin/core/verify/deadlock.h"

#include <algorithm>
#include <sstream>
#include <unordered_set>

#include "plugin/core/find_cycle.h"

namespace ibu {

namespace {

constexpr int kVls = 16;
constexpr int kVl15 = 15;
constexpr size_t kVl15Examples = 5;

// The dependency graph. Channels get dense ids on first use; each keeps its
// successors in a small vector (degree <= ports x VLs, a handful on meshes
// and fat-trees), so deduplication is a linear search.
class Graph {
 public:
  explicit Graph(const Fabric& f) : base_(f.switches.size() + 1, 0) {
    for (size_t s = 0; s < f.switches.size(); ++s)
      base_[s + 1] = base_[s] + f.switches[s].num_ports + 1;
    id_.assign(static_cast<size_t>(base_.back()) * kVls, -1);
  }

  int Channel(int sw, int port, int vl) {
    int& id = id_[(static_cast<size_t>(base_[sw]) + port) * kVls + (vl & (kVls - 1))];
    if (id < 0) {
      id = static_cast<int>(nodes_.size());
      nodes_.push_back({sw, port, vl & (kVls - 1)});
      adj_.emplace_back();
      stamp_.push_back(0);
      seen_sls_.push_back(0);
    }
    return id;
  }

  void Depend(int from, int to) {
    std::vector<int>& a = adj_[from];
    if (std::find(a.begin(), a.end(), to) == a.end()) a.push_back(to);
  }

  // Memo of (arrival channel, SL) states for one walk epoch (a LID, or a
  // group): the rest of a route depends on nothing else.
  void NewEpoch() { ++epoch_; }
  bool Visit(int channel, int sl) {
    if (stamp_[channel] != epoch_) stamp_[channel] = epoch_, seen_sls_[channel] = 0;
    const uint16_t bit = static_cast<uint16_t>(1u << (sl & 15));
    if (seen_sls_[channel] & bit) return false;
    seen_sls_[channel] |= bit;
    return true;
  }

  size_t size() const { return nodes_.size(); }
  const DeadlockChannel& node(int id) const { return nodes_[id]; }
  const std::vector<int>& succ(int id) const { return adj_[id]; }

 private:
  std::vector<int> base_;  // first (switch, port) slot of each switch
  std::vector<int> id_;
  std::vector<DeadlockChannel> nodes_;
  std::vector<std::vector<int>> adj_;
  std::vector<uint32_t> stamp_;
  std::vector<uint16_t> seen_sls_;
  uint32_t epoch_ = 0;
};

// The LFTs a block of LIDs at a time, LID-major. The walks for one LID read
// every switch's entry for it; read from each switch's own row, that was a
// cache line and a page per switch per LID, where a 64x64 mesh's check
// spent most of its time. Copying 64 LIDs of each row at once reads each
// line once. Memory: 64 x switches bytes.
class LftColumns {
 public:
  explicit LftColumns(const Tables& t) : t_(t), block_(kLids * t.lft.size()) {}

  // Every switch's entry for `lid` (t.lft.size() of them; kNoPort past a
  // row's end, as Lft::port).
  const uint8_t* Of(Lid lid) {
    if (lid < first_ || lid >= first_ + kLids) Load(lid - lid % kLids);
    return block_.data() + static_cast<size_t>(lid - first_) * t_.lft.size();  // no LFTs: not read
  }

 private:
  static constexpr int kLids = 64;

  void Load(int first) {
    first_ = first;
    const size_t rows = t_.lft.size();
    for (size_t sw = 0; sw < rows; ++sw) {
      const Lft& row = t_.lft[sw];
      for (int k = 0; k < kLids; ++k) block_[k * rows + sw] = row.port(static_cast<Lid>(first + k));
    }
  }

  const Tables& t_;
  std::vector<uint8_t> block_;  // [lid - first_][switch]
  int first_ = -kLids;
};

class Builder {
 public:
  Builder(const Fabric& f, const Tables& t, const DeadlockOptions& opt, Graph& g, DeadlockReport& r)
      : f_(f), t_(t), opt_(opt), g_(g), r_(r), lfts_(t), host_vl15_sls_(f.end_ports.size(), 0) {
    for (const auto& [ep, vls] : t.end_port_sl2vl)
      for (int sl = 0; sl < 16; ++sl)
        if (ep >= 0 && ep < static_cast<int>(host_vl15_sls_.size()) && vls[sl] == kVl15)
          host_vl15_sls_[ep] |= static_cast<uint16_t>(1u << sl);
  }

  uint8_t UnicastSl(int src, Lid dlid) const {
    if (opt_.path_sl) return opt_.path_sl(src, dlid) & 15;
    return src < static_cast<int>(t_.end_port_sl.size()) ? t_.end_port_sl[src] & 15 : 0;
  }

  // The SL the group's senders use: the SA's (the groups file's sl=) when
  // known, so SL2VL tables read back are checked for the VL the packets
  // really take; else the engine's, else SL 0.
  uint8_t McastSl(int src, const McastGroup& grp) const {
    if (grp.sl >= 0) return static_cast<uint8_t>(grp.sl & 15);
    return opt_.path_sl ? opt_.path_sl(src, grp.mlid) & 15 : 0;
  }

  // VL of the hop; tables that do not cover the ports (or none) mean VL 0.
  int Vl(int sw, int in, int out, int sl) const {
    if (sw >= static_cast<int>(t_.sl2vl.size())) return 0;
    const Sl2Vl& m = t_.sl2vl[sw];
    if (m.empty() || in > m.num_ports || out > m.num_ports) return 0;
    return m.get(in, out, sl);
  }

  // The SL of a switch's response to end port `dst`: its request's, which
  // `dst` sent toward the switch's LID on its own path SL (the SA's, the
  // SL its requests are walked on here too). A tool that skips the SA
  // (perfquery sends on SL 0) is outside this rule both ways.
  uint8_t SwitchSl(int sw, int dst) const { return UnicastSl(dst, f_.switches[sw].lid); }

  // Every switch to end-port `lid`, starting from its port 0 (the SL2VL
  // tables' in-port 0), in the same epoch (memo) as the end ports' routes
  // to `lid`: the switch-sent routes add O(switches) first hops per LID.
  long FromSwitches(Lid lid) {
    const LidOwner owner = f_.owner(lid);
    if (owner.kind != Peer::Kind::kEndPort) return 0;
    for (size_t s = 0; s < f_.switches.size(); ++s)
      Walk(lid, static_cast<int>(s), 0, SwitchSl(static_cast<int>(s), owner.index));
    return static_cast<long>(f_.switches.size());
  }

  // Every end port to `lid`. The first hop starts at the source's switch
  // with the host port as arrival port; the walk stops at a delivery, a
  // black hole, or a state already walked for this LID.
  long Unicast(Lid lid) {
    g_.NewEpoch();
    const LidOwner owner = f_.owner(lid);
    long routes = 0;
    for (size_t e = 0; e < f_.end_ports.size(); ++e) {
      const EndPort& ep = f_.end_ports[e];
      if (ep.switch_index < 0) continue;
      if (owner.kind == Peer::Kind::kEndPort && owner.index == static_cast<int>(e)) continue;
      ++routes;
      const uint8_t sl = UnicastSl(static_cast<int>(e), lid);
      if (LeavesOnVl15(static_cast<int>(e), sl)) continue;
      Walk(lid, ep.switch_index, ep.switch_port, sl);
    }
    return routes;
  }

  // Every member floods the group's tree (its anchor alone with
  // anchor_sends_only); memoised per group.
  long Multicast(const McastGroup& grp) {
    g_.NewEpoch();
    long senders = 0;
    // An anchor that is not plugged in sends nothing: every member is
    // walked then, rather than no sender (a vacuous "acyclic").
    const std::vector<int> anchor = {grp.anchor};
    const bool from_anchor = opt_.anchor_sends_only && grp.anchor >= 0 &&
                             grp.anchor < static_cast<int>(f_.end_ports.size()) &&
                             f_.end_ports[grp.anchor].switch_index >= 0;
    for (int m : from_anchor ? anchor : grp.members) {
      if (m < 0 || m >= static_cast<int>(f_.end_ports.size())) continue;
      const EndPort& ep = f_.end_ports[m];
      if (ep.switch_index < 0) continue;
      ++senders;
      const uint8_t sl = McastSl(m, grp);
      if (LeavesOnVl15(m, sl)) continue;
      Flood(grp.mlid, ep.switch_index, ep.switch_port, sl);
    }
    return senders;
  }

 private:
  // Next channel out of `sw` for a packet that arrived on `in`, or -1 when
  // the port does not lead to another switch (delivery, hole, host) or the
  // packet is dropped there (VL 15).
  int Out(int sw, int in, int out, int sl) {
    const Switch& s = f_.switches[sw];
    if (out <= 0 || out > s.num_ports || !s.ports[out].connected()) return -1;
    const int vl = Vl(sw, in, out, sl);
    if (vl == kVl15) {
      NoteVl15(sw, in, out, sl);
      return -1;
    }
    if (!s.ports[out].is_switch()) return -1;
    return g_.Channel(sw, out, vl);
  }

  // The end port's own SL-to-VL table (read back with --sl2vl) sends `sl`
  // to VL 15: the packet is dropped as it leaves the host. A bit test, as
  // it runs once per (end port, LID).
  bool LeavesOnVl15(int ep, int sl) {
    if (!(host_vl15_sls_[ep] >> (sl & 15) & 1)) return false;
    NoteVl15(-1, ep, 0, sl);
    return true;
  }

  // Bad tables only, so a set of what was seen costs nothing otherwise.
  void NoteVl15(int sw, int in, int out, int sl) {
    // in < 2^24 (an end port's index for sw -1), out < 2^16, sl < 16.
    const uint64_t key = static_cast<uint64_t>(sw + 1) << 44 | static_cast<uint64_t>(in) << 20 |
                         static_cast<uint64_t>(out) << 4 | static_cast<uint64_t>(sl);
    if (!vl15_seen_.insert(key).second) return;
    ++r_.vl15_hops;
    if (r_.vl15_examples.size() < kVl15Examples) r_.vl15_examples.push_back({sw, in, out, sl});
  }

  void Walk(Lid lid, int sw, int in, int sl) {
    const uint8_t* lft = lfts_.Of(lid);
    for (int from = -1;;) {
      if (sw >= static_cast<int>(t_.lft.size())) return;
      const int out = lft[sw];
      const int c = Out(sw, in, out, sl);
      if (c < 0) return;
      if (from >= 0) g_.Depend(from, c);
      if (!g_.Visit(c, sl)) return;
      const Peer& peer = f_.switches[sw].ports[out];
      from = c;
      sw = peer.index;
      in = peer.port;
    }
  }

  void Flood(Lid mlid, int sw0, int in0, int sl) {
    struct State {
      int sw, in, from;
    };
    std::vector<State> stack{{sw0, in0, -1}};
    while (!stack.empty()) {
      const State st = stack.back();
      stack.pop_back();
      if (st.sw >= static_cast<int>(t_.mft.size())) continue;
      const auto it = t_.mft[st.sw].groups.find(mlid);
      if (it == t_.mft[st.sw].groups.end()) continue;
      const Switch& s = f_.switches[st.sw];
      for (int p = 1; p <= s.num_ports; ++p) {
        if (!it->second.test(p) || p == st.in) continue;
        const int c = Out(st.sw, st.in, p, sl);
        if (c < 0) continue;
        if (st.from >= 0) g_.Depend(st.from, c);
        if (g_.Visit(c, sl)) stack.push_back({s.ports[p].index, s.ports[p].port, c});
      }
    }
  }

  const Fabric& f_;
  const Tables& t_;
  const DeadlockOptions& opt_;
  Graph& g_;
  DeadlockReport& r_;
  LftColumns lfts_;
  std::vector<uint16_t> host_vl15_sls_;  // per end port: SLs its own table sends to VL 15
  std::unordered_set<uint64_t> vl15_seen_;
};

}  // namespace

DeadlockOptions EngineSls(const Fabric& f, const Engine& e) {
  DeadlockOptions opt;
  opt.path_sl = [&f, &e](int src, Lid dlid) {
    return e.PathSl(f, f.end_ports[src].base_lid, dlid);
  };
  return opt;
}

DeadlockReport CheckDeadlock(const Fabric& f, const Tables& t,
                             const std::vector<McastGroup>& groups, const DeadlockOptions& opt) {
  DeadlockReport r;
  Graph g(f);
  Builder b(f, t, opt, g, r);
  for (Lid lid = 1; lid <= f.max_lid() && lid != 0; ++lid) {
    if (!f.owner(lid).valid()) continue;
    if (opt.end_port_lids_only && f.owner(lid).kind != Peer::Kind::kEndPort) continue;
    r.unicast_routes += b.Unicast(lid);  // starts the LID's epoch
    if (opt.switch_sources) r.switch_routes += b.FromSwitches(lid);
  }
  for (const McastGroup& grp : groups) r.mcast_senders += b.Multicast(grp);
  r.channels = static_cast<long>(g.size());
  for (int c = 0; c < static_cast<int>(g.size()); ++c) r.dependencies += g.succ(c).size();
  const auto succ = [&g](int c) -> const std::vector<int>& { return g.succ(c); };
  for (int c : FindCycle(static_cast<int>(g.size()), succ, [](int) { return false; }))
    r.cycle.push_back(g.node(c));
  return r;
}

std::string DeadlockReport::Summary(const Fabric& f) const {
  std::ostringstream os;
  if (acyclic()) {
    os << "channel dependencies: acyclic (" << channels << " channels, " << dependencies
       << " dependencies from " << unicast_routes << " unicast routes and " << mcast_senders
       << " multicast senders";
    if (switch_routes > 0) os << ", and " << switch_routes << " routes from switches to end ports";
    os << ")\n";
  } else {
    os << "credit loop of " << cycle.size() << " channels:";
    for (const DeadlockChannel& c : cycle) os << " " << f.PortLabel(c.sw, c.port) << " VL " << c.vl << " ->";
    os << " back to the first\n";
  }
  if (vl15_hops > 0) {
    os << "error: " << vl15_hops << " hop(s) of routes map data packets to VL 15, where they are dropped:";
    for (const Vl15Hop& h : vl15_examples) {
      if (h.sw < 0)
        os << "\n  end port " << f.end_ports[h.in].name << " SL " << h.sl << " (its own table)";
      else
        os << "\n  " << f.SwitchLabel(h.sw) << " SL " << h.sl << " from port " << h.in << " to port "
           << h.out;
    }
    if (vl15_hops > static_cast<long>(vl15_examples.size())) os << "\n  ...";
    os << "\n";
  }
  return os.str();
}

}  // namespace ibu
