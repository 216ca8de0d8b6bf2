#include "sim-harness/timing/flows.h"

#include <algorithm>
#include <array>
#include <optional>
#include <queue>
#include <sstream>
#include <tuple>

#include "plugin/core/error.h"
#include "sim-harness/timing/rng.h"
#include "sim-harness/timing/stats.h"

namespace ibu::sim {

namespace {

// One hop of a flow: the directed link (its sending global port) and the
// VL the packets take on it.
struct Hop {
  int gp;
  int vl;
};

// Follows flows through the tables as the model forwards a packet: the
// same DLID and SL rules, the LFTs and the per-hop SL2VL. One per analysis:
// its hop buffer and the generator the DLID and SL rules take (they draw
// nothing here: a random policy is refused or weighed draw by draw) are
// made once, not per pair (seeding an MT19937-64 alone cost more than
// following a pair on FT(36,3)).
class FlowFollower {
 public:
  FlowFollower(const Network& net, const Workload& wl, const Params& p) : net_(net), wl_(wl), p_(p) {}

  // The links and VLs of the flow src -> dst; valid until the next call.
  const std::vector<Hop>& Follow(int src, int dst) {
    const Lid dlid = wl_.Dlid(src, dst, unused_);
    return Follow(src, dst, dlid, PairSl(src, dst, dlid));
  }
  // ... of its messages on `dlid` and SL `sl` (one of the draws).
  const std::vector<Hop>& Follow(int src, int dst, Lid dlid, int sl) {
    hops_.clear();
    int gp = net_.HostPort(src);
    int vl = net_.HostVl(src, sl);
    for (;;) {
      hops_.push_back({gp, vl});
      const GlobalPort& in = net_.port(net_.port(gp).peer);
      if (in.is_host) {
        if (in.node != dst)
          Fail(src, dst, dlid, "misdelivery: the route ends at end port " + net_.fabric().end_ports[in.node].name);
        return hops_;
      }
      if (int(hops_.size()) >= net_.MaxHops())
        Fail(src, dst, dlid, "routing loop: " + std::to_string(hops_.size()) + " links crossed, now at " +
                                 net_.fabric().SwitchLabel(in.node));
      const int out = net_.UsableOutPort(in.node, dlid, in.port);
      if (out == kNoPort) Fail(src, dst, dlid, net_.RouteProblem(in.node, dlid, in.port));
      vl = net_.Vl(in.node, in.port, out, sl);
      gp = net_.SwitchPort(in.node, out);
    }
  }

  // Draw k of the DLIDs src -> dst's messages take (Workload::DlidDraws).
  Lid PairDlid(int src, int dst, int k) { return wl_.DlidDraw(src, dst, k, unused_); }
  // The SL of src -> dst's messages on `dlid` when the policy draws none.
  int PairSl(int src, int dst, Lid dlid) {
    return MessageSl(wl_, p_, src, wl_.PairKey(src, dst), dlid, unused_);
  }

 private:
  [[noreturn]] void Fail(int src, int dst, Lid dlid, const std::string& what) const {
    const Fabric& f = net_.fabric();
    throw Error("--flows: flow from end port " + f.end_ports[src].name + " to " + f.end_ports[dst].name +
                " (LID " + std::to_string(dlid) + "): " + what);
  }

  const Network& net_;
  const Workload& wl_;
  const Params& p_;
  Mt64 unused_;
  std::vector<Hop> hops_;
};

// Max-min fair rates by progressive filling: every unfrozen flow's rate
// rises together until a resource (a link, or a credited VL channel) is
// full; its flows freeze at that rate. Resources are kept in a heap by the
// rate at which they fill, re-pushed when a flow freezes on them (stale
// entries are skipped by version), so the cost is O(crossings x log).
class MaxMinFill {
 public:
  explicit MaxMinFill(std::vector<double> capacity)
      : cap_(std::move(capacity)), used_(cap_.size(), 0.0), open_(cap_.size(), 0), version_(cap_.size(), 0) {}

  // One more resource; its index.
  int AddResource(double capacity) {
    cap_.push_back(capacity);
    used_.push_back(0.0);
    open_.push_back(0);
    version_.push_back(0);
    return int(cap_.size() - 1);
  }
  // A flow over these resources (indices into the capacities).
  void AddFlow(std::vector<int> resources) {
    for (int r : resources) ++open_[size_t(r)];
    flows_.push_back(std::move(resources));
  }

  // The resources of flow `f`, as added.
  const std::vector<int>& Resources(size_t f) const { return flows_[f]; }

