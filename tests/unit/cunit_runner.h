// The run loop both CUnit binaries share. An exception that escapes a test
// (a SimFailure from the timing model's invariant checks, an ibu::Error)
// fails that test and the run goes on: unguarded, it ended the binary in
// std::terminate mid-run, with no summary and every later suite unrun.
#pragma once

#include <CUnit/Basic.h>

#include <exception>
#include <string>
#include <unordered_map>

namespace ibu::test {

// Each registered test's own function, by test: CUnit calls RunGuarded
// instead, which has no way to be told which test it runs but to ask.
inline std::unordered_map<CU_pTest, CU_TestFunc>& GuardedTestFunctions() {
  static std::unordered_map<CU_pTest, CU_TestFunc> functions;
  return functions;
}

inline void FailOnEscapedException(const std::string& what) {
  const std::string condition = "exception escaped the test: " + what;
  CU_assertImplementation(CU_FALSE, 0, condition.c_str(), CU_get_current_test()->pName, "", CU_FALSE);
}

inline void RunGuarded() {
  const CU_TestFunc test = GuardedTestFunctions().at(CU_get_current_test());
  try {
    test();
  } catch (const std::exception& e) {
    FailOnEscapedException(e.what());
  } catch (...) {
    FailOnEscapedException("not a std::exception");
  }
}

// Runs every registered test, each guarded, verbosely; 0 when all passed.
inline int RunRegisteredTests() {
  for (CU_pSuite s = CU_get_registry()->pSuite; s != nullptr; s = s->pNext)
    for (CU_pTest t = s->pTest; t != nullptr; t = t->pNext) {
      GuardedTestFunctions()[t] = t->pTestFunc;
      t->pTestFunc = RunGuarded;
    }
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures() + CU_get_number_of_tests_failed();
  CU_cleanup_registry();
  return failures == 0 ? 0 : 1;
}

}  // namespace ibu::test
