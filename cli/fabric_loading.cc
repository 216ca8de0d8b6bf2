#include "cli/commands.h"
#include "plugin/core/netfile.h"
#include "plugin/core/routing/mlid.h"

#include <iostream>

namespace ibu::cli {

Fabric LoadFabric(const Args& args, const std::string& net) {
  if (args.has("--lmc") && args.has("--guid2lid"))  // worded as `ibunion sim` refuses the pair
    throw UsageError{"--lmc " + args.get("--lmc") + ": not with --guid2lid " + args.get("--guid2lid") +
                     " (the guid2lid file fixes the LIDs; give one or the other)"};
  Fabric f = ReadNetFile(net);
  if (args.has("--guid2lid")) {
    const std::string warning = ApplyGuid2LidFile(args.get("--guid2lid"), f);
    if (!warning.empty()) std::cerr << "ibunion: warning: " << warning << "\n";
    return f;
  }
  if (CarriesLids(f)) {
    if (args.has("--lmc")) throw UsageError{"--lmc " + args.get("--lmc") + ": " + LmcLayoutRefusal(f, net)};
    return f;
  }
  if (args.has("--lmc")) {
    AssignDefaultLids(f, static_cast<int>(args.integer("--lmc", 0, 0, 7)));
    return f;
  }
  const int lmc = DefaultLmc(f);
  if (lmc > 0)
    std::cerr << "ibunion: note: " << net << " has no LIDs: the generator's layout at LMC " << lmc
              << " (the fat-tree's paths per pair; --lmc L or --guid2lid FILE to choose)\n";
  AssignDefaultLids(f, lmc);
  return f;
}

}  // namespace ibu::cli
