// Determinism across --jobs and the `ibunion sim` command line: dump:DIR
// input, JSON output, exit codes and messages for bad input.
#include <algorithm>
#include <CUnit/CUnit.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "plugin/core/netfile.h"
#include "plugin/core/tables.h"
#include "plugin/core/topology/generate.h"
#include "sim-harness/timing/plot.h"
#include "sim-harness/timing/progress.h"
#include "sim-harness/timing/sim_cli.h"
#include "sim-harness/timing/sweep.h"
#include "tests/unit/test_util.h"
#include "tests/unit/timing_rig.h"

namespace ibu::simtest {

namespace {

using sim::Params;
using sim::PointResult;

using test::Contains;

std::vector<std::string> Json(const std::vector<PointResult>& rs) {
  std::vector<std::string> out;
  for (const PointResult& r : rs) out.push_back(sim::ToJson(r, false));
  return out;
}

void TestSameSeedSameOutputAnyJobs() {
  Params p;
  p.vls = 2;
  p.warmup_ns = 5000;
  p.measure_ns = 40000;
  Rig rig(Tree(4, 4), p, "centric:0.2", 3);
  const std::vector<double> loads = {0.1, 0.3, 0.5, 0.7, 0.9};
  const auto one = Json(sim::RunPoints(*rig.net, *rig.wl, p, 64, loads, 42, 1));
  const auto two = Json(sim::RunPoints(*rig.net, *rig.wl, p, 64, loads, 42, 2));
  const auto again = Json(sim::RunPoints(*rig.net, *rig.wl, p, 64, loads, 42, 3));
  const auto other = Json(sim::RunPoints(*rig.net, *rig.wl, p, 64, loads, 43, 2));
  CU_ASSERT(one == two);
  CU_ASSERT(one == again);
  CU_ASSERT(one != other);
  CU_ASSERT_EQUAL(one.size(), loads.size());
}

// A scratch directory with a dump of Tree(3, 3): fabric.net, guid2lid,
// lfts.dump and mfts.dump, as the ibsim harness leaves them.
struct DumpDir {
  std::string dir;
  DumpDir() {
    char tmpl[] = "/tmp/ibusim-test-XXXXXX";
    dir = mkdtemp(tmpl);
    Setup st = Tree(3, 3);
    TreeMulticast(st, 3, 3, 0xC001, {0, 1, 4, 7, 8});
    std::ofstream(dir + "/fabric.net") << [&] {
      std::ostringstream os;
      WriteNetFile(os, st.fabric, {});
      return os.str();
    }();
    std::ofstream g(dir + "/guid2lid");
    WriteGuid2Lid(g, st.fabric);
    g.close();
    std::ofstream l(dir + "/lfts.dump");
    WriteLfts(l, st.fabric, st.tables);
    l.close();
    std::ofstream m(dir + "/mfts.dump");
    WriteMfts(m, st.fabric, st.tables);
  }
  ~DumpDir() {
    for (const char* f : {"fabric.net", "guid2lid", "lfts.dump", "mfts.dump", "bad.conf", "good.conf",
                          "out.csv", "bad.dump", "ring.net", "ring.lfts"})
      std::remove((dir + "/" + f).c_str());
    rmdir(dir.c_str());
  }
};

// Runs SimMain on `args`, capturing stdout and stderr.
int Sim(std::vector<std::string> args, std::string* out = nullptr, std::string* err = nullptr) {
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(&a[0]);
  std::ostringstream o, e;
  std::streambuf* so = std::cout.rdbuf(o.rdbuf());
  std::streambuf* se = std::cerr.rdbuf(e.rdbuf());
  const int rc = sim::SimMain(int(argv.size()), argv.data());
  std::cout.rdbuf(so);
  std::cerr.rdbuf(se);
  if (out) *out = o.str();
  if (err) *err = e.str();
  return rc;
}

std::string NoWall(const std::string& s) {
  return std::regex_replace(s, std::regex(",\"wall_s\":[^,]*,\"packet_hops_per_s\":[^,]*"), "");
}

// The fields of a CSV row; a quoted field (the error text) may hold commas.
std::vector<std::string> SplitCsv(const std::string& row) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (char c : row) {
    if (c == '"')
      quoted = !quoted;
    else if (c == ',' && !quoted)
      fields.emplace_back();
    else
      fields.back() += c;
  }
  return fields;
}

void TestCliDumpRun() {
  DumpDir d;
  std::string out, err;
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid",
                                         "--traffic", "uniform", "--msg", "64", "--vls", "2",
                                         "--seed", "5", "--json", "--quiet",
                                         "--param", "warmup_ns=2000", "--param", "measure_ns=20000"};
  auto args = base;
  args.insert(args.end(), {"--sweep", "0.1:0.4:0.1", "--jobs", "1"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  int lines = 0;
  for (char c : out) lines += c == '\n';
  CU_ASSERT_EQUAL(lines, 4);
  for (const char* key : {"\"offered\":", "\"accepted\":", "\"latency_avg_ns\":", "\"latency_p99_ns\":",
                          "\"packets_delivered\":", "\"simulated_ns\":", "\"wall_s\":",
                          "\"packet_hops_per_s\":"})
    CU_ASSERT(Contains(out, key));
  std::string out2;
  args = base;
  args.insert(args.end(), {"--sweep", "0.1:0.4:0.1", "--jobs", "2", "--csv", d.dir + "/out.csv"});
  CU_ASSERT_EQUAL(Sim(args, &out2, &err), 0);
  CU_ASSERT_EQUAL(NoWall(out), NoWall(out2));
  std::ifstream csv(d.dir + "/out.csv");
  std::string header;
  std::getline(csv, header);
  CU_ASSERT(Contains(header, "latency_p99_ns"));
  // Every row has the header's columns, vl_hops one field per point with
  // the point's 2 VLs' hops summing to packet_hops.
  const std::vector<std::string> columns = SplitCsv(header);
  const auto column = [&](const char* name) {
    return size_t(std::find(columns.begin(), columns.end(), name) - columns.begin());
  };
  CU_ASSERT(column("vl_hops") + 2 == columns.size());  // before the error text
  int rows = 0;
  for (std::string row; std::getline(csv, row); ++rows) {
    const std::vector<std::string> f = SplitCsv(row);
    CU_ASSERT_EQUAL_FATAL(f.size(), columns.size());
    uint64_t sum = 0;
    int vls = 0;
    std::istringstream hops(f[column("vl_hops")]);
    for (std::string v; std::getline(hops, v, ';'); ++vls) sum += std::stoull(v);
    CU_ASSERT_EQUAL(vls, 2);
    CU_ASSERT_EQUAL(sum, std::stoull(f[column("packet_hops")]));
    CU_ASSERT(sum > 0);
  }
  CU_ASSERT_EQUAL(rows, 4);

  // Hardware multicast from the dumped MFT (--traffic given once: a
  // repeated option is refused), a batch run: without the window, which
  // it would not read.
  args = base;
  *(std::find(args.begin(), args.end(), "--traffic") + 1) = "mcast:all:all";
  args.resize(args.size() - 4);  // the window's two --params
  args.insert(args.end(), {"--param", "batch=3"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  CU_ASSERT(Contains(out, "\"ops_measured\":15"));
}

// A NETFILE beside dump:DIR: a file of the same fabric is replaced by
// the dump's (a note says so), another fabric is refused, also under
// --quiet, where it used to replay the dump's fabric without a word.
void TestCliNetfileWithDump() {
  DumpDir d;
  auto write_net = [&](const std::string& name, const Setup& st) {
    std::ofstream(d.dir + "/" + name) << [&] {
      std::ostringstream os;
      WriteNetFile(os, st.fabric, {});
      return os.str();
    }();
  };
  write_net("same.net", Tree(3, 3));
  write_net("other.net", Tree(4, 2));
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid",
                                         "--load", "0.1", "--no-wall"};
  std::string out, err;
  auto args = base;
  args.insert(args.begin(), d.dir + "/same.net");
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  CU_ASSERT(Contains(err, "note: using " + d.dir + "/fabric.net (with the LIDs the SM assigned), not " + d.dir +
                              "/same.net (the same switches and end ports)"));
  args = base;
  args.insert(args.begin(), d.dir + "/other.net");
  args.push_back("--quiet");
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 2);
  CU_ASSERT(Contains(err, "NETFILE " + d.dir + "/other.net is not the fabric of dump:" + d.dir +
                              ": it has 5 switches and 8 end ports, the dump 4 switches and 9 end ports"));
  CU_ASSERT(Contains(err, "leave NETFILE out, dump:DIR replays its own fabric.net"));
  CU_ASSERT(out.empty());
  std::remove((d.dir + "/same.net").c_str());
  std::remove((d.dir + "/other.net").c_str());
}

// A dump without mfts.dump (fabric-run --no-mft) and multicast traffic:
// the missing file is named, not "no multicast group" in the MFTs.
void TestCliDumpWithoutMfts() {
  DumpDir d;
  std::remove((d.dir + "/mfts.dump").c_str());
  std::string err;
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid", "--quiet"};
  auto args = base;
  args.insert(args.end(), {"--traffic", "mcast:1:all", "--param", "batch=1"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 2);
  CU_ASSERT(Contains(err, d.dir + "/mfts.dump: missing (fabric-run --no-mft writes none)"));
  args = base;
  args.insert(args.end(), {"--load", "0.1"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 0);  // unicast needs none
}

// A fresh directory /tmp/ibusim-NAME-XXXXXX for a test's files.
std::string ScratchDir(const std::string& name) {
  std::string tmpl = "/tmp/ibusim-" + name + "-XXXXXX";
  return mkdtemp(&tmpl[0]);
}

// Job sets (--emit-jobs) run this build's ibunion (make check builds it
// first); the test unsets IBUNION_PROGRAM when done.
void UseThisBuildForJobs() {
  char self[4096];
  CU_ASSERT_FATAL(realpath("ibunion", self) != nullptr);
  setenv("IBUNION_PROGRAM", self, 1);
}

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// --mcast-mode unicast on a dump sends to the dumped group's members (the
// MFTs' five, or the one --param mlid names), as hardware mode does; it drew
// a group from the whole fabric.
void TestCliDumpUnicastUsesDumpedGroup() {
  DumpDir d;
  std::string err;
  auto members = [&](const std::string& mode, const std::string& mlid) {
    const std::string file = d.dir + "/members." + mode;
    CU_ASSERT_EQUAL(Sim({"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid", "--traffic",
                         "mcast:all:all", "--mcast-mode", mode, "--param", "batch=1", "--param",
                         "mlid=" + mlid, "--quiet", "--members", file},
                        nullptr, &err),
                    0);
    const std::string text = Slurp(file);
    std::remove(file.c_str());
    return text;
  };
  const std::string hw = members("hw", "0"), unicast = members("unicast", "0xc001");
  CU_ASSERT_EQUAL(std::count(hw.begin(), hw.end(), '\n'), 10);  // 5 members, each a source
  CU_ASSERT_EQUAL(unicast, hw);
}

// `ibunion sim` on FT(8,3) as the generator writes it and with every record
// in reverse (hosts first, as ibnetdiscover lists ibsim's trees), each with
// the same per-host LIDs: mlid prints the same run, byte for byte, for
// drawn destinations, a random permutation and multicast by hardware trees
// and by unicast copies. Hosts are numbered by tree address, arrivals start
// and copies go out in that order.
void TestCliReversedNetFileSameRun() {
  DumpDir d;
  Fabric tree = MakeFatTree(8, 3);
  AssignDefaultLids(tree, 4);
  const std::string canon = d.dir + "/canon.net", reversed = d.dir + "/reversed.net";
  std::ofstream(canon) << [&] {
    std::ostringstream os;
    WriteNetFile(os, tree, {});
    return os.str();
  }();
  std::ofstream(reversed) << [&] {
    std::ostringstream os;
    WriteNetFile(os, tree, test::ReversedRecords(tree));
    return os.str();
  }();
  for (const std::vector<std::string>& traffic :
       std::vector<std::vector<std::string>>{{"--traffic", "uniform", "--sweep", "0.2:0.6:0.4"},
                                             {"--traffic", "randperm", "--vls", "4", "--load", "0.5"},
                                             {"--traffic", "mcast:5:20", "--param", "batch=2"},
                                             {"--traffic", "mcast:5:20", "--mcast-mode", "unicast", "--param", "batch=2"}}) {
    std::string a, b, err;
    auto args = [&](const std::string& net) {
      std::vector<std::string> v = {net, "--routing", "mlid", "--json", "--no-wall", "--quiet", "--msg", "256",
                                    "--param", "warmup_ns=5000", "--param", "measure_ns=30000"};
      v.insert(v.end(), traffic.begin(), traffic.end());
      return v;
    };
    if (traffic[1].rfind("mcast", 0) == 0) {  // batch runs read no window
      auto drop_window = [](std::vector<std::string> v) {
        v.erase(v.begin() + 8, v.begin() + 12);
        return v;
      };
      CU_ASSERT_EQUAL(Sim(drop_window(args(canon)), &a, &err), 0);
      CU_ASSERT_EQUAL(Sim(drop_window(args(reversed)), &b, &err), 0);
    } else {
      CU_ASSERT_EQUAL(Sim(args(canon), &a, &err), 0);
      CU_ASSERT_EQUAL(Sim(args(reversed), &b, &err), 0);
    }
    CU_ASSERT(Contains(a, "\"packets_delivered\":"));
    CU_ASSERT_EQUAL(a, b);
    if (a != b) std::cerr << "\n  " << traffic[1] << ":\n  " << a << "  " << b << err;
  }
  std::remove(canon.c_str());
  std::remove(reversed.c_str());
}

// --sources FILE: the sources a --members file names, not drawn ones; on a
// dump each must be a member of the dumped group, so that a replay of
// OpenSM's tree sends from the hosts the engine's run drew (seed002).
void TestCliGivenSources() {
  DumpDir d;
  const Fabric tree = Tree(3, 3).fabric;  // the dump's fabric; MLID 0xc001 reaches 0, 1, 4, 7, 8
  const std::string file = d.dir + "/sources", members = d.dir + "/members.out";
  auto name = [&](int ep) { return tree.end_ports[size_t(ep)].name; };
  std::string err;
  auto run = [&](const std::string& text, std::vector<std::string> args) {
    std::ofstream(file) << text;
    args.insert(args.end(), {"--param", "batch=1", "--quiet", "--members", members, "--sources", file});
    return Sim(args, nullptr, &err);
  };
  const std::vector<std::string> dump = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid"};
  auto with = [](std::vector<std::string> a, const std::string& traffic) {
    a.insert(a.end(), {"--traffic", traffic});
    return a;
  };
  auto sources_written = [&] {
    std::istringstream in(Slurp(members));
    std::string line, out;
    while (std::getline(in, line))
      if (line.rfind("source ", 0) == 0) out += line + "\n";
    return out;
  };

  // Group lines and comments are skipped; the sources are those named.
  CU_ASSERT_EQUAL(run("# from another run\ngroup " + name(0) + "\nsource " + name(7) + "\nsource " + name(1) + "\n",
                      with(dump, "mcast:2:all")),
                  0);
  CU_ASSERT_EQUAL(sources_written(), "source " + name(1) + "\nsource " + name(7) + "\n");
  CU_ASSERT_EQUAL(run("source " + name(4) + "\n", with(dump, "mcast:1:all")), 0);
  CU_ASSERT_EQUAL(sources_written(), "source " + name(4) + "\n");

  // Refused, naming the file and line.
  CU_ASSERT_EQUAL(run("source " + name(1) + "\nsource " + name(7) + "\n", with(dump, "mcast:3:all")), 2);
  CU_ASSERT(Contains(err, "--sources " + file + ": names 2 source(s), but --traffic mcast:3:all asks for 3 of the "
                          "dumped group's 5 members (give SOURCES as 2)"));
  CU_ASSERT_EQUAL(run("source " + name(1) + "\nsource " + name(2) + "\n", with(dump, "mcast:2:all")), 2);
  CU_ASSERT(Contains(err, file + ":2: source " + name(2) + " is not a member of the dumped MLID 0xc001"));
  CU_ASSERT_EQUAL(run("source nosuch\n", with(dump, "mcast:1:all")), 2);
  CU_ASSERT(Contains(err, file + ":1: no end port named 'nosuch' in the fabric"));
  CU_ASSERT_EQUAL(run("source " + name(1) + "\n\nsource " + name(1) + "\n", with(dump, "mcast:2:all")), 2);
  CU_ASSERT(Contains(err, file + ":3: source '" + name(1) + "' named again (first at " + file + ":1)"));
  CU_ASSERT_EQUAL(run("sauce " + name(1) + "\n", with(dump, "mcast:1:all")), 2);
  CU_ASSERT(Contains(err, file + ":1: expected 'source NAME' or 'group NAME'"));
  CU_ASSERT_EQUAL(run("group " + name(1) + "\n", with(dump, "mcast:1:all")), 2);
  CU_ASSERT(Contains(err, "--sources " + file + ": no 'source NAME' line"));
  CU_ASSERT_EQUAL(run("source " + name(1) + "\n", with(dump, "shift")), 2);
  CU_ASSERT(Contains(err, "--sources " + file + ": only with multicast traffic"));
  std::remove(file.c_str());
  std::vector<std::string> missing = with(dump, "mcast:1:all");
  missing.insert(missing.end(), {"--param", "batch=1", "--sources", file});
  CU_ASSERT_EQUAL(Sim(missing, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--sources " + file + ": cannot read the file"));
  std::ofstream(d.dir + "/bad.conf") << "sources = " << file << "\n";  // named as the config file gives it
  std::vector<std::string> by_config = with(dump, "mcast:1:all");
  by_config.insert(by_config.end(), {"--param", "batch=1", "--config", d.dir + "/bad.conf"});
  CU_ASSERT_EQUAL(Sim(by_config, nullptr, &err), 2);
  CU_ASSERT(Contains(err, d.dir + "/bad.conf:1: sources = " + file + ": cannot read the file"));

  // An engine's run: the group is drawn, the sources are the file's.
  const Fabric ft = MakeFatTree(4, 2);
  std::ofstream(d.dir + "/ft.net") << [&] {
    std::ostringstream os;
    WriteNetFile(os, ft, {});
    return os.str();
  }();
  const std::vector<std::string> mlid = {d.dir + "/ft.net", "--routing", "mlid"};
  const std::string two = "source " + ft.end_ports[6].name + "\nsource " + ft.end_ports[2].name + "\n";
  CU_ASSERT_EQUAL(run(two, with(mlid, "mcast:2:0.5")), 0);
  CU_ASSERT_EQUAL(sources_written(),
                  "source " + ft.end_ports[2].name + "\nsource " + ft.end_ports[6].name + "\n");
  CU_ASSERT_EQUAL(run(two, with(mlid, "mcast:0.5:0.5")), 2);
  CU_ASSERT(Contains(err, "asks for 4 of the fabric's 8 hosts (give SOURCES as 2)"));

  // Hosts sharing a node description (dual-port HCAs, vendor defaults) are
  // written by port GUID, and the written file reads back as the same run.
  // As ibnetdiscover writes them: node IDs unique, descriptions after '#'.
  auto replace_all = [](std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
    return s;
  };
  std::ofstream(d.dir + "/shared.net") << [&] {
    std::ostringstream os;
    WriteNetFile(os, ft, {});
    std::string text = os.str();
    for (int ep : {2, 5, 6}) {
      const std::string host_id = "\"H-" + std::to_string(ep) + "\"";
      text = replace_all(text, "\"" + ft.end_ports[size_t(ep)].name + "\"", host_id);
      text = replace_all(text, "Hca\t1 " + host_id + "\n", "Hca\t1 " + host_id + "\t# \"node HCA-1\"\n");
    }
    return text;
  }();
  const Fabric shared = ReadNetFile(d.dir + "/shared.net");
  CU_ASSERT_EQUAL(shared.end_ports[6].name, "node HCA-1");
  const std::vector<std::string> on_shared = {d.dir + "/shared.net", "--routing", "mlid"};
  const std::string guid6 = Hex16(shared.end_ports[6].port_guid);
  CU_ASSERT_EQUAL(
      run("source " + guid6 + "\nsource " + ft.end_ports[3].name + "\n", with(on_shared, "mcast:2:all")), 0);
  const std::string written = Slurp(members);
  CU_ASSERT_EQUAL(sources_written(), "source " + ft.end_ports[3].name + "\nsource " + guid6 + "\n");
  CU_ASSERT(Contains(written, "group " + Hex16(shared.end_ports[2].port_guid) + "\n"));
  CU_ASSERT(!Contains(written, "node HCA-1"));
  CU_ASSERT_EQUAL(run(written, with(on_shared, "mcast:2:all")), 0);
  CU_ASSERT_EQUAL(Slurp(members), written);
  CU_ASSERT_EQUAL(
      run("source " + ft.end_ports[3].name + "\nsource node HCA-1\n", with(on_shared, "mcast:2:all")), 2);
  CU_ASSERT(Contains(err, file + ":2: 'node HCA-1' is the node description of 3 end ports (port GUIDs "));
  CU_ASSERT(Contains(err, "expected one of them by its port GUID or LID"));
  CU_ASSERT_EQUAL(run("source nosuch\n", with(on_shared, "mcast:1:all")), 2);
  CU_ASSERT(Contains(err, file + ":1: no end port named 'nosuch' in the fabric (8 end ports; expected a node "
                                 "description, port GUID or LID)"));
  std::remove(file.c_str());
  std::remove(members.c_str());
  std::remove((d.dir + "/ft.net").c_str());
  std::remove((d.dir + "/shared.net").c_str());
}

// --save with --json: the record goes to the file, the point's JSON object
// (and nothing else) to stdout, as without --save; --json was ignored.
void TestCliSaveWithJson() {
  DumpDir d;
  const std::string save = d.dir + "/point.rec";
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir,  "--guid2lid", d.dir + "/guid2lid",
                                         "--param",   "warmup_ns=2000", "--param",    "measure_ns=20000",
                                         "--sweep",   "0.1:0.2:0.1",    "--point",    "1",
                                         "--json",    "--no-wall"};
  std::string plain, saved, err;
  CU_ASSERT_EQUAL(Sim(base, &plain, &err), 0);
  auto args = base;
  args.insert(args.end(), {"--save", save});
  CU_ASSERT_EQUAL(Sim(args, &saved, &err), 0);
  CU_ASSERT(plain.rfind("{\"point\":1,\"load\":0.2,", 0) == 0);
  CU_ASSERT_EQUAL(saved, plain);
  const std::string record = Slurp(save);
  std::remove(save.c_str());
  CU_ASSERT(record.rfind("{\"point\":1,", 0) == 0 && record != plain);
  // Without --json a job's point goes to its file only.
  args.erase(std::find(args.begin(), args.end(), "--json"));
  CU_ASSERT_EQUAL(Sim(args, &saved, &err), 0);
  CU_ASSERT(saved.empty());
  CU_ASSERT(Slurp(save).rfind("{\"point\":1,", 0) == 0);
  std::remove(save.c_str());
}

// A sweep written as jobs (--emit-jobs), the jobs run by a plain shell loop
// (as GNU parallel or a Slurm array would), then --merge: the same JSON,
// CSV and per-link CSV (--links) as the direct sweep, byte for byte
// (--no-wall: wall_s and packet_hops_per_s are the only fields that differ
// between two runs).
void TestCliEmitJobsAndMerge() {
  DumpDir d;
  const std::string work = ScratchDir("jobs");
  UseThisBuildForJobs();
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid",
                                         "--traffic", "centric:0.2", "--vls", "2", "--seed", "9", "--quiet",
                                         "--param", "warmup_ns=2000", "--param", "measure_ns=20000",
                                         "--sweep", "0.1:0.5:0.1"};
  std::string direct, err;
  auto args = base;
  args.insert(args.end(), {"--json", "--no-wall", "--jobs", "2", "--csv", work + "/direct.csv", "--links",
                           work + "/direct-links.csv"});
  CU_ASSERT_EQUAL(Sim(args, &direct, &err), 0);

  // Output files belong to the merge, not to the jobs.
  args = base;
  args.insert(args.end(), {"--emit-jobs", work + "/set", "--links", work + "/l.csv"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--merge DIR --links FILE"));
  args = base;
  args.insert(args.end(), {"--emit-jobs", work + "/set", "--csv", work + "/c.csv"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--csv: not with --emit-jobs"));
  args = base;
  args.insert(args.end(), {"--emit-jobs", work + "/set", "--plot", work + "/p.png"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--plot: not with --emit-jobs; give it to the merge (ibunion sim --merge DIR --plot FILE)"));
  args = base;
  args.insert(args.end(), {"--point", "2", "--save", work + "/p2.json", "--csv", work + "/c.csv"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--csv: not with --save"));

  // --point N alone writes that point's rows of the sweep's --csv and --links.
  args = base;
  args.insert(args.end(), {"--point", "2", "--no-wall", "--csv", work + "/p2.csv", "--links", work + "/p2-links.csv"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 0);

  args = base;
  args.insert(args.end(), {"--emit-jobs", work + "/set"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 0);
  std::ifstream jobs(work + "/set/jobs.txt");
  int lines = 0;
  for (std::string line; std::getline(jobs, line);) ++lines;
  CU_ASSERT_EQUAL(lines, 5);
  std::ifstream slurm(work + "/set/slurm.sh");
  std::stringstream script;
  script << slurm.rdbuf();
  CU_ASSERT(Contains(script.str(), "#SBATCH --array=0-4"));
  CU_ASSERT(Contains(script.str(), "SLURM_ARRAY_TASK_ID"));

  // Not all points done yet: the merge names the missing ones and lists
  // their jobs.txt commands.
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--json"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "5 of 5 points not done"));
  CU_ASSERT(Contains(err, "; rerun:\n  cd "));
  CU_ASSERT(Contains(err, " --point 0 --save ") && Contains(err, " --point 4 --save " + work + "/set/points/4.json --quiet\n"));
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--links", work + "/merged-links.csv"}, nullptr, &err), 2);

  const std::string loop = "while IFS= read -r line; do bash -c \"$line\" || exit 1; done < " + work + "/set/jobs.txt";
  CU_ASSERT_EQUAL(std::system(loop.c_str()), 0);
  std::string merged;
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--json", "--no-wall", "--csv", work + "/merged.csv", "--links",
                       work + "/merged-links.csv"},
                      &merged, &err),
                  0);
  CU_ASSERT(!merged.empty());
  CU_ASSERT(merged == direct);
  CU_ASSERT(Slurp(work + "/merged.csv") == Slurp(work + "/direct.csv"));
  CU_ASSERT(!Slurp(work + "/merged.csv").empty());
  const std::string links = Slurp(work + "/merged-links.csv");
  CU_ASSERT(links == Slurp(work + "/direct-links.csv"));
  CU_ASSERT(links.rfind("point,link,util\n0,\"", 0) == 0 && Contains(links, "\n4,\"") && Contains(links, " -> "));
  {
    std::istringstream all(Slurp(work + "/direct.csv")), linked(links);
    std::string want, line;
    for (int no = 0; std::getline(all, line); ++no)
      if (no == 0 || line.rfind("2,", 0) == 0) want += line + "\n";
    CU_ASSERT(Slurp(work + "/p2.csv") == want);
    want.clear();
    for (int no = 0; std::getline(linked, line); ++no)
      if (no == 0 || line.rfind("2,", 0) == 0) want += line + "\n";
    CU_ASSERT(Slurp(work + "/p2-links.csv") == want);
    CU_ASSERT(!Slurp(work + "/p2-links.csv").empty() && !Slurp(work + "/p2.json").size());
  }

  // A point of another run (here 64-byte messages) saved over one of the
  // set's was merged into its table without a word; so was a hand-edited
  // figure.
  const std::string point2 = Slurp(work + "/set/points/2.json");
  args = base;
  args.insert(args.end(), {"--msg", "64", "--point", "2", "--save", work + "/set/points/2.json"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 0);
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--no-wall"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "points/2.json: a point of another run (") && Contains(err, " msg=64 ") &&
            Contains(err, "), not of this job set's (") && Contains(err, "point 2 is line 3 of "));
  // Each edit replaces one field ("key":value, up to the next ',' or an
  // array's ']') and is refused by name.
  const struct {
    const char* field;
    const char* value;
    const char* error;
  } kEdits[] = {
      {"accepted", "-1", "field \"accepted\": expected a finite number >= 0, got -1"},
      {"accepted", "\"x\"", "field \"accepted\": expected a finite number >= 0, got x"},
      {"ops_unfinished", "-1", "field \"ops_unfinished\": expected a whole number >= 0, got -1"},
      {"packets_delivered", "1e300", "field \"packets_delivered\": expected a whole number >= 0, got 1e300"},
      {"point", "4294967298", "field \"point\": expected a whole number 0..2147483647, got 4294967298"},
      {"deadlock", "5", "field \"deadlock\": expected true or false, got 5"},
      {"vl_hops", "[-1e30]", "field \"vl_hops\": expected whole numbers >= 0, got -1e+30"},
      {"link_util", "[0.5,-0.25]", "field \"link_util\": expected finite numbers >= 0, got -0.25"},
      {"vl_hops", "[1-2]", "bad number in \"vl_hops\""},
      {"offered", "0.1,\"offered\":0.2", "\"offered\" given twice"},
  };
  for (const auto& e : kEdits) {
    std::string edited = point2;
    const std::string key = std::string("\"") + e.field + "\":";
    const size_t at = edited.find(key);
    CU_ASSERT_FATAL(at != std::string::npos);
    const size_t end = edited[at + key.size()] == '[' ? edited.find(']', at) + 1 : edited.find(',', at);
    edited.replace(at, end - at, key + e.value);
    std::ofstream(work + "/set/points/2.json") << edited;
    CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--no-wall"}, nullptr, &err), 2);
    CU_ASSERT(Contains(err, std::string("points/2.json: ") + e.error));
  }
  std::ofstream(work + "/set/points/2.json") << point2;
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--json", "--no-wall"}, &merged, &err), 0);
  CU_ASSERT(merged == direct);

  // A job set whose link names are not the records' fabric: the merge
  // writes neither file.
  std::ofstream(work + "/set/links.txt") << "ibunion-sim-links 1\nports 3\n0 a -> b\n";
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--csv", work + "/m2.csv", "--links", work + "/m2-links.csv"},
                      nullptr, &err),
                  2);
  CU_ASSERT(Contains(err, "points/0.json") && Contains(err, "another fabric"));
  CU_ASSERT(Slurp(work + "/m2.csv").empty() && Slurp(work + "/m2-links.csv").empty());
  std::ofstream(work + "/set/links.txt") << "ibunion-sim-links 1\nports 3\n7 a -> b\n";
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--links", work + "/m2-links.csv"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "links.txt:3"));
  // Counts and port numbers are plain decimal, as --emit-jobs writes them.
  for (const char* bad : {"ports +3\n", "ports 3\n+0 a -> b\n", "ports 3\n 0 a -> b\n"}) {
    std::ofstream(work + "/set/links.txt") << "ibunion-sim-links 1\n" << bad;
    CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--links", work + "/m2-links.csv"}, nullptr, &err), 2);
    CU_ASSERT(Contains(err, "links.txt:") && Contains(err, "expected '"));
  }

  // A second --emit-jobs into the same directory is refused.
  args = base;
  args.insert(args.end(), {"--emit-jobs", work + "/set"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "already holds a job set"));
  // slurm.sh's #SBATCH --output has no escape for a double quote: refused
  // before anything is written.
  args = base;
  args.insert(args.end(), {"--emit-jobs", work + "/q\"uote"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 2);
  CU_ASSERT(
      Contains(err, "--emit-jobs " + work + "/q\"uote: Slurm's #SBATCH --output cannot hold a double quote"));
  CU_ASSERT(access((work + "/q\"uote").c_str(), F_OK) != 0);
  unsetenv("IBUNION_PROGRAM");
  CU_ASSERT_EQUAL(std::system(("rm -rf " + work).c_str()), 0);
}

// A dump directory refilled between --emit-jobs and its jobs: the points
// were computed on other tables, and the merge refuses them (it used to
// merge them into one curve under the set's name).
void TestCliMergeRefusesChangedInputs() {
  DumpDir d;
  const std::string work = ScratchDir("inputs");
  UseThisBuildForJobs();
  std::string err;
  CU_ASSERT_EQUAL(Sim({"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid", "--sweep",
                       "0.1:0.2:0.1", "--no-wall", "--emit-jobs", work + "/set"},
                      nullptr, &err),
                  0);
  std::ofstream(d.dir + "/lfts.dump", std::ios::app) << "\n";  // other bytes, the same tables
  CU_ASSERT_EQUAL(std::system(("bash " + work + "/set/jobs.txt").c_str()), 0);
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--no-wall"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "/set/points/0.json: computed on other input files than this job set's"));
  unsetenv("IBUNION_PROGRAM");
  CU_ASSERT_EQUAL(std::system(("rm -rf " + work).c_str()), 0);
}

// A batch run queues its messages at t=0: it offers no load, and its rows
// said the default one (0.1). Its load is "batch" in the table, null in
// JSON and the saved record, empty in CSV; its merge, like the direct run
// and a single --load point's, prints no saturation line, and gives the
// direct run's heading on stderr.
void TestCliBatchPointHasNoLoad() {
  DumpDir d;
  const std::string work = ScratchDir("batch");
  UseThisBuildForJobs();
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid",
                                         "--param",   "batch=2",       "--no-wall"};
  std::string table, json, err, direct_err;
  auto args = base;
  args.insert(args.end(), {"--csv", work + "/direct.csv"});
  CU_ASSERT_EQUAL(Sim(args, &table, &direct_err), 0);
  CU_ASSERT(Contains(table, "\n  batch ") && !Contains(table, "saturation") && !Contains(table, "0.1000"));
  CU_ASSERT(Contains(Slurp(work + "/direct.csv"), "\n0,,"));
  args = base;
  args.push_back("--json");
  CU_ASSERT_EQUAL(Sim(args, &json, &err), 0);
  CU_ASSERT(json.rfind("{\"point\":0,\"load\":null,", 0) == 0);

  args = base;
  args.insert(args.end(), {"--emit-jobs", work + "/set"});
  CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 0);
  const std::string loop = "bash " + work + "/set/jobs.txt";
  CU_ASSERT_EQUAL(std::system(loop.c_str()), 0);
  CU_ASSERT(Slurp(work + "/set/points/0.json").rfind("{\"point\":0,\"load\":null,", 0) == 0);
  std::string merged;
  std::string merge_err;
  CU_ASSERT_EQUAL(
      Sim({"--merge", work + "/set", "--no-wall", "--csv", work + "/merged.csv"}, &merged, &merge_err), 0);
  CU_ASSERT(merged == table);
  // The heading the direct run gave on stderr, without the engine's notes.
  const size_t head_at = direct_err.find("ibunion sim: " + d.dir);
  CU_ASSERT_FATAL(head_at != std::string::npos);
  CU_ASSERT(merge_err == direct_err.substr(head_at, direct_err.find('\n', head_at) + 1 - head_at));
  CU_ASSERT(Slurp(work + "/merged.csv") == Slurp(work + "/direct.csv"));
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--json", "--no-wall"}, &merged, &err), 0);
  CU_ASSERT(merged == json);
  // A record that is no point of the set (a leftover of another run) was
  // skipped without a word; the merge now names it, and merges the same.
  std::ofstream(work + "/set/points/1.json") << Slurp(work + "/set/points/0.json");
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/set", "--json", "--no-wall"}, &merged, &err), 0);
  CU_ASSERT(merged == json);
  CU_ASSERT(
      Contains(err, "/set/points holds 1 file(s) that are no point of this set of 1 (1.json): not merged"));
  unsetenv("IBUNION_PROGRAM");
  CU_ASSERT_EQUAL(std::system(("rm -rf " + work).c_str()), 0);
}

void TestCliBadInput() {
  DumpDir d;
  const std::string routing = "dump:" + d.dir;
  std::string err;
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--bogus", "1"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--bogus"));
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--vls", "9"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--vls 9"));
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--param", "fly=3"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "fly"));
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--traffic", "mcast:0:1"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--traffic mcast:0:1"));
  // A replay's group is the dumped MLID's five members: another GROUP was
  // dropped without a word. All of them, by fraction or count, is fine.
  for (const char* group : {"0.4", "3", "6"}) {
    const std::string traffic = std::string("mcast:all:") + group;
    CU_ASSERT_EQUAL(Sim({"--routing", routing, "--guid2lid", d.dir + "/guid2lid", "--traffic", traffic, "--param",
                         "batch=1"},
                        nullptr, &err),
                    2);
    CU_ASSERT(Contains(err, "--traffic " + traffic + ": with --routing dump:DIR the group is the 5 members of "
                            "the dumped MLID 0xc001; give GROUP as all or 5"));
  }
  for (const char* group : {"all", "100%", "5"})
    CU_ASSERT_EQUAL(Sim({"--routing", routing, "--guid2lid", d.dir + "/guid2lid", "--traffic",
                         std::string("mcast:all:") + group, "--param", "batch=1", "--quiet"},
                        nullptr, &err),
                    0);
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--load"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--load"));
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--sweep", "0.5:0.1:0.1"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--sweep"));
  CU_ASSERT_EQUAL(Sim({"--routing", "dump:/nonexistent-dir"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "/nonexistent-dir/fabric.net"));
  CU_ASSERT_EQUAL(Sim({"--routing", "nosuchengine", d.dir + "/fabric.net"}, nullptr, &err), 2);

  std::ofstream(d.dir + "/bad.conf") << "# comment\nvls = 2\nthis line is wrong\n";
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--config", d.dir + "/bad.conf"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, d.dir + "/bad.conf:3"));
  std::ofstream(d.dir + "/bad.conf") << "route_ns = fast\n";
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--config", d.dir + "/bad.conf"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "bad.conf:1"));
  CU_ASSERT(Contains(err, "route_ns"));

  // A config file that works, overridden by the command line.
  std::ofstream(d.dir + "/good.conf") << "guid2lid = " << d.dir << "/guid2lid\nload = 0.2\nvls = 4\n"
                                      << "measure_ns = 10000\nwarmup_ns = 1000\nquiet = yes\n";
  std::string out;
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--config", d.dir + "/good.conf", "--vls", "1", "--json"}, &out,
                      &err),
                  0);
  CU_ASSERT(Contains(out, "\"load\":0.2"));

  // Tables that do not match the fabric: an LFT entry beyond the ports.
  {
    std::ifstream in(d.dir + "/lfts.dump");
    std::stringstream all;
    all << in.rdbuf();
    std::string text = all.str();
    const size_t pos = text.find("0x0001 002");
    CU_ASSERT_FATAL(pos != std::string::npos);
    text.replace(pos, 10, "0x0001 077");
    std::ofstream(d.dir + "/lfts.dump") << text;
  }
  CU_ASSERT_EQUAL(Sim({"--routing", routing, "--guid2lid", d.dir + "/guid2lid"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "lfts.dump"));
}

