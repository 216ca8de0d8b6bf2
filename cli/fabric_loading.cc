#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/groups.h"
#include "plugin/core/lid_options.h"
#include "plugin/core/netfile.h"

#include <iostream>

namespace ibu::cli {

Fabric LoadSubnetFabric(const Args& args, const std::string& net) {
  if (args.has("--guid2lid")) return LoadFabric(args, net);  // every port and switch gets its line's LID
  if (args.has("--lmc"))
    throw UsageError{
        "--lmc " + args.get("--lmc") +
        ": a live subnet's LIDs are the SM's (in NET or --guid2lid FILE), not the generator's layout"};
  Fabric f = ReadNetFile(net);
  if (!CarriesLids(f))
    throw Error(
        net +
        ": no LIDs; give the subnet as ibnetdiscover prints it on the live fabric (or --guid2lid FILE)");
  return f;
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

std::vector<McastGroup> LoadGroups(const Args& args, const Fabric& f, const std::string& command) {
  if (!args.has("--groups")) return {};
  std::string note;
  std::vector<McastGroup> groups = ReadGroupsFile(args.get("--groups"), f, &note);
  if (!note.empty()) std::cerr << "ibunion " << command << ": note: " << note << "\n";
  return groups;
}

}  // namespace ibu::cli
