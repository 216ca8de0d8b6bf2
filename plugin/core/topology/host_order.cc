#include "plugin/core/topology/host_order.h"

#include <algorithm>

#include "plugin/core/error.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/mesh.h"
#include "plugin/core/topology/recognize.h"

namespace ibu {

namespace {

// Hosts the topology did not place, after those it did, in file order.
void AppendUnplaced(const Fabric& f, std::vector<int>* order) {
  std::vector<bool> placed(f.end_ports.size(), false);
  for (int ep : *order) placed[static_cast<size_t>(ep)] = true;
  for (size_t ep = 0; ep < f.end_ports.size(); ++ep)
    if (!placed[ep]) order->push_back(static_cast<int>(ep));
}

HostOrder FatTreeOrder(const Fabric& f, const FatTree& t) {
  HostOrder o;
  for (int pid : t.end_port_by_pid)
    if (pid >= 0) o.end_ports.push_back(pid);
  AppendUnplaced(f, &o.end_ports);
  const std::string shape = "FT(" + std::to_string(t.m) + "," + std::to_string(t.n) + ")";
  o.name = (t.degraded ? "degraded " : "") + shape + " address order (by the hosts' P() labels)";
  return o;
}

HostOrder MeshOrder(const Fabric& f, const Mesh& m) {
  HostOrder o;
  for (int sw : m.at)
    if (sw >= 0 && m.host[static_cast<size_t>(sw)] >= 0) o.end_ports.push_back(m.host[static_cast<size_t>(sw)]);
  AppendUnplaced(f, &o.end_ports);
  o.name = std::to_string(m.X) + "x" + std::to_string(m.Y) + " mesh order (by N(x,y), x then y)";
  return o;
}

}  // namespace

HostOrder HostsInFileOrder(const Fabric& f) {
  HostOrder o;
  o.end_ports.resize(f.end_ports.size());
  for (size_t ep = 0; ep < f.end_ports.size(); ++ep) o.end_ports[ep] = static_cast<int>(ep);
  o.name = "net-file order";
  return o;
}

HostOrder HostsInAddressOrder(const Fabric& f) {
  const KnownTopology k = RecognizeTopology(f);
  if (k.tree) return FatTreeOrder(f, *k.tree);
  if (k.mesh) return MeshOrder(f, *k.mesh);
  HostOrder o = HostsInFileOrder(f);
  o.name += " (neither a fat-tree nor a 2-D mesh is recognised)";
  return o;
}

}  // namespace ibu