  std::vector<double> Rates() {
    std::vector<std::vector<int>> flows_on(cap_.size());
    for (size_t f = 0; f < flows_.size(); ++f)
      for (int r : flows_[f]) flows_on[size_t(r)].push_back(int(f));
    for (size_t r = 0; r < cap_.size(); ++r)
      if (open_[r]) heap_.push({FillLevel(r), int(r), 0});
    std::vector<double> rate(flows_.size(), -1.0);
    while (!heap_.empty()) {
      const auto [level, r, version] = heap_.top();
      heap_.pop();
      if (version != version_[size_t(r)] || open_[size_t(r)] == 0) continue;
      for (int f : flows_on[size_t(r)])
        if (rate[size_t(f)] < 0) Freeze(f, level, &rate);
    }
    return rate;
  }

 private:
  double FillLevel(size_t r) const { return (cap_[r] - used_[r]) / open_[r]; }
  void Freeze(int f, double level, std::vector<double>* rate) {
    (*rate)[size_t(f)] = level;
    for (int r : flows_[size_t(f)]) {
      used_[size_t(r)] += level;
      if (--open_[size_t(r)] > 0) heap_.push({FillLevel(size_t(r)), r, ++version_[size_t(r)]});
    }
  }

  using Entry = std::tuple<double, int, uint64_t>;  // fill level, resource, version
  std::vector<double> cap_, used_;
  std::vector<int> open_;  // flows not yet frozen
  std::vector<uint64_t> version_;
  std::vector<std::vector<int>> flows_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> heap_;
};

}  // namespace

bool HasOneFlowPerSource(const TrafficSpec& spec) {
  return spec.pattern != Pattern::kUniform && spec.pattern != Pattern::kCentric && spec.pattern != Pattern::kMcast;
}

void RefuseUnfollowable(const TrafficSpec& spec, const Params& p) {
  if (spec.pattern == Pattern::kMcast)
    throw Error("--flows: " + spec.named +
                ": expected unicast traffic (a permutation, uniform or centric); a multicast message "
                "is replicated by the switches, not one flow");
  if (!HasOneFlowPerSource(spec)) return;  // drawn traffic weighs every DLID and SL draw
  if (p.dlid == DlidPolicy::kRandom)
    throw Error("--flows: " + spec.named +
                ": not with dlid=random (each message draws its own DLID, so a flow has no one path)");
  if (p.sl == SlPolicy::kRandom)
    throw Error("--flows: " + spec.named + ": not with sl=random (each message draws its own SL, so a flow has no one VL)");
}

double ChannelLimit(const Params& p, uint32_t msg_bytes) {
  const uint32_t full = msg_bytes / uint32_t(p.packet_bytes), last = msg_bytes % uint32_t(p.packet_bytes);
  // A packet of `bytes` holds the link for its transmission and one of the
  // in_buf credits for the loop.
  auto period = [&](uint32_t bytes) {
    const double send = double(bytes) * double(p.byte_ns);
    const double loop = double(2 * p.fly_ns + p.route_ns) + send;
    return std::max(send, loop / p.in_buf);
  };
  const double ns = full * period(uint32_t(p.packet_bytes)) + (last ? period(last) : 0.0);
  return double(msg_bytes) / ns;
}

namespace {

// Every source's flow followed and counted into `r` (links, channels,
// crossings) and added to `fill` over its links, its channels into
// switches (indices after the links) and, when `load` > 0, a cap of its
// own; when `load` > 0, also to `uncapped` without the cap (the rates at
// saturation, from the same walk). Returns the flows' sources in the
// order added.
std::vector<int> FollowAllFlows(const Network& net, const Workload& wl, const Params& p, double load,
                                FlowReport* r, MaxMinFill* fill, MaxMinFill* uncapped) {
  const size_t ports = size_t(net.num_global_ports()), vls = size_t(net.vls());
  r->link_flows.assign(ports, 0);
  std::vector<int> channel_flows(ports * vls, 0);
  std::vector<int> sources;
  Mt64 unused;  // permutations draw nothing per message
  FlowFollower follower(net, wl, p);
  for (int src : wl.sources()) {
    const int dst = wl.Destination(src, unused);
    if (dst < 0) continue;
    std::vector<int> resources;
    for (const Hop& h : follower.Follow(src, dst)) {
      const size_t ch = size_t(h.gp) * vls + size_t(h.vl);
      ++r->link_flows[size_t(h.gp)];
      ++channel_flows[ch];
      ++r->crossings;
      resources.push_back(h.gp);
      // A channel into an end port has no credits: only its link limits it.
      if (!net.port(net.port(h.gp).peer).is_host) resources.push_back(int(ports + ch));
    }
    // What the source offers caps its flow, as the model's arrivals do.
    if (load > 0) {
      uncapped->AddFlow(resources);
      resources.push_back(fill->AddResource(load * r->link_rate));
    }
    fill->AddFlow(std::move(resources));
    sources.push_back(src);
  }
  r->flows = int(sources.size());
  r->max_link_flows = r->link_flows.empty() ? 0 : *std::max_element(r->link_flows.begin(), r->link_flows.end());
  r->max_channel_flows = channel_flows.empty() ? 0 : *std::max_element(channel_flows.begin(), channel_flows.end());
  r->links_with.assign(size_t(r->max_link_flows) + 1, 0);
  for (size_t gp = 0; gp < ports; ++gp)
    if (net.port(int(gp)).peer >= 0) ++r->links_with[size_t(r->link_flows[gp])];
  return sources;
}

// The max-min rates into `r`: per host, their spread, the mean over hosts
// and what they load each link with.
// Accepted bytes per ns per host of the flows' rates (the fluid model's
// accepted traffic), in the flows' order.
double PerHost(const std::vector<double>& rates, int hosts) {
  double sum = 0;
  for (double rate : rates) sum += rate;
  return hosts ? sum / hosts : 0.0;
}

void RecordRates(const std::vector<double>& rates, const std::vector<int>& sources, const MaxMinFill& fill,
                 size_t ports, FlowReport* r) {
  r->rate.assign(size_t(r->hosts), 0.0);
  r->link_util.assign(ports, 0.0);
  for (size_t f = 0; f < rates.size(); ++f) {
    r->rate[size_t(sources[f])] = rates[f];
    for (int res : fill.Resources(f))
      if (size_t(res) < ports) r->link_util[size_t(res)] += rates[f] / r->link_rate;
  }
  if (!rates.empty()) {
    r->min_rate = *std::min_element(rates.begin(), rates.end());
    r->max_rate = *std::max_element(rates.begin(), rates.end());
  }
  r->fluid_accepted = PerHost(rates, r->hosts);
}

}  // namespace

FlowReport AnalyseFlows(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                        double load) {
  RefuseUnfollowable(wl.spec(), p);
  if (!HasOneFlowPerSource(wl.spec()))
    throw Error("--flows: " + wl.spec().named + ": a source's messages go to many destinations; " +
                "its expected channel load is AnalyseLoad's");
  FlowReport r;
  r.hosts = wl.hosts();
  r.link_rate = 1.0 / double(p.byte_ns);
  r.load = load;
  r.channel_limit = std::min(r.link_rate, ChannelLimit(p, msg_bytes));
  // Resources: the links (by global port), then the channels (link x VL).
  const size_t ports = size_t(net.num_global_ports());
  std::vector<double> capacity(ports, r.link_rate);
  capacity.resize(ports + ports * size_t(net.vls()), r.channel_limit);
  MaxMinFill fill(capacity), uncapped(capacity);
  const std::vector<int> sources = FollowAllFlows(net, wl, p, load, &r, &fill, &uncapped);
  RecordRates(fill.Rates(), sources, fill, ports, &r);
  r.fluid_saturated = load > 0 ? PerHost(uncapped.Rates(), r.hosts) : r.fluid_accepted;
  return r;
}

namespace {

// Every draw of the pairs into `dst` with a share: fn(src, dlid, sl, part
// of the share); under dlid=random or sl=random every DLID and SL a message
// may draw, each with its part. Counts the pairs and sums the shares.
template <typename Fn>
void ForEachDraw(const Workload& wl, const Params& p, int dst, FlowFollower* follower, LoadReport* r,
                 double* shares, Fn fn) {
  const int sls = SlDraws(wl, p);
  const int lids = wl.DlidDraws(dst);
  for (int src : wl.sources()) {
    const double share = wl.Share(src, dst);
    if (share <= 0) continue;
    ++r->pairs;
    *shares += share;
    const double each = share / double(lids * sls);
    for (int k = 0; k < lids; ++k) {
      const Lid dlid = follower->PairDlid(src, dst, k);
      for (int s = 0; s < sls; ++s) fn(src, dlid, sls > 1 ? s : follower->PairSl(src, dst, dlid), each);
    }
  }
}

// Each draw into `dst` followed and its share added to the links and
// channels it crosses. The reference DestinationLoads is checked against,
// and the way its errors are found: the first broken pair in this order is
// the one named.
void AddPairLoadsOneByOne(const Network& net, const Workload& wl, const Params& p, int dst,
                          FlowFollower* follower, LoadReport* r, double* crossings, double* shares) {
  const size_t vls = size_t(net.vls());
  ForEachDraw(wl, p, dst, follower, r, shares, [&](int src, Lid dlid, int sl, double each) {
    const std::vector<Hop>& hops = follower->Follow(src, dst, dlid, sl);
    for (const Hop& h : hops) {
      r->link_load[size_t(h.gp)] += each;
      r->channel_load[size_t(h.gp) * vls + size_t(h.vl)] += each;
    }
    *crossings += each * double(hops.size());
  });
}

// The same loads by destination LID: the LFT entries of one LID form a
// tree towards its end port, so the shares of every source that draws it
// enter at their host links and flow down that tree switch by switch,
// added up where routes merge. Per destination that is O(draws + switches
// on the tree x arrival ports x SL classes) instead of O(draws x hops):
// on a 64x64 mesh, whose routes are 43 hops on average, most of the cost
// went. Loads are carried per SL class (Network::SlClassLeaders): SLs that
// take the same VL on every hop share one. A broken route (no entry, a loop, a
// wrong end port, back out its arrival port, too long) makes AddDestination
// return false; the caller then follows that destination's pairs one by one
// for the error.
class DestinationLoads {
 public:
  DestinationLoads(const Network& net, const Workload& wl, const Params& p, FlowFollower* follower,
                   LoadReport* r)
      : net_(net),
        wl_(wl),
        p_(p),
        r_(r),
        follower_(follower),
        classes_(NumberClasses(net)),
        node_stamp_(size_t(net.num_switches()), 0),
        dist_(size_t(net.num_switches()), 0),
        out_gp_(size_t(net.num_switches()), -1),
        in_head_(size_t(net.num_switches()), -1),
        in_stamp_(size_t(net.num_global_ports()), 0),
        in_next_(size_t(net.num_global_ports()), -1),
        in_classes_(size_t(net.num_global_ports()), 0),
        in_load_(size_t(net.num_global_ports()) * classes_, 0.0) {}

