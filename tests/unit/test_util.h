// Helpers shared by the CUnit suites.
#pragma once

#include <CUnit/CUnit.h>

#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"
#include "plugin/core/netfile.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/generate.h"

namespace ibu::test {

// (switch index, out port) hops of the route from end port `src` to `dlid`,
// following the LFTs; stops after TraceHopLimit(f) hops.
std::vector<std::pair<int, int>> Trace(const Fabric& f, const Tables& t, int src, Lid dlid);

int SwitchNamed(const Fabric& f, const std::string& name);
// The end port of that node description, -1 if none (a linear search).
int EndPortNamed(const Fabric& f, const std::string& name);

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

// `f` written as a net file with WriteNetFile's record `order` and parsed
// back (`name` for messages): a shuffled or reversed listing as OpenSM or
// ibnetdiscover would hand it over.
inline Fabric ReadBack(const Fabric& f, const std::vector<int>& order, const std::string& name) {
  std::ostringstream os;
  WriteNetFile(os, f, order);
  std::istringstream is(os.str());
  return ParseNetFile(is, name);
}

// Every record of `f` in reverse, hosts first: the order ibnetdiscover
// lists ibsim's fat-trees in (P(733) first), as a dump's fabric.net has
// it. A record order for WriteNetFile / ReadBack.
inline std::vector<int> ReversedRecords(const Fabric& f) {
  const int hosts = static_cast<int>(f.end_ports.size()), switches = static_cast<int>(f.switches.size());
  std::vector<int> order;
  for (int i = hosts - 1; i >= 0; --i) order.push_back(i);
  for (int i = hosts + switches - 1; i >= hosts; --i) order.push_back(i);
  return order;
}

inline bool Contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// A copy of `f` without switch `gone` and the hosts cabled to it (as
// OpenSM sees a fabric after a switch dies).
Fabric WithoutSwitch(const Fabric& f, int gone);

// A copy of `f` without end port `gone`, its switch port uncabled (a host
// powered off; later end ports move down an index).
Fabric WithoutEndPort(const Fabric& f, int gone);

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
