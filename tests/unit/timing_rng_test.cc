// The timing model's generator must draw exactly what std::mt19937_64 draws
// for the same seed: every recorded result (golden points, checked-in
// CSVs) was made with the library's generator.
#include <CUnit/CUnit.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include "sim-harness/timing/kernel_common.h"
#include "sim-harness/timing/rng.h"

namespace ibu::simtest {

namespace {

void TestSameSequenceAsTheLibrary() {
  // 1000 draws cross three refills of the 312-word state.
  for (uint64_t seed : {uint64_t(0), uint64_t(1), uint64_t(5489), uint64_t(0x5eed5e7), ~uint64_t(0)}) {
    std::mt19937_64 ref(seed);
    sim::Mt64 ours(seed);
    int differ = 0;
    for (int i = 0; i < 1000; ++i) differ += ref() != ours();
    CU_ASSERT_EQUAL(differ, 0);
  }
}

// Each copy of the refill (Mt64::Isa) that this CPU runs, pinned: the
// baseline one is what a CPU without AVX2 draws with. The pinned copy, and
// only it, must have made the refills (a dispatch that ignored the pin
// would still draw the right numbers where the CPU runs both).
void TestEveryRefillCopyDrawsTheLibrarysSequence() {
  using Isa = sim::Mt64::Isa;
  CU_ASSERT_TRUE(sim::Mt64::CpuRuns(Isa::kBaseline));
  for (Isa isa : {Isa::kBaseline, Isa::kAvx2}) {
    for (uint64_t seed : {uint64_t(3), uint64_t(5489), ~uint64_t(0)}) {
      std::mt19937_64 ref(seed);
      sim::Mt64 ours(seed);
      if (!ours.Pin(isa)) {
        CU_ASSERT_FALSE(sim::Mt64::CpuRuns(isa));
        std::printf("\n  refill for ISA %d: not built or not run by this CPU", int(isa));
        break;
      }
      int differ = 0;
      for (int i = 0; i < 2000; ++i) differ += ref() != ours();
      CU_ASSERT_EQUAL(differ, 0);
      const Isa other = isa == Isa::kBaseline ? Isa::kAvx2 : Isa::kBaseline;
      CU_ASSERT_EQUAL(ours.RefillsBy(isa), 7u);  // 2000 draws: ceil(2000 / 312)
      CU_ASSERT_EQUAL(ours.RefillsBy(other), 0u);
    }
  }
}

void TestDefaultSeed() {
  std::mt19937_64 ref;
  sim::Mt64 ours;
  for (int i = 0; i < 400; ++i) CU_ASSERT_EQUAL(ref(), ours());
}

// Bernoulli arrivals of 32-byte messages from one host at `load`, and
// their time slot (one message time).
sim::ArrivalProcess BernoulliArrivals(double load, int64_t* slot) {
  sim::Params p;
  p.arrival = sim::Arrival::kBernoulli;
  sim::ArrivalProcess arrivals;
  arrivals.SetUp(p, load, 32, 1);
  *slot = std::max<int64_t>(1, int64_t(32 * double(p.byte_ns)));
  return arrivals;
}

// The log formula's gap for the uniform draw u in (0, 1]: the recorded
// results were made with it.
int64_t LogFormulaGap(double load, double u, int64_t slot) {
  if (load >= 1.0) return slot;
  const double k = 1 + std::floor(std::log(u) / std::log1p(-load));
  return k < double(sim::kPastAnyRun / slot) ? slot * int64_t(k) : sim::kPastAnyRun;
}

// Bernoulli gaps come from a table of powers of (1 - load) for loads of
// 0.25 and up: they must be the log formula's, draw for draw.
void TestBernoulliGapsAsTheLogFormula() {
  // 1e-300: every gap past any run; 1.5: every message time (the rules
  // beside the table's).
  for (double load : {1e-300, 0.1, 0.25, 0.3, 0.5, 0.6, 0.9, 0.99, 1.0, 1.5}) {
    int64_t slot = 0;
    sim::ArrivalProcess arrivals = BernoulliArrivals(load, &slot);
    sim::Mt64 rng(7), ref(7);
    int differ = 0;
    for (int i = 0; i < 200000; ++i) {
      const int64_t gap = arrivals.Gap(0, rng);
      // Loads of 1 and more draw nothing: the reference draws only below.
      const int64_t want = load < 1.0 ? LogFormulaGap(load, sim::UniformOpen(ref), slot) : slot;
      differ += gap != want;
    }
    CU_ASSERT_EQUAL(differ, 0);
  }
}

// The gaps are looked up by the draw's top 12 bits where one gap holds
// over the whole slice: at every slice's edges and next to them, the
// log formula's gap.
void TestBernoulliGapsAtTheSliceEdges() {
  for (double load : {0.25, 0.3, 0.5, 0.6, 0.75, 0.9, 0.99}) {
    int64_t slot = 0;
    const sim::ArrivalProcess arrivals = BernoulliArrivals(load, &slot);
    int differ = 0, draws = 0;
    for (uint64_t i = 0; i < 4096; ++i) {
      const uint64_t first = i << 52, last = first | ((uint64_t(1) << 52) - 1);
      for (uint64_t r : {first, first + 1, first + (1 << 11), last - (1 << 11), last - 1, last}) {
        differ += arrivals.BernoulliGapOf(r) != LogFormulaGap(load, sim::UniformOpenOf(r), slot);
        ++draws;
      }
    }
    CU_ASSERT_EQUAL(draws, 4096 * 6);
    CU_ASSERT_EQUAL(differ, 0);
  }
}

}  // namespace

void RegisterTimingRngSuite() {
  CU_pSuite s = CU_add_suite("timing_rng", nullptr, nullptr);
  CU_add_test(s, "Mt64 draws what std::mt19937_64 draws", TestSameSequenceAsTheLibrary);
  CU_add_test(s, "every refill copy the CPU runs draws the library's sequence",
              TestEveryRefillCopyDrawsTheLibrarysSequence);
  CU_add_test(s, "default seed 5489 as the library's", TestDefaultSeed);
  CU_add_test(s, "Bernoulli gaps: the table's are the log formula's", TestBernoulliGapsAsTheLogFormula);
  CU_add_test(s, "Bernoulli gaps: the log formula's at every slice edge", TestBernoulliGapsAtTheSliceEdges);
}

}  // namespace ibu::simtest