  bool AddDestination(int dst, double* crossings, double* shares) {
    CollectDraws(dst, shares);
    for (size_t b = 0; b + 1 < group_start_.size(); ++b)
      if (!SpreadLid(dst, group_start_[b], group_start_[b + 1], crossings)) return false;
    return true;
  }

 private:
  // Dense class numbers: class_of_ by SL, leader_sl_ the SL each stands for.
  size_t NumberClasses(const Network& net) {
    const std::array<uint8_t, 16> leader = net.SlClassLeaders();
    size_t n = 0;
    for (int sl = 0; sl < 16; ++sl) {
      if (leader[size_t(sl)] == sl) {
        leader_sl_[n] = sl;
        class_of_[size_t(sl)] = uint16_t(n++);
      } else {
        class_of_[size_t(sl)] = class_of_[leader[size_t(sl)]];
      }
    }
    return n;
  }

  struct Draw {
    Lid dlid;
    uint16_t sl_class;
    int src;
    double load;
  };

  // Every draw of every pair into `dst`, grouped by DLID (a counting sort:
  // a destination's LIDs are a few consecutive numbers).
  void CollectDraws(int dst, double* shares) {
    draws_.clear();
    ForEachDraw(wl_, p_, dst, follower_, r_, shares, [&](int src, Lid dlid, int sl, double each) {
      draws_.push_back({dlid, class_of_[size_t(sl)], src, each});
    });
    GroupByDlid();
  }

