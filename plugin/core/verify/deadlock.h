// Channel-dependency (credit-loop) checker. A channel is a switch-to-switch
// link in one direction on one VL. A packet holding channel c (it arrived
// on it) and waiting for channel c' at the next switch makes c depend on
// c'; the fabric is deadlock-free under credit-based flow control when the
// graph of these dependencies is acyclic (Dally & Seitz; Duato for IB).
//
// Dependencies come from the tables as the switches use them: LFTs for
// unicast (every end port to every LID), MFTs for multicast (every member
// as sender; a copy arriving on c waits for every mask port but the
// arrival port), and SL2VL tables for the VL of each next hop
// (sl2vl[switch].get(in, out, sl)). Links to and from hosts are sources
// and sinks of the graph and never on a cycle, so they are left out.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"

namespace ibu {

struct DeadlockOptions {
  // SL of the packets end port `src` sends to `dlid` (a unicast LID or an
  // MLID). Unset: Tables::end_port_sl[src] (0 when empty) for unicast and
  // SL 0 for multicast. A group's own SL (McastGroup::sl, the SA's) takes
  // precedence over both for its packets.
  std::function<uint8_t(int src, Lid dlid)> path_sl;
  // Also walk every switch's route to every end-port LID (the packets
  // switches send on LIDs, see CheckDeadlock); false keeps the routes from
  // end ports only (verify --host-lids, for degraded trees).
  bool switch_sources = true;
  // Walk routes to end-port LIDs only: a path SL file read back from the SA
  // (ibunion pathsl) has no SL for a switch's LID, and SL 0 there showed
  // credit loops in dfsssp's tables that its SLs avoid.
  bool end_port_lids_only = false;
  // Each group's packets come from its anchor alone (Engine::
  // TreesForAnchorOnly): its tree is flooded from there, not from every
  // member. A group without an anchor, or whose anchor is not plugged in,
  // is flooded from every member.
  bool anchor_sends_only = false;
};

// Path SLs as an engine hands them out (Engine::PathSl from the source's
// base LID), for engines with a VL policy. Keeps references to f and e.
DeadlockOptions EngineSls(const Fabric& f, const Engine& e);

// The link leaving switch `sw` through `port`, on VL `vl`.
struct DeadlockChannel {
  int sw = -1;
  int port = 0;
  int vl = 0;
};

// A hop whose SL2VL entry sends data packets to VL 15, the management
// lane: switches drop them there (IBA 7.6.5), so the route ends unreached.
struct Vl15Hop {
  int sw = -1;  // -1: the first hop, out of end port `in`'s own table
  int in = 0, out = 0;
  int sl = 0;
};

struct DeadlockReport {
  long channels = 0;        // channels used by some route
  long dependencies = 0;    // distinct edges of the graph
  long unicast_routes = 0;  // (source end port, destination LID) pairs walked
  long switch_routes = 0;   // (source switch, end-port LID) pairs walked
  long mcast_senders = 0;   // (group, member) pairs flooded
  // One cycle, in dependency order (each channel waits for the next, the
  // last for the first); empty when the graph is acyclic.
  std::vector<DeadlockChannel> cycle;
  // Distinct (switch, in, out, SL) hops of walked routes mapped to VL 15,
  // the first few kept.
  long vl15_hops = 0;
  std::vector<Vl15Hop> vl15_examples;

  bool acyclic() const { return cycle.empty(); }
  bool ok() const { return acyclic() && vl15_hops == 0; }
  // "acyclic: ..." or "credit loop: <switch> port P VL V -> ... -> back",
  // then a line for hops mapped to VL 15 when there are any.
  std::string Summary(const Fabric& f) const;
};

// Builds the graph and looks for a cycle by iterative DFS (no recursion,
// so thousands of switches are fine). Switches send on LIDs too: GMP
// responses (PerfMgt and other LID-routed queries) go back to the
// requester's LID through the same LFTs, leaving the switch from its port 0
// (SL2VL in-port 0), on the SL of the request, taken to be the SL the
// requester uses toward the switch's LID (what its end-port routes use).
// SMPs, SMA responses and traps included, ride VL15, which has no credit
// flow control and cannot close a credit loop, so they are not walked; a
// data packet an SL2VL table maps to VL 15 is dropped, which the report
// counts (vl15_hops) and ok() fails on.
// With opt.switch_sources, every switch's route to every end-port LID is
// walked as well as every end port's.
// Cost: unicast O((end ports + switches) x LIDs) for first hops plus
// O(switches x LIDs x degree) for the rest, memoised per LID over (arrival
// channel, SL) states the way verify/unicast.cc memoises per LID, so the
// switch-sent routes keep it linear in switches x LIDs x hops; multicast
// O(tree channels) per group, memoised per group; the DFS is linear in the
// graph. The walks go LID by LID (the memo and the graph's channel order
// follow it) and read the LFTs 64 LIDs at a time into a LID-major block, not
// one switch's row per hop. Routing loops show up as cycles; black holes
// end a route.
DeadlockReport CheckDeadlock(const Fabric& f, const Tables& t,
                             const std::vector<McastGroup>& groups,
                             const DeadlockOptions& opt = {});

}  // namespace ibu
