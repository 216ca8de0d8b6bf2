// Reader for ibnetdiscover output and ibsim net files (the same grammar,
// ibsim's being a subset), and the default LID layout (guid2lid.h reads
// OpenSM's LID files).
#pragma once

#include <iosfwd>
#include <string>

#include "plugin/core/fabric.h"

namespace ibu {

// Parses a topology. GUIDs come from "switchguid=/caguid=" lines, read as
// ibsim reads them (0x hex or decimal; a leading 0, octal to ibsim, and hex
// without 0x are refused) or, when absent, are numbered the way ibsim
// numbers them (0x100000.. for CAs, 0x200000.. for switches, routers on a
// counter of their own from 0; a node GUID 0 is refused). A switch's port
// 0 GUID, "switchguid=0xNODE(PORT)", names the switch too when it differs
// (real hardware; guid2lid files list it), as the node GUID does. A peer's port
// GUID after a reference, "H-..."[1](GUID), must be the one the peer's own
// record gives. ibsim's link and debug settings (width=, speed=, extspeed=,
// pdebug=, w=/s=/e= on a link) are checked and ignored; its 'include' and
// 'module=' are refused, as are lines ibsim would read otherwise than we
// do: indented ones, a line right under an unfinished record (ibsim ends
// the record there and drops the line) and port lines after a record's
// end, and 'do' console commands that change cabling, GUIDs or LIDs.
// LIDs come from ibnetdiscover comments ("lid N lmc L",
// aligned to the LMC) when present and are otherwise 0 (see
// AssignDefaultLids): on every switch and end port or on none. Throws
// ibu::Error "FILE:LINE: ..." naming what was expected, both lines of a GUID
// or LID given twice or of a peer GUID that disagrees, and the first port
// without a LID in a file where others have one.
Fabric ParseNetFile(std::istream& is, const std::string& file);
Fabric ReadNetFile(const std::string& path);

// Gives every switch and end port a LID, replacing any it had: end ports
// first in fabric order at
// 2^lmc*(i+1) (aligned, LID 0 reserved), switches after them. The layout the
// generator writes as guid2lid, so offline runs match ibsim runs.
void AssignDefaultLids(Fabric& f, int lmc);

// Whether a parsed net file carried LIDs (ParseNetFile gives them to every
// switch and end port or to none): an ibnetdiscover file of a live subnet
// does, a generated one does not.
bool CarriesLids(const Fabric& f);

// Whether AssignDefaultLids(f, lmc) fits below 0xBFFF (lmc 0..7).
bool DefaultLidsFit(const Fabric& f, int lmc);

// The largest LMC up to `at_most` whose default layout fits; -1 if none.
int LargestFittingLmc(const Fabric& f, int at_most);

}  // namespace ibu
