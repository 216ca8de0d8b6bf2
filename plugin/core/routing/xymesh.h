// XY routing for 2-D meshes with union multicast and VL policies (seeds 000
// and 004), engine "xymesh".
//
// Unicast: X first, then Y, for every LID (all 2^LMC LIDs of a host take
// the one XY route; a switch LID ends at port 0 of that switch).
//
// Multicast: the MFT of a group is the union of the XY paths from a root
// switch to every member's switch (seed 000, section 3.3.2), each tree edge
// in the masks of both its switches and each member's host port in its
// switch's mask, so IB flooding (every mask port but the arrival port)
// delivers exactly once from any member: XY paths from one root are
// prefix-closed, so their union is a tree. The anchor's host port is in
// the mask only when the anchor is a member.
//
// Deadlock freedom with every sender (the "trunk row" scheme). A tree
// rooted in row r is a comb: a horizontal spine on row r plus vertical
// teeth. A packet from a member climbs its tooth to row r (Y), runs along
// the spine (X) and descends the other teeth (Y): the Y-then-X turns that
// XY forbids happen only on row r. If every tree of a VL has its spine on
// the same row r, the channel dependency graph of that VL (XY unicast plus
// all trees) is acyclic: a cycle needs a Y-then-X turn, so it passes along
// row r; it must leave row r by turning into Y, moving away from r; a
// channel moving away from r only depends on channels straight on (XY
// unicast never turns from Y to X, trees only on row r), so it never
// returns. Hence roots lie on a trunk row: the tree's root is N(c, r) where
// c is the explicit anchor's column, or else the members' median column
// (any column inside the members' span gives the same tree), and a group
// whose switches all share one column is just that segment (no turns at
// all). Trees rooted on two different rows on one VL can close a cycle
// (tests show one), which is why "multicast on its own VL" alone is not
// enough. The verifier's CheckDeadlock proves the result in the tests.
//
// VL policies, options xymesh_vls=1|2|4 and xymesh_vl_mode=shared|dedicated:
//  - shared: SL s -> VL s mod vls on every (in, out) pair, so a packet keeps
//    one VL and each VL's graph is a subset of the one-VL graph. Unicast
//    SL = (x + y) mod vls of the source's switch (neighbours differ).
//    Multicast classes = vls: MLID class c = (MLID - 0xC000) mod vls, SL c,
//    trunk row r_c = floor((2c + 1) Y / (2 vls)) (middle row for one VL),
//    so groups spread over VLs and their spines over rows, one row per VL.
//  - dedicated: the out port's direction picks the VL (2 VLs: E,N -> VL0,
//    W,S -> VL1; 4 VLs: E VL0, N VL1, W VL2, S VL3; 1 VL: VL0), whatever the
//    SL. Each directed link then has exactly one VL, so the graph over
//    (link, VL) is the one-VL graph: one trunk row (the middle one), SL 0.
//    Ports toward hosts and port 0 use VL0 (sinks, never in a cycle).
//
// Paper multicast, option xymesh_mcast=paper: the tree is seed 000's union
// of XY paths from the anchor itself (the group's explicit anchor, else the
// member nearest the centre of the members' bounding box, ties to the
// lowest base LID), so the masks are the paper's, port for port, plus what
// every-member-as-sender adds (each tree edge's parent port, members' host
// ports). Such trees turn Y-then-X on their anchors' rows, which differ
// from group to group, so they cannot share a VL with XY unicast or with
// trunk-row trees. Hence:
//  - they get a VL of their own, VL `vls` (one past the data VLs: 2, 3 or 5
//    VLs in all), reached by SL 15 (kPaperMcastSl) on every port; senders
//    must use SL 15 for such groups (`ibunion mcjoin --sl 15`); a group
//    the SA created with another SL gets the trunk-row tree of that SL;
//  - two anchor trees on different rows can still close a loop on that VL,
//    so the engine admits a tree onto it only while the multicast VL's
//    dependency graph stays acyclic. A group that would close a loop gets
//    the trunk-row tree instead: on the data VLs when its SL is the
//    engine's to choose (offline), else (SL 15 from the SA) on the
//    multicast VL if that tree passes admission, or no tree at all
//    (refused, logged). CheckDeadlock proves the whole.
//
// Source multicast, option xymesh_mcast=source: seed 000's tree exactly,
// the union of XY paths from the group's anchor (required), for groups in
// which the anchor alone sends: the timing model's per-source trees (one
// MLID per source, anchored at it). Its packets then only turn X-then-Y,
// as XY unicast does, so the trees share the data VLs with it (class SL as
// trunk trees). Another sender would turn Y-then-X on the tree, so
// OpenSM's adapter refuses the option (every member of an SA group may
// send) and the credit-loop check floods these trees from their anchors
// (Engine::TreesForAnchorOnly).
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/topology/mesh.h"