// LFTs made for other LIDs than the fabric's (a guid2lid of another run):
// refused at set-up, naming the dump, the switch, the LID and the end port,
// instead of failing as a bad route in the middle of the run.
void TestCliTablesForOtherLids() {
  DumpDir d;
  std::vector<std::string> guids, lids;
  {
    std::ifstream in(d.dir + "/guid2lid");
    for (std::string line; std::getline(in, line);) {
      const size_t sp = line.find(' ');
      if (sp == std::string::npos) continue;
      guids.push_back(line.substr(0, sp));
      lids.push_back(line.substr(sp));
    }
  }
  CU_ASSERT_FATAL(guids.size() > 2);
  {
    std::ofstream out(d.dir + "/guid2lid");  // every LID moved on by one line
    for (size_t i = 0; i < guids.size(); ++i) out << guids[i] << lids[(i + 1) % lids.size()] << "\n";
  }
  std::string err;
  CU_ASSERT_EQUAL(Sim({"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid"}, nullptr, &err), 2);
  // The reader sees it first: the table headers name the switches' LIDs.
  CU_ASSERT(Contains(err, d.dir + "/lfts.dump:"));
  CU_ASSERT(Contains(err, "in this table's header: the tables were made for other LIDs"));
  CU_ASSERT(Contains(err, "guid2lid"));
}

