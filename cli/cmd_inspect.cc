// `ibunion inspect`: what the core recognises in a net file.
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/mesh.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion inspect NETFILE [--guid2lid FILE | --lmc L]\n"
    "prints the recognised fat-tree or 2-D mesh: one line per switch and host with\n"
    "GUID, LID and the paper's label (a mesh switch also with its port toward\n"
    "E, N, W, S and its host, - where there is none); of a degraded fat-tree, what\n"
    "is missing in a note on stderr\n";

void PrintFatTree(const Fabric& f, const FatTree& t) {
  // A tree with cables, hosts or switches missing printed exactly the
  // header of a complete one: what is missing goes to stderr, as route's
  // note says it (stdout keeps its format for the scripts that read it).
  if (t.degraded) std::cerr << "ibunion: note: " << t.DegradedSummary() << "\n";
  std::printf("fattree FT(%d,%d) %zu switches %zu hosts\n", t.m, t.n, f.switches.size(), f.end_ports.size());
  // A switch the degraded labelling left out has no label ("SW<,-1>" was
  // printed): '-', as for a mesh host without a switch.
  for (size_t s = 0; s < f.switches.size(); ++s)
    std::printf("switch 0x%016" PRIx64 " lid %u %s\n", f.switches[s].guid, f.switches[s].lid,
                t.level[s] < 0 ? "-" : t.SwitchLabel(static_cast<int>(s)).c_str());
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    std::printf("host 0x%016" PRIx64 " lid %u lmc %u %s\n", f.end_ports[e].port_guid, f.end_ports[e].base_lid,
                f.end_ports[e].lmc, t.HostLabel(static_cast<int>(e)).c_str());
}

// Hosts are labelled H(x,y) after their switch N(x,y), as `topo mesh` names them.
void PrintMesh(const Fabric& f, const Mesh& m) {
  std::printf("mesh %dx%d %zu switches %zu hosts\n", m.X, m.Y, f.switches.size(), f.end_ports.size());
  // "-": no such port (a border, or a host down; port 0 is the switch's own).
  auto port = [](int p) { return p ? std::to_string(p) : std::string("-"); };
  for (size_t s = 0; s < f.switches.size(); ++s)
    std::printf("switch 0x%016" PRIx64 " lid %u %s E=%s N=%s W=%s S=%s host=%s\n", f.switches[s].guid,
                f.switches[s].lid, m.Label(static_cast<int>(s)).c_str(), port(m.port[s][kEast]).c_str(),
                port(m.port[s][kNorth]).c_str(), port(m.port[s][kWest]).c_str(),
                port(m.port[s][kSouth]).c_str(), port(m.host_port[s]).c_str());
  for (size_t e = 0; e < f.end_ports.size(); ++e) {
    const int sw = f.end_ports[e].switch_index;
    const std::string label =
        sw < 0 ? "-" : "H(" + std::to_string(m.x[sw]) + "," + std::to_string(m.y[sw]) + ")";
    std::printf("host 0x%016" PRIx64 " lid %u lmc %u %s\n", f.end_ports[e].port_guid, f.end_ports[e].base_lid,
                f.end_ports[e].lmc, label.c_str());
  }
}

}  // namespace

int InspectMain(int argc, char** argv) {
  Args args(argc, argv, {"--guid2lid", "--lmc"}, {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError{std::string("expected one NETFILE\n") + kUsage};
  Fabric f = LoadFabric(args, args.positional()[0]);
  // A fabric is one or the other, so the second refusal only follows the first.
  std::string not_fat_tree;
  try {
    PrintFatTree(f, RecognizeFatTree(f));
    return 0;
  } catch (const Error& e) {
    not_fat_tree = e.what();
  }
  try {
    PrintMesh(f, RecognizeMesh(f));
  } catch (const Error& e) {
    throw Error(not_fat_tree + "; " + e.what());
  }
  return 0;
}

}  // namespace ibu::cli