  void GroupByDlid() {
    group_start_.clear();
    if (draws_.empty()) return;
    Lid lo = draws_[0].dlid, hi = lo;
    for (const Draw& d : draws_) {
      lo = std::min(lo, d.dlid);
      hi = std::max(hi, d.dlid);
    }
    count_.assign(size_t(hi - lo) + 2, 0);
    for (const Draw& d : draws_) ++count_[size_t(d.dlid - lo) + 1];
    for (size_t i = 1; i < count_.size(); ++i) count_[i] += count_[i - 1];
    for (size_t i = 0; i + 1 < count_.size(); ++i)
      if (count_[i + 1] > count_[i]) group_start_.push_back(count_[i]);
    group_start_.push_back(draws_.size());
    sorted_.resize(draws_.size());
    for (const Draw& d : draws_) sorted_[count_[size_t(d.dlid - lo)]++] = d;
    draws_.swap(sorted_);
  }

  // The draws [begin, end), all to one DLID of `dst`.
  bool SpreadLid(int dst, size_t begin, size_t end, double* crossings) {
    const Lid dlid = draws_[begin].dlid;
    const size_t vls = size_t(net_.vls());
    ++stamp_;
    for (std::vector<int>& level : by_dist_) level.clear();
    for (size_t i = begin; i < end; ++i) {
      const Draw& d = draws_[i];
      const int host_gp = net_.HostPort(d.src);
      r_->link_load[size_t(host_gp)] += d.load;
      r_->channel_load[size_t(host_gp) * vls + size_t(net_.HostVl(d.src, leader_sl_[d.sl_class]))] += d.load;
      const int in_gp = net_.port(host_gp).peer;
      if (in_gp < 0) return false;
      const GlobalPort& in = net_.port(in_gp);
      if (in.is_host) {
        if (in.node != dst) return false;
        *crossings += d.load;
        continue;
      }
      if (!Climb(in.node, dlid, dst)) return false;
      const int links = 1 + dist_[size_t(in.node)];
      if (links > net_.MaxHops()) return false;
      *crossings += d.load * links;
      if (!AddInflow(in_gp, d.sl_class, d.load)) return false;
    }
    return FlowDownTree(vls);
  }

