// The subcommands of the `ibunion` CLI. Each takes the words after its name
// and returns the exit status: 0 success, 1 a failed check, 2 bad input.
#pragma once

#include <string>
#include <vector>

#include "cli/args.h"
#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"

namespace ibu::cli {

int TopoMain(int argc, char** argv);
int RouteMain(int argc, char** argv);
int VerifyMain(int argc, char** argv);
int InspectMain(int argc, char** argv);
int McJoinMain(int argc, char** argv);
int McSetupMain(int argc, char** argv);
int PathSlMain(int argc, char** argv);
int TraceMain(int argc, char** argv);

// Reads NET and gives it LIDs: from --guid2lid, else from the file's own
// ibnetdiscover comments, else the generator's layout at --lmc.
Fabric LoadFabric(const Args& args, const std::string& net);
// NET with the LIDs of the running subnet, for the commands that talk to
// its SA: the file's own (ibnetdiscover's) or --guid2lid's; never the
// generator's layout (--lmc is refused), which the SM need not have used.
Fabric LoadSubnetFabric(const Args& args, const std::string& net);
// --groups FILE read against `f` (none without it); the reader's note, on
// words that are other hosts' labels, goes to stderr as "ibunion CMD: note:".
std::vector<McastGroup> LoadGroups(const Args& args, const Fabric& f, const std::string& command);

}  // namespace ibu::cli
