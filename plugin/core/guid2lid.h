// OpenSM's guid2lid files ("0xGUID 0xMIN 0xMAX" lines, port GUIDs): the
// LIDs an SM run gave, applied to a parsed fabric.
#pragma once

#include <iosfwd>
#include <string>

#include "plugin/core/fabric.h"

namespace ibu {

// Applies a guid2lid file ("0xGUID 0xMIN 0xMAX" lines, port GUIDs) to
// switches and end ports; the LMC of each port is derived from MAX-MIN.
// GUIDs the fabric lacks are skipped, as OpenSM keeps the LIDs of ports it
// saw before: the result is then a warning for the caller to print once
// ("FILE:LINE: GUID ... is not an end port or switch of this fabric (nor
// are N more ...)"), else "". A file none of whose GUIDs is in the fabric
// (another fabric's) throws ibu::Error naming FILE:LINE and the GUID. So do
// a GUID on two lines and two lines whose LID ranges overlap (naming both
// lines: OpenSM's own cache has neither), and an end port or switch left
// without a LID (not in the file, none from the net file), naming the port.
// `net_lids`: the fabric's LIDs are its net file's own (ibnetdiscover's): a
// line giving a port other ones is another SM run's file and throws too,
// rather than mixing two layouts (its ports moved, the rest kept).
[[nodiscard]] std::string ApplyGuid2Lid(std::istream& is, const std::string& file, Fabric& f,
                                        bool net_lids = false);
[[nodiscard]] std::string ApplyGuid2LidFile(const std::string& path, Fabric& f, bool net_lids = false);

}  // namespace ibu
