// The path-selection map an engine exports: for every ordered pair of end
// ports, the DLID the source puts in its packets to that destination (with
// LMC > 0 the DLID picks the path). Text form, one pair a line:
//   0xSRC_PORT_GUID 0xDST_PORT_GUID DLID
// as `ibunion route --paths` and the plugin's ibunion-<engine>-paths.dump
// write it, so offline routing, the plugin and its consumers (verify
// --disjoint, the timing model's dump: replay) share one format.
#pragma once

#include <functional>
#include <iosfwd>
#include <string>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu {

using DlidSelector = std::function<Lid(int src, int dst)>;

// Writes n * (n - 1) lines: n^2 text, for fabrics up to a few thousand end
// ports (the plugin stops at 4,096). A pair with an end port that has no
// LID (base LID 0: OpenSM ran out of LIDs) has no DLID and no line.
void WritePathMap(std::ostream& os, const Fabric& f, const DlidSelector& select);

class PathMap {
 public:
  // The DLID `src` uses towards `dst`: the map's, or dst's base LID for a
  // pair the map leaves out.
  Lid Select(int src, int dst) const {
    const Lid l = dlid_[static_cast<size_t>(src) * n_ + static_cast<size_t>(dst)];
    return l ? l : base_[static_cast<size_t>(dst)];
  }
  size_t pairs() const { return pairs_; }
  bool has(int src, int dst) const {
    return dlid_[static_cast<size_t>(src) * n_ + static_cast<size_t>(dst)] != 0;
  }

 private:
  friend PathMap ReadPathMap(std::istream& is, const std::string& file, const Fabric& f);
  size_t n_ = 0;
  size_t pairs_ = 0;
  std::vector<Lid> dlid_;  // n x n, 0 where the map has no line (memory n^2)
  std::vector<Lid> base_;
};

// Parses the text form (DLIDs decimal or 0x hex, never octal). Throws
// ibu::Error "FILE:LINE: ..." on a malformed line, a GUID that is no end port of `f`, a pair of one port, a
// pair given twice (naming both lines), and a DLID outside the destination's LID range; "FILE: ..." on a file
// without any pair.
PathMap ReadPathMap(std::istream& is, const std::string& file, const Fabric& f);
PathMap ReadPathMapFile(const std::string& path, const Fabric& f);

// Throws "FILE: ..." naming the count and the first missing pair when the
// map leaves out a pair of end ports that both have LIDs. The plugin and
// `ibunion route --paths` write every such pair, so fewer is a cut-off
// file, whose missing pairs would silently use base LIDs. `hint` ends the
// message: what the caller would have done with a missing pair.
void RequireEveryPair(const PathMap& m, const Fabric& f, const std::string& file, const std::string& hint);

// The plugin's dump file names in its dump directory: ibunion-<engine>-
// followed by one of these suffixes. The timing model's dump:DIR finds the
// path maps by them.
inline constexpr const char* kDumpPrefix = "ibunion-";
inline constexpr const char* kLftsDumpSuffix = "-lfts.dump";
inline constexpr const char* kPathsDumpSuffix = "-paths.dump";
inline std::string EngineDumpBase(const std::string& dir, const std::string& engine) {
  return dir + "/" + kDumpPrefix + engine;
}

}  // namespace ibu
