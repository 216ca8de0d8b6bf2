// `ibunion inspect`: what the core recognises in a net file.
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/topology/fattree.h"

namespace ibu::cli {

namespace {
constexpr const char* kUsage =
    "usage: ibunion inspect NETFILE [--guid2lid FILE] [--lmc L]\n"
    "prints the recognised fat-tree: one line per switch and host with\n"
    "GUID, LID and the paper's label\n";
}  // namespace

int InspectMain(int argc, char** argv) {
  Args args(argc, argv, {"--guid2lid", "--lmc"}, {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError{std::string("expected one NETFILE\n") + kUsage};
  Fabric f = LoadFabric(args, args.positional()[0]);
  FatTree t = RecognizeFatTree(f);
  std::printf("fattree FT(%d,%d) %zu switches %zu hosts\n", t.m, t.n, f.switches.size(),
              f.end_ports.size());
  for (size_t s = 0; s < f.switches.size(); ++s)
    std::printf("switch 0x%016" PRIx64 " lid %u %s\n", f.switches[s].guid, f.switches[s].lid,
                t.SwitchLabel(static_cast<int>(s)).c_str());
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    std::printf("host 0x%016" PRIx64 " lid %u lmc %u %s\n", f.end_ports[e].port_guid,
                f.end_ports[e].base_lid, f.end_ports[e].lmc, t.HostLabel(static_cast<int>(e)).c_str());
  return 0;
}

}  // namespace ibu::cli
