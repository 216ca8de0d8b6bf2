// `ibunion pathsl NETFILE`: the SL the SA hands out for every path, as a
// path SL file (plugin/core/path_sls.h) for the timing model's dump: replay.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <vector>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/netfile.h"
#include "plugin/core/output_files.h"
#include "plugin/core/path_sls.h"
#include "sim-harness/mcast/sa_client.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion pathsl NETFILE [options]\n"
    "  asks the SA for the PathRecord of every path of the fabric in NETFILE (each end\n"
    "  port's base LID to every LID of every other end port) and writes 'SLID DLID SL'\n"
    "  lines: the SLs applications get, which engines such as dfsssp and lash make\n"
    "  deadlock-free. NETFILE needs the LIDs of the running subnet (ibnetdiscover's\n"
    "  output has them; or --guid2lid FILE).\n"
    "  --out FILE         where to write (default: stdout; a file is complete or absent)\n"
    "  --ca NAME --port N local HCA and port (default: the first)\n"
    "  --sim-host NAME    under ibsim: the simulated node to ask from (sets SIM_HOST)\n"
    "  --timeout MS       SA answer timeout (default 1000)\n"
    "  --guid2lid FILE    the subnet's LIDs (OpenSM's guid2lid) when NETFILE has none\n"
    "One PathRecord Get per path: hosts x LIDs queries (16,256 on a 128-host fabric).\n"
    "exit 0 on success, 1 when the SA refused or did not answer a path (named), 2 on bad\n"
    "usage or input or no port.\n"
    "Under ibsim run it with IBSIM_SOCKNAME of the run and the full path of libumad2sim.so\n"
    "($IBUNION_UMAD2SIM inside fabric-run --exec): LD_PRELOAD=";

std::string Usage() { return kUsage + mcast::Umad2SimPath() + "\n"; }

}  // namespace

int PathSlMain(int argc, char** argv) {
  Args args(argc, argv, {"--out", "--ca", "--port", "--sim-host", "--timeout", "--guid2lid", "--lmc"},
            {"-h", "--help"});
  if (args.has("-h") || args.has("--help")) {
    std::cout << Usage();
    return 0;
  }
  const auto& pos = args.positional();
  if (pos.size() != 1) throw UsageError{"expected one NETFILE\n" + Usage()};
  const std::string out = args.get("--out", "-");
  // Before the SA is asked: a query per path takes minutes on a large fabric.
  std::vector<std::string> inputs = {pos[0]};
  if (args.has("--guid2lid")) inputs.push_back(args.get("--guid2lid"));
  CheckOutputsWritable({out}, inputs);
  // Without LIDs the file would get the generator's layout, which the SM
  // need not have used: the queries would go to other ports, or switches.
  const Fabric f = LoadSubnetFabric(args, pos[0]);
  std::vector<PathSl> paths;  // SLs filled in from the SA's answers
  ForEachPath(f, [&](Lid slid, Lid dlid) { paths.push_back({slid, dlid, 0}); });
  if (paths.empty()) throw Error(pos[0] + ": fewer than two end ports with a LID: no path to ask about");
  if (args.has("--sim-host")) setenv("SIM_HOST", args.get("--sim-host").c_str(), 1);
  mcast::SaClient sa(args.get("--ca"), static_cast<int>(args.integer("--port", 0, 0, 254)),
                     static_cast<int>(args.integer("--timeout", 1000, 1, 600000)));
  const auto start = std::chrono::steady_clock::now();
  bool used[16] = {};
  for (PathSl& p : paths) {
    const mcast::PathReply r = sa.Path(p.slid, p.dlid);
    if (!r.ok) {
      std::cerr << "ibunion pathsl: PathRecord SLID " << p.slid << " DLID " << p.dlid << ": " << r.error;
      // The SA answered, without the path: most often NETFILE is another
      // fabric, or its LIDs are not the SM's (a timeout says so by itself).
      if (r.mad_status != 0)
        std::cerr
            << " (is " << pos[0]
            << " the live subnet, with its SM's LIDs? ibnetdiscover prints them, --guid2lid gives them)";
      std::cerr << "\n";
      return 1;
    }
    p.sl = r.sl;
    used[r.sl & 15] = true;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WriteFileAtomically(out, [&](std::ostream& os) {
    os << "# SL per path from the SA (a PathRecord Get per SLID, DLID)\n"
       << "# SLID DLID SL\n";
    WritePathSls(os, paths);
  });
  std::ostringstream sls;
  for (int sl = 0; sl < 16; ++sl)
    if (used[sl]) sls << " " << sl;
  std::fprintf(stderr, "ibunion pathsl: %zu paths, SLs%s (%.1f s)\n", paths.size(), sls.str().c_str(), seconds);
  return 0;
}

}  // namespace ibu::cli
