// Net files, guid2lid files and ibroute dumps: round trips and bad input.
#include <regex>
#include <set>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/guid2lid.h"
#include "plugin/core/netfile.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/generate.h"
#include "tests/unit/test_util.h"

namespace ibu::test {
namespace {

Fabric Parse(const std::string& text) {
  std::istringstream in(text);
  return ParseNetFile(in, "t.net");
}

void NetFileRoundTrip() {
  for (bool shuffle : {false, true}) {
    Fabric f = MakeFatTree(8, 3);
    std::vector<int> order;
    if (shuffle) order = ShufflePorts(f, 42);
    std::ostringstream os;
    WriteNetFile(os, f, order);
    Fabric g = Parse(os.str());
    CU_ASSERT_EQUAL(g.switches.size(), f.switches.size());
    CU_ASSERT_EQUAL(g.end_ports.size(), f.end_ports.size());
    for (const Switch& sw : f.switches) {
      int i = g.SwitchByGuid(sw.guid);
      CU_ASSERT_FATAL(i >= 0);
      const Switch& other = g.switches[i];
      CU_ASSERT_EQUAL(other.name, sw.name);
      for (int p = 1; p <= sw.num_ports; ++p) {
        const Peer& a = sw.ports[p];
        const Peer& b = other.ports[p];
        CU_ASSERT_EQUAL(a.kind, b.kind);
        CU_ASSERT_EQUAL(a.port, b.port);
        if (a.is_switch()) CU_ASSERT_EQUAL(f.switches[a.index].guid, g.switches[b.index].guid);
        if (a.is_end_port())
          CU_ASSERT_EQUAL(f.end_ports[a.index].port_guid, g.end_ports[b.index].port_guid);
      }
    }
  }
}

void IbnetdiscoverGroupingHeadings() {
  // `ibnetdiscover -g` groups the records by chassis under headings that
  // are neither records nor comments; ibsim drops them. They were refused
  // as "expected a node header".
  Fabric f = Parse(
      "#\n# Initiated from node 0000000000100003 port 0000000000100004\n\n"
      "Chassis 3 (guid 0x5442ba00003000)\n\n# Spine Nodes\n# Line Nodes\n# Chassis Switches\n"
      "Hostname: xsigo-1\n\nNon-Chassis Nodes\n\n"
      "vendid=0x2c9\ndevid=0xb924\nsysimgguid=0x200001\n"
      "switchguid=0x200001(200001)\t# \n"
      "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n\n"
      "caguid=0x100003\n"
      "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
      "[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n");
  CU_ASSERT_EQUAL(f.switches.size(), 1u);
  CU_ASSERT_EQUAL(f.end_ports.size(), 1u);
  CU_ASSERT_EQUAL(f.switches[0].lid, 3);
  // Only those headings: other words stay errors.
  for (const char* bad : {"Chassis\n", "Chassis x\n", "Non-Chassis\n", "Hostname:\n"}) {
    std::string err;
    try {
      Parse(bad);
    } catch (const Error& e) {
      err = e.what();
    }
    CU_ASSERT(err.find("expected a node header") != std::string::npos);
  }
}

void IbsimGuidNumbering() {
  // Without GUID lines the parser numbers nodes the way ibsim does.
  Fabric f = Parse(
      "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"H2\"[1]\n\n"
      "Hca 2 \"H1\"\n[1] \"S1\"[1]\n\nHca 2 \"H2\"\n[1] \"S1\"[2]\n");
  CU_ASSERT_EQUAL(f.switches[0].guid, 0x200000u);
  CU_ASSERT_EQUAL(f.end_ports[0].port_guid, 0x100001u);
  CU_ASSERT_EQUAL(f.end_ports[1].port_guid, 0x100004u);
}

void IbnetdiscoverLids() {
  Fabric f = Parse(
      "switchguid=0x200001(200001)\n"
      "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 lid 3 lmc 0\n"
      "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n\n"
      "caguid=0x100003\n"
      "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
      "[1](100004) \t\"S-0000000000200001\"[1]\t\t# lid 4 lmc 0 \"Switch2\" lid 3 4xSDR\n");
  CU_ASSERT_EQUAL(f.switches[0].lid, 3);
  CU_ASSERT_EQUAL(f.switches[0].name, "Switch2");
  CU_ASSERT_EQUAL(f.end_ports[0].base_lid, 4);
  CU_ASSERT_EQUAL(f.end_ports[0].port_guid, 0x100004u);
  CU_ASSERT_EQUAL(f.end_ports[0].name, "Hca2");
}

// A fabric as ibnetdiscover prints it (rdma-core's out_switch_port and
// out_ca_port): GUIDs after ports, "enhanced port 0", a two-port HCA, the
// peer's GUID after a reference to an adapter port. All of it is accepted.
void AcceptsWhatIbnetdiscoverWrites() {
  Fabric f = Parse(
      "#\n# Topology file: generated on Tue Nov 24 07:53:40 2026\n#\n"
      "# Initiated from node 0002c90300001230 port 0002c90300001231\n\n"
      "vendid=0x2c9\ndevid=0xc738\nsysimgguid=0x2c90300005678\n"
      "switchguid=0x2c90300005678(2c90300005678)\n"
      "Switch\t36 \"S-0002c90300005678\"\t\t# \"SwitchX mellanox\" enhanced port 0 lid 0x2 lmc 0\n"
      "[1]\t\"H-0002c90300001230\"[1](2c90300001231) \t\t# \"node1 HCA-1\" lid 4 4xQDR\n"
      "[2]\t\"H-0002c90300001230\"[2](2c90300001232) \t\t# \"node1 HCA-1\" lid 6 4xQDR\n"
      "[3]\t\"H-0002c90300009abc\"[1](2c90300009abc) \t\t# \"node2 HCA-1\" lid 8 4xEDR\n\n"
      "vendid=0x2c9\ndevid=0x1003\nsysimgguid=0x2c90300001233\ncaguid=0x2c90300001230\n"
      "Ca\t2 \"H-0002c90300001230\"\t\t# \"node1 HCA-1\"\n"
      "[1](2c90300001231) \t\"S-0002c90300005678\"[1]\t\t# lid 4 lmc 1 \"SwitchX mellanox\" lid 2 4xQDR\n"
      "[2](2c90300001232) \t\"S-0002c90300005678\"[2]\t\t# lid 6 lmc 1 \"SwitchX mellanox\" lid 2 4xQDR\n\n"
      "vendid=0x2c9\ndevid=0x1013\nsysimgguid=0x2c90300009abc\ncaguid=0x2c90300009abc\n"
      "Ca\t1 \"H-0002c90300009abc\"\t\t# \"node2 HCA-1\"\n"
      "[1](2c90300009abc) \t\"S-0002c90300005678\"[3]\t\t# lid 8 lmc 1 \"SwitchX mellanox\" lid 2 4xEDR s=16 "
      "w=2 v=4\n");
  CU_ASSERT_EQUAL(f.switches.size(), 1u);
  CU_ASSERT_EQUAL(f.switches[0].lid, 2);
  CU_ASSERT_EQUAL(f.end_ports.size(), 3u);
  CU_ASSERT_EQUAL(f.end_ports[1].port_guid, 0x2c90300001232u);
  CU_ASSERT_EQUAL(f.end_ports[1].base_lid, 6);
  CU_ASSERT_EQUAL(f.end_ports[2].port_guid,
                  0x2c90300009abcu);  // the node GUID, as ConnectX-4 and later have it
  CU_ASSERT_EQUAL(f.end_ports[2].lmc, 1);
  // ibsim's link options after a reference.
  Fabric g = Parse("Switch 8 \"S1\"\n[1] \"H1\"[1] w=4 s=2\n\nHca 1 \"H1\"\n[1] \"S1\"[1]  w=0x4\n");
  CU_ASSERT_EQUAL(g.end_ports.size(), 1u);
}

// One switch and one host as ibnetdiscover writes them (lines 2 and 7 carry
// the LIDs), with the given words in place of "lid 3 lmc 0" / "lid 4 lmc 0".
std::string Discovered(const std::string& switch_lid, const std::string& host_lid) {
  return "switchguid=0x200001(200001)\n"
         "Switch\t8 \"S-0000000000200001\"\t\t# \"Switch2\" base port 0 " +
         switch_lid +
         "\n"
         "[1]\t\"H-0000000000100003\"[1](100004) \t\t# \"Hca2\" lid 4 4xSDR\n\n"
         "caguid=0x100003\n"
         "Ca\t2 \"H-0000000000100003\"\t\t# \"Hca2\"\n"
         "[1](100004) \t\"S-0000000000200001\"[1]\t\t# " +
         host_lid + " \"Switch2\" lid 3 4xSDR\n";
}

// A description with quotes of its own, which ibnetdiscover writes as they
// are: whole, not cut at the second quote, and the LIDs after it read.
void DescriptionsWithQuotes() {
  Fabric q = Parse(Discovered("lid 3 lmc 0", "lid 4 lmc 0"));
  CU_ASSERT_EQUAL(q.end_ports[0].name, "Hca2");
  q = Parse(std::regex_replace(Discovered("lid 3 lmc 0", "lid 4 lmc 0"), std::regex("\"(Switch2|Hca2)\""),
                               "\"$1 \"a\" b\""));
  CU_ASSERT_EQUAL(q.switches[0].name, "Switch2 \"a\" b");
  CU_ASSERT_EQUAL(q.switches[0].lid, 3);
  CU_ASSERT_EQUAL(q.end_ports[0].name, "Hca2 \"a\" b");
  CU_ASSERT_EQUAL(q.end_ports[0].base_lid, 4);
}

// A net file text and what its refusal must say.
struct Refusal {
  std::string text, expect;
};

void ExpectRefused(const std::vector<Refusal>& cases) {
  for (const Refusal& c : cases) {
    const std::string msg = ErrorOf([&] { Parse(c.text); });
    if (!Contains(msg, c.expect)) fprintf(stderr, "\n  got '%s', want '%s'\n", msg.c_str(), c.expect.c_str());
    CU_ASSERT(Contains(msg, c.expect));
  }
}

// LIDs and LMCs in comments are integers by the core's rule: decimal or 0x
// hex; anything else is refused at its line, not taken as 0. A leading 0 is
// refused too: ibsim would read "010" as octal 8, another fabric.
void CommentLidsByTheIntegerRule() {
  Fabric f = Parse(Discovered("lid 10 lmc 0", "lid 0x10 lmc 2"));
  CU_ASSERT_EQUAL(f.switches[0].lid, 10);
  CU_ASSERT_EQUAL(Parse(Discovered("lid 8 lmc 2", "lid 4 lmc 0")).switches[0].lmc, 2);
  CU_ASSERT_EQUAL(f.end_ports[0].base_lid, 16);
  CU_ASSERT_EQUAL(f.end_ports[0].lmc, 2);
  // An editor's byte-order mark before a valid line: quoted as bytes, not
  // invisibly (the quote looked like the valid line it precedes).
  ExpectRefused(
      {{"\xef\xbb\xbf" + Discovered("lid 3 lmc 0", "lid 4 lmc 0"),
        "t.net:1: expected a node header (Switch/Hca/Ca/Rt N \"name\"), a port line ([N] \"peer\"[M]) or a "
        "guid assignment, got '\\xef\\xbb\\xbfswitchguid=0x200001(200001)'"}});
  ExpectRefused({
      {Discovered("lid x lmc 0", "lid 4 lmc 0"),
       "t.net:2: expected a LID 0..0xBFFF (decimal or 0x hex) after 'lid' in the comment, got 'x'"},
      {Discovered("lid 3 lmc 0", "lid 4x lmc 0"),
       "t.net:7: expected a LID 0..0xBFFF (decimal or 0x hex) after 'lid'"},
      {Discovered("lid 3 lmc 0", "lid -4 lmc 0"), "t.net:7: expected a LID 0..0xBFFF"},
      {Discovered("lid 3 lmc 0", "lid"),
       "t.net:7: expected a LID 0..0xBFFF (decimal or 0x hex) after 'lid' in the comment, got ''"},
      {Discovered("lid 70000 lmc 0", "lid 4 lmc 0"), "t.net:2: expected a LID 0..0xBFFF"},
      {Discovered("lid 3 lmc x", "lid 4 lmc 0"),
       "t.net:2: expected an LMC 0..7 after 'lmc' in the comment, got 'x'"},
      {Discovered("lid 3 lmc 0", "lid 4 lmc 010"),
       "t.net:7: expected an LMC 0..7 after 'lmc' in the comment, got '010'"},
      {Discovered("lid 010 lmc 0", "lid 4 lmc 0"),
       "t.net:2: expected a LID 0..0xBFFF (decimal or 0x hex) after 'lid' in the comment, got '010': "
       "a leading 0 is octal to ibsim"},
      {Discovered("lid 3 lmc 0", "lid 4 lmc 00"), "t.net:7: expected an LMC 0..7 after 'lmc' in the comment, got '00': a leading 0"},
      {Discovered("lid 3 lmc 0", "lid 6 lmc 2"),
       "t.net:7: lid 6 is not aligned to lmc 2: expected a multiple of 4"},
      // A switch's LMC too (enhanced port 0 may have one): its LIDs are a block.
      {Discovered("lid 3 lmc 2", "lid 4 lmc 0"),
       "t.net:2: lid 3 is not aligned to lmc 2: expected a multiple of 4"},
      {Discovered("lid 0x103 lmc 1", "lid 4 lmc 0"),
       "t.net:2: lid 259 is not aligned to lmc 1: expected a multiple of 2"},
      {Discovered("lid 0xBFFF lmc 1", "lid 4 lmc 0"),
       "t.net:2: lid 49151 lmc 1: its 2 LIDs end beyond the unicast range"},
  });
}

// A switch (LID 1) and two hosts as ibnetdiscover writes them; the hosts'
// port lines (8 and 12) get the given LID words and H2's the given GUID, as
// does the switch's reference to it (line 4).
std::string TwoHosts(const std::string& h1_lid, const std::string& h2_lid,
                     const std::string& h2_guid = "100005") {
  return "switchguid=0x200001\n"
         "Switch 8 \"S1\"\t\t# \"S1\" base port 0 lid 1 lmc 0\n"
         "[1]\t\"H1\"[1](100001) \t\t# \"H1\" lid 4 4xSDR\n"
         "[2]\t\"H2\"[1](" +
         h2_guid +
         ") \t\t# \"H2\" lid 8 4xSDR\n\n"
         "caguid=0x100000\n"
         "Ca\t2 \"H1\"\t\t# \"H1\"\n"
         "[1](100001) \t\"S1\"[1]\t\t# " +
         h1_lid +
         " \"S1\" lid 1 4xSDR\n\n"
         "caguid=0x100004\n"
         "Ca\t2 \"H2\"\t\t# \"H2\"\n"
         "[1](" +
         h2_guid + ") \t\"S1\"[2]\t\t# " + h2_lid + " \"S1\" lid 1 4xSDR\n";
}

// A GUID or LID twice is refused by the parser at the later line, naming
// the earlier one and both claimants (Fabric::Finalize has no lines).
void DuplicateGuidsAndLidsNameBothLines() {
  CU_ASSERT_EQUAL(Parse(TwoHosts("lid 4 lmc 2", "lid 8 lmc 2")).end_ports[1].base_lid, 8);
  ExpectRefused({
      {"switchguid=0x200001\nSwitch 8 \"S1\"\n[1] \"S2\"[1]\n\nswitchguid=0x200001\nSwitch 8 \"S2\"\n[1] "
       "\"S1\"[1]\n",
       "t.net:6: node GUID 0x0000000000200001 of \"S2\" is also that of \"S1\" (line 2): expected every node "
       "GUID once"},
      {TwoHosts("lid 4 lmc 0", "lid 8 lmc 0", "100001"),
       "t.net:12: port 1 of \"H2\" has port GUID 0x0000000000100001, as has port 1 of \"H1\" (line 8): "
       "expected "
       "every port GUID once"},
      {TwoHosts("lid 4 lmc 0", "lid 8 lmc 0", "200001"),
       "t.net:12: port 1 of \"H2\" has port GUID 0x0000000000200001, as has switch \"S1\" (line 2)"},
      {TwoHosts("lid 4 lmc 0", "lid 4 lmc 0"),
       "t.net:12: LID 4 of port 1 of \"H2\" (LID 4) is also claimed by port 1 of \"H1\" (LID 4, line 8): "
       "expected every LID to belong to one port"},
      {TwoHosts("lid 4 lmc 2", "lid 6 lmc 1"),
       "t.net:12: LID 6 of port 1 of \"H2\" (LIDs 6-7) is also claimed by port 1 of \"H1\" (LIDs 4-7, line "
       "8)"},
      {TwoHosts("lid 4 lmc 0", "lid 1 lmc 0"),
       "t.net:12: LID 1 of port 1 of \"H2\" (LID 1) is also claimed by switch \"S1\" (LID 1, line 2)"},
  });
}

// LIDs on some ports only would get the generated layout everywhere, the
// file's LIDs dropped: refused at the first port without one. None at all
// is the generator's (and unswept ibnetdiscover's) file, and fine.
void LidsOnAllPortsOrNone() {
  // No LIDs at all (ibnetdiscover before the SM's sweep writes 'lid 0'): fine.
  std::string unswept = TwoHosts("lid 0 lmc 0", "lid 0 lmc 0");
  unswept.replace(unswept.find("lid 1 lmc 0"), 11, "lid 0 lmc 0");
  CU_ASSERT_EQUAL(Parse(unswept).max_lid(), 0);
  ExpectRefused({
      {TwoHosts("lid 4 lmc 0", "lid 0 lmc 0"),
       "t.net:12: port 1 of \"H2\" has no LID (no 'lid N', or 'lid 0', in its comment), but switch \"S1\" "
       "(line "
       "2) has one: expected LIDs on all switches and end ports or on none"},
      {TwoHosts("lmc 0", "lid 8 lmc 0"), "t.net:8: port 1 of \"H1\" has no LID"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n[1] \"S1\"[1] # lid 4\n",
       "t.net:1: switch \"S1\" has no LID (no 'lid N', or 'lid 0', in its comment), but port 1 of \"H1\" "
       "(line 5) "
       "has one"},
      {"Switch 8 \"S1\" # lid 1\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n", "t.net:4: port 1 of \"H1\" has no LID"},
  });
}

// Two switches, S1 port 1 cabled to "S-0000000000200000" port 3 and back,
// with `reference` as line 2's text after "[1] ".
std::string Cabled(const std::string& reference) {
  return "Switch 8 \"S1\"\n[1] " + reference + "\n\nSwitch 8 \"S-0000000000200000\"\n[3] \"S1\"[1]\n";
}

void BadNetFilesNameLineAndWhat() {
  ExpectRefused({
      {"Switch 8 \"S1\"\n[9] \"H1\"[1]\n", "t.net:2: port 9 is outside 1..8"},
      {"Switch 8 \"S1\"\n[1] \"nobody\"[1]\n", "t.net:2: no node named \"nobody\""},
      {"Switch 8 \"S1\n", "t.net:1: unterminated quoted name"},
      {"Bogus 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"[1] \"S1\"[1]\n", "t.net:1: port line before any node header"},
      {"Switch 0 \"S1\"\n", "t.net:1: expected a port count"},
      {"Switch 8 \"S1\"\n\nSwitch 8 \"S1\"\n", "t.net:3: node name \"S1\" appears twice"},
      {"Switch 8 \"S1\"\n[1] \"S2\"[1]\n\nSwitch 8 \"S2\"\n[1] \"S1\"[2]\n", "disagrees"},
      // A switch line at odds with the adapter's record is the one named.
      {"Switch 2 \"S1\"\n[1] \"H1\"[1]\n\nSwitch 2 \"S2\"\n[2] \"H1\"[1]\n\nCa 1 \"H1\"\n[1] \"S1\"[1]\n",
       "t.net:5: port 2 of \"S2\" is cabled to port 1 of \"H1\", which line 8 (its own record) cables to "
       "port 1 "
       "of \"S1\""},
      // ... or the other switch's, the adapter's record having no port lines.
      {"Switch 2 \"S1\"\n[1] \"H1\"[1]\n\nSwitch 2 \"S2\"\n[2] \"H1\"[1]\n\nCa 1 \"H1\"\n",
       "t.net:5: port 2 of \"S2\" is cabled to port 1 of \"H1\", which line 2 cables to port 1 of \"S1\" "
       "too"},
      // 255 is an LFT's "no route": no port may have that number.
      {"Switch 255 \"S1\"\n", "t.net:1: expected a port count from 1 to 254"},
      {"Switch 8 \"S1\"\n[1] \"S2\"[255]\n\nSwitch 8 \"S2\"\n",
       "t.net:2: expected '[PORT]' with a port from 1 to 254 after \"S2\""},
      {"", "t.net: no node records in it (expected ibnetdiscover output"},
      // ibnetdiscover -g's external port numbers; a header cut short.
      {Cabled("[ext 3]\t\"S-0000000000200000\"[3]"),
       "t.net:2: expected a quoted node name, got '[ext 3]\t\"S-0000000000200000\"[3]'"},
      {"Switch 8\n", "t.net:1: expected a quoted node name, got the end of the line"},
      {"# only a comment\r\n\r\n", "t.net: no node records in it"},
      {"Ca 1 \"H1\"\n", "t.net: the fabric has no switch"},
      // Trailing text after a port reference, a node name or a GUID, in
      // files that are whole otherwise.
      {Cabled("\"S-0000000000200000\"[3]junk"),
       "t.net:2: unexpected 'junk' after \"S-0000000000200000\"[3]: expected a '#' comment or the end of the "
       "line"},
      {Cabled("\"S-0000000000200000\" [3]"),
       "t.net:2: unexpected '[3]' after \"S-0000000000200000\": expected"},
      {Cabled("\"S-0000000000200000\"[3](1000f) x # c"),
       "t.net:2: unexpected 'x # c' after \"S-0000000000200000\"[3](1000f)"},
      {Cabled("\"S-0000000000200000\"[3] w=x"), "t.net:2: expected an integer in the link option 'w=x'"},
      {Cabled("\"S-0000000000200000\"[+3]"),
       "t.net:2: expected '[PORT]' with a port from 1 to 254 after \"S-0000000000200000\""},
      {"Switch 8 \"S1\"\n[ 1] \"S2\"[3]\n", "t.net:2: expected '[PORT]' at the start of a port line"},
      {"Switch 8 \"S1\" 8\n", "t.net:1: unexpected '8' after the node name \"S1\": expected a '#' comment"},
      {"switchguid=0x2000zz\nSwitch 8 \"S1\"\n", "t.net:1: expected a GUID in 0x hex"},
      {"switchguid=0x200000(200000)x\nSwitch 8 \"S1\"\n", "t.net:1: unexpected 'x' after the port GUID"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\nCa 2 \"H1\"\n[1](12zz) \"S1\"[1]\n",
       "t.net:5: bad hexadecimal number '12zz'"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\nCa 2 \"H1\"\n[1](-12) \"S1\"[1]\n",
       "t.net:5: bad hexadecimal number '-12'"},
  });
}

// One switch and one host, with `header` in place of the host's "Ca 1".
std::string HostHeader(const std::string& header) {
  return "Switch 8 \"S1\"\n[1] \"H1\"[1]\n\n" + header + " \"H1\"\n[1] \"S1\"[1]\n";
}

// A node header's port count is decimal digits as ibnetdiscover prints
// them, after any blanks: no sign, no leading 0 (octal to ibsim), nothing
// glued to it.
void PortCountIsPlainDecimal() {
  CU_ASSERT_EQUAL(Parse(HostHeader("Ca\t 2")).end_ports.size(), 1u);
  CU_ASSERT_EQUAL(Parse("Switch\t \t36 \"S1\"\n").switches[0].num_ports, 36);
  const std::string want =
      "t.net:4: expected a port count from 1 to 254 (decimal digits, no sign or leading 0) "
      "after the node type, got '";
  ExpectRefused({
      {"Switch +8 \"S1\"\n",
       "t.net:1: expected a port count from 1 to 254 (decimal digits, no sign or "
       "leading 0) after the node type, got '+8'"},
      {"Switch \t+8 \"S1\"\n", "t.net:1: expected a port count from 1 to 254"},
      {HostHeader("Ca +1"), want + "+1'"},
      {HostHeader("Ca -1"), want + "-1'"},
      {HostHeader("Ca 01"), want + "01'"},
      {HostHeader("Ca 0x2"), want + "0x2'"},
      {HostHeader("Ca 2x"), want + "2x'"},
      {HostHeader("Ca 256"), want + "256'"},
      {HostHeader("Ca 1\v"), want + "1\v'"},
  });
}

// Routers are numbered on a counter of their own, as ibsim numbers them
// (guids[ROUTER_NODE], set by 'rtguid=' and starting at 0): an adapter
// after a router keeps the adapters' count, and a router without an
// 'rtguid=' line, which ibsim would give the reserved GUID 0, is refused.
void RoutersCountedApartAsIbsimDoes() {
  Fabric f = Parse(
      "Switch 8 \"S1\"\n[1] \"H1\"[1]\n[2] \"R1\"[1]\n[3] \"H2\"[1]\n\n"
      "Ca 2 \"H1\"\n[1] \"S1\"[1]\n\nrtguid=0x5000\nRt 1 \"R1\"\n[1] \"S1\"[2]\n\n"
      "Ca 2 \"H2\"\n[1] \"S1\"[3]\n");
  CU_ASSERT_EQUAL(f.end_ports[0].node_guid, 0x100000u);
  CU_ASSERT_EQUAL(f.end_ports[1].node_guid, 0x5000u);
  CU_ASSERT_EQUAL(f.end_ports[1].port_guid, 0x5001u);
  CU_ASSERT_EQUAL(f.end_ports[2].node_guid, 0x100003u);  // after H1's 0x100000-2, not after R1's
  // 'caguid=' does not number routers, nor 'rtguid=' adapters.
  f = Parse(
      "Switch 8 \"S1\"\n[1] \"R1\"[1]\n[2] \"H1\"[1]\n\nrtguid=0x5000\ncaguid=0x7000\n"
      "Rt 1 \"R1\"\n[1] \"S1\"[1]\n\nrtguid+0x10\nCa 1 \"H1\"\n[1] \"S1\"[2]\n");
  CU_ASSERT_EQUAL(f.end_ports[0].node_guid, 0x5000u);
  CU_ASSERT_EQUAL(f.end_ports[1].node_guid, 0x7000u);
  ExpectRefused({
      {"Switch 8 \"S1\"\n[1] \"R1\"[1]\n\nRt 1 \"R1\"\n[1] \"S1\"[1]\n",
       "t.net:4: \"R1\" would get node GUID 0, which InfiniBand reserves (ibsim numbers routers from 0 unless "
       "an 'rtguid=' line says otherwise): expected a 'switchguid=', 'caguid=' or 'rtguid=' line with a GUID "
       "above 0 before it"},
      {"caguid=0\nSwitch 8 \"S1\"\n[1] \"H1\"[1]\n\nCa 1 \"H1\"\n[1] \"S1\"[1]\n",
       "t.net:5: \"H1\" would get node GUID 0"},
  });
}

// ibsim's link defaults ('width=', 'speed=', 'extspeed=', and w= s= e= on a
// link) and 'pdebug=' change no GUID or cable: accepted in the ranges ibsim
// accepts, the fabric the same as without them. 'include' and 'module='
// change which nodes there are and what a name means: refused at the line.
void IbsimSettingsLines() {
  const Fabric plain = Parse(HostHeader("Ca 1"));
  const Fabric f = Parse(HostHeader("width=3\nspeed = 0x2\nextspeed=0\npdebug=-1\nwidth=31\nCa 1"));
  CU_ASSERT_EQUAL(f.end_ports.size(), 1u);
  CU_ASSERT_EQUAL(f.end_ports[0].port_guid, plain.end_ports[0].port_guid);
  CU_ASSERT_EQUAL(f.switches[0].ports[1].index, 0);
  CU_ASSERT_EQUAL(Parse(Cabled("\"S-0000000000200000\"[3] w=2 s=1 e=4 # x")).switches[0].ports[1].port, 3);
  const std::string want = "t.net:4: expected an integer from ";
  ExpectRefused({
      {HostHeader("width=0\nCa 1"), want + "1 to 31 after 'width=', got '0'"},
      {HostHeader("width=32\nCa 1"), want + "1 to 31 after 'width=', got '32'"},
      {HostHeader("speed=8\nCa 1"), want + "1 to 7 after 'speed=', got '8'"},
      {HostHeader("extspeed=16\nCa 1"), want + "0 to 15 after 'extspeed=', got '16'"},
      {HostHeader("width=4x\nCa 1"), want + "1 to 31 after 'width=', got '4x'"},
      {HostHeader("pdebug=\nCa 1"), want},
      {HostHeader("include \"leaf.net\"\nCa 1"),
       "t.net:4: ibsim's 'include' reads another net file (by a path relative to ibsim's working "
       "directory, not to this file) and is not supported: expected the included file's records written out "
       "here"},
      {HostHeader("include\"leaf.net\"\nCa 1"), "t.net:4: ibsim's 'include' reads another net file"},
      {HostHeader("module=\"M\"\nCa 1"),
       "t.net:4: ibsim's 'module=' renames the nodes after it (\"M#name\") and the references to them, for "
       "copies of an included file, and is not supported: expected every node under its own full name"},
      {HostHeader("widths=1\nCa 1"), "t.net:4: expected a node header"},
      {Cabled("\"S-0000000000200000\"[3] e=x"), "t.net:2: expected an integer in the link option 'e=x'"},
  });
}

// ibsim reads lines from the first column, and a record ends after its last
// port or at the first line that is neither a port line nor a '#' comment,
// which ibsim drops: a GUID line there would number the next node one way
// for ibsim and another for us. Indented lines and port lines after the
// end of a record are refused as well, at their line.
void RecordsEndAsIbsimEndsThem() {
  // A full record needs no blank line after it; '#' comments may sit inside.
  Fabric f = Parse(
      "Switch 2 \"S1\"\n# c\n[1] \"H1\"[1]\n#\n[2] \"H2\"[1]\nCa 1 \"H1\"\n[1] \"S1\"[1]\n\n"
      "Ca 1 \"H2\"\n[1] \"S1\"[2]\n");
  CU_ASSERT_EQUAL(f.end_ports.size(), 2u);
  const std::string two_hosts_tail = "\nCa 1 \"H1\"\n[1] \"S1\"[1]\n";
  ExpectRefused({
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\ncaguid=0x5000" + two_hosts_tail,
       "t.net:3: ibsim ends the record of \"S1\" at this line and drops the line (a record ends after its "
       "last "
       "port or at the first other line): expected a blank line before 'caguid=0x5000'"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\nCa 1 \"H1\"\n[1] \"S1\"[1]\n",
       "t.net:3: ibsim ends the record of \"S1\" at this line"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\n  caguid=0x5000" + two_hosts_tail,
       "t.net:4: 'caguid=0x5000' is indented: ibsim reads node headers, port lines and settings from the "
       "first "
       "column and ignores this line (or ends a record there): expected it at the first column"},
      {"Switch 8 \"S1\"\n\t[1] \"H1\"[1]\n", "t.net:2: '[1] \"H1\"[1]' is indented"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\n[2] \"H1\"[2]\n",
       "t.net:4: port line after the end of the record of \"S1\": ibsim ends a record at a blank or other "
       "line "
       "and ignores port lines after it: expected it among its node's port lines, with no blank line "
       "between"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\n  # x\n[2] \"H1\"[2]\n",
       "t.net:4: port line after the end of the record of \"S1\""},
  });
}

// ibsim runs "do CMD" lines as console commands while it reads the file:
// those that only report or wait are ignored, those that change cabling,
// GUIDs or LIDs (or read commands from a file) are refused at the line.
void ConsoleCommandsThatChangeTheFabric() {
  CU_ASSERT_EQUAL(Parse(HostHeader("do Dump\ndo verbose 3\ndo Wait 1\nCa 1")).end_ports.size(), 1u);
  ExpectRefused({
      {HostHeader("do Unlink \"S1\"[1]\nCa 1"),
       "t.net:4: ibsim's console command 'do Unlink' changes cabling, GUIDs or LIDs while the file is read "
       "and "
       "is not supported: expected the records to say what the fabric is (give such commands to the running "
       "ibsim)"},
      {HostHeader("do link \"S1\"[2] \"H1\"[1]\nCa 1"), "t.net:4: ibsim's console command 'do link' changes"},
      {HostHeader("do GUID \"H1\" 0x5000\nCa 1"), "t.net:4: ibsim's console command 'do GUID' changes"},
      {HostHeader("do\tBaselid \"H1\"[1] 9\nCa 1"), "t.net:4: ibsim's console command 'do Baselid' changes"},
      {HostHeader("do ReLink \"S1\"\nCa 1"), "t.net:4: ibsim's console command 'do ReLink' changes"},
      {HostHeader("do Clear \"S1\"\nCa 1"), "t.net:4: ibsim's console command 'do Clear' changes"},
      {HostHeader("do !cmds.txt\nCa 1"), "t.net:4: ibsim's console command 'do !cmds.txt' changes"},
  });
}

// One switch and one host with the given GUID lines before their headers.
Fabric WithGuidLines(const std::string& switch_guid, const std::string& ca_guid) {
  return Parse(switch_guid + "\nSwitch 8 \"S1\"\n[1] \"H1\"[1]\n\n" + ca_guid +
               "\nCa 2 \"H1\"\n[1] \"S1\"[1]\n");
}

// GUID lines give the GUIDs ibsim gives: it reads them with strtoull base
// 0, so "200000" is decimal there and must be here. Forms ibsim reads
// another way than it looks (a leading 0 is octal; hex without 0x stops at
// the first letter) are refused at their line.
void GuidLinesReadAsIbsimReadsThem() {
  Fabric f = WithGuidLines("switchguid=200000", "caguid=1048576");
  CU_ASSERT_EQUAL(f.switches[0].guid, 200000u);
  CU_ASSERT_EQUAL(f.end_ports[0].node_guid, 0x100000u);
  CU_ASSERT_EQUAL(f.end_ports[0].port_guid, 0x100001u);
  f = WithGuidLines("switchguid=0x2c90200000001(2c90200000001)", "caguid = 0X100000");
  CU_ASSERT_EQUAL(f.switches[0].guid, 0x2c90200000001u);
  CU_ASSERT_EQUAL(f.end_ports[0].node_guid, 0x100000u);
  // Relative to the last absolute value, by the same rule: 16 is sixteen.
  f = WithGuidLines("switchguid=0x200000\nswitchguid+16", "hcaguids=0x100000\ncaguid+0x10");
  CU_ASSERT_EQUAL(f.switches[0].guid, 0x200010u);
  CU_ASSERT_EQUAL(f.end_ports[0].node_guid, 0x100010u);
  const std::string want =
      "t.net:1: expected a GUID in 0x hex, like 0x0002c90300001234, or in decimal, as ibsim "
      "reads it, got '";
  ExpectRefused({
      {"switchguid=0200000\nSwitch 8 \"S1\"\n",
       "t.net:1: '0200000' is octal to ibsim (a leading 0): expected the GUID in 0x hex, like "
       "0x0002c90300001234, or in decimal without a leading 0"},
      {"caguid+010\nSwitch 8 \"S1\"\n", "t.net:1: '010' is octal to ibsim"},
      {"switchguid=2c9000100d050\nSwitch 8 \"S1\"\n", want + "2c9000100d050'"},
      {"caguid=-5\nSwitch 8 \"S1\"\n", want + "-5'"},
      {"caguid=+5\nSwitch 8 \"S1\"\n", want + "+5'"},
      {"caguid=\nSwitch 8 \"S1\"\n", want + "'"},
      {"caguid=18446744073709551616\nSwitch 8 \"S1\"\n", want + "18446744073709551616'"},
      {"caguid=0x10000000000000000\nSwitch 8 \"S1\"\n", want + "0x10000000000000000'"},
  });
}

// ibnetdiscover writes a switch's port 0 GUID after its node GUID. ibsim
// ignores it (port 0 gets the node GUID); real hardware may have another,
// and the real SM's guid2lid lists the switch by it: the switch answers to
// both, so such a guid2lid gives it its LID (the line used to be skipped as
// "not of this fabric" and the switch kept its net-file LID, or had none).
void SwitchPortGuidNamesTheSwitchToo() {
  Fabric f = WithGuidLines("switchguid=0x2c90200000001(2c90200000001)", "");
  CU_ASSERT_EQUAL(f.switches[0].guid, 0x2c90200000001u);
  CU_ASSERT_EQUAL(f.switches[0].port_guid, 0u);
  f = WithGuidLines("switchguid=0x200001(200002)", "caguid=0x100000");
  CU_ASSERT_EQUAL(f.switches[0].guid, 0x200001u);
  CU_ASSERT_EQUAL(f.switches[0].port_guid, 0x200002u);
  CU_ASSERT_EQUAL(f.SwitchByGuid(0x200001), 0);
  CU_ASSERT_EQUAL(f.SwitchByGuid(0x200002), 0);
  std::istringstream g2l("0x0000000000200002 7 7\n0x0000000000100001 4 4\n");
  CU_ASSERT_EQUAL(ApplyGuid2Lid(g2l, "g2l", f), "");
  CU_ASSERT_EQUAL(f.switches[0].lid, 7);
  CU_ASSERT_EQUAL(f.end_ports[0].base_lid, 4);
  // Written out and read back as it came; its guid2lid line is by PORT.
  std::ostringstream net, lids;
  WriteNetFile(net, f, {});
  CU_ASSERT_EQUAL(Parse(net.str()).switches[0].port_guid, 0x200002u);
  WriteGuid2Lid(lids, f);
  CU_ASSERT(Contains(lids.str(), "0x0000000000200002 0x0007 0x0007"));
  // Relative to the counter, as for the node GUID.
  CU_ASSERT_EQUAL(WithGuidLines("switchguid=0x200000\nswitchguid+1(200000)", "").switches[0].port_guid,
                  0x200000u);
  // Only the next switch: a second one under the same line has none.
  const Fabric two = Parse("switchguid=0x200001(2c9)\nSwitch 8 \"S1\"\n[1] \"S2\"[1]\n\nSwitch 8 \"S2\"\n[1] \"S1\"[1]\n");
  CU_ASSERT_EQUAL(two.switches[0].port_guid, 0x2c9u);
  CU_ASSERT_EQUAL(two.switches[1].port_guid, 0u);
  // A port GUID that names another node is refused at the later line,
  // naming the earlier.
  ExpectRefused({
      {"switchguid=0x200001(100001)\nSwitch 8 \"S1\"\n[1] \"H1\"[1]\n\ncaguid=0x100000\nCa 2 \"H1\"\n[1] \"S1\"[1]\n",
       "t.net:7: port 1 of \"H1\" has port GUID 0x0000000000100001, as has switch \"S1\" (line 2): "
       "expected every port GUID once"},
      {"switchguid=0x200001(200009)\nSwitch 8 \"S1\"\n[1] \"S2\"[1]\n\nswitchguid=0x200009\nSwitch 8 \"S2\"\n"
       "[1] \"S1\"[1]\n",
       "t.net:6: switch \"S2\" has port GUID 0x0000000000200009, as has switch \"S1\" (line 2)"},
  });
}

// The peer's port GUID after a reference, "H1"[1](100001) as ibnetdiscover
// writes it, must be the one the peer's own record gives (its port line's,
// else node GUID + port, or a switch's GUID): refused otherwise, naming
// both lines and both GUIDs.
void PeerGuidsAgreeWithThePeersRecord() {
  CU_ASSERT_EQUAL(Parse(TwoHosts("lid 4 lmc 0", "lid 8 lmc 0")).end_ports[1].port_guid, 0x100005u);
  // No "(GUID)" on the adapter's port line: caguid + port, as ibsim numbers.
  CU_ASSERT_EQUAL(
      Parse("Switch 8 \"S1\"\n[1] \"H1\"[1](100001)\n\nCa 2 \"H1\"\n[1] \"S1\"[1]\n").end_ports[0].port_guid,
      0x100001u);
  std::string h2_says_9 = TwoHosts("lid 4 lmc 0", "lid 8 lmc 0");
  h2_says_9.replace(h2_says_9.rfind("(100005)"), 8, "(100009)");
  ExpectRefused({
      {h2_says_9,
       "t.net:4: port 2 of \"S1\" gives port 1 of \"H2\" port GUID 0x0000000000100005, but port 1 of \"H2\" "
       "has port GUID 0x0000000000100009 (line 12): expected the peer's own port GUID"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1](100002)\n\ncaguid=0x100000\nCa 2 \"H1\"\n[1] \"S1\"[1]\n",
       "t.net:2: port 1 of \"S1\" gives port 1 of \"H1\" port GUID 0x0000000000100002, but port 1 of \"H1\" "
       "has port GUID 0x0000000000100001 (line 5)"},
      {"Switch 8 \"S1\"\n[1] \"H1\"[1]\n\nCa 2 \"H1\"\n[1](100001) \"S1\"[1](200001)\n",
       "t.net:5: port 1 of \"H1\" gives port 1 of \"S1\" port GUID 0x0000000000200001, but switch \"S1\" has "
       "port GUID 0x0000000000200000 (line 1): expected the peer's own port GUID"},
  });
}

