// `ibunion inspect`: what the core recognises in a net file.
#include <cinttypes>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/output_files.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/mesh.h"
#include "plugin/core/topology/recognize.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion inspect NETFILE [--guid2lid FILE | --lmc L] [--dor-order FILE]\n"
    "prints the recognised fat-tree or 2-D mesh: one line per switch and host with\n"
    "GUID, LID and the paper's label (a mesh switch also with its port toward\n"
    "E, N, W, S and its host, - where there is none); of a degraded fat-tree, what\n"
    "is missing in a note on stderr: how many links, switches and hosts, and which\n"
    "(at most 8 of each) by the listing's labels\n"
    "  --dor-order FILE  of a mesh, also write OpenSM's port_search_ordering_file\n"
    "                    (opensm.conf: port_search_ordering_file FILE) that makes its\n"
    "                    dor engine route XY, X before Y, on any cabling; without it\n"
    "                    dor takes the lowest-numbered shortest port (\"-\": stdout,\n"
    "                    the listing then goes to stderr)\n";

void PrintFatTree(std::FILE* out, const Fabric& f, const FatTree& t) {
  // A tree with cables, hosts or switches missing printed exactly the
  // header of a complete one: what is missing goes to stderr, as route's
  // note says it (stdout keeps its format for the scripts that read it).
  if (t.degraded) {
    std::cerr << "ibunion: note: " << t.DegradedSummary() << "\n";
    const std::string parts = t.MissingParts();
    if (!parts.empty()) std::cerr << "ibunion: note: missing, by the labels below: " << parts << "\n";
  }
  std::fprintf(out, "fattree FT(%d,%d) %zu switches %zu hosts\n", t.m, t.n, f.switches.size(),
               f.end_ports.size());
  // A switch the degraded labelling left out has no label ("SW<,-1>" was
  // printed): '-', as for a mesh host without a switch.
  for (size_t s = 0; s < f.switches.size(); ++s)
    std::fprintf(out, "switch 0x%016" PRIx64 " lid %u %s\n", f.switches[s].guid, f.switches[s].lid,
                 t.level[s] < 0 ? "-" : t.SwitchLabel(static_cast<int>(s)).c_str());
  for (size_t e = 0; e < f.end_ports.size(); ++e)
    std::fprintf(out, "host 0x%016" PRIx64 " lid %u lmc %u %s\n", f.end_ports[e].port_guid,
                 f.end_ports[e].base_lid, f.end_ports[e].lmc, t.HostLabel(static_cast<int>(e)).c_str());
}

// Hosts are labelled H(x,y) after their switch N(x,y), as `topo mesh` names them.
void PrintMesh(std::FILE* out, const Fabric& f, const Mesh& m) {
  std::fprintf(out, "mesh %dx%d %zu switches %zu hosts\n", m.X, m.Y, f.switches.size(), f.end_ports.size());
  // "-": no such port (a border, or a host down; port 0 is the switch's own).
  auto port = [](int p) { return p ? std::to_string(p) : std::string("-"); };
  for (size_t s = 0; s < f.switches.size(); ++s)
    std::fprintf(out, "switch 0x%016" PRIx64 " lid %u %s E=%s N=%s W=%s S=%s host=%s\n", f.switches[s].guid,
                 f.switches[s].lid, m.Label(static_cast<int>(s)).c_str(), port(m.port[s][kEast]).c_str(),
                 port(m.port[s][kNorth]).c_str(), port(m.port[s][kWest]).c_str(),
                 port(m.port[s][kSouth]).c_str(), port(m.host_port[s]).c_str());
  for (size_t e = 0; e < f.end_ports.size(); ++e) {
    const int sw = f.end_ports[e].switch_index;
    const std::string label = sw < 0 ? "-" : m.HostLabel(sw);
    std::fprintf(out, "host 0x%016" PRIx64 " lid %u lmc %u %s\n", f.end_ports[e].port_guid,
                 f.end_ports[e].base_lid, f.end_ports[e].lmc, label.c_str());
  }
}

}  // namespace

int InspectMain(int argc, char** argv) {
  Args args(argc, argv, {"--guid2lid", "--lmc", "--dor-order"}, {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  if (args.positional().size() != 1) throw UsageError{std::string("expected one NETFILE\n") + kUsage};
  const std::string netfile = args.positional()[0];
  const std::string dor_order = args.has("--dor-order") ? args.get("--dor-order") : "";
  std::vector<std::string> inputs = {netfile};
  if (args.has("--guid2lid")) inputs.push_back(args.get("--guid2lid"));
  if (!dor_order.empty()) CheckOutputsWritable({dor_order}, inputs);
  std::FILE* out = !dor_order.empty() && IsStdout(dor_order) ? stderr : stdout;
  Fabric f = LoadFabric(args, netfile);
  const KnownTopology k = RecognizeTopology(f);
  if (k.tree) {
    if (!dor_order.empty())
      throw UsageError{"--dor-order: " + netfile + " is a fat-tree; dor's port order is for a 2-D mesh"};
    PrintFatTree(out, f, *k.tree);
    return 0;
  }
  if (!k.mesh) throw Error(k.not_tree + "; " + k.not_mesh);
  const Mesh& m = *k.mesh;
  PrintMesh(out, f, m);
  if (!dor_order.empty()) {
    FlushReport(out);
    WriteFilesAtomically({{dor_order, [&](std::ostream& os) { WriteDorPortOrder(os, f, m); }}}, inputs);
  }
  return 0;
}

}  // namespace ibu::cli
