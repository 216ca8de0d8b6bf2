// Flow analysis of permutation traffic (`ibunion sim --flows`): each
// source's one flow followed through the tables the timing model forwards
// by (the same DLID, SL and per-hop VL), counted per directed link and per
// VL channel, and the rate each flow would get in a fluid network that
// shares every link and channel max-min fairly. The counts say how many
// flows a routing puts on its busiest link without running the model; the
// fluid rates are the ideal the model's saturation throughput is compared
// with (arbitration, head-of-line blocking and credit stalls only lose).
// Uniform and centric traffic, which draw destinations per message, get
// the expected load of every link and channel and its bound instead
// (AnalyseLoad).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim-harness/timing/network.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/traffic.h"

namespace ibu::sim {

struct FlowReport {
  int hosts = 0;
  int flows = 0;            // sources whose partner is another host
  int64_t crossings = 0;    // links crossed, summed over the flows
  int max_link_flows = 0;   // on the busiest directed link
  int max_channel_flows = 0;  // on the busiest (directed link, VL)
  std::vector<int> link_flows;      // by global port (the link's sending side)
  std::vector<int64_t> links_with;  // [k]: directed links that carry k flows
  double link_rate = 0;      // bytes/ns a link carries
  double channel_limit = 0;  // bytes/ns one credited VL channel carries
  double load = 0;  // each source offers load x link_rate; 0: unlimited
  std::vector<double> rate;  // by host: its flow's fluid rate, 0 without one
  double fluid_accepted = 0;  // mean of `rate` over all hosts
  double fluid_saturated = 0;         // fluid_accepted without the load's cap (at saturation)
  double min_rate = 0, max_rate = 0;  // over the flows
  std::vector<double> link_util;  // by global port: fluid bytes/ns over link_rate
};

// Expected channel load of traffic drawn per message (uniform, centric):
// every (source, destination) pair followed as the model forwards it and
// weighted by the share of the source's messages that go there
// (Workload::Share). Loads are in units of one source's offered load: a
// link of load 2 carries twice what a source offers. The bound is the
// offered load at which the busiest link, or the busiest credited VL
// channel, is full: beyond it some channel is overloaded whatever the
// arbitration (the classic channel-load bound on saturation throughput).
struct LoadReport {
  int hosts = 0;
  int sources = 0;
  int64_t pairs = 0;          // (source, destination) pairs with a share
  double mean_hops = 0;       // links a message crosses, on average
  std::vector<double> link_load;     // by global port (the link's sending side)
  std::vector<double> channel_load;  // by global port x VLs + VL
  int busiest_link = -1;      // global port
  int busiest_links = 0;      // links at the busiest one's load
  double max_link_load = 0;
  int busiest_channel = -1;   // of the channels into switches (credited)
  double max_channel_load = 0;
  double link_rate = 0;       // bytes/ns a link carries
  double channel_limit = 0;   // bytes/ns one credited VL channel carries
  double bound_load = 0;      // offered load (fraction of a link) that fills the busiest
  bool bound_by_channel = false;  // ... VL channel, not a link
  double load = 0;            // --load, 0 when not given
};

// The most a VL channel into a switch carries for messages of `msg_bytes`:
// a packet's credit comes back a loop (fly, routing, crossbar transfer,
// fly back) after it left, and in_buf credits are in flight at once; never
// more than the link. Exact for one flow in the model at in_buf = 1.
double ChannelLimit(const Params& p, uint32_t msg_bytes);

// Throws ibu::Error for multicast traffic (the switches replicate it: no
// one path), and for a permutation whose messages draw their own DLID or
// SL (dlid=random, sl=random: a flow would have no one path); checked
// before the fabric is routed.
void RefuseUnfollowable(const TrafficSpec& spec, const Params& p);

// True for the traffic that has one flow per source (the permutations);
// uniform and centric traffic get AnalyseLoad instead.
bool HasOneFlowPerSource(const TrafficSpec& spec);

// Throws as RefuseUnfollowable, and when a flow meets a missing, looping or
// misdelivering route (the flow and the switch named).
// Cost: O(hosts x hops) to follow the flows, O(crossings x log(channels))
// for the max-min rates.
// `load` > 0 caps each flow at what its source offers (load x link rate,
// as a point at --load offers): the fluid rates of that point; 0 gives
// the rates at saturation. fluid_saturated is the mean at saturation
// either way (from the same walk of the flows).
FlowReport AnalyseFlows(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                        double load = 0);

// Throws as RefuseUnfollowable (and for a permutation: AnalyseFlows is
// its analysis), and when a pair's route is missing, loops or misdelivers
// (the first such pair named, in destination then source order).
// dlid=random and sl=random are weighed: every LID of the destination and
// every SL, each as likely.
// Cost: every (source, destination) pair's DLID and SL are drawn, O(sources
// x hosts); the loads are then added per destination LID down the tree its
// LFT entries form, O(switches on it x arrival ports x SL classes), not
// along every pair's route. So it grows as hosts^2 on meshes too, whose
// routes are about sqrt(hosts) hops: 1.7 s on a 64x64 mesh, 6.7 s on 90x90
// (8,100 hosts), where following every pair (AnalyseLoadPairByPair) took
// 18 s and 104 s; on fat-trees, whose routes are short, about the same as
// before (0.2 s on FT(16,3), 9 s against 13 s on FT(36,3)).
// The tables are arbitrary (dump:DIR), so every LID's tree is read, none
// taken from another's.
LoadReport AnalyseLoad(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                       double load = 0);
// The same loads with every pair followed along its route as the model
// forwards it: O(sources x hosts x hops). The reference AnalyseLoad is
// tested against; the same errors.
LoadReport AnalyseLoadPairByPair(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                                 double load = 0);

// The report for people: flows, links by the flows they carry, the
// `busiest` most loaded links named, the fluid rates.
std::string FlowsText(const FlowReport& r, const Network& net, int busiest = 8);
// One JSON object on one line.
std::string FlowsJson(const FlowReport& r);
// link,flows,fluid_util: one row per cabled directed link, named as
// `ibunion sim --links` names them (link_names by global port, empty for
// an uncabled one).
std::string FlowsLinksCsv(const FlowReport& r, const std::vector<std::string>& link_names);

// The same three for the expected channel load: text, one JSON object,
// and link,load,util rows (util at --load, else at the bound).
std::string LoadText(const LoadReport& r, const Network& net);
std::string LoadJson(const LoadReport& r);
std::string LoadLinksCsv(const LoadReport& r, const std::vector<std::string>& link_names);

}  // namespace ibu::sim