// Keywords are whole words: a node type followed by blanks, a setting's key
// by '=' (or '+' for GUIDs). "Cable" is no "Ca", "caguidx=" no "caguid".
void KeywordsAreWholeWords() {
  CU_ASSERT_EQUAL(
      Parse(HostHeader("vendid = 0x2c9\ndevid=0x1003\nsysimgguid=0x100000\ndo x\nHca\t1")).end_ports.size(),
      1u);
  const std::string want =
      "t.net:4: expected a node header (Switch/Hca/Ca/Rt N \"name\"), a port line ([N] \"peer\"[M]) or a "
      "guid "
      "assignment, got '";
  ExpectRefused({
      {HostHeader("Cable 1"), want + "Cable 1 \"H1\"'"},
      {HostHeader("Cats 1"), want + "Cats 1 \"H1\"'"},
      {HostHeader("Ca1"), want + "Ca1 \"H1\"'"},
      {HostHeader("Hcas 1"), want + "Hcas 1 \"H1\"'"},
      {HostHeader("Rtr 1"), want + "Rtr 1 \"H1\"'"},
      {"Switch 8 \"S1\"\n\nCa\n",
       "t.net:3: expected a node header (Switch/Hca/Ca/Rt N \"name\"), a port line"},
      {"Switches 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"Switch8 \"S1\"\n", "t.net:1: expected a node header"},
      {"caguidx=0x100000\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"switchguids=0x200000\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"switchguid 0x200000\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"rtguid:0x1\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"vendidx=0x2c9\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"sysimgguids=0x1\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"devid+1\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      {"done\nSwitch 8 \"S1\"\n", "t.net:1: expected a node header"},
      // A NUL is no '=': strchr finds the terminator in any operator list.
      {std::string("switchguid\0=0x200000\nSwitch 8 \"S1\"\n", 35), "t.net:1: expected a node header"},
  });
}

