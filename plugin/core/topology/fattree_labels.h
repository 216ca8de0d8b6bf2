// Shared by the complete and the degraded fat-tree recognisers (not public).
#pragma once

#include <string>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/topology/fattree.h"

namespace ibu {

// Host digits once the switches are labelled: a host's label is its leaf's
// label plus its rank among the leaf's host ports; fills t.p, t.pid,
// t.end_port_by_pid and the leaves' down ports (down_port[x] = digit x).
void LabelHostDigits(const Fabric& f, FatTree& t);

// Ports of switch `s` toward switches of level level(s) + delta (+1 the
// children, -1 the parents), in port order.
std::vector<int> PortsTowardLevel(const Fabric& f, const FatTree& t, int s, int delta);

// Why the switch cable on port `p` of switch `s` breaks the rule that links
// join adjacent levels (`level`: the levels so far), at the cable to blame;
// `what` is "" when it keeps the rule. A cable back to the same switch (a
// loopback plug, two of its ports joined) is named as such: its "other"
// switch is the switch itself. Levels are distances from the leaves, so a
// cable that skips a level (a leaf cabled to a top switch) pulls the upper
// switch down one level, and its correct cables then join "equal" levels:
// when one of the two switches has more such links than links from below,
// the cable from below is the one named.
struct CableFault {
  int s = -1, p = 0;
  std::string what;
};
CableFault LevelLinkFault(const Fabric& f, const std::vector<int>& level, int s, int p);

// Names the first host cabled to a switch that has as many switch links as
// a top or middle switch, or "" when there is none. Only for refusals: both
// labellings take any switch with hosts for a leaf.
std::string HostOnInnerSwitchFault(const Fabric& f);

}  // namespace ibu
