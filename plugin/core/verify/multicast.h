// Multicast verifier: for every member as sender, simulate InfiniBand
// flooding (each switch forwards to every port in the MLID's mask except
// the arrival port) and check each other member gets exactly one copy, no
// non-member gets one and nothing loops. Switch members (their port 0
// joined) send from port 0 and get their copy there; port 0 in the mask
// of any other switch is an error.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"

namespace ibu {

struct McastReport {
  long senders_checked = 0;
  long error_count = 0;
  std::vector<std::string> errors;
  int tree_switches = 0;        // switches whose mask for the MLID is set
  int depth = 0;                // longest sender-to-member path, in switches
  bool ok() const { return error_count == 0; }
};

McastReport VerifyMulticast(const Fabric& f, const Tables& t, const McastGroup& g,
                            size_t max_errors = 20);

// Switches that carry the MLID (mask not empty).
std::vector<int> TreeSwitches(const Tables& t, Lid mlid);

}  // namespace ibu
