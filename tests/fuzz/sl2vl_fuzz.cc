// libFuzzer target for the SL2VL reader (`smpquery sl2vl` format, what
// read-sl2vl and `ibunion route --sl2vl` write, what `verify --sl2vl`
// reads) on a fixed 3x3 mesh routed by xymesh with 4 dedicated VLs, and
// for what verify does with the tables read: compare them with the
// engine's policy (EndPortVls, Sl2Vl::get) and search the channel
// dependencies for a credit loop under the engine's SLs. Anything may be
// refused with ibu::Error; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>

#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/netfile.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/generate.h"
#include "plugin/core/verify/deadlock.h"

namespace {

struct Fixture {
  ibu::Fabric f;
  ibu::Tables t;  // LFTs only: the SL2VL tables come from the input
  ibu::Tables policy;
  std::unique_ptr<ibu::Engine> engine;
  ibu::DeadlockOptions sls;
  Fixture() {
    f = ibu::MakeMesh(3, 3);
    ibu::AssignDefaultLids(f, 0);
    engine = ibu::MakeEngine("xymesh", {"xymesh_vls=4", "xymesh_vl_mode=dedicated"}, nullptr);
    t.Resize(f);
    engine->RouteUnicast(f, t);
    policy = t;
    engine->RouteSl2Vl(f, policy);
    sls = ibu::EngineSls(f, *engine);
  }
};

volatile unsigned sink;

const Fixture& Get() {
  static const Fixture fx;
  return fx;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const Fixture& fx = Get();
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  ibu::Tables t = fx.t;
  try {
    ibu::ReadSl2Vl(in, "fuzz.sl2vl", fx.f, t);
  } catch (const ibu::Error&) {
    return 0;
  }
  // What verify --sl2vl --engine does with them: every (in, out, SL) of
  // every switch with a table, and each host's table.
  unsigned sum = 0;
  for (size_t s = 0; s < fx.f.switches.size() && s < t.sl2vl.size(); ++s) {
    if (t.sl2vl[s].empty()) continue;
    const int ports = fx.f.switches[s].num_ports;
    for (int in_port = 0; in_port <= ports; ++in_port)
      for (int out = 0; out <= ports; ++out)
        for (int sl = 0; sl < 16; ++sl) sum += t.sl2vl[s].get(in_port, out, sl);
  }
  for (const auto& [ep, vls] : t.end_port_sl2vl) sum += vls[0] + unsigned(ep);
  for (size_t e = 0; e < fx.f.end_ports.size(); ++e) sum += ibu::EndPortVls(fx.f, t, int(e))[0];
  // verify --deadlock --sl2vl: the credit-loop search on what was read.
  try {
    t.end_port_sl = fx.policy.end_port_sl;
    const ibu::DeadlockReport r = ibu::CheckDeadlock(fx.f, t, {}, fx.sls);
    sum += r.acyclic();
  } catch (const ibu::Error&) {
  }
  sink = sum;  // keeps the reads
  return 0;
}
