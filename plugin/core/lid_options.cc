#include "plugin/core/lid_options.h"

#include "plugin/core/error.h"
#include "plugin/core/guid2lid.h"
#include "plugin/core/netfile.h"
#include "plugin/core/routing/mlid.h"

namespace ibu {

Fabric ReadNetFileWithLids(const std::string& net, const LidOptions& o, LidsGiven* given) {
  *given = LidsGiven();
  if (o.lmc >= 0 && !o.guid2lid.empty())
    throw Error(o.lmc_named + ": not with " + o.guid2lid_named +
                " (the guid2lid file fixes the LIDs; give one or the other)");
  Fabric f = ReadNetFile(net);
  if (!o.guid2lid.empty()) {
    given->warning = ApplyGuid2LidFile(o.guid2lid, f, CarriesLids(f));
    return f;
  }
  if (CarriesLids(f)) {
    if (o.lmc >= 0)  // a re-layout would drop the SM's LIDs without a word
      throw Error(o.lmc_named + ": not with " + net +
                  ", which carries LIDs (ibnetdiscover's, the SM's); --lmc lays out LIDs for net files "
                  "without them");
    return f;
  }
  if (o.lmc >= 0) {
    AssignDefaultLids(f, o.lmc);
    return f;
  }
  const int lmc = DefaultLmc(f);
  if (lmc > 0)
    given->note = net + " has no LIDs: the generator's layout at LMC " + std::to_string(lmc) +
                  " (the fat-tree's paths per pair; --lmc L or --guid2lid FILE to choose)";
  AssignDefaultLids(f, lmc);
  return f;
}

}  // namespace ibu