void Guid2LidRoundTripAndErrors() {
  Fabric f = MakeFatTree(4, 3);
  AssignDefaultLids(f, 2);
  std::ostringstream os;
  WriteGuid2Lid(os, f);
  Fabric g = MakeFatTree(4, 3);
  std::istringstream in(os.str());
  CU_ASSERT_EQUAL(ApplyGuid2Lid(in, "g2l", g), "");
  for (size_t e = 0; e < f.end_ports.size(); ++e) {
    CU_ASSERT_EQUAL(g.end_ports[e].base_lid, f.end_ports[e].base_lid);
    CU_ASSERT_EQUAL(g.end_ports[e].lmc, 2);
  }
  CU_ASSERT_EQUAL(g.end_ports[12].base_lid, 52);  // P(300): 2^2 * (12 + 1)
  std::istringstream bad("0x100001 0x0004\n");
  CU_ASSERT(Contains(ErrorOf([&] { (void)ApplyGuid2Lid(bad, "g2l", g); }), "g2l:1: expected '0xGUID"));
  std::istringstream odd("0x100001 0x0004 0x0006\n");
  CU_ASSERT(Contains(ErrorOf([&] { (void)ApplyGuid2Lid(odd, "g2l", g); }), "g2l:1: LID range 4-6 is not a power-of-two"));

  // LIDs in 0x hex or decimal; a leading 0 is refused, since OpenSM reads
  // it as octal (0100 is LID 64 to the SM, and was 100 here). GUIDs in 0x
  // hex only, nothing after the three fields but a comment.
  Fabric h = MakeFatTree(4, 3);
  AssignDefaultLids(h, 0);
  const std::string p0 = Hex16(h.end_ports[0].port_guid);
  std::istringstream octal(p0 + " 0100 0100 # moved\n");
  CU_ASSERT(Contains(ErrorOf([&] { (void)ApplyGuid2Lid(octal, "g2l", h); }),
                     "g2l:1: LID '0100' has a leading 0, so OpenSM reads it as octal (64, 0x0040)"));
  std::istringstream nine(p0 + " 09 09\n");  // no octal number: OpenSM takes the 0
  CU_ASSERT(Contains(
      ErrorOf([&] { (void)ApplyGuid2Lid(nine, "g2l", h); }),
      "g2l:1: LID '09' has a leading 0, so OpenSM reads it as octal, and it is none (OpenSM takes 0"));
  // Octal and decimal agree on 0004: no octal refusal (LID 4 is another
  // port's in h, which is refused for that instead).
  std::istringstream alike(p0 + " 0004 0004\n");
  const std::string alike_error = ErrorOf([&] { (void)ApplyGuid2Lid(alike, "g2l", h); });
  CU_ASSERT(!Contains(alike_error, "octal") && Contains(alike_error, "LID 4 is already assigned"));
  std::istringstream decimal(p0 + " 100 100 # moved\n");
  CU_ASSERT_EQUAL(ApplyGuid2Lid(decimal, "g2l", h), "");
  CU_ASSERT_EQUAL(h.end_ports[0].base_lid, 100);
  const std::string decimal_guid = std::to_string(h.end_ports[0].port_guid);
  for (const auto& [line, want] : std::vector<std::pair<std::string, std::string>>{
           {p0 + " 0x0100 0x0100 junk", "g2l:1: expected '0xGUID 0xMINLID 0xMAXLID'"},
           {p0 + " 0x0100 0x01zz", "g2l:1: expected '0xGUID 0xMINLID 0xMAXLID'"},
           // A bad GUID is named as one, not as bad LIDs.
           {decimal_guid + " 0x0100 0x0100",
            "g2l:1: GUID '" + decimal_guid + "': expected 0x and 1 to 16 hex digits"},
           {p0.substr(2) + " 0x0100 0x0100",
            "g2l:1: GUID '" + p0.substr(2) + "': expected 0x and 1 to 16 hex digits"},
           {"0x10000000000000000 0x0100 0x0100",
            "g2l:1: GUID '0x10000000000000000': expected 0x and 1 to 16 hex digits"}}) {
    std::istringstream in(line + "\n");
    const std::string msg = ErrorOf([&] { (void)ApplyGuid2Lid(in, "g2l", h); });
    if (!Contains(msg, want)) fprintf(stderr, "\n  '%s': got '%s'\n", line.c_str(), msg.c_str());
    CU_ASSERT(Contains(msg, want));
  }
  // LIDs the net file carries (ibnetdiscover's): a line agreeing with them
  // is taken, one moving its port is another SM run's and refused.
  std::istringstream same(p0 + " 0x0064 0x0064\n");
  CU_ASSERT_EQUAL(ApplyGuid2Lid(same, "g2l", h, /*net_lids=*/true), "");
  std::istringstream moved("\n" + p0 + " 0x0070 0x0071\n");
  CU_ASSERT(Contains(ErrorOf([&] { (void)ApplyGuid2Lid(moved, "g2l", h, /*net_lids=*/true); }),
                     "g2l:2: end port " + h.end_ports[0].name + " (" + p0 +
                         ") has LIDs 112-113 here, but LID 100 in the net file"));
}

