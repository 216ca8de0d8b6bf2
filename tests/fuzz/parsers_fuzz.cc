// libFuzzer target for the other parsers, on a fixed FT(4,2) fabric: LFT
// and MFT dumps (ibroute format), group files, guid2lid files, engine
// option strings and path SL files. The first byte picks the parser (the
// corpus predates the sixth: its files now reach other parsers than they
// were found for, which a crash check does not mind). Anything may be
// refused with ibu::Error; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/groups.h"
#include "plugin/core/guid2lid.h"
#include "plugin/core/netfile.h"
#include "plugin/core/path_sls.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/generate.h"

namespace {

const ibu::Fabric& Fixture() {
  static const ibu::Fabric f = [] {
    ibu::Fabric g = ibu::MakeFatTree(4, 2);
    ibu::AssignDefaultLids(g, 1);
    return g;
  }();
  return f;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::istringstream in(text);
  ibu::Fabric f = Fixture();
  ibu::Tables t;
  try {
    switch (data[0] % 6) {
      case 0: ibu::ReadLfts(in, "fuzz.lft", f, t); break;
      case 1: ibu::ReadMfts(in, "fuzz.mft", f, t); break;
      case 2: ibu::ParseGroups(in, "fuzz.groups", f); break;
      case 3: (void)ibu::ApplyGuid2Lid(in, "fuzz.guid2lid", f); break;
      case 4: {
        auto e = ibu::MakeEngine("mlid", ibu::OptionWords(text), nullptr);
        e = ibu::MakeEngine("xymesh", ibu::OptionWords(text), nullptr);
        break;
      }
      case 5: (void)ibu::ReadPathSls(in, "fuzz.path-sl", f); break;
    }
  } catch (const ibu::Error&) {
  }
  return 0;
}
