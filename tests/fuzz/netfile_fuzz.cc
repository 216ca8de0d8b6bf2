// libFuzzer target for the net-file reader: any input either parses into a
// consistent Fabric or throws ibu::Error; nothing else (no crash, no other
// exception, no sanitizer report) is acceptable. Small fabrics that parse
// are then routed by mlid and xymesh, so topology recognition (complete and
// degraded fat-trees, meshes) sees arbitrary graphs too.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/netfile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    ibu::Fabric f = ibu::ParseNetFile(in, "fuzz.net");
    f.Finalize();  // must hold again on what the parser built
    if (f.switches.size() > 64 || f.end_ports.size() > 256) return 0;  // keep runs fast
    if (f.max_lid() == 0) ibu::AssignDefaultLids(f, 1);
    for (const char* name : {"mlid", "xymesh"}) {
      try {
        ibu::Tables t;
        auto engine = ibu::MakeEngine(name, {}, nullptr);
        engine->RouteUnicast(f, t);
        ibu::McastGroup g;
        g.mlid = ibu::kMulticastLidBase;
        for (int e = 0; e < static_cast<int>(f.end_ports.size()); ++e) g.members.push_back(e);
        if (!g.members.empty()) engine->RouteMulticast(f, g, t);
      } catch (const ibu::Error&) {
      }
    }
  } catch (const ibu::Error&) {
  }
  return 0;
}
