#include "sim-harness/mcast/effective_latency.h"

#include <algorithm>
#include <cmath>

#include "plugin/core/error.h"

namespace ibu::mcast {

double BinomialBroadcastUs(int members, double p2p_message_us) {
  int rounds = 0;
  while ((1 << rounds) < members) ++rounds;
  return rounds * p2p_message_us;
}

Effective EffectiveLatency(const SetupCosts& s, const BroadcastCosts& b, long iterations) {
  if (iterations < 1) throw Error("iterations must be >= 1");
  if (b.p2p_us <= 0 || b.hw_us <= 0) throw Error("broadcast costs must be > 0");
  const double n = static_cast<double>(iterations);
  Effective e;
  e.original_us = b.p2p_us;
  e.basic_us = ((s.create_join_ms + s.ready_ms) * 1000.0 + n * b.hw_us) / n;
  // Lazy: broadcasts start right after the joins; those that start before
  // the tree is ready go point-to-point.
  const double ready_us = s.ready_ms * 1000.0;
  const double p2p_count = std::min(n, std::ceil(ready_us / b.p2p_us));
  e.lazy_us = (s.create_join_ms * 1000.0 + p2p_count * b.p2p_us + (n - p2p_count) * b.hw_us) / n;
  e.pool_us = (b.p2p_us + n * b.hw_us) / n;
  return e;
}

}  // namespace ibu::mcast
