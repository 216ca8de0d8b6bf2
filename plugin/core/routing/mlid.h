// MLID multi-path unicast for m-port n-trees (seed 001) and its single-LID
// baseline (SLID). One destination LID per path: the LID offset j of a
// destination picks the up ports at every level, so sources that choose
// different offsets climb disjoint paths.
#pragma once

#include <string>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/topology/fattree.h"

namespace ibu {

struct MlidOptions {
  // Rotate the path index by the destination's PID, so offset 0 (what hosts
  // use when the SA hands them the base LID) spreads like D-mod-K instead of
  // piling onto one spine. Off = the paper's tables, port for port.
  bool rotate = true;
  // SLID: ignore LMC, one path per destination (D-mod-K spreading).
  bool single_lid = false;
};

// The LMC MLID wants on `f` when the LIDs are laid out by AssignDefaultLids:
// the smallest whose 2^LMC LIDs hold the tree's paths per pair ((m/2)^(n-1);
// 18 on FT(36,2): LMC 5), at most 7, and lowered
// until the layout fits below 0xBFFF; the fewer LIDs are folded (Notes()).
// The rule topologies/regenerate.sh writes the checked-in guid2lid files
// by. Throws what RecognizeFatTree throws when `f` is no fat-tree.
int MlidDefaultLmc(const Fabric& f);

// The LMC a fabric without LIDs (a generated net file) gets when none is
// given: MlidDefaultLmc on a complete fat-tree (so mlid has its paths per
// pair; slid and the others use the base LID and route the same at any
// LMC), 0 on anything else. One rule for every command, so that topo
// --guid2lid, route, verify, trace, inspect and sim of one net file agree
// on the LIDs. Costs one fat-tree recognition.
int DefaultLmc(const Fabric& f);

class MlidRouter {
 public:
  MlidRouter(const Fabric& f, FatTree tree, MlidOptions opt);

  const FatTree& tree() const { return tree_; }

  // Fills every switch's LFT.
  void Route(Tables& t) const;

  // The path-selection rule of seed 001: P(s) sending to P(d) whose lowest
  // common ancestors sit at level a takes path index rank of s inside its
  // level-(a+1) subtree (its digits s_{a+1}..s_{n-1} in base m/2), folded
  // onto the LIDs d has; with rotation the offset is shifted back by PID(d)
  // so the path is the same as without rotation. For the fabric as it was
  // when the router was built (its LIDs are copied then, as Route's tables
  // hold them): engines build a new router at every routing.
  Lid SelectDlid(int src, int dst) const;

  // Path index J (0..paths-1) a LID of end port `ep` stands for: the up
  // digit at level l is (J / k^(n-1-l)) mod k.
  long PathIndex(int ep, int offset) const;

  // Lines for the log: what was folded, and why.
  std::vector<std::string> Notes() const;

  // After Route on a degraded tree: one line saying what is missing, how
  // many LFT entries (destination LID, switch) lost their preferred route
  // and how many host pairs have no up*/down* path left. "" when complete.
  std::string DegradedNote() const;
  // Host pairs the last routing left without a route (degraded trees only;
  // recognition refuses a tree that fell apart, so cables join them): the
  // engine then refuses the fabric.
  long UnroutablePairs() const { return stats_.unroutable_pairs; }

  // Cyclic multicast (seed 002): the union of the MLID paths from an anchor
  // to every member, all taken with one path index, so every route from the
  // anchor climbs one chain and a packet is never duplicated on its way up.
  // Without an explicit anchor the anchor is the member with the lowest
  // PID. In paper mode (no rotation), or with an explicit anchor, the index
  // is the paper's: the anchor's rank, so the up digit at level l is the
  // anchor's own digit p_l. By default it is (MLID - 0xC000) mod
  // (m/2)^(n-1): the top switch a chain reaches depends on the index alone,
  // so successive MLIDs root on successive top switches whoever the
  // members are. The mask of a switch holds every port of a
  // tree edge (the tree-parent port included), so IB flooding from any
  // member delivers exactly once. Cost O(members x n).
  // A switch member is reached down from the chain like a host (its port 0
  // set), which forces the chain's up digits below its level: a chain that
  // reaches it is searched for as on degraded trees. Switch members no
  // such chain reaches together with the end ports (two top switches,
  // say) are left out, named in *left_out with why, greedily in the
  // group's order: a search per switch member then, each one chain's
  // depth-first walk on a complete tree (all 1,280 switches of FT(32,3)
  // joined with its 8,192 hosts, 735 left out: about 1 s).
  // Left out too: switches the labelling of a degraded tree left out.
  std::vector<std::pair<int, PortMask>> McastTree(
      const McastGroup& g, std::vector<std::pair<int, std::string>>* left_out = nullptr) const;

 private:
  // What each LID means to every switch: owner PID (-1: not a host), and
  // per level l (at [l * lids + lid]) the down digit of the PID and the up
  // digit of the LID's path index there. The digits are divisions (m/2 =
  // 18 on 36-port switches), done once per level and LID rather than once
  // per switch and LID in RouteSwitch and the degraded routing.
  struct LidPlan {
    size_t lids = 0;  // max LID + 1
    std::vector<int32_t> pid;
    std::vector<uint8_t> down_digit, up_digit;
    int UpDigit(int level, Lid lid) const { return up_digit[level * lids + lid]; }
  };
  LidPlan MakeLidPlan() const;
  void RouteSwitch(int s, const LidPlan& plan, Lft& lft) const;
  int SwitchLidPort(int x, int target) const;

