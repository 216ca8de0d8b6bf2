// What `ibunion sim --routing dump:DIR` replays besides the LFTs and MFTs:
// the SL-to-VL tables the ports hold (DIR/sl2vl.dump, written by
// sim-harness/ibsim/read-sl2vl), the SL the SA hands out per path
// (DIR/path-sl.dump, written by sim-harness/ibsim/read-path-sl) and the
// path-selection map the plugin exported (DIR/ibunion-<engine>-paths.dump,
// in OpenSM's dump_files_dir).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/path_map.h"
#include "plugin/core/path_sls.h"
#include "plugin/core/tables.h"
#include "sim-harness/timing/params.h"

namespace ibu::sim {

struct DumpedPathSls {
  std::string file;
  PathSls sls;
};

// DIR/path-sl.dump, or null when DIR has none.
std::shared_ptr<const DumpedPathSls> ReadDumpedPathSls(const std::string& dir, const Fabric& f);

// Whether messages take the SA's path SLs: sl=auto or sl=engine with a
// path-sl.dump.
bool UsesDumpedPathSls(const Params& p, const DumpedPathSls* path_sls);

// Reads `path` into t.sl2vl and t.end_port_sl2vl. Every switch must have
// a table (read-sl2vl writes all or nothing), and every SL a message can
// carry (the SA's path SLs when UsesDumpedPathSls, else those of the SL
// policy of `p`) must map onto a VL below p.vls: on a real port a packet on
// a VL beyond its operational VLs is dropped, so such tables are refused
// with the SL, port pair and the options that would fit.
void ReadDumpedSl2Vl(const std::string& path, const Fabric& f, const Params& p, const DumpedPathSls* path_sls,
                     Tables& t);

struct DumpedPathMap {
  std::string file;
  PathMap map;
};

// DIR's ibunion-*-paths.dump, or null when it has none. Two such files
// (maps of two engines) are refused: which one made the tables is unknown;
// so is a map without every ordered pair of end ports (a cut-off file).
std::shared_ptr<const DumpedPathMap> ReadDumpedPathMap(const std::string& dir, const Fabric& f);

// The files of DIR a dump:DIR replay reads (those that exist), so that no
// output of the run is written over one of them.
std::vector<std::string> DumpInputFiles(const std::string& dir);

}  // namespace ibu::sim
