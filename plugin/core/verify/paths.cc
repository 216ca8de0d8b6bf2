#include "plugin/core/verify/paths.h"

#include <algorithm>
#include <map>
#include <set>

namespace ibu {

int TraceHopLimit(const Fabric& f) { return std::max(64, static_cast<int>(f.switches.size()) + 1); }

LftStep StepOf(const Fabric& f, const Tables& t, int sw, Lid lid) {
  const int port = t.lft.at(sw).port(lid);
  const Switch& s = f.switches[sw];
  if (port == kNoPort) return {LftStep::Kind::kNoEntry, port};
  if (port == 0) return {LftStep::Kind::kPortZero, port};
  if (port > s.num_ports) return {LftStep::Kind::kNoSuchPort, port};
  const Peer& peer = s.ports[port];
  if (peer.is_switch()) return {LftStep::Kind::kSwitch, port, peer.index};
  if (peer.is_end_port()) return {LftStep::Kind::kEndPort, port, peer.index};
  return {LftStep::Kind::kUncabled, port};
}

bool EndsAtOwner(const Fabric& f, int sw, const LftStep& step, Lid lid) {
  const LidOwner o = f.owner(lid);
  switch (step.kind) {
    case LftStep::Kind::kPortZero:
      return o.kind == Peer::Kind::kSwitch && o.index == sw;
    case LftStep::Kind::kEndPort:
      return o.kind == Peer::Kind::kEndPort && o.index == step.next;
    default:
      return false;
  }
}

std::vector<std::pair<int, int>> TraceRoute(const Fabric& f, const Tables& t, int src, Lid dlid,
                                            int max_hops) {
  if (max_hops < 0) max_hops = TraceHopLimit(f);
  std::vector<std::pair<int, int>> hops;
  int sw = f.end_ports.at(src).switch_index;
  for (int i = 0; i < max_hops && sw >= 0; ++i) {
    const LftStep step = StepOf(f, t, sw, dlid);
    hops.push_back({sw, step.port});
    sw = step.kind == LftStep::Kind::kSwitch ? step.next : -1;
  }
  return hops;
}

BaseLidLoadReport BaseLidLoad(const Fabric& f, const Tables& t) {
  BaseLidLoadReport r;
  r.load.assign(f.switches.size(), 0);
  std::vector<long> sources(f.switches.size(), 0);  // end ports per switch
  for (const EndPort& ep : f.end_ports)
    if (ep.switch_index >= 0) ++sources[ep.switch_index];
  std::vector<int> starts;
  for (size_t sw = 0; sw < f.switches.size(); ++sw)
    if (sources[sw]) starts.push_back(static_cast<int>(sw));
  const int max_hops = TraceHopLimit(f);
  std::vector<int> route;
  for (size_t d = 0; d < f.end_ports.size(); ++d) {
    const EndPort& dst = f.end_ports[d];
    const Lid dlid = dst.base_lid;
    for (int start : starts) {
      // Every source on `start` but the destination itself.
      const long n = sources[start] - (dst.switch_index == start ? 1 : 0);
      if (n == 0) continue;
      // TraceRoute's walk, from the sources' switch.
      route.clear();
      int sw = start;
      bool arrived = false;
      while (static_cast<int>(route.size()) < max_hops) {
        route.push_back(sw);
        const LftStep step = StepOf(f, t, sw, dlid);
        if (step.kind != LftStep::Kind::kSwitch) {
          arrived = EndsAtOwner(f, sw, step, dlid);
          break;
        }
        sw = step.next;
      }
      if (!arrived) {
        if (r.broken++ == 0) {
          r.broken_from = start;
          r.broken_to = static_cast<int>(d);
          r.broken_loops = static_cast<int>(route.size()) == max_hops;
        }
        r.broken += n - 1;
        continue;
      }
      for (int s : route) r.load[s] += n;
    }
  }
  return r;
}

DisjointReport CheckDisjointUpLinks(const Fabric& f, const Tables& t, const FatTree& tree,
                                    const std::function<Lid(int, int)>& select, size_t max_errors) {
  DisjointReport r;
  const int ne = static_cast<int>(f.end_ports.size());
  for (int d = 0; d < ne; ++d) {
    // Per source subtree (LCA level a, prefix p_0..p_a): the up links used
    // to leave it, and the first source (and its DLID) that used each.
    // Sources that select the same DLID share their route by design (a
    // folded LMC has fewer LIDs than the subtree has sources): only
    // different DLIDs must leave on different links.
    std::map<std::vector<int>, std::map<std::pair<int, int>, std::pair<int, Lid>>> exits;
    for (int s = 0; s < ne; ++s) {
      if (s == d) continue;
      int a = 0;
      while (a < tree.n - 1 && tree.p[s][a] == tree.p[d][a]) ++a;
      if (a == tree.n - 1) continue;  // same leaf: no up link
      std::vector<int> key(tree.p[s].begin(), tree.p[s].begin() + a + 1);
      key.push_back(-a);  // subtrees of different levels never share a key
      const Lid dlid = select(s, d);
      for (auto [sw, port] : TraceRoute(f, t, s, dlid)) {
        if (tree.level[sw] != a + 1) continue;
        auto [it, fresh] = exits[key].emplace(std::make_pair(sw, port), std::make_pair(s, dlid));
        if (!fresh && it->second.second != dlid) {
          ++r.violations;
          if (r.errors.size() < max_errors)
            r.errors.push_back(tree.HostLabel(s) + " and " + tree.HostLabel(it->second.first) +
                               " both leave their subtree through " + f.PortLabel(sw, port) +
                               " toward " + tree.HostLabel(d) + " (DLIDs " +
                               std::to_string(dlid) + " and " +
                               std::to_string(it->second.second) + ")");
        }
        break;
      }
    }
    r.subtrees_checked += static_cast<long>(exits.size());
  }
  return r;
}

}  // namespace ibu
