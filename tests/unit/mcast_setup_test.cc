// The effective-latency model of the group set-up designs (seed 003).
#include <CUnit/CUnit.h>

#include "plugin/core/error.h"
#include "sim-harness/mcast/effective_latency.h"
#include "sim-harness/mcast/setup_bench.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

using mcast::BroadcastCosts;
using mcast::EffectiveLatency;
using mcast::SetupCosts;

void BinomialRounds() {
  CU_ASSERT_DOUBLE_EQUAL(mcast::BinomialBroadcastUs(1, 5), 0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(mcast::BinomialBroadcastUs(2, 5), 5, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(mcast::BinomialBroadcastUs(16, 5), 20, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(mcast::BinomialBroadcastUs(17, 5), 25, 1e-9);
}

void BasicPaysSetupAndWait() {
  const SetupCosts s{2.0, 3.0, 1.0};  // ms
  const BroadcastCosts b{40.0, 10.0};  // us
  auto e = EffectiveLatency(s, b, 1);
  CU_ASSERT_DOUBLE_EQUAL(e.original_us, 40, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(e.basic_us, 5000 + 10, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(e.pool_us, 40 + 10, 1e-9);
  e = EffectiveLatency(s, b, 1000);
  CU_ASSERT_DOUBLE_EQUAL(e.basic_us, 5.0 + 10, 1e-9);
}

void LazyGoesPointToPointUntilReady() {
  const BroadcastCosts b{40.0, 10.0};
  // Ready at once: every broadcast is hardware.
  auto e = EffectiveLatency({2.0, 0.0, 0.0}, b, 10);
  CU_ASSERT_DOUBLE_EQUAL(e.lazy_us, 200 + 10, 1e-9);
  // Never ready within the run: all point-to-point.
  e = EffectiveLatency({2.0, 1000.0, 0.0}, b, 10);
  CU_ASSERT_DOUBLE_EQUAL(e.lazy_us, 200 + 40, 1e-9);
  // Ready after 100 us: 3 broadcasts of 40 us start before it, 7 after.
  e = EffectiveLatency({0.0, 0.1, 0.0}, b, 10);
  CU_ASSERT_DOUBLE_EQUAL(e.lazy_us, (3 * 40 + 7 * 10) / 10.0, 1e-9);
  // Lazy spends the wait broadcasting, so a long wait makes it no worse
  // than Basic...
  for (long n : {1L, 10L, 100L, 1000L}) {
    e = EffectiveLatency({1.5, 4.0, 0.0}, b, n);
    CU_ASSERT(e.lazy_us <= e.basic_us + 1e-9);
    CU_ASSERT(e.pool_us <= e.basic_us + 1e-9);
  }
  // ... but a tree ready after 1 us still costs Lazy the 40-us broadcast
  // that started before it: worse than Basic's 1-us wait, by less than one
  // point-to-point broadcast (40 - 10 - 1 us over 10 iterations).
  e = EffectiveLatency({0.0, 0.001, 0.0}, b, 10);
  CU_ASSERT_DOUBLE_EQUAL(e.lazy_us, (40 + 9 * 10) / 10.0, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(e.lazy_us - e.basic_us, (40 - 10 - 1) / 10.0, 1e-9);
  CU_ASSERT(e.lazy_us <= e.basic_us + b.p2p_us / 10 + 1e-9);
}

void BadCostsAreRefused() {
  CU_ASSERT(!ErrorOf([] { EffectiveLatency({1, 1, 1}, {0, 10}, 1); }).empty());
  CU_ASSERT(!ErrorOf([] { EffectiveLatency({1, 1, 1}, {10, 10}, 0); }).empty());
}

mcast::TreeWait Bracket(double lo, double hi) {
  mcast::TreeWait w;
  w.ok = true;
  w.lo_ms = lo;
  w.hi_ms = hi;
  w.rounds = 1;
  w.round_ms = hi - lo;
  return w;
}

// A burst's groups are polled one after the other: the first became usable
// in (20, 22] ms; the second, first read at 24 ms, was final already:
// (0, 24]. All were usable in (20, 24], midpoint 22; taking the bracket
// with the latest end gave 12 ms, earlier than the first group alone.
void AllReadyIsTheLastTree() {
  const mcast::TreeWait all = mcast::AllReady({Bracket(20, 22), Bracket(0, 24)});
  CU_ASSERT(all.ok);
  CU_ASSERT_DOUBLE_EQUAL(all.lo_ms, 20, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(all.hi_ms, 24, 1e-9);
  CU_ASSERT_DOUBLE_EQUAL(all.ready_ms(), 22, 1e-9);
  CU_ASSERT_EQUAL(all.rounds, 2);
}

}  // namespace

void RegisterMcastSetupSuite() {
  CU_pSuite s = CU_add_suite("mcast_setup", nullptr, nullptr);
  CU_add_test(s, "binomial broadcast rounds", BinomialRounds);
  CU_add_test(s, "Basic pays create, join and the wait", BasicPaysSetupAndWait);
  CU_add_test(s, "Lazy goes point-to-point until ready", LazyGoesPointToPointUntilReady);
  CU_add_test(s, "bad costs are refused", BadCostsAreRefused);
  CU_add_test(s, "all trees ready: the last tree's bracket", AllReadyIsTheLastTree);
}

}  // namespace ibu::test
