// libFuzzer target for the plugin's option string as OpenSM hands it over
// (event_plugin_options): the adapter's own words (<engine>_dump) and the
// engines' keys, through the same entry point the plugin uses. The first
// byte picks the engine, whether other event plugins share the string and
// whether the engine is in routing_engine.
// A bad string must come back as a logged option
// error, never a crash or a null engine.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "plugin/osm/bridge.h"

namespace {
void Discard(void*, int, const char*) {}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  static const char* const kEngines[] = {"mlid", "slid", "xymesh"};
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (text.find('\0') != std::string::npos) return 0;  // OpenSM passes a C string
  const char* engine = kEngines[data[0] % 3];
  // Bit 3: the engine is not in OpenSM's routing_engine chain.
  ibu_engine* e =
      ibu_engine_new(engine, text.c_str(), (data[0] >> 2) & 1, (data[0] >> 3) & 1 ? "minhop" : engine, Discard, nullptr);
  if (!e) std::abort();  // only allocation failure may give none
  ibu_engine_free(e);
  return 0;
}
