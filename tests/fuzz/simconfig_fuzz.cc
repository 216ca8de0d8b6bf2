// libFuzzer target for the timing model's settings: `key = value` lines as
// in a --config file (or --param words), through SetParam, the traffic
// pattern parser and the cross-field check. Anything may be refused with
// ibu::Error; nothing may crash.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "plugin/core/error.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/traffic.h"

namespace {
std::string Trim(const std::string& s) {
  const size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r") - a + 1);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  ibu::sim::Params p;
  std::string line;
  int no = 0;
  while (std::getline(in, line)) {
    ++no;
    const size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = Trim(line.substr(0, eq)), value = Trim(line.substr(eq + 1));
    try {
      if (key == "traffic") ibu::sim::ParseTraffic(value);
      else if (ibu::sim::IsParamKey(key)) ibu::sim::SetParam(p, key, value, "fuzz:" + std::to_string(no));
    } catch (const ibu::Error&) {
    }
  }
  try {
    ibu::sim::ValidateParams(p);
  } catch (const ibu::Error&) {
  }
  return 0;
}
