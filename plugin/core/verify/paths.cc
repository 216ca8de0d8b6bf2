#include "plugin/core/verify/paths.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <utility>

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

namespace {

// The switch-to-switch hops (switch, out port) of the route from end port
// `src` to `dlid`, as TraceRoute walks it; false when it does not reach
// the LID's owner.
bool SwitchHops(const Fabric& f, const Tables& t, int src, Lid dlid, int max_hops,
                std::vector<std::pair<int, int>>* hops) {
  hops->clear();
  int sw = f.end_ports[src].switch_index;
  for (int walked = 0; sw >= 0 && walked < max_hops; ++walked) {
    const LftStep step = StepOf(f, t, sw, dlid);
    if (step.kind != LftStep::Kind::kSwitch) return EndsAtOwner(f, sw, step, dlid);
    hops->emplace_back(sw, step.port);
    sw = step.next;
  }
  return false;
}

LinkSharingReport::Direction Summarise(const std::vector<long>& sources,
                                       const std::vector<long>& destinations, const std::vector<char>& upward,
                                       bool up) {
  LinkSharingReport::Direction d;
  long sum_sources = 0, sum_destinations = 0;
  for (size_t link = 0; link < sources.size(); ++link) {
    if (!sources[link] || static_cast<bool>(upward[link]) != up) continue;
    ++d.links;
    sum_sources += sources[link];
    sum_destinations += destinations[link];
    d.max_sources = std::max(d.max_sources, sources[link]);
    d.max_destinations = std::max(d.max_destinations, destinations[link]);
  }
  if (d.links) {
    d.mean_sources = static_cast<double>(sum_sources) / static_cast<double>(d.links);
    d.mean_destinations = static_cast<double>(sum_destinations) / static_cast<double>(d.links);
  }
  return d;
}

}  // namespace

LinkSharingReport LinkSharing(const Fabric& f, const Tables& t, const FatTree& tree,
                              const std::function<Lid(int, int)>& select) {
  LinkSharingReport r;
  std::vector<size_t> first_link(f.switches.size() + 1, 0);  // link id: first_link[sw] + port
  for (size_t sw = 0; sw < f.switches.size(); ++sw)
    first_link[sw + 1] = first_link[sw] + static_cast<size_t>(f.switches[sw].num_ports) + 1;
  const size_t links = first_link.back();
  std::vector<long> sources(links, 0), destinations(links, 0);
  std::vector<int> last_source(links, -1), last_destination(links, -1);
  std::vector<char> upward(links, 0);
  std::vector<int> ends;  // end ports with a LID
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    if (f.end_ports[e].base_lid && f.end_ports[e].switch_index >= 0) ends.push_back(static_cast<int>(e));
  const int max_hops = TraceHopLimit(f);
  std::vector<std::pair<int, int>> hops;
  // Counts `end` once a link: `last` holds the end each link last counted.
  auto count_route = [&](int src, int dst, int end, std::vector<int>& last, std::vector<long>& count,
                         bool tally_broken) {
    const Lid dlid = select(src, dst);
    if (!SwitchHops(f, t, src, dlid, max_hops, &hops)) {
      if (tally_broken && r.broken++ == 0) r.broken_src = src, r.broken_dst = dst, r.broken_dlid = dlid;
      return;
    }
    for (const auto& [sw, port] : hops) {
      const size_t link = first_link[sw] + static_cast<size_t>(port);
      upward[link] = tree.level[f.switches[sw].ports[port].index] < tree.level[sw];
      if (std::exchange(last[link], end) != end) ++count[link];
    }
  };
  for (int s : ends)
    for (int d : ends)
      if (s != d) count_route(s, d, s, last_source, sources, true);
  for (int d : ends)
    for (int s : ends)
      if (s != d) count_route(s, d, d, last_destination, destinations, false);
  r.up = Summarise(sources, destinations, upward, true);
  r.down = Summarise(sources, destinations, upward, false);
  return r;
}

namespace {

// The subtree a source leaves toward a destination whose digits first
// differ from its own at digit a: (a, p_0..p_a), as a dense id per (source,
// a), so that the per-pair work needs no vector key.
class SourceSubtrees {
 public:
  explicit SourceSubtrees(const FatTree& tree) : levels_(std::max(tree.n - 1, 0)) {
    std::map<std::vector<int>, int> ids;  // the prefix's length is a + 1
    id_.resize(tree.p.size() * levels_);
    for (size_t s = 0; s < tree.p.size(); ++s)
      for (int a = 0; a < levels_; ++a) {
        std::vector<int> prefix(tree.p[s].begin(), tree.p[s].begin() + a + 1);
        id_[s * levels_ + a] = ids.emplace(std::move(prefix), static_cast<int>(ids.size())).first->second;
      }
    count_ = static_cast<int>(ids.size());
  }
  int Of(int s, int a) const { return id_[static_cast<size_t>(s) * levels_ + a]; }
  int count() const { return count_; }