  // Follows the LFT from `sw` until a switch already on the tree or the
  // destination, recording each new switch's out port and its distance
  // (links to the end port).
  bool Climb(int sw, Lid dlid, int dst) {
    path_.clear();
    int reached_dist = 0;
    for (;;) {
      if (node_stamp_[size_t(sw)] == stamp_) {
        if (dist_[size_t(sw)] < 0) return false;  // met its own path again: a loop
        reached_dist = dist_[size_t(sw)];
        break;
      }
      node_stamp_[size_t(sw)] = stamp_;
      dist_[size_t(sw)] = -1;
      in_head_[size_t(sw)] = -1;
      path_.push_back(sw);
      const uint8_t out = net_.Lft(sw, dlid);
      if (out == kNoPort || out == 0) return false;
      const int out_gp = net_.SwitchPort(sw, out);
      const int peer = net_.port(out_gp).peer;
      if (peer < 0) return false;
      out_gp_[size_t(sw)] = out_gp;
      const GlobalPort& next = net_.port(peer);
      if (next.is_host) {
        if (next.node != dst) return false;
        break;
      }
      sw = next.node;
    }
    for (size_t i = path_.size(); i-- > 0;) {
      dist_[size_t(path_[i])] = ++reached_dist;
      if (by_dist_.size() <= size_t(reached_dist)) by_dist_.resize(size_t(reached_dist) + 1);
      by_dist_[size_t(reached_dist)].push_back(path_[i]);
    }
    return true;
  }

  // `load` of SL class `cls` arrives at a switch on global port `in_gp`.
  bool AddInflow(int in_gp, int cls, double load) {
    const GlobalPort& in = net_.port(in_gp);
    if (net_.port(out_gp_[size_t(in.node)]).port == in.port) return false;  // back out its arrival port
    if (in_stamp_[size_t(in_gp)] != stamp_) {
      in_stamp_[size_t(in_gp)] = stamp_;
      in_classes_[size_t(in_gp)] = 0;
      in_next_[size_t(in_gp)] = in_head_[size_t(in.node)];
      in_head_[size_t(in.node)] = in_gp;
    }
    const uint32_t bit = 1u << cls;
    double& slot = in_load_[size_t(in_gp) * classes_ + size_t(cls)];
    if (!(in_classes_[size_t(in_gp)] & bit)) {
      in_classes_[size_t(in_gp)] |= bit;
      slot = 0;
    }
    slot += load;
    return true;
  }

  // The tree's switches farthest first, so a switch has all its inflow
  // when it passes it on.
  bool FlowDownTree(size_t vls) {
    for (size_t d = by_dist_.size(); d-- > 0;)
      for (int sw : by_dist_[d])
        if (!PassOn(sw, vls)) return false;
    return true;
  }

