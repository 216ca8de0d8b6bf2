// Which of the regular topologies the engines route a fabric is: the one
// rule "a fat-tree, else a 2-D mesh" that host numbering, inspect and
// trace share.
#pragma once

#include <optional>
#include <string>

#include "plugin/core/fabric.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/mesh.h"

namespace ibu {

struct KnownTopology {
  std::optional<FatTree> tree;
  std::optional<Mesh> mesh;
  // Why each recogniser refused (empty when it was not asked or agreed).
  std::string not_tree, not_mesh;
};

// A fabric is one or the other, so the mesh is tried only when the
// fat-tree recogniser refuses. Cost: one or two recognitions, each
// O(switches x ports) (a degraded tree's labelling runs more than once).
KnownTopology RecognizeTopology(const Fabric& f);

}  // namespace ibu
