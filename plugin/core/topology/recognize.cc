#include "plugin/core/topology/recognize.h"

#include "plugin/core/error.h"

namespace ibu {

KnownTopology RecognizeTopology(const Fabric& f) {
  KnownTopology k;
  try {
    k.tree = RecognizeFatTree(f);
    return k;
  } catch (const Error& e) {
    k.not_tree = e.what();
  }
  try {
    k.mesh = RecognizeMesh(f);
  } catch (const Error& e) {
    k.not_mesh = e.what();
  }
  return k;
}

}  // namespace ibu