  // A switch's inflow onto its out link's channels, and on to the next.
  bool PassOn(int sw, size_t vls) {
    const int out_gp = out_gp_[size_t(sw)];
    const int out = net_.port(out_gp).port;
    double total = 0;
    double onward[16];  // by class, set where onward_classes has its bit
    uint32_t onward_classes = 0;
    for (int in_gp = in_head_[size_t(sw)]; in_gp >= 0; in_gp = in_next_[size_t(in_gp)]) {
      const int in_port = net_.port(in_gp).port;
      for (uint32_t c = in_classes_[size_t(in_gp)]; c; c &= c - 1) {
        const int cls = __builtin_ctz(c);
        const double load = in_load_[size_t(in_gp) * classes_ + size_t(cls)];
        // One VL: no SL2VL lookup (a cache miss per switch on large meshes).
        const int vl = vls == 1 ? 0 : net_.Vl(sw, in_port, out, leader_sl_[cls]);
        r_->channel_load[size_t(out_gp) * vls + size_t(vl)] += load;
        onward[cls] = (onward_classes & (1u << cls)) ? onward[cls] + load : load;
        onward_classes |= 1u << cls;
        total += load;
      }
    }
    r_->link_load[size_t(out_gp)] += total;
    const int peer = net_.port(out_gp).peer;
    if (net_.port(peer).is_host) return true;
    for (uint32_t c = onward_classes; c; c &= c - 1)
      if (!AddInflow(peer, __builtin_ctz(c), onward[__builtin_ctz(c)])) return false;
    return true;
  }

