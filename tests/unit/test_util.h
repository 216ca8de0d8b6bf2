// Helpers shared by the CUnit suites.
#pragma once

#include <CUnit/CUnit.h>

#include <random>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"

namespace ibu::test {

// (switch index, out port) hops of the route from end port `src` to `dlid`,
// following the LFTs; stops after TraceHopLimit(f) hops.
std::vector<std::pair<int, int>> Trace(const Fabric& f, const Tables& t, int src, Lid dlid);

int SwitchNamed(const Fabric& f, const std::string& name);

// Runs `fn` and returns the ibu::Error message it threw ("" if none).
template <typename Fn>
std::string ErrorOf(Fn fn) {
  try {
    fn();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A copy of `f` without switch `gone` and the hosts cabled to it (as
// OpenSM sees a fabric after a switch dies).
Fabric WithoutSwitch(const Fabric& f, int gone);

// `count` distinct end-port indices out of `hosts`, drawn from rng.
std::vector<int> RandomMembers(std::mt19937_64& rng, int hosts, int count);

// VerifyMulticast passes for g and every member was checked as a sender;
// errors are printed on failure.
void AssertExactlyOnce(const Fabric& f, const Tables& t, const McastGroup& g);

// Each suite file registers itself through one of these.
void RegisterFabricSuite();
void RegisterFatTreeSuite();
void RegisterMlidSuite();
void RegisterVerifySuite();
void RegisterMcastSuite();
void RegisterMeshSuite();
void RegisterDeadlockSuite();
void RegisterMcastSetupSuite();
void RegisterDegradedSuite();
void RegisterBridgeSuite();

}  // namespace ibu::test
