// Flow analysis of permutation traffic (`ibunion sim --flows`): each
// source's one flow followed through the tables the timing model forwards
// by (the same DLID, SL and per-hop VL), counted per directed link and per
// VL channel, and the rate each flow would get in a fluid network that
// shares every link and channel max-min fairly. The counts say how many
// flows a routing puts on its busiest link without running the model; the
// fluid rates are the ideal the model's saturation throughput is compared
// with (arbitration, head-of-line blocking and credit stalls only lose).
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
  double min_rate = 0, max_rate = 0;  // over the flows
  std::vector<double> link_util;  // by global port: fluid bytes/ns over link_rate
};

// The most a VL channel into a switch carries for messages of `msg_bytes`:
// a packet's credit comes back a loop (fly, routing, crossbar transfer,
// fly back) after it left, and in_buf credits are in flight at once; never
// more than the link. Exact for one flow in the model at in_buf = 1.
double ChannelLimit(const Params& p, uint32_t msg_bytes);

// Throws ibu::Error when the traffic is no permutation (uniform, centric
// and multicast draw destinations per message) or a message draws its own
// DLID or SL (dlid=random, sl=random): checked before the fabric is routed.
void RefuseUnfollowable(const TrafficSpec& spec, const Params& p);

// Throws as RefuseUnfollowable, and when a flow meets a missing, looping or
// misdelivering route (the flow and the switch named).
// Cost: O(hosts x hops) to follow the flows, O(crossings x log(channels))
// for the max-min rates.
// `load` > 0 caps each flow at what its source offers (load x link rate,
// as a point at --load offers): the fluid rates of that point; 0 gives
// the rates at saturation.
FlowReport AnalyseFlows(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
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

}  // namespace ibu::sim