 private:
  int levels_;
  int count_ = 0;
  std::vector<int> id_;
};

// Per destination: the first hop of a route at each level, memoised per
// (source switch, DLID). A route depends on nothing but where it starts and
// its DLID, so the sources of one leaf share one walk per DLID.
class LevelExits {
 public:
  struct Hop {
    int sw = -1;
    int port = 0;
  };

  LevelExits(const Fabric& f, const Tables& t, const FatTree& tree) : f_(f), t_(t), tree_(tree) {
    for (const EndPort& ep : f.end_ports) lids_ = std::max(lids_, ep.lid_count());
    stamp_.assign(f.switches.size() * lids_, 0);
    hops_.resize(stamp_.size() * std::max(tree.n, 1));
  }

  void NewDestination(int d) {
    ++epoch_;
    base_ = f_.end_ports[d].base_lid;
    count_ = f_.end_ports[d].lid_count();
  }

  // TraceRoute(src, dlid)'s first hop at a switch of `level`.
  Hop At(int src, Lid dlid, int level) {
    const int start = f_.end_ports[src].switch_index;
    if (start < 0) return {};
    const long off = static_cast<long>(dlid) - base_;
    if (off < 0 || off >= count_) {  // not the destination's LID: not memoised
      Walk(start, dlid, scratch_);
      return scratch_[level];
    }
    const size_t slot = static_cast<size_t>(start) * lids_ + off;
    Hop* hops = &hops_[slot * tree_.n];
    if (stamp_[slot] != epoch_) {
      stamp_[slot] = epoch_;
      Walk(start, dlid, hops);
    }
    return hops[level];
  }

 private:
  // TraceRoute's walk, keeping each level's first hop; it stops once levels
  // 1..n-1 (those a source subtree is left from) are all found.
  void Walk(int sw, Lid dlid, Hop* hops) {
    std::fill(hops, hops + tree_.n, Hop{});
    int missing = tree_.n - 1;
    const int max_hops = TraceHopLimit(f_);
    for (int i = 0; i < max_hops && sw >= 0 && missing > 0; ++i) {
      const LftStep step = StepOf(f_, t_, sw, dlid);
      const int level = tree_.level[sw];
      if (level > 0 && level < tree_.n && hops[level].sw < 0) {
        hops[level] = {sw, step.port};
        --missing;
      }
      sw = step.kind == LftStep::Kind::kSwitch ? step.next : -1;
    }
  }
  void Walk(int sw, Lid dlid, std::vector<Hop>& hops) {
    hops.resize(std::max(tree_.n, 1));
    Walk(sw, dlid, hops.data());
  }

  const Fabric& f_;
  const Tables& t_;
  const FatTree& tree_;
  int lids_ = 1;  // the most LIDs of an end port
  uint32_t epoch_ = 0;
  Lid base_ = 0;
  int count_ = 0;
  std::vector<uint32_t> stamp_;  // per (switch, LID offset)
  std::vector<Hop> hops_;        // per (switch, LID offset, level)
  std::vector<Hop> scratch_;
};

// Per destination: the first source (and its DLID) to go up each link of
// its subtree (leaving it or inside it). A link is claimed by one subtree
// per destination on a fat-tree's up/down routes, so a flat array by link
// holds the claims; another subtree on the same link (a route that
// wandered), and an entry that is no port (255, or above the switch's
// ports), go to a map.
class ExitClaims {
 public:
  struct Claim {
    uint32_t epoch = 0;
    int subtree = -1;
    int src = -1;
    Lid dlid = 0;
  };

  explicit ExitClaims(const Fabric& f) : link_base_(f.switches.size() + 1, 0) {
    for (size_t s = 0; s < f.switches.size(); ++s)
      link_base_[s + 1] = link_base_[s] + f.switches[s].num_ports + 1;
    claims_.resize(link_base_.back());
  }

  void NewDestination() {
    ++epoch_;
    others_.clear();
  }

  // The claim on (subtree, sw, port): the first caller's (src, dlid), which
  // it records.
  const Claim& First(int subtree, int sw, int port, int src, Lid dlid) {
    const Claim mine{epoch_, subtree, src, dlid};
    if (port < link_base_[sw + 1] - link_base_[sw]) {
      Claim& c = claims_[link_base_[sw] + port];
      if (c.epoch != epoch_) c = mine;
      if (c.subtree == subtree) return c;
    }
    return others_.emplace(std::make_tuple(subtree, sw, port), mine).first->second;
  }

 private:
  std::vector<int> link_base_;  // first (switch, port) slot of each switch
  std::vector<Claim> claims_;
  std::map<std::tuple<int, int, int>, Claim> others_;  // (subtree, switch, port)
  uint32_t epoch_ = 0;
};

}  // namespace

std::string DisjointViolation(const std::string& src, const std::string& first, const std::string& link,
                              bool exit, const std::string& dst, Lid dlid, Lid first_dlid) {
  return src + " and " + first + (exit ? " both leave their subtree through " : " both go up through ") +
         link + (exit ? "" : " inside their subtree") + " toward " + dst + " (DLIDs " + std::to_string(dlid) +
         " and " + std::to_string(first_dlid) + ")";
}

