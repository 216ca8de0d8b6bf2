// Hosts numbered by their place in the recognised topology rather than by
// the order a net file happens to list them in. ibnetdiscover lists hosts
// in discovery order (reversed, on ibsim's fat-trees), a shuffled cabling in
// any order; traffic defined on host numbers (a shift, a bit reversal, a
// hot host, a drawn multicast group) then meant other hosts on the same
// fabric, so two routings compared "under the same traffic" were not.
#pragma once

#include <string>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu {

struct HostOrder {
  // end_ports[i]: the end-port index (Fabric order) of host number i.
  std::vector<int> end_ports;
  // "FT(8,3) address order (...)", "4x4 mesh order (...)" or
  // "net-file order (...)".
  std::string name;
};

// A fat-tree's hosts by PID (the paper's P(p_0..p_{n-1}) read as a number;
// a degraded tree's present hosts, those it cannot place after them), a
// mesh's by switch coordinate, x * Y + y; otherwise net-file order. On the
// generator's files every order is the file's own. Cost: one recognition
// (O(switches x ports); a degraded tree's labelling runs more than once).
HostOrder HostsInAddressOrder(const Fabric& f);

// Net-file order, named as such.
HostOrder HostsInFileOrder(const Fabric& f);

}  // namespace ibu