// A dump that lacks a switch's table (ibroute prints one for every switch,
// with rows or without) is refused before the run, naming the file and the
// switch, as verify and trace refuse it: the first packet through that
// switch used to fail mid-run with "no route", and a missing MFT went
// unnoticed where no group crossed it.
void TestCliDumpMissingSwitchTable() {
  for (const std::string& file : {std::string("lfts.dump"), std::string("mfts.dump")}) {
    DumpDir d;
    const std::string path = d.dir + "/" + file;
    std::string text;
    {
      std::ifstream in(path);
      text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    // The last switch's table goes (each starts "Unicast lids" / "Multicast mlids").
    const size_t last = text.rfind(file == "lfts.dump" ? "Unicast lids" : "Multicast mlids");
    CU_ASSERT_FATAL(last != std::string::npos && last > 0);
    std::ofstream(path) << text.substr(0, last);
    std::string err;
    CU_ASSERT_EQUAL(Sim({"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid", "--load", "0.1",
                         "--param", "measure_ns=2000"},
                        nullptr, &err),
                    2);
    CU_ASSERT(Contains(err, path + ": no " + (file == "lfts.dump" ? "LFT" : "MFT") + " for "));
  }
}

// path-sl.dump (read-path-sl: the SL OpenSM's SA gives each path) sets
// each message's SL under sl=auto and sl=engine; without it a replay of
// dfsssp's tables used hashed SLs, not the ones its deadlock freedom rests
// on, and showed credit loops the fabric does not have. Bad files: exit 2
// naming file and line.
void TestCliDumpPathSls() {
  DumpDir d;
  const Setup st = Tree(3, 3);
  const Fabric& f = st.fabric;
  auto write = [&](const std::string& extra, size_t drop) {
    std::ofstream os(d.dir + "/path-sl.dump");
    os << "# path SLs\n";
    size_t n = 0;
    for (const EndPort& s : f.end_ports)
      for (const EndPort& t : f.end_ports)
        if (&s != &t && n++ >= drop) os << s.base_lid << " " << t.base_lid << " 1\n";
    os << extra;
  };
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid",
                                         "--vls", "2", "--load", "0.2", "--json",
                                         "--param", "measure_ns=5000"};
  auto run = [&](std::vector<std::string> more, std::string* out, std::string* err) {
    std::vector<std::string> args = base;
    args.insert(args.end(), more.begin(), more.end());
    return Sim(args, out, err);
  };
  std::string out, err;
  CU_ASSERT_EQUAL(run({}, &out, &err), 0);  // no file: hashed SLs on both VLs
  CU_ASSERT(Contains(err, "SLs a hash of source and destination (no path-sl.dump: not the SLs the SA hands out)"));
  CU_ASSERT(std::regex_search(out, std::regex("\"vl_hops\":\\[[1-9][0-9]*,[1-9]")));
  write("", 0);
  for (const char* sl : {"auto", "engine"}) {
    CU_ASSERT_EQUAL(run({"--param", std::string("sl=") + sl}, &out, &err), 0);
    CU_ASSERT(Contains(err, "SLs the SA's per path (" + d.dir + "/path-sl.dump)"));
    CU_ASSERT(std::regex_search(out, std::regex("\"vl_hops\":\\[0,[1-9]")));  // every path on SL 1: VL 1
  }
  CU_ASSERT_EQUAL(run({"--param", "sl=0"}, &out, &err), 0);  // a fixed SL still wins
  CU_ASSERT(std::regex_search(out, std::regex("\"vl_hops\":\\[[1-9][0-9]*,0\\]")));

  const std::string file = d.dir + "/path-sl.dump:";
  const Lid a = f.end_ports[0].base_lid, b = f.end_ports[1].base_lid;
  const std::string pair = std::to_string(a) + " " + std::to_string(b);
  // 72 paths (9 hosts, LMC 0) on lines 2..73 after the comment: a bad line is 74.
  const std::vector<std::tuple<std::string, size_t, std::string>> bad = {
      {pair + " 16\n", 0, file + "74: expected 'SLID DLID SL' (LIDs, an SL 0..15), got '" + pair + " 16'"},
      {pair + "\n", 0, file + "74: expected 'SLID DLID SL'"},
      {"999 " + std::to_string(b) + " 1\n", 0, file + "74: SLID 999 is no end port's base LID"},
      {std::to_string(a) + " " + std::to_string(a) + " 1\n", 0,
       file + "74: DLID " + std::to_string(a) + " is no LID of another end port"},
      {pair + " 2\n", 0, file + "74: path SLID " + std::to_string(a) + " DLID " + std::to_string(b) +
                            " appears again (first at line 2)"},
      {"", 1, "path-sl.dump: 71 of the fabric's 72 (source base LID, destination LID) paths"},
  };
  for (const auto& [extra, drop, message] : bad) {
    write(extra, drop);
    CU_ASSERT_EQUAL(run({}, &out, &err), 2);
    CU_ASSERT(Contains(err, message));
    if (!Contains(err, message)) std::cerr << "expected: " << message << "\n got: " << err << "\n";
  }
  std::remove((d.dir + "/path-sl.dump").c_str());
}

