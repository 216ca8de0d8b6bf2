// Cyclic multicast on fat-trees (seed 002) and the multicast verifier.
#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <sstream>

#include "plugin/core/engine.h"
#include "plugin/core/groups.h"
#include "plugin/core/netfile.h"
#include "plugin/core/topology/fattree.h"
#include "plugin/core/topology/generate.h"
#include "plugin/core/verify/multicast.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

std::set<int> Ports(const Tables& t, const Fabric& f, const char* sw, Lid mlid) {
  std::set<int> out;
  const int s = SwitchNamed(f, sw);
  auto it = t.mft[s].groups.find(mlid);
  if (it == t.mft[s].groups.end()) return out;
  for (int p = 0; p < 256; ++p)
    if (it->second.test(p)) out.insert(p);
  return out;
}

void PaperExampleFt43() {
  Fabric f = MakeFatTree(4, 3);
  AssignDefaultLids(f, 2);
  auto e = MakeEngine("mlid", {"mlid_rotate=off"}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  McastGroup g;
  g.mlid = 0xC001;
  for (const char* h : {"P(200)", "P(201)", "P(210)", "P(211)"}) g.members.push_back(EndPortNamed(f, h));
  g.anchor = EndPortNamed(f, "P(000)");  // the sender of seed 002's example, not a member
  e->RouteMulticast(f, g, t);
  // Seed 002's out-port unions, plus what the bidirectional mask adds: the
  // tree-parent port of every switch below the root (SW<00,1> 1, SW<00,0> 1,
  // SW<20,1> 3, SW<20,2> 3, SW<21,2> 3). P(000) is not a member, so its
  // leaf keeps only the up port.
  const std::map<std::string, std::set<int>> want = {
      {"SW<00,2>", {3}},       {"SW<00,1>", {1, 3}},    {"SW<00,0>", {1, 3}},
      {"SW<20,1>", {1, 2, 3}}, {"SW<20,2>", {1, 2, 3}}, {"SW<21,2>", {1, 2, 3}}};
  for (const auto& [sw, ports] : want) CU_ASSERT(Ports(t, f, sw.c_str(), g.mlid) == ports);
  CU_ASSERT_EQUAL(TreeSwitches(t, g.mlid).size(), want.size());
  // And the union of the unicast paths really is the DLIDs {36,40,44,48}.
  const int src = EndPortNamed(f, "P(000)");
  Lid want_dlid = 36;
  for (int m : g.members) {
    CU_ASSERT_EQUAL(e->SelectDlid(f, src, m), want_dlid);
    want_dlid += 4;
  }
  McastReport r = VerifyMulticast(f, t, g);
  CU_ASSERT(r.ok());
}

void ExactlyOnceFromEveryMember() {
  std::mt19937_64 rng(3);
  for (uint64_t shuffle : {0u, 5u}) {
    Fabric f = MakeFatTree(8, 3);
    AssignDefaultLids(f, 2);
    if (shuffle) ShufflePorts(f, shuffle);
    auto e = MakeEngine("mlid", {}, nullptr);
    Tables t;
    e->RouteUnicast(f, t);
    const int hosts = static_cast<int>(f.end_ports.size());
    for (int size : {1, 2, hosts / 10, hosts * 4 / 10, hosts}) {
      McastGroup g;
      g.mlid = static_cast<Lid>(0xC000 + size);
      g.members = RandomMembers(rng, hosts, size);
      e->RouteMulticast(f, g, t);
      AssertExactlyOnce(f, t, g);
    }
  }
}

void LeaveShrinksOnlyThatGroup() {
  Fabric f = MakeFatTree(8, 3);
  AssignDefaultLids(f, 0);
  auto e = MakeEngine("mlid", {}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  McastGroup a{0xC001, {0, 40, 80, 120}, -1}, b{0xC002, {1, 2, 3, 127}, -1};
  e->RouteMulticast(f, a, t);
  e->RouteMulticast(f, b, t);
  const auto b_before = TreeSwitches(t, b.mlid);
  const size_t a_before = TreeSwitches(t, a.mlid).size();
  a.members = {0, 1};  // everyone else left: same leaf now
  e->RouteMulticast(f, a, t);
  CU_ASSERT(TreeSwitches(t, a.mlid).size() < a_before);
  CU_ASSERT_EQUAL(TreeSwitches(t, a.mlid).size(), 1u);
  CU_ASSERT(TreeSwitches(t, b.mlid) == b_before);
  CU_ASSERT(VerifyMulticast(f, t, a).ok());
  CU_ASSERT(VerifyMulticast(f, t, b).ok());
  // The engine's own list of a tree's switches (what the OpenSM adapter
  // reports instead of scanning every switch) follows the tables.
  for (const McastGroup* g : {&a, &b}) {
    const std::vector<int>* kept = e->McastSwitches(g->mlid);
    CU_ASSERT_FATAL(kept != nullptr);
    std::vector<int> sorted = *kept;
    std::sort(sorted.begin(), sorted.end());
    CU_ASSERT(sorted == TreeSwitches(t, g->mlid));
  }
  e->ForgetMulticast(f, a.mlid, t);
  CU_ASSERT(e->McastSwitches(a.mlid)->empty());
  CU_ASSERT(TreeSwitches(t, a.mlid).empty());
}

// 64 groups of random 10% members on FT(8,3): cyclic anchors put groups on
// every top switch, the busiest at most twice the least busy.
void AnchorsSpreadOverTopSwitches() {
  Fabric f = MakeFatTree(8, 3);
  AssignDefaultLids(f, 0);
  FatTree ft = RecognizeFatTree(f);
  auto e = MakeEngine("mlid", {}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  std::mt19937_64 rng(11);
  std::map<int, int> per_top;
  for (int i = 0; i < 64; ++i) {
    McastGroup g{static_cast<Lid>(0xC000 + i), RandomMembers(rng, 128, 13), -1};
    e->RouteMulticast(f, g, t);
    for (int sw : TreeSwitches(t, g.mlid))
      if (ft.level[sw] == 0) ++per_top[sw];
  }
  CU_ASSERT_EQUAL(per_top.size(), 16u);
  int lo = 1 << 30, hi = 0;
  for (auto [sw, c] : per_top) lo = std::min(lo, c), hi = std::max(hi, c);
  CU_ASSERT(hi <= 2 * lo);
}

void VerifierCatchesBrokenMasks() {
  Fabric f = MakeFatTree(4, 3);
  AssignDefaultLids(f, 0);
  auto e = MakeEngine("mlid", {}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  McastGroup g{0xC003, {0, 5, 10, 15}, -1};
  e->RouteMulticast(f, g, t);
  Tables extra = t;
  // Add a non-member host port on a leaf of the tree.
  const int leaf0 = f.end_ports[0].switch_index;
  extra.mft[leaf0].groups[g.mlid].set(f.end_ports[1].switch_port);
  McastReport r = VerifyMulticast(f, extra, g);
  CU_ASSERT(!r.ok());
  CU_ASSERT(!r.errors.empty() && Contains(r.errors[0], "(not a member) gets 1 copy, expected 0"));
  // Cut the tree: a member no longer receives.
  Tables cut = t;
  cut.mft[f.end_ports[15].switch_index].groups.erase(g.mlid);
  r = VerifyMulticast(f, cut, g);
  CU_ASSERT(!r.ok());
  bool named = false;
  for (auto& err : r.errors) named = named || Contains(err, "has no MFT entry");
  CU_ASSERT(named);
}

// The port of switch `a` cabled to switch `b`.
int PortToward(const Fabric& f, int a, int b) {
  for (int p = 1; p <= f.switches[a].num_ports; ++p)
    if (f.switches[a].ports[p].is_switch() && f.switches[a].ports[p].index == b) return p;
  return -1;
}

// The first error about `host` in a report from `sender`, or "".
std::string ErrorAbout(const McastReport& r, const std::string& sender, const std::string& host) {
  for (const std::string& e : r.errors)
    if (Contains(e, "from " + sender + ": " + host + " (")) return e;
  return "";
}

// A copy lost or one too many: the error names the switch port at fault,
// not only the end port that got the wrong count.
void VerifierNamesWhereCopiesGo() {
  Fabric f = MakeFatTree(4, 3);
  AssignDefaultLids(f, 2);
  auto e = MakeEngine("mlid", {"mlid_rotate=off"}, nullptr);
  Tables t;
  e->RouteUnicast(f, t);
  McastGroup g{0xC001, {}, EndPortNamed(f, "P(000)")};
  for (const char* h : {"P(200)", "P(201)", "P(210)", "P(211)"}) g.members.push_back(EndPortNamed(f, h));
  e->RouteMulticast(f, g, t);  // masks as in PaperExampleFt43
  const int leaf21 = SwitchNamed(f, "SW<21,2>"), mid20 = SwitchNamed(f, "SW<20,1>");
  const EndPort& p210 = f.end_ports[EndPortNamed(f, "P(210)")];
  auto check = [&](const Tables& broken, const std::string& host, const std::string& want) {
    const std::string got = ErrorAbout(VerifyMulticast(f, broken, g), "P(200)", host);
    if (!Contains(got, want)) fprintf(stderr, "\n  got '%s'\n  wanted '%s'", got.c_str(), want.c_str());
    CU_ASSERT(Contains(got, want));
  };
  // The member's own port left out of its leaf's mask.
  Tables cut = t;
  cut.mft[leaf21].groups[g.mlid].reset(p210.switch_port);
  check(cut, "P(210)",
        "P(210) (member) gets 0 copies, expected 1: lost at " + f.PortLabel(leaf21, p210.switch_port) +
            " (not in the mask)");
  // The link down to the member's leaf left out above it: named on the side
  // the packet reached.
  cut = t;
  cut.mft[mid20].groups[g.mlid].reset(PortToward(f, mid20, leaf21));
  check(cut, "P(211)",
        "P(211) (member) gets 0 copies, expected 1: lost at " +
            f.PortLabel(mid20, PortToward(f, mid20, leaf21)) + " (not in the mask, toward SW<21,2>)");
  // Both ends of that link left out: the leaf is cut off from the tree.
  cut.mft[leaf21].groups.erase(g.mlid);
  check(cut, "P(210)",
        "P(210) (member) gets 0 copies, expected 1: lost before its " + f.SwitchLabel(leaf21) +
            " (no switch the packet reaches has a tree link toward it)");
  // A non-member's port in a tree switch's mask.
  Tables extra = t;
  const EndPort& p000 = f.end_ports[EndPortNamed(f, "P(000)")];
  extra.mft[p000.switch_index].groups[g.mlid].set(p000.switch_port);
  check(extra, "P(000)",
        "P(000) (not a member) gets 1 copy, expected 0: " + f.PortLabel(p000.switch_index, p000.switch_port) +
            " forwards it (in the mask)");
  // A stray bit toward a switch off the tree: the drop is named with the
  // bit that sent the packet there (it named only the switch reached,
  // inviting an entry there rather than clearing the bit).
  Tables stray = t;
  int off_tree = -1, up_port = 0;
  for (int p = 1; p <= f.switches[mid20].num_ports && off_tree < 0; ++p) {
    const Peer& peer = f.switches[mid20].ports[p];
    if (peer.is_switch() && !stray.mft[peer.index].groups.count(g.mlid)) off_tree = peer.index, up_port = p;
  }
  CU_ASSERT_FATAL(off_tree >= 0);
  stray.mft[mid20].groups[g.mlid].set(up_port);
  bool sender_named = false;
  for (const std::string& e : VerifyMulticast(f, stray, g).errors)
    sender_named = sender_named || Contains(e, f.SwitchLabel(off_tree) + " has no MFT entry (sent there by " +
                                                   f.PortLabel(mid20, up_port) +
                                                   ", set in its mask); the packet is dropped there");
  CU_ASSERT(sender_named);
  // Port 0 in a tree switch's mask: a copy to the switch itself, which is no
  // member. Flooding never sends out of port 0, so it passed unnoticed.
  Tables self = t;
  self.mft[mid20].groups[g.mlid].set(0);
  const McastReport to_self = VerifyMulticast(f, self, g);
  CU_ASSERT(!to_self.ok());
  CU_ASSERT_EQUAL(to_self.error_count, 1);
  CU_ASSERT(!to_self.errors.empty() &&
            to_self.errors[0] ==
                "MLID 0xc001: " + f.SwitchLabel(mid20) +
                    " port 0 is in the mask: the switch itself gets a copy of every packet that "
                    "reaches it, but it is not a member (its port 0 did not join)");
  // The same mask with that switch a member (its port 0 joined): its copy
  // is wanted, from every end port and sent from its port 0 to them.
  McastGroup with_switch = g;
  with_switch.switch_members = {mid20};
  const McastReport joined = VerifyMulticast(f, self, with_switch);
  CU_ASSERT(joined.ok());
  CU_ASSERT_EQUAL(joined.senders_checked, static_cast<long>(g.members.size()) + 1);
  // Without port 0 in its mask the member's copy is missing, per sender.
  const McastReport missed = VerifyMulticast(f, t, with_switch);
  CU_ASSERT_EQUAL(missed.error_count, static_cast<long>(g.members.size()));
  CU_ASSERT(!missed.errors.empty() &&
            Contains(missed.errors[0], f.SwitchLabel(mid20) +
                                           " (member, port 0) gets 0 copies, expected 1: port 0 "
                                           "is not in its mask"));
  // A bit for a port without a cable: named once, not once per sender
  // that reaches the switch (every member does here).
  Fabric unplugged = f;
  int cut_port = 0;
  for (int p = 1; p <= unplugged.switches[mid20].num_ports && !cut_port; ++p)
    if (unplugged.switches[mid20].ports[p].is_switch() && !t.mft[mid20].groups.at(g.mlid).test(p))
      cut_port = p;
  CU_ASSERT_FATAL(cut_port > 0);
  const Peer far = unplugged.switches[mid20].ports[cut_port];
  unplugged.switches[far.index].ports[far.port] = Peer{};
  unplugged.switches[mid20].ports[cut_port] = Peer{};
  Tables to_nowhere = t;
  to_nowhere.mft[mid20].groups[g.mlid].set(cut_port);
  const McastReport nowhere = VerifyMulticast(unplugged, to_nowhere, g);
  CU_ASSERT(g.members.size() > 1);
  CU_ASSERT_EQUAL(nowhere.error_count, 1);
  CU_ASSERT(nowhere.errors.size() == 1 &&
            nowhere.errors[0] ==
                "MLID 0xc001: " + unplugged.PortLabel(mid20, cut_port) + " is in the mask but not cabled");
  // A second way down to the member's leaf closes a cycle: the switch that
  // gets the packet twice and the port of the second arrival (breadth
  // first, the way through SW<20,1> comes first).
  Tables loop = t;
  const int leaf20 = SwitchNamed(f, "SW<20,2>"), mid21 = SwitchNamed(f, "SW<21,1>");
  for (auto [a, b] : {std::pair{leaf20, mid21}, {mid21, leaf20}, {mid21, leaf21}, {leaf21, mid21}})
    loop.mft[a].groups[g.mlid].set(PortToward(f, a, b));
  const McastReport r = VerifyMulticast(f, loop, g);
  const std::string want = "MLID 0xc001 from P(200): " + f.SwitchLabel(leaf21) +
                           " receives the packet twice (the mask has a cycle), the second time on port " +
                           std::to_string(PortToward(f, leaf21, mid21));
  bool named = false;
  for (const std::string& err : r.errors) named = named || err == want;
  CU_ASSERT(named);
}

// Group file `text` is refused with a message that contains `expect`.
void ExpectGroupError(const Fabric& f, const std::string& text, const std::string& expect) {
  std::istringstream in(text);
  const std::string msg = ErrorOf([&] { ParseGroups(in, "g.txt", f); });
  if (!Contains(msg, expect)) fprintf(stderr, "\n  got '%s'", msg.c_str());
  CU_ASSERT(Contains(msg, expect));
}

void GroupFilesParseAndNameErrors() {
  Fabric f = MakeFatTree(4, 3);
  AssignDefaultLids(f, 0);
  std::istringstream good("# comment\n0xC001 P(200) 0x0000000000100013 11 anchor=P(000)\n\n0xc002 P(000)\n");
  auto groups = ParseGroups(good, "g.txt", f);
  CU_ASSERT_EQUAL(groups.size(), 2u);
  CU_ASSERT_EQUAL(groups[0].mlid, 0xC001);
  CU_ASSERT(groups[0].members == (std::vector<int>{8, 9, 10}));  // name, GUID, LID
  CU_ASSERT_EQUAL(groups[0].anchor, 0);
  struct Case {
    const char* text;
    const char* expect;
  } cases[] = {
      {"0x0001 P(000)\n", "g.txt:1: expected a multicast LID 0xC000..0xFFFE first, got '0x0001'"},
      {"0xC001 P(999)\n", "g.txt:1: member 'P(999)' is neither an end port nor a switch of the fabric"},
      {"0xC001 P(000) P(000)\n", "g.txt:1: member 'P(000)' is listed twice"},
      {"0xC001 P(001)\n0xC002 P(000) P(001) 2\n", "g.txt:2: member '2' is listed twice"},  // LID of P(001)
      {"0xC001\n", "g.txt:1: group 0xC001 has no members"},
      // Integers are decimal or 0x hex, never octal: 0140001 is not 0xC001.
      {"0140001 P(000)\n", "g.txt:1: expected a multicast LID 0xC000..0xFFFE first, got '0140001'"},
      {"0xC001 P(201) 010\n", "g.txt:1: member '010' is listed twice"},                // LID 10, not octal 8
      {"0xC001 P(010) 0x00000003\n", "g.txt:1: member '0x00000003' is listed twice"},  // a LID, not a GUID
      {"0xC001 P(000) anchor=P(001) anchor=P(011)\n",
       "g.txt:1: 'anchor=P(011)': anchor= is given twice (first 'anchor=P(001)')"},
      {"0xC001 P(000) sl=1 sl=2\n", "g.txt:1: 'sl=2': sl= is given twice (first 'sl=1')"},
      {"0xC001 P(000) sl=\n", "g.txt:1: 'sl=': sl= needs a value"},
      {"0xC001 P(000)\n0xC001 P(001)\n", "g.txt:2: MLID 0xC001 is listed twice"},
      {"0xC001 P(000) anchor=nobody\n", "g.txt:1: anchor 'nobody' is not an end port"},
  };
  for (const Case& c : cases) ExpectGroupError(f, c.text, c.expect);
  // One member in several groups.
  std::istringstream twice("0xC001 P(000) P(001)\n0xC002 P(001) P(000)\n");
  groups = ParseGroups(twice, "g.txt", f);
  CU_ASSERT(groups[0].members == (std::vector<int>{0, 1}));
  CU_ASSERT(groups[1].members == (std::vector<int>{1, 0}));
  // A node description two end ports share (both ports of a dual-port HCA,
  // hosts at the vendor's default description) names neither: it was read
  // as the first, silently. Their port GUIDs are named; a GUID picks one.
  f.end_ports[5].name = "twin";
  f.end_ports[3].name = "twin";
  for (const char* text : {"0xC001 P(000) twin\n", "0xC001 P(000) anchor=twin\n"})
    ExpectGroupError(f, text,
                     "g.txt:1: 'twin' is the node description of 2 end ports (port GUIDs " +
                         Hex16(f.end_ports[3].port_guid) + ", " + Hex16(f.end_ports[5].port_guid) +
                         "): expected one of them by its port GUID or LID");
  std::istringstream by_guid("0xC001 P(000) " + Hex16(f.end_ports[5].port_guid) + "\n");
  groups = ParseGroups(by_guid, "g.txt", f);
  CU_ASSERT(groups[0].members == (std::vector<int>{0, 5}));

  // Node descriptions with blanks (ibnetdiscover's "MT4119 ConnectX5 ..."),
  // in double quotes, as members and anchors; a '#' inside quotes is no
  // comment. Unquoted, each half was read as a member of its own.
  f.end_ports[6].name = "node 06 HCA-1";
  f.end_ports[7].name = "rack#2 h7";
  std::istringstream spaced("0xC001 \"node 06 HCA-1\" P(000)\t\"rack#2 h7\" anchor=\"node 06 HCA-1\" # c\n");
  const std::string spaced_error = ErrorOf([&] { groups = ParseGroups(spaced, "g.txt", f); });
  if (!spaced_error.empty()) fprintf(stderr, "\n  got '%s'", spaced_error.c_str());
  CU_ASSERT_FATAL(spaced_error.empty());
  CU_ASSERT_EQUAL_FATAL(groups.size(), 1u);
  CU_ASSERT(groups[0].members == (std::vector<int>{6, 0, 7}));
  CU_ASSERT_EQUAL(groups[0].anchor, 6);
  const Case quoting[] = {
      {"0xC001 P(000) \"node 06 HCA-1\n",
       "g.txt:1: unterminated quote: '\"node 06 HCA-1' has no closing '\"' (expected a node description in "
       "double "
       "quotes, on one line)"},
      {"0xC001 P(000) anchor=\"node 06\n", "g.txt:1: unterminated quote: 'anchor=\"node 06' has no closing"},
      {"0xC001 \"node 06 HCA-1\"x\n",
       "g.txt:1: '\"node 06 HCA-1\"' is followed by 'x': expected a blank after"},
      {"0xC001 P(000) \"\"\n", "g.txt:1: '\"\"': expected a node description in the quotes"},
      {"0xC001 \"node 06\"\n",
       "g.txt:1: member \"node 06\" is neither an end port nor a switch of the fabric (no node has that "
       "description)"},
      {"0xC001 P(000) anchor=\"node 07 HCA-1\"\n",
       "g.txt:1: anchor \"node 07 HCA-1\" is not an end port of the fabric (no end port has that node "
       "description)"},
      // Quoted is a description only: no GUID, no LID.
      {"0xC001 \"0x0000000000100001\"\n", "g.txt:1: member \"0x0000000000100001\" is neither an end port"},
      {"0xC001 \"node 06 HCA-1\" 7\n", "g.txt:1: member '7' is listed twice"},  // its LID
      {"0xC001 P(000) \"twin\"\n", "g.txt:1: 'twin' is the node description of 2 end ports"},
      {"\"0xC001\" P(000)\n", "g.txt:1: expected a multicast LID 0xC000..0xFFFE first, got '\"0xC001\"'"},
  };
  for (const Case& c : quoting) ExpectGroupError(f, c.text, c.expect);
}

// A member word naming a switch is a switch member (its port 0 joined):
// by description, GUID or LID; refused alone, twice, or by a description
// switches share.
void GroupFilesNameSwitchMembers() {
  Fabric f = MakeFatTree(4, 3);
  AssignDefaultLids(f, 0);
  const int top = SwitchNamed(f, "SW<00,0>"), mid = SwitchNamed(f, "SW<10,1>");
  const std::string top_guid = Hex16(f.switches[top].guid), mid_lid = std::to_string(f.switches[mid].lid);
  std::istringstream named("0xC001 P(000) SW<00,0> \"SW<10,1>\"\n0xC002 " + top_guid + " P(001) " + mid_lid +
                           "\n");
  const std::vector<McastGroup> groups = ParseGroups(named, "g.txt", f);
  CU_ASSERT_EQUAL_FATAL(groups.size(), 2u);
  CU_ASSERT(groups[0].members == std::vector<int>{0});
  CU_ASSERT(groups[0].switch_members == (std::vector<int>{top, mid}));
  CU_ASSERT(groups[1].members == std::vector<int>{1});
  CU_ASSERT(groups[1].switch_members == (std::vector<int>{top, mid}));
  struct Case {
    std::string text, expect;
  } cases[] = {
      {"0xC001 P(000) SW<00,0> " + top_guid + "\n", "g.txt:1: member '" + top_guid + "' is listed twice"},
      {"0xC001 SW<00,0>\n", "g.txt:1: group 0xC001 has no end-port member (its tree is rooted at one"},
      {"0xC001 P(000) anchor=SW<00,0>\n", "g.txt:1: anchor 'SW<00,0>' is not an end port of the fabric"},
  };
  for (const Case& c : cases) ExpectGroupError(f, c.text.c_str(), c.expect.c_str());
  f.switches[top].name = f.switches[mid].name = "MF0;switch";  // a vendor's default, twice
  ExpectGroupError(f, "0xC001 P(000) MF0;switch\n",
                   ("g.txt:1: 'MF0;switch' is the node description of 2 switches (GUIDs " + top_guid + ", " +
                    Hex16(f.switches[mid].guid) + "): expected one of them by its GUID or LID")
                       .c_str());
}

// Switch members on mlid's trees: port 0 set on a tree without a valley,
// or left out and named when no such tree reaches them with the rest
// (two top switches of FT(4,2)); whatever is served is exactly once, on
// complete, shuffled and degraded trees, and a leaf is never left out of
// a complete one.
void SwitchMembersGetPortZero() {
  Fabric small = MakeFatTree(4, 2);
  AssignDefaultLids(small, 1);
  auto e = MakeEngine("mlid", {}, nullptr);
  Tables t;
  e->RouteUnicast(small, t);
  McastGroup g;
  g.mlid = 0xC001;
  g.members = {EndPortNamed(small, "P(00)"), EndPortNamed(small, "P(31)")};
  const int top0 = SwitchNamed(small, "SW<0,0>"), top1 = SwitchNamed(small, "SW<1,0>");
  g.switch_members = {top1};
  e->RouteMulticast(small, g, t);
  CU_ASSERT(e->SwitchMembersLeftOut().empty());
  CU_ASSERT(Ports(t, small, "SW<1,0>", g.mlid).count(0) == 1);
  AssertExactlyOnce(small, t, g);
  g.switch_members = {top0, top1};
  e->RouteMulticast(small, g, t);
  const auto left_out = e->SwitchMembersLeftOut();
  CU_ASSERT_EQUAL_FATAL(left_out.size(), 1u);
  CU_ASSERT_EQUAL(left_out[0].first, top1);
  CU_ASSERT(Contains(left_out[0].second, "no up*/down* tree reaches it together with the group's end ports"));
  CU_ASSERT(Ports(t, small, "SW<1,0>", g.mlid).empty());
  CU_ASSERT(Ports(t, small, "SW<0,0>", g.mlid).count(0) == 1);
  g.switch_members = {top0};
  AssertExactlyOnce(small, t, g);

  std::mt19937_64 rng(11);
  long served_above_leaves = 0, left_out_total = 0;
  for (int variant = 0; variant < 3; ++variant) {
    Fabric f = MakeFatTree(8, 3);
    AssignDefaultLids(f, 2);
    if (variant == 1) ShufflePorts(f, 7);
    if (variant == 2) RemoveRandomSwitchLinks(f, 3, 6);
    const FatTree ft = RecognizeFatTree(f);
    auto engine = MakeEngine("mlid", {}, nullptr);
    Tables tables;
    engine->RouteUnicast(f, tables);
    const int hosts = static_cast<int>(f.end_ports.size()), switches = static_cast<int>(f.switches.size());
    for (int i = 0; i < 40; ++i) {
      McastGroup group;
      group.mlid = static_cast<Lid>(0xC001 + i);
      group.members = RandomMembers(rng, hosts, 1 + static_cast<int>(rng() % 12));
      for (int s : RandomMembers(rng, switches, 1 + static_cast<int>(rng() % 4)))
        group.switch_members.push_back(s);
      engine->RouteMulticast(f, group, tables);
      McastGroup served = group;
      for (const auto& [sw, why] : engine->SwitchMembersLeftOut()) {
        CU_ASSERT(!why.empty());
        CU_ASSERT(variant == 2 || ft.level[sw] < ft.n - 1);  // a leaf always fits a complete tree
        served.switch_members.erase(
            std::find(served.switch_members.begin(), served.switch_members.end(), sw));
        ++left_out_total;
      }
      for (int sw : served.switch_members) served_above_leaves += ft.level[sw] < ft.n - 1;
      AssertExactlyOnce(f, tables, served);
    }
  }
  CU_ASSERT(served_above_leaves > 0);
  CU_ASSERT(left_out_total > 0);
}

// xymesh reaches any switch of the grid: switch members are never left
// out, in trunk-row, paper and source trees.
void MeshSwitchMembersGetPortZero() {
  Fabric f = MakeMesh(5, 5);
  AssignDefaultLids(f, 0);
  std::mt19937_64 rng(5);
  for (const char* mode : {"xymesh_mcast=trunk", "xymesh_mcast=paper", "xymesh_mcast=source"}) {
    auto e = MakeEngine("xymesh", {mode}, nullptr);
    Tables t;
    RouteUnicastAndVls(*e, f, t);
    for (int i = 0; i < 20; ++i) {
      McastGroup g;
      g.mlid = static_cast<Lid>(0xC001 + i);
      g.members = RandomMembers(rng, 25, 1 + static_cast<int>(rng() % 6));
      g.anchor = g.members[0];
      g.switch_members = RandomMembers(rng, 25, 1 + static_cast<int>(rng() % 3));
      e->RouteMulticast(f, g, t);
      CU_ASSERT(e->SwitchMembersLeftOut().empty());
      for (int sw : g.switch_members) CU_ASSERT(t.mft[sw].groups.at(g.mlid).test(0));
      AssertExactlyOnce(f, t, g);
    }
  }
}

// EndPortWord names every end port so that EndPortOfWord reads it back: its
// description where that is one end port's and survives trimming, else
// its port GUID.
void EndPortWordsReadBack() {
  Fabric f = MakeFatTree(4, 3);
  f.end_ports[3].name = f.end_ports[5].name = "twin";  // a dual-port HCA's description
  f.end_ports[6].name = "node 06 HCA-1";
  f.end_ports[7].name = "";
  f.end_ports[8].name = " padded ";
  const EndPortNames names = IndexEndPortNames(f);
  for (int ep = 0; ep < static_cast<int>(f.end_ports.size()); ++ep)
    CU_ASSERT_EQUAL(EndPortOfWord(f, names, EndPortWord(f, names, ep)), ep);
  CU_ASSERT_EQUAL(EndPortWord(f, names, 0), f.end_ports[0].name);
  CU_ASSERT_EQUAL(EndPortWord(f, names, 6), "node 06 HCA-1");
  for (int ep : {3, 5, 7, 8})
    CU_ASSERT_EQUAL(EndPortWord(f, names, ep), Hex16(f.end_ports[size_t(ep)].port_guid));
}

// On a shuffled tree the generator's descriptions are no longer the hosts'
// labels: 'P(200)' described one host while inspect and trace showed it on
// another, and a group file took the described one without a word. The
// description still names its host (group files, and the e2e joins, name
// hosts so), with a note naming both ports; EndPortWord writes a GUID for
// it; a tree whose labels are its descriptions indexes no clash.
void LabelThatIsAnotherHostsDescriptionIsNoted() {
  CU_ASSERT(IndexEndPortNames(MakeFatTree(4, 3)).label_of.empty());
  Fabric f = MakeFatTree(4, 3);
  ShufflePorts(f, 3);
  const EndPortNames names = IndexEndPortNames(f);
  CU_ASSERT_FATAL(!names.label_of.empty());
  for (const auto& [label, labelled] : names.label_of) {
    const int described = names.by_description.at(label);
    CU_ASSERT(described != labelled);
    CU_ASSERT_EQUAL(EndPortOfWord(f, names, label), described);
    CU_ASSERT_EQUAL(LabelClash(f, names, label, described),
                    "'" + label + "' is " + Hex16(f.end_ports[size_t(described)].port_guid) + " (labelled " +
                        names.labels[size_t(described)] + "); the host labelled " + label + " is " +
                        Hex16(f.end_ports[size_t(labelled)].port_guid));
    CU_ASSERT_EQUAL(EndPortWord(f, names, described), Hex16(f.end_ports[size_t(described)].port_guid));
  }
  for (int ep = 0; ep < static_cast<int>(f.end_ports.size()); ++ep)
    CU_ASSERT_EQUAL(EndPortOfWord(f, names, EndPortWord(f, names, ep)), ep);
  const std::string clashing = names.label_of.begin()->first;
  std::istringstream groups("0xC001 " + clashing + " " + Hex16(f.end_ports[0].port_guid) + "\n");
  std::string note;
  const std::vector<McastGroup> read = ParseGroups(groups, "g.txt", f, &note);
  CU_ASSERT_EQUAL(read.at(0).members.at(0), names.by_description.at(clashing));
  CU_ASSERT(Contains(note,
                     "g.txt: 1 word(s) are node descriptions that inspect and trace print as "
                     "other hosts' labels") &&
            Contains(note, "(line 1: '" + clashing + "' is "));
  std::istringstream plain("0xC001 P(000) P(001)\n");
  ParseGroups(plain, "g.txt", MakeFatTree(4, 3), &note);
  CU_ASSERT(note.empty());
}

}  // namespace

void RegisterMcastSuite() {
  CU_pSuite s = CU_add_suite("cyclic multicast", nullptr, nullptr);
  CU_add_test(s, "seed 002 example on FT(4,3)", PaperExampleFt43);
  CU_add_test(s, "exactly once from every member", ExactlyOnceFromEveryMember);
  CU_add_test(s, "a leave rebuilds only that group", LeaveShrinksOnlyThatGroup);
  CU_add_test(s, "anchors spread over top switches", AnchorsSpreadOverTopSwitches);
  CU_add_test(s, "verifier catches broken masks", VerifierCatchesBrokenMasks);
  CU_add_test(s, "verifier names where copies go", VerifierNamesWhereCopiesGo);
  CU_add_test(s, "group files parse and name errors", GroupFilesParseAndNameErrors);
  CU_add_test(s, "group files name switch members", GroupFilesNameSwitchMembers);
  CU_add_test(s, "switch members: port 0 on a tree without a valley, or named", SwitchMembersGetPortZero);
  CU_add_test(s, "xymesh: switch members get port 0", MeshSwitchMembersGetPortZero);
  CU_add_test(s, "EndPortWord: descriptions, or port GUIDs where shared or blank", EndPortWordsReadBack);
  CU_add_test(s, "a description that is another host's label: noted, not refused",
              LabelThatIsAnotherHostsDescriptionIsNoted);
}

}  // namespace ibu::test
