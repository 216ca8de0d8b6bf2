// CUnit runner for the core's unit suites.
#include <CUnit/Basic.h>

#include "plugin/core/verify/multicast.h"
#include "plugin/core/verify/paths.h"
#include "tests/unit/cunit_runner.h"
#include "tests/unit/test_util.h"

namespace ibu::test {

std::vector<std::pair<int, int>> Trace(const Fabric& f, const Tables& t, int src, Lid dlid) {
  return TraceRoute(f, t, src, dlid);
}

int SwitchNamed(const Fabric& f, const std::string& name) {
  for (size_t s = 0; s < f.switches.size(); ++s)
    if (f.switches[s].name == name) return static_cast<int>(s);
  return -1;
}

int EndPortNamed(const Fabric& f, const std::string& name) {
  for (size_t i = 0; i < f.end_ports.size(); ++i)
    if (f.end_ports[i].name == name) return static_cast<int>(i);
  return -1;
}

Fabric WithoutSwitch(const Fabric& f, int gone) {
  Fabric out;
  std::vector<int> new_sw(f.switches.size(), -1), new_ep(f.end_ports.size(), -1);
  for (size_t s = 0; s < f.switches.size(); ++s)
    if (static_cast<int>(s) != gone) new_sw[s] = static_cast<int>(out.switches.size()), out.switches.push_back(f.switches[s]);
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    if (f.end_ports[e].switch_index != gone)
      new_ep[e] = static_cast<int>(out.end_ports.size()), out.end_ports.push_back(f.end_ports[e]);
  for (Switch& sw : out.switches)
    for (Peer& p : sw.ports) {
      if (p.is_switch() && new_sw[p.index] < 0) p = Peer{};
      else if (p.is_switch()) p.index = new_sw[p.index];
      else if (p.is_end_port()) p.index = new_ep[p.index];
    }
  for (EndPort& ep : out.end_ports) ep.switch_index = new_sw[ep.switch_index];
  out.Finalize();
  return out;
}

Fabric WithoutEndPort(const Fabric& f, int gone) {
  Fabric out = f;
  out.end_ports.erase(out.end_ports.begin() + gone);
  for (Switch& sw : out.switches)
    for (Peer& p : sw.ports)
      if (p.is_end_port() && p.index == gone)
        p = Peer{};
      else if (p.is_end_port() && p.index > gone)
        --p.index;
  out.Finalize();
  return out;
}

std::vector<int> RandomMembers(std::mt19937_64& rng, int hosts, int count) {
  std::vector<int> all(hosts);
  for (int i = 0; i < hosts; ++i) all[i] = i;
  for (int i = 0; i < count; ++i) std::swap(all[i], all[i + rng() % (hosts - i)]);
  all.resize(count);
  return all;
}

void AssertExactlyOnce(const Fabric& f, const Tables& t, const McastGroup& g) {
  McastReport r = VerifyMulticast(f, t, g);
  for (const std::string& err : r.errors) fprintf(stderr, "\n  %s", err.c_str());
  CU_ASSERT(r.ok());
  CU_ASSERT_EQUAL(r.senders_checked, static_cast<long>(g.members.size() + g.switch_members.size()));
}


}  // namespace ibu::test

int main() {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  ibu::test::RegisterFabricSuite();
  ibu::test::RegisterFatTreeSuite();
  ibu::test::RegisterMlidSuite();
  ibu::test::RegisterVerifySuite();
  ibu::test::RegisterMcastSuite();
  ibu::test::RegisterMeshSuite();
  ibu::test::RegisterDeadlockSuite();
  ibu::test::RegisterMcastSetupSuite();
  ibu::test::RegisterDegradedSuite();
  ibu::test::RegisterBridgeSuite();
  return ibu::test::RunRegisteredTests();
}