  // Degraded trees (routing/mlid_degraded.cc). For one target switch:
  // `down[s]` = s reaches it going down only, `any[s]` = going up then
  // down. Routes follow the labels where the links are there, otherwise
  // another up port whose switch still reaches the target, so every route
  // stays up*/down*.
  struct Reach {
    std::vector<char> down, any;
  };
  void MarkReach(int target, Reach& r) const;
  void RouteDegraded(Tables& t, const LidPlan& plan) const;
  void RouteDegradedHostLid(int leaf, Lid lid, const Reach& r, const LidPlan& plan, Tables& t) const;
  void RouteDegradedSwitchLid(int target, const Reach& r, const std::vector<int>& bottom_up,
                              Tables& t) const;
  int UpPortIfReaching(int s, int digit, const Reach& r) const;
  int UpPortReaching(int s, int preferred_digit, const Reach& r) const;
  int UpPortAround(int s, int preferred_digit, Lid lid, const Reach& r) const;
  int DownPortToward(int s, int target, const Reach& r) const;
  bool DownReaches(int s, int leaf) const;
  // Multicast trees (McastTree's steps).
  void CheckMembers(const McastGroup& g) const;
  // The level at which `member`'s labels leave the anchor's: where its
  // branch leaves the anchor's chain.
  int BranchLevel(int member, int anchor) const;
  // The same for switch member `sw`: the lowest chain level whose switch
  // can reach it going down (at most its own level).
  int SwitchBranchLevel(int sw, int anchor) const;
  std::vector<int> McastUpDigits(const McastGroup& g, int anchor) const;
  // The anchor's chain up to the root level that every member and every
  // switch of `switch_targets` branches off over links that exist
  // (searched: degraded trees, or switch members that force up digits);
  // returns the anchor it found one for. Throws McastRefused when none has
  // one.
  int SearchedAnchorChain(const McastGroup& g, int anchor, const std::vector<int>& up_digit,
                          const std::vector<int>& switch_targets, std::vector<int>& chain,
                          int& root_level) const;
  // The switch members SearchedAnchorChain can serve with the end ports, in
  // the group's order, and the chain it found for them; the others go to
  // *left_out. Throws as SearchedAnchorChain when the end ports alone have
  // no chain.
  std::vector<int> ServableSwitchMembers(const McastGroup& g, int& anchor, const std::vector<int>& up_digit,
                                         std::vector<int>& chain, int& root_level,
                                         std::vector<std::pair<int, std::string>>* left_out) const;
  // The anchor's chain of switches up to the group's root level (chain[l]
  // at level l) such that each member branches off it over links that
  // exist; preferred up digits first. False if no such chain.
  bool FindChain(int sw, int level, int root_level, const std::vector<int>& up_digit,
                 const std::vector<std::vector<int>>& leaves_by_lca, std::vector<int>& chain,
                 std::vector<char>& dead) const;

  struct DegradedStats {
    long lost_preferred = 0;   // LFT entries of host LIDs off their preferred port
    long unroutable_pairs = 0; // host pairs with no up*/down* path
    int first_cut_src = -1, first_cut_dst = -1;  // end ports of the first such pair
    long switch_lids_cut = 0;  // (switch LID, leaf) pairs without an up*/down* path
  };
  mutable DegradedStats stats_;

  // Digit e (0 = least significant) of a path index or LID in base k.
  int Digit(long x, int e) const { return static_cast<int>(x / place_[e] % tree_.k); }

  const Fabric& f_;
  FatTree tree_;
  MlidOptions opt_;
  bool k_power_of_two_;      // the papers' trees
  std::vector<long> place_;  // k^e for e = 0..n
  // Per LMC: how many of a destination's LIDs SelectDlid chooses among.
  // All of them up to the paths when k is a power of two, else the largest
  // power of k within both (9 paths and 4 LIDs: 3), so the path index of a
  // selected LID keeps the source's low rank digits exactly (disjointness).
  static constexpr int kMaxLmc = 7;
  long selectable_[kMaxLmc + 1] = {};
  // SelectDlid's records when k is a power of two, per end port: the
  // digits p_0..p_{n-1} packed most significant first, log2(k) bits each
  // and one more for p_0 (1 + n log2(k) <= 15 bits within the LID space),
  // and what the LID needs: base, LIDs - 1, and -PID mod the LIDs with
  // rotation (0 without), added to the rank. Built only when SelectDlid
  // reads them (not for SLID). rank_mask_[h]: the bits below the field
  // holding bit h.
  struct DlidKey {
    uint32_t digits = 0;
    Lid base_lid = 0;
    uint8_t mask = 0, minus_pid = 0;
  };
  std::vector<DlidKey> keys_;
  uint32_t rank_mask_[32] = {};
};

}  // namespace ibu
