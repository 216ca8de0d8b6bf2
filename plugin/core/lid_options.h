// Where a fabric read from a net file gets its LIDs: the one rule both front
// doors (the CLI's verbs and `ibunion sim`) apply to --guid2lid and --lmc.
#pragma once

#include <string>

#include "plugin/core/fabric.h"

namespace ibu {

struct LidOptions {
  std::string guid2lid;  // an OpenSM guid2lid file, or ""
  int lmc = -1;          // the generator's layout at this LMC (0..7), or -1
  // How the user gave them, for refusals: "--lmc 2", "c.conf:3: lmc = 2".
  std::string guid2lid_named, lmc_named;
};

// What the caller should tell the user (each "" when there is nothing).
struct LidsGiven {
  std::string warning;  // the guid2lid file's ports the fabric lacks
  std::string note;     // no LIDs anywhere: the layout and LMC chosen
};

// Reads `net` and gives it LIDs: the guid2lid file's; else those the file
// carries (ibnetdiscover's, the SM's); else the generator's layout at the
// asked LMC, or at DefaultLmc (the fat-tree's paths per pair as far as LIDs
// fit). Throws ibu::Error when both options are given (the guid2lid file
// fixes the LIDs) or an LMC is asked of a file that carries LIDs (a
// re-layout would drop the SM's without a word).
Fabric ReadNetFileWithLids(const std::string& net, const LidOptions& o, LidsGiven* given);

}  // namespace ibu
