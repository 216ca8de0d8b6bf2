// The SL the subnet administrator hands out for each path: what a host
// puts in its packets towards a destination LID. Engines whose deadlock
// freedom rests on SLs (OpenSM's dfsssp and lash, ibunion's xymesh with
// shared VLs) answer it per (source LID, destination LID), so a replay of
// their tables with any other SLs can show credit loops the fabric does not
// have. Text form, one path a line:
//   SLID DLID SL
// SLID a source end port's base LID, DLID each LID of another end port; as
// `ibunion pathsl` writes it from the SA's PathRecords and the timing
// model's dump: replay reads it (DIR/path-sl.dump).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu {

class PathSls {
 public:
  // The SL of the path from end port `src` to unicast `dlid`; 0 for a
  // LID the table does not cover (an MLID: a group's SL is the one its
  // members joined with, 0 by default; a switch's LID, which the SA was
  // not asked about).
  int Sl(int src, Lid dlid) const {
    if (dlid >= lids_) return 0;
    const uint8_t sl = sl_[static_cast<size_t>(src) * lids_ + dlid];
    return sl == 0xff ? 0 : sl;  // 0xff: no line gave this path
  }
  // The SLs some path uses, ascending.
  std::vector<int> Used() const;
  size_t paths() const { return paths_; }

 private:
  friend PathSls ReadPathSls(std::istream& is, const std::string& file, const Fabric& f);
  Lid lids_ = 0;              // unicast LIDs below this have a column
  size_t paths_ = 0;
  std::vector<uint8_t> sl_;   // end ports x lids_, kNone where no line gave it
};

// Writes "SLID DLID SL" lines in the order of `paths` (slid, dlid, sl).
struct PathSl {
  Lid slid = 0, dlid = 0;
  int sl = 0;
};

// Calls fn(slid, dlid) for every path a path SL file covers: each end
// port's base LID to every LID of every other end port with a LID (what
// `ibunion pathsl` asks the SA about and ReadPathSls requires).
template <typename Fn>
void ForEachPath(const Fabric& f, Fn fn) {
  for (const EndPort& s : f.end_ports)
    for (const EndPort& d : f.end_ports) {
      if (&s == &d || s.base_lid == 0 || d.base_lid == 0) continue;
      for (int k = 0; k < d.lid_count(); ++k) fn(s.base_lid, static_cast<Lid>(d.base_lid + k));
    }
}
void WritePathSls(std::ostream& os, const std::vector<PathSl>& paths);

// Parses the text form (LIDs decimal or 0x hex, never octal). Throws
// ibu::Error "FILE:LINE: ..." on a malformed line, an SL beyond 15, an SLID
// that is no end port's base LID, a DLID that is no other end port's LID
// and a path given twice (naming both lines); "FILE: ..." when a path of the
// fabric is missing (a cut-off file) or the file has none. Memory: end ports
// x LIDs bytes (16 MB at 4,096 hosts with LMC 0), as the file is quadratic.
PathSls ReadPathSls(std::istream& is, const std::string& file, const Fabric& f);
PathSls ReadPathSlsFile(const std::string& path, const Fabric& f);

}  // namespace ibu
