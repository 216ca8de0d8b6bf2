// Unicast verifier: from a fabric and its LFTs (computed offline or read
// back from switches), every LID of every end port and switch must be
// reached from every end port, and every end port's LIDs from every switch
// (switches answer LID-routed GMPs and send traps), with no loop, no black
// hole and no path from an end port longer than the switch graph's diameter.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"

namespace ibu {

struct UnicastReport {
  long routes_checked = 0;  // (source end port, destination LID) pairs
  long lids_checked = 0;    // destination LIDs of those routes: assigned ones only
  std::vector<std::string> errors;  // first errors, capped
  long error_count = 0;
  int diameter = 0;                       // switch-graph diameter (links)
  std::map<int, long> hops_histogram;     // inter-switch links -> routes
  // Routes (source end port, destination LID of an end port) per directed
  // switch port: key = (switch, port).
  std::map<std::pair<int, int>, long> link_routes;

  bool ok() const { return error_count == 0; }
  std::string Summary(const Fabric& f) const;
};

// Walks every route. Cost O(switches x LIDs) using per-LID memoisation
// (a route's tail does not depend on its source), plus one BFS per switch
// for the diameter: O(switches x links), the dominant term on large fabrics.
// switch_lids = false checks the LIDs of end ports from end ports only:
// degraded fat-trees leave switch LIDs, and end-port LIDs from a switch,
// without a route where only a valley would reach them
// (routing/mlid_degraded.cc).
UnicastReport VerifyUnicast(const Fabric& f, const Tables& t, size_t max_errors = 20,
                            bool switch_lids = true);

}  // namespace ibu
