// Route tracing over LFTs and the MLID disjointness property (seed 001,
// Fig. 11): for every destination, sources of one subtree that select
// different LID offsets share no up link inside that subtree, the one that
// leaves it included.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/fattree.h"

namespace ibu {

// One step of a route over the LFTs: where switch `sw`'s entry for a LID
// leads. Trace, verify's unicast walk and the load counts take their steps
// here, so they agree on where a route ends and why (the credit-loop
// check follows channels, deadlock.cc).
struct LftStep {
  enum class Kind {
    kSwitch,      // on to switch `next`
    kEndPort,     // out to end port `next` (the LID's owner or not)
    kPortZero,    // to the switch's own management port
    kNoEntry,     // no entry (port 255)
    kNoSuchPort,  // a port number above the switch's ports
    kUncabled,    // a port with no cable
  };
  Kind kind;
  int port;       // the entry
  int next = -1;  // kSwitch: switch index; kEndPort: end-port index
};
LftStep StepOf(const Fabric& f, const Tables& t, int sw, Lid lid);

// Whether a route whose last step is `step`, taken at switch `sw`, ended at
// the owner of `lid` (an end port, or the switch itself on port 0).
bool EndsAtOwner(const Fabric& f, int sw, const LftStep& step, Lid lid);

// (switch, out port) hops from end port `src` toward `dlid`; stops where
// StepOf leaves the switches (the destination, a missing entry, an
// uncabled port) or after max_hops (default TraceHopLimit(f)).
std::vector<std::pair<int, int>> TraceRoute(const Fabric& f, const Tables& t, int src, Lid dlid,
                                            int max_hops = -1);

// Hops after which a route is surely a loop: a route without one visits
// each switch once, so one more than the fabric's switch count (at least
// 64), and a walk that long shows the switch it came back to (trace called
// the last step of a loop through every switch "not connected"). A fixed
// 64 cut the 127-switch routes of a 64x64 mesh short.
int TraceHopLimit(const Fabric& f);

// Per switch (by index): routes from every end port to every other end
// port's base LID that cross it, as TraceRoute follows them. A route that
// does not reach the LID's owner (a loop, a missing entry, another end
// port) is not counted: a loop walked to the hop limit made its switches'
// loads look hundreds of routes high. End ports on one switch share their
// route from there, so the cost is end ports x switches with end ports x
// route length: the LFT size times the route length at most, not end
// ports^2 x route length.
struct BaseLidLoadReport {
  std::vector<long> load;
  long broken = 0;  // routes (one per source end port) that do not arrive
  // The first of them: the sources' switch, the destination end port, and
  // whether it loops (else it ends short of, or beside, the destination).
  int broken_from = -1;
  int broken_to = -1;
  bool broken_loops = false;
};
BaseLidLoadReport BaseLidLoad(const Fabric& f, const Tables& t);

// Who shares each switch-to-switch link (seed 001: with one-packet
// buffers, a link that carries one source, or one destination, cannot hold
// up other flows' packets). Per direction (up: toward the top level), over
// the links some route crosses: the distinct source and destination end
// ports of the routes on each, mean and maximum. Routes from every end
// port with a LID to every other one, on the DLID `select` picks; one
// that does not reach that LID's owner is counted in `broken`, its links
// not. Cost: two walks of every route (source-major for the sources,
// destination-major for the destinations, a stamp per link rather than a
// set): O(end ports^2 x route length) time, O(switch ports) memory; on
// FT(32,3), 2 x 67 M routes.
struct LinkSharingReport {
  struct Direction {
    long links = 0;
    double mean_sources = 0, mean_destinations = 0;
    long max_sources = 0, max_destinations = 0;
  };
  Direction up, down;
  long broken = 0;
  int broken_src = -1, broken_dst = -1;  // end ports of the first
  Lid broken_dlid = 0;
};
LinkSharingReport LinkSharing(const Fabric& f, const Tables& t, const FatTree& tree,
                              const std::function<Lid(int, int)>& select);

struct DisjointReport {
  long subtrees_checked = 0;  // (destination, source subtree) pairs
  long violations = 0;
  std::vector<std::string> errors;
  bool ok() const { return violations == 0; }
};

// `select(src, dst)` is the path-selection rule (Engine::SelectDlid).
// For each destination, a source's route climbs its subtree (the one below
// the common ancestor) by its first hop at each level, from its leaf's up
// link to the one that leaves the subtree; sources of one subtree on
// different DLIDs must share none of those hops. One violation per (source,
// destination) at most, the lowest shared link, named against the
// subtree's first source on it; destinations in order.
// Cost: end ports^2 calls of `select` and O(levels) work per pair, plus one walk
// per (destination, leaf switch, DLID) rather than per pair: O(end ports x
// (end ports + leaf switches x LIDs per port x hops)). It stays quadratic
// in end ports, and cannot drop below that without proving less: the
// selection is given per pair (a path map holds end ports^2 DLIDs) and
// each pair's DLID is checked. About 1.5 s of CPU on FT(32,3) (8,192 hosts).
DisjointReport CheckDisjointUpLinks(const Fabric& f, const Tables& t, const FatTree& tree,
                                    const std::function<Lid(int, int)>& select,
                                    size_t max_errors = 20);

// The error line for `src` sharing `link` with `first` (the link that
// leaves the subtree when `exit`, else one inside it).
std::string DisjointViolation(const std::string& src, const std::string& first, const std::string& link,
                              bool exit, const std::string& dst, Lid dlid, Lid first_dlid);

}  // namespace ibu
