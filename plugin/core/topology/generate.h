// Generators for the regular fabrics of the papers, with the canonical
// cabling of DESIGN.md, and writers for ibsim net files and guid2lid files.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu {

// FT(m,n): hosts P(p) first in PID order (index = PID), then switches level
// by level, each level in w order. Host i has node GUID 0x100000 + 2i (port
// GUID +1), switch j GUID 0x200000 + j. Throws ibu::Error with one line per
// bad parameter (m odd, m < 4, n < 1, m > 254, too large).
Fabric MakeFatTree(int m, int n);

// X x Y mesh: switch N(x,y) with ports 1=E 2=N 3=W 4=S 5=host, host H(x,y);
// both in order x*Y + y.
Fabric MakeMesh(int x, int y);

// Permutes the port numbers inside every switch (so port numbers no longer
// tell up from down) and returns a permuted record order for WriteNetFile.
// Deterministic for a seed on every platform (own Fisher-Yates).
// `new_port`, when given, receives [switch][old port] -> new port.
std::vector<int> ShufflePorts(Fabric& f, uint64_t seed, std::vector<std::vector<int>>* new_port = nullptr);

// A cable between two switch ports, `a` the lower-numbered switch.
struct SwitchLink {
  int switch_a, port_a, switch_b, port_b;
};

// Unplugs `count` distinct switch-to-switch cables drawn from `seed`
// (failed links; hosts stay cabled) and returns them in draw order.
// Deterministic for a seed on every platform. Throws ibu::Error when the
// fabric has fewer than `count` such cables.
std::vector<SwitchLink> RemoveRandomSwitchLinks(Fabric& f, uint64_t seed, int count);

// Writes an ibsim net file with explicit GUID lines; `order` lists records
// as indices: end ports 0..E-1 then switches E..E+S-1 (empty: hosts first).
void WriteNetFile(std::ostream& os, const Fabric& f, const std::vector<int>& order);

// Writes OpenSM's guid2lid file for the LIDs the fabric carries.
void WriteGuid2Lid(std::ostream& os, const Fabric& f);

}  // namespace ibu
