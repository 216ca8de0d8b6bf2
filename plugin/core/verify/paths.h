// Route tracing over LFTs and the MLID disjointness property (seed 001):
// for every destination, sources of one subtree that select different LID
// offsets leave that subtree through different up links.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/fattree.h"

namespace ibu {

// (switch, out port) hops from end port `src` toward `dlid`; stops at the
// destination, a missing entry (port 255) or after max_hops (default
// TraceHopLimit(f)).
std::vector<std::pair<int, int>> TraceRoute(const Fabric& f, const Tables& t, int src, Lid dlid,
                                            int max_hops = -1);

// Hops after which a route is surely a loop: a route without one visits
// each switch once, so the fabric's switch count (at least 64). A fixed 64
// cut the 127-switch routes of a 64x64 mesh short.
int TraceHopLimit(const Fabric& f);

// Per switch (by index): routes from every end port to every other end
// port's base LID that cross it, as TraceRoute follows them (a route that
// crosses a switch twice counts twice). End ports on one switch share their
// route from there, so the cost is end ports x switches with end ports x
// route length: the LFT size times the route length at most, not end
// ports^2 x route length.
std::vector<long> BaseLidLoad(const Fabric& f, const Tables& t);

struct DisjointReport {
  long subtrees_checked = 0;  // (destination, source subtree) pairs
  long violations = 0;
  std::vector<std::string> errors;
  bool ok() const { return violations == 0; }
};

// `select(src, dst)` is the path-selection rule (Engine::SelectDlid). Cost
// O(end ports^2 x n): run it on fabrics of up to a few thousand hosts.
DisjointReport CheckDisjointUpLinks(const Fabric& f, const Tables& t, const FatTree& tree,
                                    const std::function<Lid(int, int)>& select,
                                    size_t max_errors = 20);

}  // namespace ibu
