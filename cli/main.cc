// The `ibunion` command: one front door to the core, next to the OpenSM
// plugin. Subcommands live in cli/cmd_*.cc.
#include <cstring>
#include <iostream>
#include <string>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/output_files.h"
#include "sim-harness/timing/sim_cli.h"

namespace {

constexpr const char* kUsage =
    "usage: ibunion COMMAND [args]   (ibunion COMMAND --help for details)\n"
    "  topo     generate fat-tree and mesh net files (and guid2lid files)\n"
    "  route    compute LFTs, MFTs, SL2VL offline with an engine (mlid, slid, xymesh)\n"
    "  verify   check LFTs, MFTs, SL2VL: reachability, loops, scheme, credit loops\n"
    "  inspect  show the fat-tree or mesh labels recognised in a net file\n"
    "  trace    follow a route through LFTs; an MLID's masks; per-switch loads\n"
    "  mcjoin   join or leave a multicast group through the SA\n"
    "  mcsetup  multicast group set-up cost on a live subnet; Basic/Lazy/Pool latency\n"
    "  pathsl   the SL the SA hands out for every path (for the timing model's replay)\n"
    "  sim      packet-level timing model over any routing tables\n";

struct Command {
  const char* name;
  int (*main)(int, char**);
};

constexpr Command kCommands[] = {
    {"topo", ibu::cli::TopoMain},
    {"route", ibu::cli::RouteMain},
    {"verify", ibu::cli::VerifyMain},
    {"inspect", ibu::cli::InspectMain},
    {"mcjoin", ibu::cli::McJoinMain},
    {"mcsetup", ibu::cli::McSetupMain},
    {"pathsl", ibu::cli::PathSlMain},
    {"trace", ibu::cli::TraceMain},
    {"sim", ibu::sim::SimMain},
};

// What went to stdout is checked once written: a full disk or a closed
// descriptor lost it, and exit 0 said all was well. `ibunion topo ... >
// /dev/full` now says so and exits 2; a command that failed (1, a failed
// check) keeps its status and gains the line. A closed pipe (`| head`)
// ends a command whose only output is stdout by SIGPIPE, as before, with
// no message; one that also writes files is told by EPIPE instead (they
// are left as they were) and exits 2 (WriteFilesAtomically).
int CheckStdout(const char* command, int status) {
  try {
    ibu::FlushStdout();
  } catch (const ibu::Error& e) {
    std::cerr << "ibunion" << (command ? std::string(" ") + command : "") << ": " << e.what() << "\n";
    return status == 0 ? 2 : status;
  }
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  ibu::KeepStdoutWriteErrors();
  ibu::RemoveTemporariesOnSignals();
  if (argc < 2) {  // usage on error goes with the errors, to stderr
    std::cerr << kUsage;
    return 2;
  }
  if (!std::strcmp(argv[1], "-h") || !std::strcmp(argv[1], "--help")) {
    std::cout << kUsage;
    return CheckStdout(nullptr, 0);
  }
  for (const Command& c : kCommands) {
    if (std::strcmp(argv[1], c.name) != 0) continue;
    try {
      return CheckStdout(c.name, c.main(argc - 2, argv + 2));
    } catch (const ibu::cli::UsageError& e) {
      std::cerr << "ibunion " << c.name << ": " << e.message << "\n";
      return 2;
    } catch (const ibu::Error& e) {
      std::cerr << "ibunion " << c.name << ": " << e.what() << "\n";
      return 2;
    } catch (const std::exception& e) {
      std::cerr << "ibunion " << c.name << ": internal error: " << e.what() << "\n";
      return 3;
    }
  }
  std::cerr << "ibunion: unknown command '" << argv[1] << "'\n" << kUsage;
  return 2;
}
