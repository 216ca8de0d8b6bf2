// Tables against an engine's scheme: the engine routes the same fabric
// (and the same groups, in their order) and every entry is compared, so
// tables read back from the switches can be proven to be that engine's.
// `ibunion verify --engine` prints these reports.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"
#include "plugin/core/path_map.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/fattree.h"

namespace ibu {

// The engine's own tables for the fabric and the groups.
struct SchemeReference {
  std::unique_ptr<Engine> engine;
  Tables want;
  std::map<Lid, std::string> refused;  // MLID -> why the engine refused its tree (McastRefused)
};

// Routes unicast, SL2VL and the groups in their order: xymesh_mcast=paper
// admits anchor trees onto its multicast VL first come, first served, so
// there a group's tree depends on the groups routed before it.
SchemeReference RouteScheme(const Fabric& f, const std::vector<McastGroup>& groups,
                            std::unique_ptr<Engine> engine);

// What a comparison found: every difference counted, the first few
// worded for an "error: " line each (a group the engine builds no tree
// for always is).
struct SchemeReport {
  long differ = 0;
  long compared = 0;  // entries compared, where the summary says so
  long refused = 0;   // MFTs: groups the engine builds no tree for
  std::vector<std::string> errors;
  bool ok() const { return differ == 0 && refused == 0; }
};

// LFT entries of every switch for every LID the fabric owns.
SchemeReport CompareLftsWithScheme(const Fabric& f, const Tables& t, const SchemeReference& ref);

// MFT entries (switch, MLID of `groups`). A refused group fails the
// comparison even where the tables hold no entry for it either: the
// scheme has no tree to compare them with.
SchemeReport CompareMftsWithScheme(const Fabric& f, const Tables& t, const std::vector<McastGroup>& groups,
                                   const SchemeReference& ref);

// A path map against the engine's selection, pair by pair. The
// disjointness rule alone excuses sources that share a DLID (a folded LMC
// makes some share), so a map in which two of them chose one DLID they did
// not have to passed it. Cost O(end ports^2).
SchemeReport ComparePathMapWithScheme(const Fabric& f, const FatTree& tree, const PathMap& paths,
                                      const SchemeReference& ref);

// SL2VL entries: every (in, out, SL) of each switch out port that is
// cabled (port 0 and dark ports keep whatever the switch had) and each
// host's table.
SchemeReport CompareSl2VlWithScheme(const Fabric& f, const Tables& t, const SchemeReference& ref);

// "1 3 7", or "none": the ports of a mask.
std::string MaskPorts(const PortMask& mask);

}  // namespace ibu
