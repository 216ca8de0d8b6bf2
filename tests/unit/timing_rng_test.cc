// The timing model's generator must draw exactly what std::mt19937_64 draws
// for the same seed: every recorded result (golden points, checked-in
// CSVs) was made with the library's generator.
#include <CUnit/CUnit.h>

#include <cstdint>
#include <random>

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

void TestDefaultSeed() {
  std::mt19937_64 ref;
  sim::Mt64 ours;
  for (int i = 0; i < 400; ++i) CU_ASSERT_EQUAL(ref(), ours());
}

}  // namespace

void RegisterTimingRngSuite() {
  CU_pSuite s = CU_add_suite("timing_rng", nullptr, nullptr);
  CU_add_test(s, "Mt64 draws what std::mt19937_64 draws", TestSameSequenceAsTheLibrary);
  CU_add_test(s, "default seed 5489 as the library's", TestDefaultSeed);
}

}  // namespace ibu::simtest
