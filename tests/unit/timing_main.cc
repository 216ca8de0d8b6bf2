// CUnit runner for the timing-model suites (tests/unit/timing_*.cc).
#include <CUnit/Basic.h>

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
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return failures == 0 ? 0 : 1;
}