// GUIDs the fabric lacks: OpenSM's guid2lid keeps ports it saw before, so
// a few are a warning naming the first (line, GUID) and the count; a file
// with none of the fabric's GUIDs (another fabric's) is an error.
void Guid2LidUnknownGuids() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  std::ostringstream os;
  WriteGuid2Lid(os, f);
  const std::string mine = os.str();
  Fabric g = MakeFatTree(4, 2);
  std::istringstream extra("# removed since\n" + mine + "0x0000000000abcdef 0x0100 0x0100\n0x0000000000abcdf0 0x0101 0x0101\n");
  const std::string warning = ApplyGuid2Lid(extra, "g2l", g);
  CU_ASSERT(Contains(warning, "g2l:" + std::to_string(2 + 2 * int(f.end_ports.size() + f.switches.size())) +
                                  ": GUID 0x0000000000abcdef is not an end port or switch of this fabric (nor are 1 more of the file's " +
                                  std::to_string(f.end_ports.size() + f.switches.size() + 2) + " GUIDs)"));
  CU_ASSERT_EQUAL(g.end_ports[3].base_lid, f.end_ports[3].base_lid);

  Fabric other = MakeFatTree(4, 3);  // same GUID numbering, more ports
  std::ostringstream big;
  AssignDefaultLids(other, 0);
  WriteGuid2Lid(big, other);
  std::istringstream wide(big.str());
  Fabric h = MakeFatTree(4, 2);
  CU_ASSERT(Contains(ApplyGuid2Lid(wide, "g2l", h), "is not an end port or switch of this fabric (nor are"));

  std::istringstream alien("0x0000000000abcdef 0x0001 0x0001\n0x0000000000abcdf0 0x0002 0x0002\n");
  CU_ASSERT(Contains(ErrorOf([&] { (void)ApplyGuid2Lid(alien, "g2l", h); }),
                     "g2l:1: GUID 0x0000000000abcdef is not an end port or switch of this fabric, and neither is "
                     "the file's other GUID: expected the port GUIDs of this fabric's end ports and switches"));
  std::istringstream nodes(Hex16(h.end_ports[0].node_guid) + " 0x0001 0x0001\n");
  CU_ASSERT(Contains(ErrorOf([&] { (void)ApplyGuid2Lid(nodes, "g2l", h); }),
                     "(it is the node GUID of end port " + h.end_ports[0].name + "; the file wants port GUIDs)"));
}

