// CUnit runner for the timing-model suites (tests/unit/timing_*.cc).
#include <CUnit/Basic.h>

#include "tests/unit/cunit_runner.h"

namespace ibu::simtest {
void RegisterTimingModelSuite();
void RegisterTimingModelLeanSuite();
void RegisterTimingMcastSuite();
void RegisterTimingDeadlockSuite();
void RegisterTimingDeadlockLeanSuite();
void RegisterTimingCliSuite();
void RegisterTimingSlSuite();
void RegisterTimingQueueSuite();
void RegisterTimingRngSuite();
void RegisterTimingFlowsSuite();
void RegisterTimingTrafficSuite();
void RegisterTimingLeanSuite();
void RegisterTimingHugePagesSuite();
}  // namespace ibu::simtest

int main() {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  ibu::simtest::RegisterTimingModelSuite();
  ibu::simtest::RegisterTimingModelLeanSuite();
  ibu::simtest::RegisterTimingMcastSuite();
  ibu::simtest::RegisterTimingDeadlockSuite();
  ibu::simtest::RegisterTimingDeadlockLeanSuite();
  ibu::simtest::RegisterTimingCliSuite();
  ibu::simtest::RegisterTimingSlSuite();
  ibu::simtest::RegisterTimingQueueSuite();
  ibu::simtest::RegisterTimingRngSuite();
  ibu::simtest::RegisterTimingFlowsSuite();
  ibu::simtest::RegisterTimingTrafficSuite();
  ibu::simtest::RegisterTimingLeanSuite();
  ibu::simtest::RegisterTimingHugePagesSuite();
  return ibu::test::RunRegisteredTests();
}