namespace {

// Digits two hosts share from p_0 on, at most `limit`.
int CommonDigits(const std::vector<int>& p, const std::vector<int>& q, int limit) {
  int a = 0;
  while (a < limit && p[a] == q[a]) ++a;
  return a;
}

// The pairs the check covers: two hosts on different leaves.
bool OnDifferentLeaves(const FatTree& tree, int s, int d) {
  return s != d && CommonDigits(tree.p[s], tree.p[d], tree.n - 1) < tree.n - 1;
}

// `select` for destinations [d0, d0 + count) and every source, into
// dlids[k * sources + s] (0 for pairs the check skips). Read source by
// source: a path map is stored by source, and asking it destination by
// destination missed the cache on every pair (2 of the 10 s on FT(32,3)).
void SelectForDestinations(const FatTree& tree, const std::function<Lid(int, int)>& select, int d0, int count,
                           std::vector<Lid>& dlids) {
  const int ne = static_cast<int>(tree.p.size());
  dlids.assign(static_cast<size_t>(count) * ne, 0);
  for (int s = 0; s < ne; ++s)
    for (int k = 0; k < count; ++k)
      if (OnDifferentLeaves(tree, s, d0 + k)) dlids[static_cast<size_t>(k) * ne + s] = select(s, d0 + k);
}

// The check's state across destinations; one destination at a time.
class DisjointChecker {
 public:
  DisjointChecker(const Fabric& f, const Tables& t, const FatTree& tree, size_t max_errors)
      : f_(f),
        tree_(tree),
        max_errors_(max_errors),
        subtrees_(tree),
        exits_(f, t, tree),
        claims_(f),
        counted_(subtrees_.count(), -1) {}

  // `dlids[s]`: the DLID source s selects toward d.
  void Destination(int d, const Lid* dlids) {
    exits_.NewDestination(d);
    claims_.NewDestination();
    const int ne = static_cast<int>(f_.end_ports.size());
    for (int s = 0; s < ne; ++s) {
      if (s == d) continue;
      const int a = CommonDigits(tree_.p[s], tree_.p[d], tree_.n - 1);
      if (a == tree_.n - 1) continue;  // same leaf: no up link
      UpLinks(s, d, dlids[s], a);
    }
  }

  DisjointReport& report() { return r_; }

 private:
  // Source s's up links inside its subtree below the common ancestor with
  // d (depth a), from its leaf's (level n-1) to the one that leaves the
  // subtree (level a+1): each claimed for s's DLID; the first one another
  // DLID holds is the pair's one violation, and the links above it stay
  // unclaimed (a later source meeting s there is not counted again).
  void UpLinks(int s, int d, Lid dlid, int a) {
    const int subtree = subtrees_.Of(s, a);
    for (int level = tree_.n - 1; level > a; --level) {
      const LevelExits::Hop hop = exits_.At(s, dlid, level);
      if (hop.sw < 0) continue;
      if (counted_[subtree] != d) counted_[subtree] = d, ++r_.subtrees_checked;
      const ExitClaims::Claim& first = claims_.First(subtree, hop.sw, hop.port, s, dlid);
      if (first.dlid != dlid) {
        Violation(s, first, hop, d, dlid, level == a + 1);
        return;
      }
    }
  }

  void Violation(int s, const ExitClaims::Claim& first, const LevelExits::Hop& hop, int d, Lid dlid,
                 bool exit) {
    ++r_.violations;
    if (r_.errors.size() < max_errors_)
      r_.errors.push_back(DisjointViolation(tree_.HostLabel(s), tree_.HostLabel(first.src),
                                            f_.PortLabel(hop.sw, hop.port), exit, tree_.HostLabel(d), dlid,
                                            first.dlid));
  }

  const Fabric& f_;
  const FatTree& tree_;
  const size_t max_errors_;
  const SourceSubtrees subtrees_;
  LevelExits exits_;
  ExitClaims claims_;
  std::vector<int> counted_;  // per subtree: the destination that counted it
  DisjointReport r_;
};

}  // namespace

DisjointReport CheckDisjointUpLinks(const Fabric& f, const Tables& t, const FatTree& tree,
                                    const std::function<Lid(int, int)>& select, size_t max_errors) {
  constexpr int kDestinationsPerRead = 64;  // the selection's buffer: 64 x end ports DLIDs
  const int ne = static_cast<int>(f.end_ports.size());
  DisjointChecker check(f, t, tree, max_errors);
  std::vector<Lid> dlids;
  for (int d0 = 0; d0 < ne; d0 += kDestinationsPerRead) {
    const int count = std::min(kDestinationsPerRead, ne - d0);
    SelectForDestinations(tree, select, d0, count, dlids);
    for (int k = 0; k < count; ++k) check.Destination(d0 + k, &dlids[static_cast<size_t>(k) * ne]);
  }
  return std::move(check.report());
}

}  // namespace ibu