namespace ibu {

enum class VlMode { kShared, kDedicated };
enum class McastScheme { kTrunk, kPaper, kSource };

// SL whose packets ride the multicast VL in paper mode.
constexpr uint8_t kPaperMcastSl = 15;

struct XyMeshOptions {
  int vls = 1;  // data VLs: 1, 2 or 4
  VlMode mode = VlMode::kShared;
  McastScheme mcast = McastScheme::kTrunk;
};

// The keys "xymesh_vls=1|2|4", "xymesh_vl_mode=shared|dedicated" and
// "xymesh_mcast=trunk|paper|source", read into *opt by MakeEngine's one
// option checker.
std::vector<OptionKey> XyMeshOptionKeys(XyMeshOptions* opt);

class XyRouter {
 public:
  XyRouter(const Fabric& f, Mesh mesh, XyMeshOptions opt);

  const Mesh& mesh() const { return mesh_; }
  const XyMeshOptions& options() const { return opt_; }

  // XY step at switch `sw` toward switch `target`; 0 when they are equal.
  int NextPort(int sw, int target) const;

  // Fills every switch's LFT. Cost O(switches x LIDs), the tables' size.
  void Route(Tables& t) const;

  // Multicast class of a group (0 .. classes-1), its trunk row and SL. The
  // class follows the group's SL when the SA gave one (the VL its packets
  // really ride: SL s is on VL s mod vls in shared mode), else its MLID.
  int McastClasses() const;
  int McastClass(const McastGroup& g) const;
  int TrunkRow(const McastGroup& g) const;
  int TrunkRowOfClass(int c) const;
  uint8_t McastSl(const McastGroup& g) const;

  // The group's masks by switch (the scheme above). Throws ibu::Error on an
  // empty group or a member that is not an end port. Cost O(switches +
  // (members + tree) x log tree): each path is walked back only until it
  // meets the tree (UnionTree).
  std::vector<std::pair<int, PortMask>> McastTree(const McastGroup& g) const;

  // Source mode: the union of XY paths from the group's anchor, which it
  // requires (ibu::Error naming the group otherwise).
  std::vector<std::pair<int, PortMask>> SourceTree(const McastGroup& g) const;

  // Paper mode: the union of XY paths from the group's anchor switch (see
  // above for the anchor), and that anchor's end-port index.
  std::vector<std::pair<int, PortMask>> AnchorTree(const McastGroup& g) const;
  int PaperAnchor(const McastGroup& g) const;

  // Paper mode's multicast VL (one past the data VLs), -1 in trunk mode.
  int McastVl() const;
  // VLs the SL2VL tables use: the data VLs plus the multicast VL.
  int TotalVls() const;

  // The paper's union: XY paths from switch `root` to every switch in
  // `reach`, both ends of each tree edge in the masks, plus the host port
  // of every end port in `members` and port 0 of every switch in
  // `switch_members` (which `reach` lists too). McastTree calls it with a
  // trunk-row root; tests call it with other roots.
  std::vector<std::pair<int, PortMask>> UnionTree(int root, const std::vector<int>& reach,
                                                  const std::vector<int>& members,
                                                  const std::vector<int>& switch_members = {}) const;

  uint8_t UnicastSl(int end_port) const;
  uint8_t Vl(int sw, int out_port, int sl) const;

  // Fills t.sl2vl for every switch and t.end_port_sl for every end port.
  // Cost O(switches x ports^2 x 16).
  void RouteSl2Vl(Tables& t) const;

  // Lines for the log: the mesh found, VL policy, trunk rows.
  std::vector<std::string> Notes() const;

 private:
  const Fabric& f_;
  Mesh mesh_;
  XyMeshOptions opt_;
};

// Engine "xymesh" with options MakeEngine has read.
std::unique_ptr<Engine> MakeXyMeshEngine(const XyMeshOptions& opt, LogSink log);

}  // namespace ibu
