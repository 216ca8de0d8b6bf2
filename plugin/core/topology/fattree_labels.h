// Shared by the complete and the degraded fat-tree recognisers (not public).
#pragma once

#include "plugin/core/fabric.h"
#include "plugin/core/topology/fattree.h"

namespace ibu {

// Host digits once the switches are labelled: a host's label is its leaf's
// label plus its rank among the leaf's host ports; fills t.p, t.pid,
// t.end_port_by_pid and the leaves' down ports (down_port[x] = digit x).
void LabelHostDigits(const Fabric& f, FatTree& t);

}  // namespace ibu