  const Network& net_;
  const Workload& wl_;
  const Params& p_;
  LoadReport* r_;
  FlowFollower* follower_;  // the DLID and SL rules
  std::array<uint16_t, 16> class_of_{};
  std::array<int, 16> leader_sl_{};
  const size_t classes_;
  std::vector<Draw> draws_, sorted_;
  std::vector<size_t> group_start_, count_;
  // Per switch, valid when its stamp is the current one: distance to the
  // end port (-1 while its path is being climbed), out global port, first
  // arrival port with inflow.
  uint64_t stamp_ = 0;
  std::vector<uint64_t> node_stamp_;
  std::vector<int> dist_, out_gp_, in_head_;
  // Per arrival global port: the next with inflow at its switch, the SL
  // classes arriving and their loads.
  std::vector<uint64_t> in_stamp_;
  std::vector<int> in_next_;
  std::vector<uint16_t> in_classes_;
  std::vector<double> in_load_;
  std::vector<int> path_;
  std::vector<std::vector<int>> by_dist_;  // the tree's switches by distance
};

void AddPairLoads(const Network& net, const Workload& wl, const Params& p, bool by_destination,
                  LoadReport* r) {
  r->link_load.assign(size_t(net.num_global_ports()), 0.0);
  r->channel_load.assign(r->link_load.size() * size_t(net.vls()), 0.0);
  r->sources = int(wl.sources().size());
  FlowFollower follower(net, wl, p);
  std::optional<DestinationLoads> loads;
  if (by_destination) loads.emplace(net, wl, p, &follower, r);
  double crossings = 0, shares = 0;
  for (int dst = 0; dst < wl.hosts(); ++dst) {
    if (!loads) {
      AddPairLoadsOneByOne(net, wl, p, dst, &follower, r, &crossings, &shares);
      continue;
    }
    if (loads->AddDestination(dst, &crossings, &shares)) continue;
    // Some route into dst is broken: the pairs one by one name the first.
    LoadReport scratch = *r;
    double unused = 0;
    AddPairLoadsOneByOne(net, wl, p, dst, &follower, &scratch, &unused, &unused);
    throw Error("internal: --flows: a route into end port " + net.fabric().end_ports[size_t(dst)].name +
                " is broken by destination but not pair by pair");
  }
  r->mean_hops = shares > 0 ? crossings / shares : 0.0;
}

// The busiest link and credited channel, and the load that fills first.
void FindBound(const Network& net, LoadReport* r) {
  const size_t vls = size_t(net.vls());
  for (size_t gp = 0; gp < r->link_load.size(); ++gp) {
    if (r->link_load[gp] > r->max_link_load) {
      r->max_link_load = r->link_load[gp];
      r->busiest_link = int(gp);
    }
    // A channel into an end port has no credits: only its link limits it.
    if (net.port(int(gp)).peer < 0 || net.port(net.port(int(gp)).peer).is_host) continue;
    for (size_t vl = 0; vl < vls; ++vl)
      if (r->channel_load[gp * vls + vl] > r->max_channel_load) {
        r->max_channel_load = r->channel_load[gp * vls + vl];
        r->busiest_channel = int(gp * vls + vl);
      }
  }
  // Loads summed in another order differ in the last bits: "at the
  // busiest one's load" allows for that.
  for (double l : r->link_load) r->busiest_links += l >= r->max_link_load * (1 - 1e-9) && l > 0;
  const double by_link = r->max_link_load > 0 ? 1.0 / r->max_link_load : 1.0;
  const double by_channel =
      r->max_channel_load > 0 ? r->channel_limit / r->link_rate / r->max_channel_load : by_link;
  r->bound_by_channel = by_channel < by_link;
  r->bound_load = std::min(by_link, by_channel);
}

// At --load, else at the bound.
double UtilLoad(const LoadReport& r) { return r.load > 0 ? r.load : r.bound_load; }

double BoundAccepted(const LoadReport& r) {
  return r.hosts ? r.bound_load * r.link_rate * r.sources / r.hosts : 0.0;
}

std::string ChannelName(const LoadReport& r, const Network& net, int channel) {
  const int vls = int(r.channel_load.size() / r.link_load.size());
  return net.LinkName(channel / vls) + " VL " + std::to_string(channel % vls);
}

LoadReport AnalyseLoadBy(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                         double load, bool by_destination) {
  RefuseUnfollowable(wl.spec(), p);
  if (HasOneFlowPerSource(wl.spec()))
    throw Error("--flows: " + wl.spec().named + ": a permutation has one flow per source; AnalyseFlows is its analysis");
  LoadReport r;
  r.hosts = wl.hosts();
  r.link_rate = 1.0 / double(p.byte_ns);
  r.channel_limit = std::min(r.link_rate, ChannelLimit(p, msg_bytes));
  r.load = load;
  AddPairLoads(net, wl, p, by_destination, &r);
  FindBound(net, &r);
  return r;
}

}  // namespace

LoadReport AnalyseLoad(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                       double load) {
  return AnalyseLoadBy(net, wl, p, msg_bytes, load, true);
}

LoadReport AnalyseLoadPairByPair(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                                 double load) {
  return AnalyseLoadBy(net, wl, p, msg_bytes, load, false);
}

std::string LoadText(const LoadReport& r, const Network& net) {
  std::ostringstream os;
  os << "expected channel load: " << r.pairs << " (source, destination) pairs of " << r.sources
     << " sources, weighted by their share of the source's messages; " << JsonNumber(r.mean_hops)
     << " links per message on average\n";
  os << "  (a load of 1 carries what one source offers)\n";
  if (r.busiest_link >= 0)
    os << "busiest link: load " << JsonNumber(r.max_link_load) << ", " << r.busiest_links
       << (r.busiest_links == 1 ? " link" : " links") << " at it, e.g. " << net.LinkName(r.busiest_link) << "\n";
  if (r.busiest_channel >= 0)
    os << "busiest VL channel into a switch: load " << JsonNumber(r.max_channel_load) << ", "
       << ChannelName(r, net, r.busiest_channel) << "\n";
  os << "bound: the busiest " << (r.bound_by_channel ? "VL channel" : "link") << " is full at offered load "
     << JsonNumber(r.bound_load) << " (" << JsonNumber(BoundAccepted(r))
     << " bytes/ns/host); past it some channel is overloaded whatever the arbitration\n";
  os << "  (a credited VL channel carries at most " << JsonNumber(r.channel_limit) << " bytes/ns, a link "
     << JsonNumber(r.link_rate) << ")\n";
  if (r.load > 0)
    os << "at load " << JsonNumber(r.load) << ": the busiest link at " << JsonNumber(100 * r.load * r.max_link_load)
       << "% of its rate, the busiest VL channel at "
       << JsonNumber(100 * r.load * r.max_channel_load * r.link_rate / r.channel_limit) << "% of its limit\n";
  return os.str();
}

std::string LoadJson(const LoadReport& r) {
  std::ostringstream os;
  const double at = UtilLoad(r);
  os << "{\"hosts\":" << r.hosts << ",\"sources\":" << r.sources << ",\"pairs\":" << r.pairs
     << ",\"mean_hops\":" << JsonNumber(r.mean_hops) << ",\"max_link_load\":" << JsonNumber(r.max_link_load)
     << ",\"busiest_links\":" << r.busiest_links << ",\"max_channel_load\":" << JsonNumber(r.max_channel_load)
     << ",\"channel_limit\":" << JsonNumber(r.channel_limit) << ",\"link_rate\":" << JsonNumber(r.link_rate)
     << ",\"bound_load\":" << JsonNumber(r.bound_load) << ",\"bound_by\":\""
     << (r.bound_by_channel ? "channel" : "link") << "\",\"bound_accepted\":" << JsonNumber(BoundAccepted(r))
     << ",\"load\":" << (r.load > 0 ? JsonNumber(r.load) : "null")
     << ",\"max_link_util\":" << JsonNumber(at * r.max_link_load)
     << ",\"max_channel_util\":" << JsonNumber(at * r.max_channel_load * r.link_rate / r.channel_limit) << "}";
  return os.str();
}

std::string LoadLinksCsv(const LoadReport& r, const std::vector<std::string>& link_names) {
  std::ostringstream os;
  os << "link,load,util\n";
  const double at = UtilLoad(r);
  for (size_t gp = 0; gp < link_names.size() && gp < r.link_load.size(); ++gp)
    if (!link_names[gp].empty())
      os << "\"" << link_names[gp] << "\"," << JsonNumber(r.link_load[gp]) << "," << JsonNumber(at * r.link_load[gp])
         << "\n";
  return os.str();
}

std::string FlowsText(const FlowReport& r, const Network& net, int busiest) {
  std::ostringstream os;
  os << "flows: " << r.flows << " of " << r.hosts << " hosts send";
  if (r.flows < r.hosts) os << " (the others are their own partners or no source)";
  os << "; " << r.crossings << " link crossings";
  if (r.flows) os << ", " << JsonNumber(double(r.crossings) / r.flows) << " per flow";
  os << "\nlinks by flows carried:";
  for (size_t k = 0; k < r.links_with.size(); ++k)
    if (r.links_with[k]) os << " " << k << ":" << r.links_with[k];
  os << "  (flows:directed links)\n";
  auto flows = [](int n) { return std::to_string(n) + (n == 1 ? " flow" : " flows"); };
  os << "busiest link: " << flows(r.max_link_flows) << "; busiest VL channel: " << flows(r.max_channel_flows)
     << "\n";
  // Links of one flow share nothing: named only when some carry more.
  std::vector<int> top;
  for (int gp = 0; gp < int(r.link_flows.size()); ++gp)
    if (r.max_link_flows > 1 && r.link_flows[size_t(gp)] == r.max_link_flows) top.push_back(gp);
  for (size_t i = 0; i < top.size() && int(i) < busiest; ++i)
    os << "  " << flows(r.max_link_flows) << ": " << net.LinkName(top[i]) << "\n";
  if (int(top.size()) > busiest) os << "  ... and " << top.size() - size_t(busiest) << " more links\n";
  os << "fluid max-min rates "
     << (r.load > 0 ? "at load " + JsonNumber(r.load) + " (each source offers " + JsonNumber(r.load * r.link_rate) +
                          " bytes/ns)"
                    : std::string("at saturation"))
     << ": accepted " << JsonNumber(r.fluid_accepted)
     << " bytes/ns/host; per flow " << JsonNumber(r.min_rate) << " (lowest) to " << JsonNumber(r.max_rate)
     << " (highest)\n";
  os << "  (a credited VL channel carries at most " << JsonNumber(r.channel_limit) << " bytes/ns, a link "
     << JsonNumber(r.link_rate) << ")\n";
  return os.str();
}

std::string FlowsJson(const FlowReport& r) {
  std::ostringstream os;
  os << "{\"hosts\":" << r.hosts << ",\"flows\":" << r.flows << ",\"link_crossings\":" << r.crossings
     << ",\"max_link_flows\":" << r.max_link_flows << ",\"max_channel_flows\":" << r.max_channel_flows
     << ",\"links_by_flows\":{";
  bool first = true;
  for (size_t k = 0; k < r.links_with.size(); ++k)
    if (r.links_with[k]) {
      os << (first ? "" : ",") << "\"" << k << "\":" << r.links_with[k];
      first = false;
    }
  os << "},\"channel_limit\":" << JsonNumber(r.channel_limit)
     << ",\"load\":" << (r.load > 0 ? JsonNumber(r.load) : "null")
     << ",\"link_rate\":" << JsonNumber(r.link_rate) << ",\"fluid_accepted\":" << JsonNumber(r.fluid_accepted)
     << ",\"fluid_flow_min\":" << JsonNumber(r.min_rate) << ",\"fluid_flow_max\":" << JsonNumber(r.max_rate)
     << ",\"fluid_saturated\":" << JsonNumber(r.fluid_saturated) << "}";
  return os.str();
}

std::string FlowsLinksCsv(const FlowReport& r, const std::vector<std::string>& link_names) {
  std::ostringstream os;
  os << "link,flows,fluid_util\n";
  for (size_t gp = 0; gp < link_names.size() && gp < r.link_flows.size(); ++gp)
    if (!link_names[gp].empty())
      os << "\"" << link_names[gp] << "\"," << r.link_flows[gp] << "," << JsonNumber(r.link_util[gp]) << "\n";
  return os.str();
}

}  // namespace ibu::sim
