#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/lid_options.h"
#include "plugin/core/netfile.h"

#include <iostream>

namespace ibu::cli {

void RequireSubnetLids(const Fabric& f, const std::string& net, const std::string& alternatives) {
  if (!CarriesLids(f))
    throw Error(net + ": no LIDs; give the subnet as ibnetdiscover prints it on the live fabric (or " +
                alternatives + ")");
}

Fabric LoadFabric(const Args& args, const std::string& net) {
  LidOptions o;
  if (args.has("--guid2lid")) {
    o.guid2lid = args.get("--guid2lid");
    o.guid2lid_named = "--guid2lid " + o.guid2lid;
  }
  if (args.has("--lmc")) {
    o.lmc = static_cast<int>(args.integer("--lmc", 0, 0, 7));
    o.lmc_named = "--lmc " + args.get("--lmc");
  }
  LidsGiven given;
  Fabric f = ReadNetFileWithLids(net, o, &given);
  if (!given.warning.empty()) std::cerr << "ibunion: warning: " << given.warning << "\n";
  if (!given.note.empty()) std::cerr << "ibunion: note: " << given.note << "\n";
  return f;
}

}  // namespace ibu::cli
