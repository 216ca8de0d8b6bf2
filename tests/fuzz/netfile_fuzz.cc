// libFuzzer target for the net-file reader: any input either parses into a
// consistent Fabric or throws ibu::Error; nothing else (no crash, no other
// exception, no sanitizer report) is acceptable.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "plugin/core/error.h"
#include "plugin/core/netfile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  try {
    ibu::Fabric f = ibu::ParseNetFile(in, "fuzz.net");
    f.Finalize();  // must hold again on what the parser built
  } catch (const ibu::Error&) {
  }
  return 0;
}
