// Recognition of an m-port n-tree (Lin, Chung, Huang; seeds 001/002) from the
// cabling alone: levels, the paper's SW<w,l> / P(p) labels, and for every
// port what digit it stands for. Node names and port numbers are never
// trusted; on canonically cabled fabrics the labels equal the paper's.
#pragma once

#include <string>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu {

struct FatTree {
  int m = 0;  // ports per switch
  int k = 0;  // m / 2
  int n = 0;  // levels

  // Per switch (Fabric order).
  std::vector<int> level;               // 0 = top, n-1 = leaves
  std::vector<std::vector<int>> w;      // n-1 digits w_0..w_{n-2}
  // down_port[s][x]: physical port to the child with digit x (at a leaf: the
  // host with last digit x). up_port[s][j]: physical port of up digit j.
  std::vector<std::vector<int>> down_port;
  std::vector<std::vector<int>> up_port;

  // Per end port (Fabric order): the paper's digits p_0..p_{n-1} and PID.
  std::vector<std::vector<int>> p;
  std::vector<int> pid;
  std::vector<int> end_port_by_pid;

  // Degraded trees (links, hosts or switches missing): up_port/down_port
  // hold 0 where the cable is gone, and `missing` counts what is gone.
  bool degraded = false;
  struct Missing {
    long links = 0, switches = 0, hosts = 0;  // switch-to-switch links
    long total_links = 0, total_switches = 0, total_hosts = 0;
    // Switches left out (level -1, no ports mapped): every down link lost,
    // or without hosts below and with no place in the tree the cabling fixes.
    long cut_off = 0;
  } missing;
  // When one switch alone set m (a host or cable more than every other
  // switch has, say a management node on a spare leaf port), which and why;
  // "" otherwise. DegradedSummary ends with it.
  std::string arity_note;
  // "degraded FT(4,3): 2 of 64 switch links, 0 of 20 switches and 0 of 16 hosts missing"
  std::string DegradedSummary() const;
  // What a degraded tree lacks, by these labels, at most `max` of each kind:
  // "links SW<00,1>-SW<01,0>; switches SW<11,0>; hosts P(000)" ("" when
  // complete). A link counts where both its switches are there, a host
  // where its leaf is (a missing switch takes its links and hosts along:
  // those hosts are counted at the end, "; 6 hosts below the switches
  // missing"); switches left out (missing.cut_off) are among those named.
  // Cost: O(switches x m + expected switches).
  std::string MissingParts(size_t max = 8) const;
  // The same parts as label lists, all of them (MissingParts formats them).
  struct MissingLabels {
    std::vector<std::string> links;     // "SW<00,1>-SW<01,0>"
    std::vector<std::string> switches;  // missing or left out
    std::vector<std::string> hosts;
  };
  MissingLabels MissingPartLabels() const;
  // The labels' digits of the parent that switch `sw` reaches by up digit
  // `j` in FT(m,n)'s cabling (the generator's rule).
  std::vector<int> ParentDigits(int sw, int j) const;

  int paths() const;  // (m/2)^(n-1): up paths between the farthest hosts
  std::string SwitchLabel(int sw) const;    // "SW<00,2>"
  std::string HostLabel(int ep) const;      // "P(300)"
  int SwitchByLabel(const std::string& label) const;  // -1 if none
  int EndPortByLabel(const std::string& label) const;
};

// Recognises FT(m,n), complete or degraded (some links, hosts or switches
// missing: tree.degraded). Throws ibu::Error naming the first offending
// switch and port and the rule it broke when the fabric is not an m-port
// n-tree, and why it cannot be labelled as a degraded one either. A
// complete tree is always labelled by the complete-tree rules alone.
FatTree RecognizeFatTree(const Fabric& f);

// The degraded-tree labelling alone (fattree_degraded.cc); its errors carry
// no "not an m-port n-tree" prefix.
FatTree RecognizeDegradedFatTree(const Fabric& f);

// Empty when FT(2k,n)'s 2k^n hosts fit the unicast LID space, else why
// not ("FT(4,64) has more than 49151 hosts ..."). Recognition and the
// generator ask before any k^n is computed: a deep chain of switches once
// overflowed it.
std::string FatTreeBeyondLids(int k, int n);

// Digit string used in labels: "00" for m <= 10, "12.0.3" beyond.
std::string DigitString(const std::vector<int>& digits, int radix);

// FT(m,n)'s labels as text: "SW<00,2>" for switch digits w at `level`,
// "P(000)" for host digits p.
std::string SwitchLabelText(const std::vector<int>& w, int level, int m);
std::string HostLabelText(const std::vector<int>& p, int m);

// The `count` label digits of the idx-th switch (or host) of a level in
// FT(m,n)'s order, the generator's: the first digit with radix r0 (k at
// the top, m below it, m for hosts), the others k; LabelIndex inverts it.
std::vector<int> LabelDigits(long idx, int count, int r0, int k);
long LabelIndex(const std::vector<int>& digits, int r0, int k);

}  // namespace ibu
