// Recognition of a 2-D mesh of switches, one host per switch (seeds 000 and
// 004), from the cabling alone: coordinates N(x,y) and, for every switch
// port, the direction it points (east x+1, north y+1, west x-1, south y-1).
// Node names are never read and port numbers only break symmetry ties.
//
// Orientation. A grid can be labelled in 4 ways (8 when square); the
// labelling is fixed by the origin N(0,0) and by which of its neighbours is
// N(1,0), chosen by port numbers first and GUIDs second, so that the
// generator's canonical cabling (ports 1=E 2=N 3=W 4=S) comes out exactly
// as generated and an admin who cables by that convention gets the same
// labels whatever the GUIDs:
//  - origin: among the corners (switches with 2 switch links; 1 for a line)
//    the one whose sorted link ports are lexicographically smallest (the
//    canonical N(0,0) uses {1,2}, the other corners {2,3}, {1,4}, {3,4});
//    equal port sets fall back to the smallest switch GUID;
//  - axes: the origin's lower link port points east. A line (X or Y = 1)
//    has one link at its origin: an odd port means east (an X x 1 row), an
//    even one north (a 1 x Y column), the generator's parity.
// Record order never matters: only GUIDs and port numbers are read.
//
// Accepted: X x Y >= 1 x 1, rectangular or square, lines included (XY is
// then plain line routing). Refused, with the first offending switch (and
// port where there is one) and the rule broken: a switch with no host or
// two (fat-trees fail here; so does a dual-port HCA), more than 4 switch
// links, parallel or self links, a disconnected fabric, no corner (a
// torus; a ring, unless of 4 switches, 2x2), wrap-around, diagonal or
// skipping links, missing links, sides that do not multiply to the switch
// count. A mesh lays out from any corner, so on a broken fabric up to 8
// corners (switches with 2 links or fewer) x 2 axis choices x 2 ways to
// end a side are tried and the refusal of the one that got furthest is
// reported: it fails nearest the damage (a missing switch, whose sides
// leave a hole in the grid, is named by a neighbour). A fabric that one
// more link would make a mesh is refused naming that link by both ends; on
// a 2-wide mesh several links can each do so (2x3 less its middle rung is
// a ring of 6, which any of 3 rungs completes), and the refusal lists them
// all and says the cabling cannot tell which one is missing.
#pragma once

#include <array>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu {

enum MeshDir : int { kEast = 0, kNorth = 1, kWest = 2, kSouth = 3 };
constexpr int kNoDir = -1;

// "E", "N", "W", "S" (or "-" for kNoDir).
const char* MeshDirName(int dir);
inline int OppositeDir(int dir) { return (dir + 2) % 4; }

struct Mesh {
  int X = 0;  // switches along x (east-west)
  int Y = 0;  // switches along y (north-south)

  // Per switch (Fabric order).
  std::vector<int> x, y;
  std::vector<std::array<int, 4>> port;  // port toward E,N,W,S; 0 = border
  std::vector<int> host;                 // the one end port on the switch, -1: none (host down)
  std::vector<int> host_port;            // switch port of that end port
  std::vector<std::vector<int8_t>> dir;  // [switch][port]: MeshDir or kNoDir

  std::vector<int> at;  // switch index of N(x,y) at x * Y + y

  int SwitchAt(int cx, int cy) const { return at[static_cast<size_t>(cx) * Y + cy]; }
  int DirOf(int sw, int p) const { return dir[sw][p]; }
  std::string Label(int sw) const;      // "N(x,y)"
  std::string HostLabel(int sw) const;  // "H(x,y)": the host on switch N(x,y)
};

// Recognises an X x Y mesh. Cost O(switches x ports) (x32 frames when
// refusing, and one layout per candidate link when one link short). Throws ibu::Error
// "not a 2-D mesh: <switch or port label>: <what> (mesh rule: <rule>)".
Mesh RecognizeMesh(const Fabric& f);

// OpenSM's port_search_ordering_file for its dor engine: per switch its
// GUID and its E, W, N, S ports (those cabled). dor takes, among a
// destination's minimum-hop ports, the first in this order, so X goes
// before Y and it routes XY on any cabling. Without the file it takes the
// lowest port number: on the generator's cabling (1=E 2=N 3=W 4=S) that is
// XY except toward the north-west, where it goes north first, and on other
// cablings any mix of XY and YX.
void WriteDorPortOrder(std::ostream& os, const Fabric& f, const Mesh& m);

}  // namespace ibu