// OpenSM's cache holds each port GUID once and each LID at most once, and
// lists every port it has given a LID. A repeated GUID (a concatenated
// file), overlapping ranges and a fabric port without a line are errors
// naming the lines and the port, not "last line wins" or LID 0.
void Guid2LidDuplicatesOverlapsAndMissingPorts() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 1);
  std::vector<std::string> lines;  // one per GUID; WriteGuid2Lid puts a blank line after each
  {
    std::ostringstream os;
    WriteGuid2Lid(os, f);
    std::istringstream in(os.str());
    for (std::string l; std::getline(in, l);)
      if (!l.empty()) lines.push_back(l);
  }
  const size_t n = lines.size();
  CU_ASSERT_FATAL(n == f.end_ports.size() + f.switches.size());
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& l : v) s += l + "\n";
    return s;
  };
  auto apply = [](const std::string& text) {
    Fabric g = MakeFatTree(4, 2);
    std::istringstream in(text);
    return ErrorOf([&] { (void)ApplyGuid2Lid(in, "g2l", g); });
  };
  const std::string p1 = Hex16(f.end_ports[1].port_guid);
  const std::string p3 = Hex16(f.end_ports[3].port_guid);

  // The same GUID again, with other LIDs (so no overlap either way): the
  // second line is named, with the first.
  std::vector<std::string> dup = lines;
  dup.push_back(p3 + " 0x0100 0x0101");
  CU_ASSERT(Contains(apply(join(dup)), "g2l:" + std::to_string(n + 1) + ": GUID " + p3 +
                                           " appears again (first at line 4)"));
  // Two copies of a whole file.
  CU_ASSERT(Contains(apply(join(lines) + join(lines)),
                     "g2l:" + std::to_string(n + 1) + ": GUID " + Hex16(f.end_ports[0].port_guid) +
                         " appears again (first at line 1)"));

  // End port 3 claims end port 1's LIDs: both GUIDs and lines named.
  std::vector<std::string> overlap = lines;
  overlap[3] = p3 + " 0x0004 0x0005";
  CU_ASSERT(Contains(apply(join(overlap)), "g2l:4: GUID " + p3 + " (LIDs 4-5) overlaps GUID " + p1 +
                                               " (LIDs 4-5, line 2)"));
  // A partial overlap, and one with a GUID the fabric lacks (a port OpenSM
  // saw before keeps its LIDs; nobody else may hold them).
  std::vector<std::string> partial = lines;
  partial.push_back("0x0000000000abcdef 0x0005 0x0005");
  CU_ASSERT(Contains(apply(join(partial)), "g2l:" + std::to_string(n + 1) +
                                               ": GUID 0x0000000000abcdef (LID 5) overlaps GUID " + p1 +
                                               " (LIDs 4-5, line 2)"));

  // End port 3's line dropped: named with its GUID and what was expected.
  std::vector<std::string> gap = lines;
  gap.erase(gap.begin() + 3);
  CU_ASSERT(Contains(apply(join(gap)), "g2l: end port " + f.end_ports[3].name + " (port GUID " + p3 +
                                           ") has no line, so no LID: expected a line '" + p3 +
                                           " 0xMINLID 0xMAXLID' for it"));
  // A switch's line dropped, and one more port: the first named, the rest counted.
  std::vector<std::string> no_switch = lines;
  no_switch.pop_back();
  no_switch.pop_back();
  const Switch& first_gone = f.switches[f.switches.size() - 2];
  const std::string msg = apply(join(no_switch));
  CU_ASSERT(Contains(msg, "g2l: switch " + first_gone.name + " (port 0 GUID " + Hex16(first_gone.guid) +
                              ") has no line, so no LID"));
  CU_ASSERT(Contains(msg, "(1 more ports have none either;"));

  // A port that already has a LID (the net file's own, as ibnetdiscover
  // writes them) keeps it when the file lacks it.
  Fabric g = MakeFatTree(4, 2);
  AssignDefaultLids(g, 1);
  std::istringstream in(join(gap));
  CU_ASSERT_EQUAL(ErrorOf([&] { (void)ApplyGuid2Lid(in, "g2l", g); }), "");
  CU_ASSERT_EQUAL(g.end_ports[3].base_lid, f.end_ports[3].base_lid);
}

void TablesRoundTrip() {
  Fabric f = MakeFatTree(8, 2);
  AssignDefaultLids(f, 1);
  Tables t;
  t.Resize(f);
  for (size_t s = 0; s < f.switches.size(); ++s) {
    for (Lid lid = 1; lid <= f.max_lid(); ++lid)
      if (f.owner(lid).valid()) t.lft[s].set(lid, static_cast<uint8_t>((lid + s) % 9));
    PortMask m;
    m.set(0);
    m.set(3 + s % 5);
    t.mft[s].groups[0xC001] = m;
    t.mft[s].groups[0xC00A].set(8);
  }
  std::ostringstream lft, mft;
  WriteLfts(lft, f, t);
  WriteMfts(mft, f, t);
  Tables back;
  std::istringstream lin(lft.str()), min(mft.str());
  ReadLfts(lin, "lfts", f, back);
  ReadMfts(min, "mfts", f, back);
  for (size_t s = 0; s < f.switches.size(); ++s) {
    for (Lid lid = 1; lid <= f.max_lid(); ++lid) CU_ASSERT_EQUAL(back.lft[s].port(lid), t.lft[s].port(lid));
    CU_ASSERT(back.mft[s].groups == t.mft[s].groups);
  }
  // A switch whose port 0 has a GUID of its own is listed by it, as ibroute
  // lists it (the node GUID was printed as its 'portguid').
  f.switches[1].port_guid = 0x2c90300abcdef;
  f.Finalize();
  std::ostringstream own;
  WriteLfts(own, f, t);
  CU_ASSERT(Contains(own.str(), "(Switch portguid 0x0002c90300abcdef: '" + f.switches[1].name + "')"));
  CU_ASSERT(!Contains(own.str(), "(Switch portguid " + Hex16(f.switches[1].guid) + ":"));
}

