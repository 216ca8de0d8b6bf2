// Small hand-made fabrics and tables for the timing-model tests, built with
// ibu::Fabric + ConnectSwitches/ConnectEndPort and hand-written LFT/MFT
// entries, so the tests do not depend on any routing engine.
#pragma once

#include <CUnit/CUnit.h>

#include <string>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"

namespace ibu::simtest {

// A fabric together with its tables.
struct Setup {
  Fabric fabric;
  Tables tables;
};

// Adds a switch with `ports` ports and returns its index.
int AddSwitch(Fabric& f, int ports, const std::string& name);
// Adds an end port (HCA port 1) and returns its index.
int AddHost(Fabric& f, const std::string& name);
// Gives end port i LID i+1 and switch s LID hosts+s+1; finalizes.
void NumberLids(Fabric& f);

// One switch, `hosts` hosts on ports 1..hosts.
Setup Star(int hosts);

// A line of `switches` switches (port 1 west, port 2 east, port 3 host),
// one host each: host i on switch i. A message from host 0 to host k
// crosses k+1 switches.
Setup Line(int switches);

// A ring of `switches` switches (port 1 to the next one clockwise, port 2
// to the previous one, port 3 host), LFTs routing every LID clockwise: a
// credit loop waiting to happen.
Setup ClockwiseRing(int switches);

// Two-level tree: root switch R (ports 1..leaves) over `leaves` leaf
// switches (port 1 up, ports 2..hosts_per_leaf+1 hosts). Host h sits on
// leaf h / hosts_per_leaf. Unicast LFTs up/down.
Setup Tree(int leaves, int hosts_per_leaf);

// Sets the MFT of MLID `mlid` on a Tree() so that the group `members`
// (host indices) is a tree: leaves hold the member ports plus the up port
// when any other leaf has members; the root holds the leaves with members.
void TreeMulticast(Setup& s, int leaves, int hosts_per_leaf, Lid mlid,
                   const std::vector<int>& members);

}  // namespace ibu::simtest