// The progress bar's text: fraction, points and time left.
void TestProgressBarText() {
  const std::string s = sim::ProgressBar::Render(0.5, 3, 6, 10);
  CU_ASSERT(Contains(s, "[###############...............]"));
  CU_ASSERT(Contains(s, " 50%"));
  CU_ASSERT(Contains(s, "3/6 points"));
  CU_ASSERT(Contains(s, "~10 s left"));
}

void TestCliDeadlockExitCode() {
  // The clockwise ring as a dump: exit 1 with the loop on stderr.
  DumpDir d;
  Setup st = ClockwiseRing(4);
  {
    std::ofstream(d.dir + "/fabric.net") << [&] {
      std::ostringstream os;
      WriteNetFile(os, st.fabric, {});
      return os.str();
    }();
    std::ofstream g(d.dir + "/guid2lid");
    WriteGuid2Lid(g, st.fabric);
    g.close();
    std::ofstream l(d.dir + "/lfts.dump");
    WriteLfts(l, st.fabric, st.tables);
    l.close();
    std::remove((d.dir + "/mfts.dump").c_str());
  }
  std::string out, err;
  const int rc = Sim({"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid", "--traffic", "shift:3",
                      "--param", "batch=40", "--param", "host_order=file", "--json", "--quiet"},
                     &out, &err);
  CU_ASSERT_EQUAL(rc, 1);
  CU_ASSERT(Contains(err, "credit loop"));
  CU_ASSERT(Contains(out, "\"deadlock\":true"));
}