void ReadsRealIbrouteMftRows() {
  // Column layout exactly as ibroute -M prints it for a 36-port switch.
  Fabric f;
  Switch sw;
  sw.guid = 0x248a070300f88040;
  sw.num_ports = 36;
  sw.ports.resize(37);
  sw.lid = 1;
  f.switches.push_back(sw);
  f.Finalize();
  std::istringstream in(
      "Multicast mlids [0xc000-0xc01f] of switch Lid 1 guid 0x248a070300f88040 (MF0):\n"
      "            0                   1                   2                   3             \n"
      "     Ports: 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 \n"
      " MLid\n"
      "0xc000      x     x     x x x         x   x                                   x x     \n"
      "1 valid mlids dumped \n");
  Tables t;
  ReadMfts(in, "m", f, t);
  const PortMask& m = t.mft[0].groups.at(0xC000);
  std::vector<int> ports;
  for (int p = 0; p <= 36; ++p)
    if (m.test(p)) ports.push_back(p);
  CU_ASSERT(ports == (std::vector<int>{0, 3, 6, 7, 8, 13, 15, 33, 34}));
}

void BadDumpsNameLine() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  Tables t;
  std::istringstream a("Unicast lids [0x0-0x3] of switch Lid 9 guid 0x0000000000999999 (x):\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(a, "d", f, t); }), "d:1: switch GUID 0x0000000000999999 is not in the fabric"));
  std::istringstream b("0x0001 001 : x\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(b, "d", f, t); }), "d:1: LFT entry before any"));
  std::istringstream c("Unicast lids [0x0-0x3] of switch Lid 9 guid 0x0000000000200000 (x):\n0x0001 077 : x\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(c, "d", f, t); }), "d:2: port 77 is beyond"));
  // Only what ibroute prints: a stray line is named, not skipped (it may be
  // a damaged entry), and so is an entry after the table's count line.
  const std::string head = "Unicast lids [0x0-0x3] of switch Lid 9 guid 0x0000000000200000 (x):\n";
  std::istringstream e(head + "  Lid  Out   Destination\n       Port     Info \n0x0001 001 : x\n 0x0002 002 : x\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(e, "d", f, t); }), "d:5: expected ibroute output"));
  std::istringstream g(head + "0x0001 001 : x\n1 valid lids dumped \n0x0002 002 : x\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(g, "d", f, t); }), "d:4: LFT entry after its table's"));
  std::istringstream h("\n\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(h, "d", f, t); }), "d: no LFT in it"));
  // Tables made for other LIDs (another LMC): every entry would name another
  // destination. The header's switch LID tells; LFTs and MFTs alike.
  std::istringstream l1("Unicast lids [0x0-0x3] of switch Lid 17 guid 0x0000000000200000 (x):\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(l1, "d", f, t); }),
                     "d:1: switch SW<0,0> (0x0000000000200000) has LID 9 in the fabric but LID 17 in this table's header"));
  // A header LID that is no decimal LID is refused, not taken for none (it
  // was: the LID check was skipped).
  for (const char* lid : {"9x", "0x9", "-9", "65545", "99999999999999999999"}) {
    std::istringstream bad(std::string("Unicast lids [0x0-0x3] of switch Lid ") + lid + " guid 0x0000000000200000 (x):\n");
    CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(bad, "d", f, t); }),
                       std::string("d:1: 'of switch Lid ") + lid + "': expected the switch's LID in decimal"));
  }
  // The header's GUID by the core's one rule, 0x and 1..16 hex digits
  // (strtoull took bare hex, a 17th digit that is a leading zero, a sign
  // and trailing text), in LFT and MFT headers alike.
  for (const char* guid : {"0000000000200000", "0x00000000000200000", "0x0000000000200000x", "+0x200000",
                           "0x", "0x1ffffffffffffffff"}) {
    std::istringstream bad(std::string("Unicast lids [0x0-0x3] of switch Lid 9 guid ") + guid +
                           " (x):\n0 valid lids dumped \n");
    CU_ASSERT(Contains(ErrorOf([&] { ReadLfts(bad, "d", f, t); }),
                       std::string("d:1: 'guid ") + guid +
                           "': expected the switch's GUID as ibroute prints it, 0x and up to 16 hex digits"));
  }
  std::istringstream mg("Multicast mlids [0xc000-0xc3ff] of switch Lid 9 guid 200000 (x):\n");
  CU_ASSERT(
      Contains(ErrorOf([&] { ReadMfts(mg, "m", f, t); }), "m:1: 'guid 200000': expected the switch's GUID"));
  std::istringstream m0("Multicast mlids [0xc000-0xc3ff] of switch Lid 18 guid 0x0000000000200001 (x):\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadMfts(m0, "m", f, t); }), "m:1: switch SW<1,0> (0x0000000000200001) has LID 10 in the fabric but LID 18"));
  // ibroute -a and OpenSM's own dump end a table with "N lids dumped"; blank
  // lines and CRLF line ends carry nothing.
  std::istringstream ok(head + "  Lid  Out   Destination\r\n       Port     Info \r\n0x0001 001 : x\r\n"
                               "0x0002 255 : (illegal port)\n2 lids dumped\n\n"
                               "Unicast lids [0x0-0x0] of switch Lid 10 guid 0x0000000000200001 (y):\n"
                               "0 valid lids dumped \n");
  CU_ASSERT(ErrorOf([&] { ReadLfts(ok, "d", f, t); }).empty());
  CU_ASSERT_EQUAL(t.lft[0].port(1), 1);
  // MFT dumps likewise: a row that does not start at the line's start (a
  // damaged one) or any other stray line is named, not skipped.
  const std::string mhead = "Multicast mlids [0xc000-0xc3ff] of switch Lid 9 guid 0x0000000000200000 (x):\n"
                            "     Ports: 0 1 2 3 4 \n MLid\n";
  std::istringstream m1(mhead + "0xc000        x\n  0xc001 x\n1 valid mlids dumped \n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadMfts(m1, "m", f, t); }), "m:5: unexpected line '  0xc001 x'"));
  std::istringstream m2(mhead + "0xc000        x\ngarbage\n");
  CU_ASSERT(Contains(ErrorOf([&] { ReadMfts(m2, "m", f, t); }), "m:5: unexpected line 'garbage'"));
  std::istringstream m3(mhead + "0xc000        x \r\n\n1 valid mlids dumped \r\n");
  CU_ASSERT(ErrorOf([&] { ReadMfts(m3, "m", f, t); }).empty());
  CU_ASSERT(t.mft[0].groups.at(0xC000).test(1));
  // ibroute -M -a prints and counts empty rows too: "N mlids dumped".
  std::istringstream m4(mhead + "0xc000        x \n0xc001            \n2 mlids dumped \n");
  CU_ASSERT(ErrorOf([&] { ReadMfts(m4, "m", f, t); }).empty());
}

// The error reading `text` as an LFT (MFT) dump named `file` gives, or "".
std::string LftDumpError(const Fabric& f, const std::string& file, const std::string& text) {
  Tables t;
  std::istringstream is(text);
  return ErrorOf([&] { ReadLfts(is, file, f, t); });
}

std::string MftDumpError(const Fabric& f, const std::string& file, const std::string& text) {
  Tables t;
  std::istringstream is(text);
  return ErrorOf([&] { ReadMfts(is, file, f, t); });
}

// The fields of an LFT entry as ibroute prints them ("0x%04x %03u"); any
// other form is refused naming the field (strtoul read port "0x1" as 0).
void LftFieldsAsIbroutePrintsThem() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  const std::string head = "Unicast lids [0x0-0x3] of switch Lid 9 guid 0x0000000000200000 (x):\n";
  auto error = [&](const std::string& text) { return LftDumpError(f, "d", text); };
  const char* port_forms[] = {"0x1", "1", "01", "0001", "+01", "-01", "01a", "2x5", "256", "999"};
  for (const char* port : port_forms)
    CU_ASSERT(Contains(error(head + "0x0001 " + port + " : x\n"),
                       std::string("d:2: port field '") + port + "': expected the out port as ibroute prints it, 3 decimal digits"));
  CU_ASSERT(Contains(error(head + "0x0001\n"), "d:2: port field '': expected"));
  CU_ASSERT(Contains(error(head + "0x-001 001 : x\n"), "d:2: LID field '0x-001': expected a unicast LID in hexadecimal"));
  CU_ASSERT(Contains(error(head + "0x0001x 001 : x\n"), "d:2: LID field '0x0001x'"));
  CU_ASSERT(Contains(error(head + "0xc000 001 : x\n"), "d:2: LID field '0xc000'"));
  CU_ASSERT(Contains(error(head + "0x0001 001 002\n"), "d:2: after the port '001': expected ': (destination)'"));
  // What ibroute (plain, -n, -a from LID 0) and OpenSM's dump print is read.
  Tables t;
  std::istringstream ok(head +
                        "0x0000 255 : (illegal port)\n0x0001 001 : (Channel Adapter portguid 0x1: 'a')\n"
                        "0x0002 003 \n0x0003 004 # Switch portguid 0x0000000000200000: 'x'\n"
                        // Read in place too (ParseWellFormedLftEntry): tabs, runs of blanks,
                        // upper-case hex, a CRLF file's \r.
                        "0x000A\t002\r\n0x000b   003   :\n6 lids dumped \n");
  CU_ASSERT(ErrorOf([&] { ReadLfts(ok, "d", f, t); }).empty());
  CU_ASSERT_EQUAL(t.lft[0].port(1), 1);
  CU_ASSERT_EQUAL(t.lft[0].port(2), 3);
  CU_ASSERT_EQUAL(t.lft[0].port(3), 4);
  CU_ASSERT_EQUAL(t.lft[0].port(10), 2);
  CU_ASSERT_EQUAL(t.lft[0].port(11), 3);
  // Near misses of the fast path still meet the field's error.
  CU_ASSERT(Contains(error(head + "0x0001 001: x\n"), "d:2: port field '001:'"));
  CU_ASSERT(Contains(error(head + "0x0001 0011\n"), "d:2: port field '0011'"));
  CU_ASSERT(Contains(error(head + "0x00g1 001\n"), "d:2: LID field '0x00g1'"));
}

// One table per switch and one row per LID / MLID in a table: a repeat
// used to replace what came first without a word; both lines are named.
void DumpRepeatsNameBothLines() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  auto lft_error = [&](const std::string& text) { return LftDumpError(f, "d", text); };
  auto mft_error = [&](const std::string& text) { return MftDumpError(f, "m", text); };
  const std::string lft = "Unicast lids [0x0-0x3] of switch Lid 9 guid 0x0000000000200000 (x):\n0x0001 001 : x\n"
                          "1 valid lids dumped \n";
  CU_ASSERT(Contains(lft_error(lft + lft),
                     "d:4: the LFT of switch SW<0,0> (0x0000000000200000, LID 9) appears again (first at line 1)"));
  CU_ASSERT(Contains(lft_error(lft.substr(0, lft.find("1 valid")) + "0x0002 002 : y\n0x0001 003 : x\n"),
                     "d:4: LID 0x0001 in the LFT of switch SW<0,0> (0x0000000000200000, LID 9) appears again (first at line 2)"));
  const std::string mft = "Multicast mlids [0xc000-0xc3ff] of switch Lid 9 guid 0x0000000000200000 (x):\n"
                          "     Ports: 0 1 2 3 4 \n MLid\n0xc001        x   \n1 valid mlids dumped \n";
  CU_ASSERT(Contains(mft_error(mft + mft),
                     "m:6: the MFT of switch SW<0,0> (0x0000000000200000, LID 9) appears again (first at line 1)"));
  CU_ASSERT(Contains(mft_error(mft.substr(0, mft.find("1 valid")) + "0xc002      x     \n0xc001            x\n"),
                     "m:6: MLID 0xc001 in the MFT of switch SW<0,0> (0x0000000000200000, LID 9) appears again (first at line 4)"));
  // Different switches, and the same LID in two switches' tables, are fine.
  const std::string other = "Unicast lids [0x0-0x3] of switch Lid 10 guid 0x0000000000200001 (y):\n0x0001 001 : x\n";
  CU_ASSERT(lft_error(lft + other + "1 valid lids dumped \n").empty());
  // A table without its count line was cut off (the file, or before the
  // next table): named by its header's line, not read as unrouted LIDs.
  CU_ASSERT(Contains(lft_error(lft + other),
                     "d:4: the LFT of switch SW<1,0> (0x0000000000200001, LID 10) ends without its 'N valid "
                     "lids dumped' line (a cut-off dump?)"));
  CU_ASSERT(Contains(lft_error(other + lft), "d:1: the LFT of switch SW<1,0>"));
  CU_ASSERT(Contains(mft_error(mft.substr(0, mft.find("1 valid"))),
                     "m:1: the MFT of switch SW<0,0> (0x0000000000200000, LID 9) ends without its 'N valid "
                     "mlids dumped' line (a cut-off dump?)"));
}

