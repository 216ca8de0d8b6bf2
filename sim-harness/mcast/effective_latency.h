// Effective latency of a communicator's broadcasts (seed 003, section 5.2):
// communicator creation plus N broadcasts, per broadcast, for the three
// ways of getting a hardware multicast group and for plain point-to-point.
#pragma once

#include <string>
#include <vector>

namespace ibu::mcast {

// Measured set-up costs on the critical path, ms.
struct SetupCosts {
  double create_join_ms = 0;  // creator's create + everyone's join answered
  double ready_ms = 0;        // multicast testing: from the last join until usable
  double pool_leave_ms = 0;   // Pool: the non-participants' leaves answered (off
                              // the participants' critical path; reported only)
};

// One 1 KB broadcast over the group, us, from the timing model.
struct BroadcastCosts {
  double p2p_us = 0;  // point-to-point broadcast (binomial tree of unicasts)
  double hw_us = 0;   // one hardware multicast, completion at the last member
};

struct Effective {
  double original_us = 0, basic_us = 0, lazy_us = 0, pool_us = 0;  // per broadcast
};

//  Original: N p2p.   Basic: create+join, wait until ready, N hw.
//  Lazy: create+join, then p2p until the tree is ready, hw after.
//  Pool: the ranks agree on a pre-built group (one point-to-point
//  broadcast), then N hw. The outsiders' leaves and the pool's refill run
//  off the participants' critical path: a packet that reaches a host which
//  has left is dropped by its adapter. Lazy's readiness probe is free.
Effective EffectiveLatency(const SetupCosts& s, const BroadcastCosts& b, long iterations);

// Binomial-tree broadcast over `members` hosts: ceil(log2 members) rounds
// of one point-to-point message.
double BinomialBroadcastUs(int members, double p2p_message_us);

}  // namespace ibu::mcast