// --plot FILE.png: a PNG drawn by the real gnuplot, with the other output
// files (all or none); refused without a sweep; no gnuplot on PATH: exit 2
// before the fabric is even read.
void TestCliPlot() {
  DumpDir d;
  const std::string work = ScratchDir("plot");
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid",
                                         "--sweep", "0.1:0.7:0.2", "--no-wall", "--jobs", "2"};
  std::string out, err;
  auto args = base;
  args.insert(args.end(), {"--quiet", "--plot", work + "/sweep.png", "--csv", work + "/sweep.csv"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  const std::string png = Slurp(work + "/sweep.png");
  CU_ASSERT(png.size() > 5000 && png.compare(0, 8, "\x89PNG\r\n\x1a\n") == 0);
  CU_ASSERT(!Slurp(work + "/sweep.csv").empty());
  CU_ASSERT(Contains(out, "# saturation: "));

  // All files or none: a PNG that cannot be written leaves no CSV.
  args = base;
  args.insert(args.end(), {"--quiet", "--plot", work + "/no-such-dir/x.png", "--csv", work + "/none.csv"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 2);
  CU_ASSERT(Contains(err, "no-such-dir/x.png"));
  CU_ASSERT(Slurp(work + "/none.csv").empty());
  // Nothing to draw (no measured message): exit 2, no file at all.
  args = base;
  args.insert(args.end(), {"--quiet", "--param", "measure_ns=1", "--plot", work + "/empty.png", "--csv",
                           work + "/empty.csv"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 2);
  CU_ASSERT(Contains(err, "--plot " + work + "/empty.png: nothing to draw"));
  CU_ASSERT(Slurp(work + "/empty.csv").empty() && Slurp(work + "/empty.png").empty());

  // Only for a sweep.
  CU_ASSERT_EQUAL(Sim({"--routing", "dump:" + d.dir, "--load", "0.1", "--plot", work + "/one.png"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--plot " + work + "/one.png: only with --sweep"));
  // Nor for the merge of a job set that was not one (it drew a saturation
  // title of "load null"); refused before its points are read.
  CU_ASSERT_EQUAL(Sim({"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid", "--load", "0.1",
                       "--emit-jobs", work + "/one-set"},
                      nullptr, &err),
                  0);
  CU_ASSERT_EQUAL(Sim({"--merge", work + "/one-set", "--plot", work + "/one-set.png"}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "--plot " + work + "/one-set.png: only for a sweep's job set; " + work +
                              "/one-set holds a run without --sweep"));
  CU_ASSERT(Slurp(work + "/one-set.png").empty());

  // No gnuplot: refused before anything is read or run (the heading the
  // set-up prints is not there), no file written.
  const std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  setenv("PATH", (work + "/empty-bin").c_str(), 1);
  args = base;
  args.insert(args.end(), {"--plot", work + "/nognuplot.png", "--csv", work + "/nognuplot.csv"});
  const int rc = Sim(args, &out, &err);
  setenv("PATH", path.c_str(), 1);
  CU_ASSERT_EQUAL(rc, 2);
  CU_ASSERT(Contains(err, "--plot " + work + "/nognuplot.png: gnuplot is not installed"));
  CU_ASSERT(!Contains(err, "end ports") && out.empty());
  CU_ASSERT(Slurp(work + "/nognuplot.csv").empty());
  CU_ASSERT_EQUAL(std::system(("rm -rf " + work).c_str()), 0);
}

// --plot's title is the run heading, wider than the canvas for a dump
// directory's path: broken after its "; " separators, a part too long for
// a line cut to its tail (the path's end names the run).
void TestPlotTitleWraps() {
  CU_ASSERT_EQUAL(sim::WrapTitle("a; b; c", 4), "a;\nb; c");
  CU_ASSERT_EQUAL(sim::WrapTitle("short; enough", 80), "short; enough");
  CU_ASSERT_EQUAL(sim::WrapTitle("/a/long/path/runs/x/fabric.net: 8 end ports; routing dump:x", 24),
                  "...ric.net: 8 end ports;\nrouting dump:x");
}

// The saturation line is wrapped too: centric traffic's ran to 230
// characters on one line, its hot-host figures cut off at both ends.
void TestPlotHeadingWrapsTheSaturationLine() {
  const std::string saturation =
      "saturation: between offered 0.07578 (load 0.3) and 0.1251 (load 0.5) bytes/ns/host; accepted at most "
      "0.08914 bytes/ns/host; the hot host: between load 0.3 and 0.5 (there it accepted 0.18592 of the "
      "0.27808 bytes/ns offered to it)";
  const std::string heading = sim::PlotHeading("ft-4-2.net: 8 end ports; routing mlid", saturation);
  std::istringstream lines(heading);
  std::string all;
  for (std::string line; std::getline(lines, line);) {
    CU_ASSERT(line.size() <= sim::kPlotHeadingWidth);
    all += (all.empty() ? "" : " ") + line;
  }
  CU_ASSERT_EQUAL(all, "ft-4-2.net: 8 end ports; routing mlid " + saturation);
}

// The plot's style is the experiment plots': every line of PlotStyle() is a
// line of sim-harness/experiments/seed001.gp.
void TestPlotStyleIsTheExperiments() {
  const char* env = std::getenv("IBUNION_SRC");
  const std::string gp = Slurp(std::string(env && *env ? env : ".") + "/sim-harness/experiments/seed001.gp");
  CU_ASSERT_FATAL(!gp.empty());
  std::istringstream style(sim::PlotStyle());
  int lines = 0;
  for (std::string line; std::getline(style, line); ++lines)
    if (!Contains("\n" + gp, "\n" + line + "\n")) {
      CU_FAIL("a PlotStyle() line is not in seed001.gp");
      std::cerr << "not in seed001.gp: " << line << "\n";
    }
  CU_ASSERT(lines >= 4);
}

// Sweeps of more than 1000 points: slurm.sh stays within Slurm's default
// MaxArraySize (1001) by running consecutive points per array task; the
// last task of a 1200-point set runs points 1198 and 1199 and nothing else.
// A merge with most points missing lists the first commands to rerun.
void TestCliSlurmChunks() {
  DumpDir d;
  const std::string work = ScratchDir("chunks");
  UseThisBuildForJobs();
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid",
                                         "--quiet", "--param", "warmup_ns=200", "--param", "measure_ns=1000"};
  std::string err;
  for (const auto& [sweep, array, per] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"0.0005:0.5:0.0005", "0-999", "per=1\n"},
           {"0.0005:0.5005:0.0005", "0-500", "per=2\n"},
           {"0.0005:0.6:0.0005", "0-599", "per=2\n"}}) {
    auto args = base;
    const std::string dir = work + "/set-" + array;
    args.insert(args.end(), {"--sweep", sweep, "--emit-jobs", dir});
    CU_ASSERT_EQUAL(Sim(args, nullptr, &err), 0);
    const std::string script = Slurp(dir + "/slurm.sh");
    CU_ASSERT(Contains(script, "#SBATCH --array=" + array + "\n"));
    CU_ASSERT(Contains(script, "\n" + per));
  }
  const std::string dir = work + "/set-0-599";
  const std::string task = "SLURM_ARRAY_TASK_ID=599 bash " + dir + "/slurm.sh";
  CU_ASSERT_EQUAL(std::system(task.c_str()), 0);
  int done = 0;
  for (int i = 0; i < 1200; ++i) done += !Slurp(dir + "/points/" + std::to_string(i) + ".json").empty();
  CU_ASSERT_EQUAL(done, 2);
  CU_ASSERT(!Slurp(dir + "/points/1198.json").empty() && !Slurp(dir + "/points/1199.json").empty());

  CU_ASSERT_EQUAL(Sim({"--merge", dir}, nullptr, &err), 2);
  CU_ASSERT(Contains(err, "1198 of 1200 points not done (0 1 2 "));
  CU_ASSERT(Contains(err, " --point 9 --save " + dir + "/points/9.json --quiet\n"));
  CU_ASSERT(!Contains(err, "--point 10 "));
  CU_ASSERT(Contains(err, "... and 1188 more"));
  unsetenv("IBUNION_PROGRAM");
  CU_ASSERT_EQUAL(std::system(("rm -rf " + work).c_str()), 0);
}

// The saturation rule on hand-made points: accepted below 95% of offered or
// messages left undelivered; failed points are not judged.
void TestSaturationRule() {
  auto pt = [](double load, double offered, double accepted, uint64_t unfinished = 0) {
    PointResult r;
    r.load = load;
    r.offered = offered;
    r.accepted = accepted;
    r.ops_unfinished = unfinished;
    return r;
  };
  CU_ASSERT(!sim::IsSaturated(pt(0.1, 0.025, 0.02376)));  // 95.04%
  CU_ASSERT(sim::IsSaturated(pt(0.1, 0.025, 0.02374)));   // 94.96%
  CU_ASSERT(sim::IsSaturated(pt(0.1, 0.025, 0.025, 1)));
  CU_ASSERT(!sim::IsSaturated(pt(0.001, 0, 0)));  // nothing offered: not saturated

  std::vector<PointResult> v = {pt(0.2, 0.05, 0.05), pt(0.4, 0.1, 0.085), pt(0.6, 0.15, 0.087),
                                pt(0.8, 0.2, 0.086)};
  sim::Saturation s = sim::FindSaturation(v);
  CU_ASSERT(s.reached() && s.below == 0 && s.at == 1 && s.last == 3 && s.judged == 4);
  CU_ASSERT_DOUBLE_EQUAL(s.max_accepted, 0.087, 1e-12);
  CU_ASSERT_EQUAL(sim::SaturationText(s, v),
                  "saturation: between offered 0.05 (load 0.2) and 0.1 (load 0.4) bytes/ns/host; "
                  "accepted at most 0.087 bytes/ns/host");

  // The 5% allowance: a point offering more than any point accepted still
  // counts as sustained; the line says the capacity is below the interval.
  const std::vector<PointResult> past = {pt(0.3, 0.07738, 0.07754), pt(0.4, 0.10068, 0.09676),
                                         pt(0.5, 0.12498, 0.09744)};
  CU_ASSERT_EQUAL(
      sim::SaturationText(sim::FindSaturation(past), past),
      "saturation: between offered 0.10068 (load 0.4) and 0.12498 (load 0.5) bytes/ns/host; "
      "accepted at most 0.09744 bytes/ns/host (below offered 0.10068: the capacity lies below the "
      "interval, within the rule's 5% of offered)");

  // A failed point is skipped: the interval runs from the last good point.
  v[1].deadlock = true;
  s = sim::FindSaturation(v);
  CU_ASSERT(s.below == 0 && s.at == 2 && s.judged == 3);
  v[1].deadlock = false;

  // Saturated from the first point.
  v.erase(v.begin());
  s = sim::FindSaturation(v);
  CU_ASSERT(s.reached() && s.below == -1 && s.at == 0);
  CU_ASSERT(Contains(sim::SaturationText(s, v), "saturation: at or below offered 0.1 (load 0.4) bytes/ns/host, the first point"));

  // Never saturated: named up to the last point.
  v = {pt(0.1, 0.025, 0.025), pt(0.2, 0.05, 0.0499), pt(0.3, 0.075, 0.0751)};
  s = sim::FindSaturation(v);
  CU_ASSERT(!s.reached() && s.last == 2);
  CU_ASSERT_EQUAL(sim::SaturationText(s, v),
                  "saturation: not reached up to offered 0.075 (load 0.3) bytes/ns/host; "
                  "accepted at most 0.0751 bytes/ns/host");
  // ... and with points past it that closed a credit loop, the line says so
  // (it read as if every point had run and none saturated).
  v.push_back(pt(0.4, 0.1, 0.05));
  v.back().deadlock = true;
  CU_ASSERT_EQUAL(
      sim::SaturationText(sim::FindSaturation(v), v),
      "saturation: not reached up to offered 0.075 (load 0.3) bytes/ns/host; "
      "accepted at most 0.0751 bytes/ns/host; 1 of 4 points failed (deadlock or error), left out");
  v.pop_back();

  // Nothing to judge.
  for (PointResult& r : v) r.error = "no route";
  CU_ASSERT(Contains(sim::SaturationText(sim::FindSaturation(v), v), "unknown"));
}

// sim-harness/experiments/run stops a curve after two saturated points in
// a row, testing saturation in awk. Its checked-in curves must end exactly
// where the library's rule says: the last two points saturated (or the
// curve's top load reached, or, in the mesh CSVs with their deadlock
// column, a credit loop at the last point) and no two saturated in a row
// before. Fails when IsSaturated and run's awk test drift apart.
void TestSaturationRuleMatchesRunCurves() {
  const char* env = std::getenv("IBUNION_SRC");
  const std::string src = env && *env ? env : ".";
  int curves = 0, stopped = 0;
  int looped = 0;
  for (const char* name :
       {"seed001-ft-4-4", "seed001-ft-8-3", "seed001-ft-16-3", "seed001-ft-32-2", "beyond", "beyond-perm",
        "beyond-radix", "beyond-degraded", "beyond-mesh", "beyond-mesh-perm"}) {
    std::ifstream in(src + "/docs/figures/" + std::string(name) + ".csv");
    CU_ASSERT_FATAL(bool(in));
    std::string line, key;
    std::getline(in, line);
    CU_ASSERT_FATAL(line.rfind("fabric,scheme,traffic,vls,load,offered,accepted,", 0) == 0);
    std::vector<PointResult> curve;
    auto check = [&]() {
      if (curve.empty()) return;
      ++curves;
      const size_t n = curve.size();
      for (size_t i = 0; i + 1 < n; ++i)
        if (curve[i].deadlock) {
          CU_FAIL("run went on past a credit loop");
          std::cerr << name << " " << key << ": credit loop at load " << curve[i].load << "\n";
        }
      for (size_t i = 1; i + 1 < n; ++i)
        if (sim::IsSaturated(curve[i - 1]) && sim::IsSaturated(curve[i])) {
          CU_FAIL("run went on past two saturated points");
          std::cerr << name << " " << key << ": saturated at loads " << curve[i - 1].load << " and " << curve[i].load << "\n";
        }
      const double step = n > 1 ? curve[n - 1].load - curve[n - 2].load : 1;
      const bool top = curve[n - 1].load + step > 1.0 + 1e-9;  // run's MAXLOAD
      if (curve[n - 1].deadlock) {
        ++looped;
      } else if (n >= 2 && sim::IsSaturated(curve[n - 2]) && sim::IsSaturated(curve[n - 1])) {
        ++stopped;
      } else if (!top) {
        CU_FAIL("run stopped a curve the rule does not call saturated");
        std::cerr << name << " " << key << ": ends at load " << curve[n - 1].load << "\n";
      }
      curve.clear();
    };
    while (std::getline(in, line)) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string x; std::getline(ss, x, ',');) f.push_back(x);
      CU_ASSERT_FATAL(f.size() >= 11);
      const std::string k = f[0] + "," + f[1] + "," + f[2] + "," + f[3];
      if (k != key) check();
      key = k;
      PointResult r;
      r.load = std::strtod(f[4].c_str(), nullptr);
      r.offered = std::strtod(f[5].c_str(), nullptr);
      r.accepted = std::strtod(f[6].c_str(), nullptr);
      r.ops_unfinished = std::strtoull(f[10].c_str(), nullptr, 10);
      r.deadlock = f.size() > 14 && f[14] == "1";
      curve.push_back(r);
    }
    check();
  }
  CU_ASSERT(curves >= 90);
  CU_ASSERT(stopped >= 80);
  CU_ASSERT(looped >= 3);  // minhop on the 16x16 mesh: beyond-mesh, and beyond-mesh-perm's random permutation
}

// --sweep and --merge report where the sweep saturates: a line after the
// table; with --json on stderr (stdout keeps one object per point), not
// with --quiet; a single --load point has no such line.
void TestCliSaturationLine() {
  DumpDir d;
  const std::vector<std::string> base = {"--routing", "dump:" + d.dir, "--guid2lid", d.dir + "/guid2lid"};
  std::string out, err;
  auto args = base;
  args.insert(args.end(), {"--sweep", "0.1:0.9:0.4", "--quiet", "--no-wall"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  const size_t at = out.find("\n# saturation: between offered ");
  CU_ASSERT(at != std::string::npos && out.find('\n', at + 1) == out.size() - 1);  // the last line
  CU_ASSERT(Contains(out, "(load 0.1) and ") && Contains(out, "(load 0.5) bytes/ns/host; accepted at most "));

  args = base;
  args.insert(args.end(), {"--sweep", "0.05:0.15:0.05", "--json"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  CU_ASSERT(!Contains(out, "saturation"));
  CU_ASSERT(Contains(err, "ibunion sim: saturation: not reached up to offered "));
  CU_ASSERT(Contains(err, "(load 0.15) bytes/ns/host"));
  args.push_back("--quiet");
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  CU_ASSERT(err.empty());

  args = base;
  args.insert(args.end(), {"--load", "0.9", "--quiet"});
  CU_ASSERT_EQUAL(Sim(args, &out, &err), 0);
  CU_ASSERT(!Contains(out, "saturation"));
}

}  // namespace

void RegisterTimingCliSuite() {
  CU_pSuite s = CU_add_suite("timing_cli", nullptr, nullptr);
  CU_add_test(s, "same seed, same output with 1, 2 and 3 jobs", TestSameSeedSameOutputAnyJobs);
  CU_add_test(s, "ibunion sim on a dump directory, JSON and CSV", TestCliDumpRun);
  CU_add_test(s, "NETFILE with dump:DIR: the same fabric noted, another refused", TestCliNetfileWithDump);
  CU_add_test(s, "dump:DIR without mfts.dump: multicast traffic names the file", TestCliDumpWithoutMfts);
  CU_add_test(s, "--merge refuses points computed on changed input files", TestCliMergeRefusesChangedInputs);
  CU_add_test(s, "bad input: exit 2 naming the option, file or line", TestCliBadInput);
  CU_add_test(s, "dump: --mcast-mode unicast sends to the dumped group", TestCliDumpUnicastUsesDumpedGroup);
  CU_add_test(s,
              "--sources: the sources a --members file names (shared descriptions by GUID); a replay's must "
              "be members",
              TestCliGivenSources);
  CU_add_test(s, "FT(8,3) listed in reverse: the same run, byte for byte (mlid, unicast and multicast)",
              TestCliReversedNetFileSameRun);
  CU_add_test(s, "--save with --json: the record to the file, the JSON on stdout", TestCliSaveWithJson);
  CU_add_test(s, "deadlock: exit 1 with the credit loop", TestCliDeadlockExitCode);
  CU_add_test(s, "tables made for other LIDs: exit 2 naming dump, switch, LID", TestCliTablesForOtherLids);
  CU_add_test(s, "dump: a switch without its LFT or MFT: exit 2 naming file and switch", TestCliDumpMissingSwitchTable);
  CU_add_test(s, "dump: path-sl.dump gives each message its path's SL", TestCliDumpPathSls);
  CU_add_test(s, "progress bar text", TestProgressBarText);
  CU_add_test(s, "--emit-jobs, a shell loop, --merge: the direct sweep byte for byte", TestCliEmitJobsAndMerge);
  CU_add_test(s, "a batch run has no load: 'batch', null, empty; no saturation line",
              TestCliBatchPointHasNoLoad);
  CU_add_test(s, "slurm.sh: more than 1000 points in chunks per array task", TestCliSlurmChunks);
  CU_add_test(s, "--plot: PNG by gnuplot, all files or none, gnuplot checked first", TestCliPlot);
  CU_add_test(s, "--plot style = the experiment plots' (seed001.gp)", TestPlotStyleIsTheExperiments);
  CU_add_test(s, "--plot title: the heading broken into lines that fit", TestPlotTitleWraps);
  CU_add_test(s, "--plot heading: the saturation line broken into lines that fit",
              TestPlotHeadingWrapsTheSaturationLine);
  CU_add_test(s, "saturation rule on hand-made points", TestSaturationRule);
  CU_add_test(s, "saturation rule = where run stopped its checked-in curves", TestSaturationRuleMatchesRunCurves);
  CU_add_test(s, "--sweep: saturation line after the table, on stderr with --json", TestCliSaturationLine);
}

}  // namespace ibu::simtest