// MFT dumps are held to what the LFT reader already refuses: an empty
// file, a row after the table's count line; and an 'x' under a port the
// switch does not have (under port 256 or more it threw std::out_of_range):
// the 'Ports:' line numbering such a port is refused before any row.
void MftDumpsAsStrictAsLfts() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  auto error = [&](const std::string& text) { return MftDumpError(f, "m", text); };
  CU_ASSERT(Contains(error(""), "m: no MFT in it (expected `ibroute -M` output"));
  CU_ASSERT(Contains(error("\n\n"), "m: no MFT in it"));
  const std::string head = "Multicast mlids [0xc000-0xc3ff] of switch Lid 9 guid 0x0000000000200000 (x):\n";
  CU_ASSERT(error(head + "     Ports: 0 1 2 3 4 \n MLid\n0 valid mlids dumped \n").empty());
  CU_ASSERT(Contains(error(head + "     Ports: 0 1 2 3 4 \n MLid\n0xc001        x\n1 valid mlids dumped \n0xc002        x\n"),
                     "m:6: MFT row after its table's 'N valid mlids dumped' line"));
  CU_ASSERT(Contains(error(head + "     Ports: 0 1 2 3 4 5 \n MLid\n0xc001                x\n"),
                     "m:2: the 'Ports:' line numbers ports 0..5, but switch SW<0,0>"));
  std::string wide = "           ", row = "0xc001     ";
  for (int p = 0; p <= 300; ++p) wide += " " + std::to_string(p % 10), row += p == 300 ? " x" : "  ";
  CU_ASSERT(Contains(error(head + wide.replace(5, 6, "Ports:") + "\n" + row + "\n"),
                     "m:2: the 'Ports:' line numbers ports 0..300, but"));
}

// ibroute -M numbers the switch's ports 0..NumPorts in its 'Ports:' line: a
// line with another count is the MFT of another switch, whose rows would
// put members on other ports, and is refused naming the switch and both.
void MftPortsLineFitsTheSwitch() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  auto error = [&](const std::string& text) { return MftDumpError(f, "m", text); };
  const std::string head = "Multicast mlids [0xc000-0xc3ff] of switch Lid 9 guid 0x0000000000200000 (x):\n";
  const std::string rest = " MLid\n0xc001        x   \n1 valid mlids dumped \n";
  CU_ASSERT(error(head + "     Ports: 0 1 2 3 4 \n" + rest).empty());
  CU_ASSERT(Contains(
      error(head + "     Ports: 0 1 2 3 \n" + rest),
      "m:2: the 'Ports:' line numbers ports 0..3, but switch SW<0,0> (0x0000000000200000, LID 9) has "
      "4 ports (expected 0..4, as ibroute -M numbers them): the MFT of another switch?"));
  CU_ASSERT(Contains(error(head + "     Ports: 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 \n" + rest),
                     "m:2: the 'Ports:' line numbers ports 0..18, but switch SW<0,0> (0x0000000000200000, "
                     "LID 9) has 4 ports"));
  CU_ASSERT(Contains(error(head + "     Ports:\n" + rest), "m:2: the 'Ports:' line numbers no port, but"));
  // A second 'Ports:' line in one table renumbered the rows after it.
  CU_ASSERT(
      Contains(error(head + "     Ports: 0 1 2 3 4 \n MLid\n     Ports: 0 1 2 3 4 \n" + rest),
               "m:4: the 'Ports:' line of the MFT of switch SW<0,0> (0x0000000000200000, LID 9) appears "
               "again (first at line 2)"));
  CU_ASSERT(
      Contains(error(head + "     Ports: 0 1 2 3 4 \n MLid\n0xc002      x \n     Ports: 0 1 2 3 4 \n" + rest),
               "m:5: the 'Ports:' line of the MFT of"));
}

// LFT and MFT rows' LIDs as ibroute prints them, "0x%04x": 0x and exactly
// 4 hex digits. strtoul read an MLID "0x0000c001" as 0xc001, and the LFT's
// integer rule took "0x0x01" and "0x00001"; both are refused naming the field.
void DumpLidsAsIbroutePrintsThem() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  f.switches.back().lid = 0xBFFF;  // the top unicast LID is some port's (entries for others are refused)
  f.Finalize();
  auto mft_error = [&](const std::string& text) { return MftDumpError(f, "m", text); };
  auto lft_error = [&](const std::string& text) { return LftDumpError(f, "d", text); };
  const std::string mhead =
      "Multicast mlids [0xc000-0xc3ff] of switch Lid 9 guid 0x0000000000200000 (x):\n"
      "     Ports: 0 1 2 3 4 \n MLid\n";
  for (const char* mlid :
       {"0x0000c001", "0x0c001", "0xc01", "0x0xc001", "0x+c001", "0xc001x", "0xbfff", "0xffff", "0x"})
    CU_ASSERT(Contains(mft_error(mhead + mlid + "        x   \n1 valid mlids dumped \n"),
                       std::string("m:4: MLID field '") + mlid +
                           "': expected a multicast LID in hexadecimal, 0x and 4 digits, 0xc000..0xfffe (as "
                           "ibroute -M prints it)"));
  Tables t;
  std::istringstream ok(
      mhead + "0xc000      x     \n0xfffe        x   \n0xC001          x\r\n3 valid mlids dumped \n");
  CU_ASSERT(ErrorOf([&] { ReadMfts(ok, "m", f, t); }).empty());
  CU_ASSERT(t.mft[0].groups.at(0xFFFE).test(1));
  CU_ASSERT(t.mft[0].groups.at(0xC001).test(2));
  const std::string lhead = "Unicast lids [0x0-0x3] of switch Lid 9 guid 0x0000000000200000 (x):\n";
  for (const char* lid : {"0x0x01", "0x00001", "0x001", "0x1"})
    CU_ASSERT(Contains(lft_error(lhead + lid + " 001 : x\n1 valid lids dumped \n"),
                       std::string("d:2: LID field '") + lid +
                           "': expected a unicast LID in hexadecimal, 0x and 4 digits, 0x0000..0xbfff"));
  CU_ASSERT(lft_error(lhead + "0x000A 001 : x\n0xbfff 002 : y\n2 valid lids dumped \n").empty());
}

// An LFT entry routing a LID no end port or switch has: tables made for
// other LIDs or another fabric (a host removed from the net file, another
// LMC). They were kept unread, so the rest was checked as if it matched.
// Named by line, switch and LID, the others counted; LID 0 and port 255
// (ibroute -a's unrouted LIDs, what OpenSM leaves for a LID no port has
// any more) are not stale routes.
void LftEntriesForLidsTheFabricLacks() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);  // hosts 1..8, switches 9..14
  auto lft_error = [&](const std::string& text) { return LftDumpError(f, "d", text); };
  const std::string head = "Unicast lids [0x0-0x20] of switch Lid 9 guid 0x0000000000200000 (x):\n";
  const std::string tail = "Unicast lids [0x0-0x2] of switch Lid 10 guid 0x0000000000200001 (y):\n";
  CU_ASSERT(Contains(lft_error(head + "0x0001 001 : x\n0x000f 002 : x\n2 valid lids dumped \n"),
                     "d:3: LID 0x000f (out port 2) in the LFT of switch SW<0,0> (0x0000000000200000, LID 9): no end "
                     "port or switch of the fabric has it; the fabric's LIDs end at 0x000e: tables made for another "
                     "fabric or other LIDs"));
  CU_ASSERT(Contains(lft_error(head + "0x0020 001 : x\n1 valid lids dumped \n" + tail +
                               "0x0001 001 : x\n0x0011 003 : x\n2 valid lids dumped \n"),
                     "d:2: LID 0x0020 (out port 1) in the LFT of switch SW<0,0> (0x0000000000200000, LID 9): no end "
                     "port or switch of the fabric has it; the fabric's LIDs end at 0x000e; nor do the LIDs of 1 "
                     "more entries of the file"));
  // Within the fabric's range too: a host since removed.
  f.end_ports[3].base_lid = 0;
  f.Finalize();
  CU_ASSERT(Contains(
      lft_error(head + "0x0004 001 : x\n1 valid lids dumped \n"),
      "d:2: LID 0x0004 (out port 1) in the LFT of switch SW<0,0> (0x0000000000200000, LID 9): no end "
      "port or switch of the fabric has it: tables made for another fabric or other LIDs (expected "
      "the net file, and the LMC or guid2lid file, they were made with), or read from switches "
      "whose OpenSM runs use_ucast_cache TRUE, which keeps the entries of a port that left"));
  CU_ASSERT(lft_error(head + "0x0000 255 : x\n0x0001 001 : x\n0x0004 255 : x\n0x0020 255 : x\n4 lids dumped \n")
                .empty());
}

// ibroute ends a table with the number of rows it printed; another number
// than the rows read means rows were lost or added. OpenSM's own LFT dump
// puts its top LID there instead, and is read as before.
void CountLinesMatchTheRows() {
  Fabric f = MakeFatTree(4, 2);
  AssignDefaultLids(f, 0);
  auto lft_error = [&](const std::string& text) { return LftDumpError(f, "d", text); };
  auto mft_error = [&](const std::string& text) { return MftDumpError(f, "m", text); };
  const std::string lft =
      "Unicast lids [0x0-0x3] of switch Lid 9 guid 0x0000000000200000 (x):\n"
      "0x0001 001 : x\n0x0002 002 : y\n";
  CU_ASSERT(lft_error(lft + "2 valid lids dumped \n").empty());
  CU_ASSERT(Contains(
      lft_error(lft + "3 valid lids dumped \n"),
      "d:4: '3 valid lids dumped': the LFT of switch SW<0,0> (0x0000000000200000, LID 9) has 2 rows, "
      "not 3 (rows lost or added: a damaged dump?)"));
  CU_ASSERT(Contains(lft_error(lft + "1 valid lids dumped \n"), "d:4: '1 valid lids dumped': the LFT of"));
  CU_ASSERT(Contains(lft_error(lft + "99999999999999999999 valid lids dumped \n"),
                     "d:4: '99999999999999999999 valid"));
  CU_ASSERT(Contains(lft_error(lft + "3 lids dumped\n"), "d:4: '3 lids dumped': the LFT of"));
  CU_ASSERT(
      Contains(lft_error(lft + "2 valid lids dumped \n2 valid lids dumped \n"),
               "d:5: the count line of the LFT of switch SW<0,0> (0x0000000000200000, LID 9) appears again "
               "(first at line 4)"));
  // ibroute -a: every LID of the range, unrouted ones (255) and LID 0 too.
  CU_ASSERT(
      lft_error("Unicast lids [0x0-0x2] of switch Lid 9 guid 0x0000000000200000 (x):\n"
                "0x0000 255 : (illegal port)\n0x0001 001 : x\n0x0002 255 : (illegal port)\n3 lids dumped \n")
          .empty());
  // OpenSM's opensm-lfts.dump: "[0-TOP]" and "TOP lids dumped" with fewer rows.
  Tables t;
  std::istringstream osm(
      "Unicast lids [0-3] of switch Lid 9 guid 0x0000000000200000 ('x'):\n"
      "0x0001 001 # Channel Adapter portguid 0x0000000000100000: 'h'\n"
      "0x0003 004 # Switch portguid 0x0000000000200002: 'y'\n3 lids dumped\n");
  CU_ASSERT(ErrorOf([&] { ReadLfts(osm, "d", f, t); }).empty());
  CU_ASSERT_EQUAL(t.lft[0].port(3), 4);
  const std::string mft =
      "Multicast mlids [0xc000-0xc3ff] of switch Lid 9 guid 0x0000000000200000 (x):\n"
      "     Ports: 0 1 2 3 4 \n MLid\n0xc001        x   \n0xc002          x \n";
  CU_ASSERT(mft_error(mft + "2 valid mlids dumped \n").empty());
  CU_ASSERT(Contains(
      mft_error(mft + "3 valid mlids dumped \n"),
      "m:6: '3 valid mlids dumped': the MFT of switch SW<0,0> (0x0000000000200000, LID 9) has 2 rows, "
      "not 3 (rows lost or added: a damaged dump?)"));
  CU_ASSERT(Contains(mft_error(mft + "1 mlids dumped\n"), "m:6: '1 mlids dumped': the MFT of"));
  CU_ASSERT(
      Contains(mft_error(mft + "2 valid mlids dumped \n2 valid mlids dumped \n"),
               "m:7: the count line of the MFT of switch SW<0,0> (0x0000000000200000, LID 9) appears again "
               "(first at line 6)"));
}

void GeneratorRefusesBadSizes() {
  CU_ASSERT(Contains(ErrorOf([] { MakeFatTree(7, 2); }), "M must be even (m/2 ports down, m/2 up), got 7"));
  CU_ASSERT(Contains(ErrorOf([] { MakeFatTree(2, 2); }), "M must be at least 4"));
  CU_ASSERT(Contains(ErrorOf([] { MakeFatTree(4, 0); }), "N must be at least 1"));
  CU_ASSERT(Contains(ErrorOf([] { MakeFatTree(256, 2); }), "at most 254"));
  CU_ASSERT(Contains(ErrorOf([] { MakeFatTree(64, 3); }), "unicast LID space"));
  Fabric f = MakeFatTree(16, 3);
  CU_ASSERT(Contains(ErrorOf([&] { AssignDefaultLids(f, 6); }), "do not fit"));
}

// Failed links for experiments: the drawn cables are gone at both ends,
// nothing else moved, the draw is the seed's, and the net file written
// without them reads back without them.
void RemovedSwitchLinksAreGoneAtBothEnds() {
  const Fabric full = MakeFatTree(8, 3);
  Fabric f = full;
  const std::vector<SwitchLink> gone = RemoveRandomSwitchLinks(f, 7, 5);
  CU_ASSERT_EQUAL_FATAL(gone.size(), 5u);
  std::set<std::pair<int, int>> unplugged;
  for (const SwitchLink& c : gone) {
    CU_ASSERT(c.switch_a < c.switch_b);
    const Peer& was = full.switches[c.switch_a].ports[c.port_a];
    CU_ASSERT(was.is_switch() && was.index == c.switch_b && was.port == c.port_b);
    unplugged.insert({c.switch_a, c.port_a});
    unplugged.insert({c.switch_b, c.port_b});
  }
  CU_ASSERT_EQUAL(unplugged.size(), 10u);  // five distinct cables
  for (size_t s = 0; s < f.switches.size(); ++s)
    for (int p = 1; p <= f.switches[s].num_ports; ++p) {
      const bool cut = unplugged.count({static_cast<int>(s), p}) > 0;
      CU_ASSERT_EQUAL(f.switches[s].ports[p].connected(), !cut);
      if (!cut) CU_ASSERT_EQUAL(f.switches[s].ports[p].index, full.switches[s].ports[p].index);
    }
  Fabric again = full;
  const std::vector<SwitchLink> same = RemoveRandomSwitchLinks(again, 7, 5);
  Fabric other = full;
  const std::vector<SwitchLink> different = RemoveRandomSwitchLinks(other, 8, 5);
  auto key = [](const std::vector<SwitchLink>& v) {
    std::vector<std::pair<int, int>> k;
    for (const SwitchLink& c : v) k.push_back({c.switch_a, c.port_a});
    return k;
  };
  CU_ASSERT(key(same) == key(gone));
  CU_ASSERT(key(different) != key(gone));
  std::ostringstream os;
  WriteNetFile(os, f, {});
  const Fabric read = Parse(os.str());
  int links = 0;
  for (const Switch& sw : read.switches)
    for (int p = 1; p <= sw.num_ports; ++p) links += sw.ports[p].is_switch();
  CU_ASSERT_EQUAL(links, 2 * (256 - 5));  // FT(8,3): 2 x 128 switch cables
  CU_ASSERT_EQUAL(read.end_ports.size(), full.end_ports.size());
  Fabric small = MakeFatTree(4, 2);
  CU_ASSERT(Contains(ErrorOf([&] { RemoveRandomSwitchLinks(small, 1, 9); }),
                     "cannot remove 9 switch-to-switch links: the fabric has 8"));
}

}  // namespace

void RegisterFabricSuite() {
  CU_pSuite s = CU_add_suite("fabric and file formats", nullptr, nullptr);
  CU_add_test(s, "net file round trip (canonical and shuffled)", NetFileRoundTrip);
  CU_add_test(s, "ibsim GUID numbering", IbsimGuidNumbering);
  CU_add_test(s, "net file: routers counted apart, as ibsim does", RoutersCountedApartAsIbsimDoes);
  CU_add_test(s, "ibnetdiscover LIDs and descriptions", IbnetdiscoverLids);
  CU_add_test(s, "ibnetdiscover -g chassis headings are skipped", IbnetdiscoverGroupingHeadings);
  CU_add_test(s, "net file: what ibnetdiscover writes", AcceptsWhatIbnetdiscoverWrites);
  CU_add_test(s, "net file: node descriptions with quotes", DescriptionsWithQuotes);
  CU_add_test(s, "net file comments: LIDs by the integer rule", CommentLidsByTheIntegerRule);
  CU_add_test(s, "bad net files name line and what", BadNetFilesNameLineAndWhat);
  CU_add_test(s, "net file: a port count is plain decimal", PortCountIsPlainDecimal);
  CU_add_test(s, "net file: GUID lines read as ibsim reads them", GuidLinesReadAsIbsimReadsThem);
  CU_add_test(s, "net file: a switch's port GUID names it too", SwitchPortGuidNamesTheSwitchToo);
  CU_add_test(s, "net file: a peer's GUID agrees with its record", PeerGuidsAgreeWithThePeersRecord);
  CU_add_test(s, "net file: keywords are whole words", KeywordsAreWholeWords);
  CU_add_test(s, "net file: ibsim's settings lines", IbsimSettingsLines);
  CU_add_test(s, "net file: records end where ibsim ends them", RecordsEndAsIbsimEndsThem);
  CU_add_test(s, "net file: console commands that change the fabric", ConsoleCommandsThatChangeTheFabric);
  CU_add_test(s, "net file: GUIDs and LIDs twice name both lines", DuplicateGuidsAndLidsNameBothLines);
  CU_add_test(s, "net file: LIDs on all ports or none", LidsOnAllPortsOrNone);
  CU_add_test(s, "guid2lid round trip and errors", Guid2LidRoundTripAndErrors);
  CU_add_test(s, "guid2lid: GUIDs not in the fabric", Guid2LidUnknownGuids);
  CU_add_test(s, "guid2lid: repeats, overlaps, missing ports", Guid2LidDuplicatesOverlapsAndMissingPorts);
  CU_add_test(s, "LFT/MFT dump round trip", TablesRoundTrip);
  CU_add_test(s, "real ibroute -M rows", ReadsRealIbrouteMftRows);
  CU_add_test(s, "bad dumps name line", BadDumpsNameLine);
  CU_add_test(s, "LFT fields as ibroute prints them", LftFieldsAsIbroutePrintsThem);
  CU_add_test(s, "a repeated table or row names both lines", DumpRepeatsNameBothLines);
  CU_add_test(s, "count lines match the rows", CountLinesMatchTheRows);
  CU_add_test(s, "LFT entries for LIDs the fabric lacks", LftEntriesForLidsTheFabricLacks);
  CU_add_test(s, "MFT 'Ports:' line fits the switch", MftPortsLineFitsTheSwitch);
  CU_add_test(s, "MFT dumps as strict as LFT dumps", MftDumpsAsStrictAsLfts);
  CU_add_test(s, "LFT and MFT row LIDs as ibroute prints them", DumpLidsAsIbroutePrintsThem);
  CU_add_test(s, "generator refuses bad sizes", GeneratorRefusesBadSizes);
  CU_add_test(s, "removed switch links are gone at both ends", RemovedSwitchLinksAreGoneAtBothEnds);
}

}  // namespace ibu::test
