#include "sim-harness/timing/sim_cli.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/args.h"
#include "plugin/core/engine.h"
#include "plugin/core/error.h"
#include "plugin/core/fields.h"
#include "plugin/core/groups.h"
#include "plugin/core/guid2lid.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"
#include "plugin/core/lid_options.h"
#include "plugin/core/netfile.h"
#include "plugin/core/output_files.h"
#include "plugin/core/tables.h"
#include "sim-harness/timing/dump_dir.h"
#include "sim-harness/timing/flows.h"
#include "sim-harness/timing/jobs.h"
#include "sim-harness/timing/network.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/plot.h"
#include "sim-harness/timing/progress.h"
#include "sim-harness/timing/simulator.h"
#include "sim-harness/timing/stats.h"
#include "sim-harness/timing/sweep.h"
#include "sim-harness/timing/traffic.h"

namespace ibu::sim {

namespace {

constexpr const char* kUsage =
    "usage: ibunion sim NETFILE [--guid2lid F] [--lmc L] --routing mlid|slid|xymesh|dump:DIR\n"
    "         [--traffic PATTERN] [--msg BYTES] [--load OFFERED] [--vls N] [--seed S]\n"
    "         [--mcast-mode hw|unicast] [--sweep FROM:TO:STEP] [--jobs N] [--json]\n"
    "         [--csv FILE] [--links FILE] [--plot FILE.png] [--members FILE] [--sources FILE]\n"
    "         [--config FILE]\n"
    "         [--param key=value ...]\n"
    "         [--quiet] [--no-wall] [--emit-jobs DIR | --point N --save FILE]\n"
    "       ibunion sim NETFILE ... --routing R --traffic PERMUTATION|uniform|centric:F --flows [--load L] "
    "[--json] [--links FILE]\n"
    "       ibunion sim --merge DIR [--json] [--csv FILE] [--links FILE] [--plot FILE.png] [--no-wall] "
    "[--quiet]\n"
    "\n"
    "Packet-level timing model of the fabric in NETFILE, forwarding strictly by\n"
    "the tables of the routing engine (or by the dumps in DIR as the ibsim harness\n"
    "writes them: DIR/fabric.net, DIR/lfts.dump, DIR/mfts.dump, and when present\n"
    "DIR/sl2vl.dump (the ports' SL-to-VL tables) and DIR/ibunion-ENGINE-paths.dump\n"
    "(the plugin's path selection, for DLIDs); NETFILE may then be left out).\n"
    "\n"
    "  --routing   engine computing the tables (mlid, slid, xymesh), or dump:DIR\n"
    "  --guid2lid  LIDs from an OpenSM guid2lid file; GUIDs the fabric lacks (ports\n"
    "              OpenSM saw before) are skipped with a warning, none of the fabric's\n"
    "              is an error; so are a GUID on two lines, overlapping LID ranges\n"
    "              and a fabric port with neither a line nor a LID (FILE:LINE named)\n"
    "  --lmc       LIDs in the generator's layout (2^L per end port) at LMC L, 0..7;\n"
    "              not with --guid2lid, dump:DIR or a NETFILE that has LIDs.\n"
    "              Default, when NETFILE has no LIDs: on a fat-tree the LMC of all\n"
    "              mlid's paths per pair, log2 (m/2)^(n-1), at most 7 and as far as\n"
    "              the LIDs fit below 0xBFFF\n"
    "              (slid routes the same at any LMC); else 0. As ibunion route.\n"
    "  --traffic   uniform | centric:F | shift[:K] | bitrev | transpose | randperm |\n"
    "              mcast:SOURCES:GROUP (fractions 0.4 / 40% / all, or host counts) [uniform];\n"
    "              centric:F: F of each other host's messages to the hot host, the rest\n"
    "              uniform over all others (the hot host too); bitrev needs 2^b hosts,\n"
    "              transpose k x k: host r*k+c to c*k+r, on a square mesh H(x,y) -> H(y,x)\n"
    "              (on another fabric with k x k hosts, of its host numbers only)\n"
    "  --msg       message size in bytes (suffix K = 1024, M = 1024K, G = 1024M) [32]\n"
    "  --load      offered load per source, fraction of link bandwidth [0.1]: up to 1\n"
    "              with Bernoulli arrivals (the default), up to 64 with arrival=exp or\n"
    "              periodic (--sweep alike); not with --sweep (one from --config is\n"
    "              replaced by the other from the command line)\n"
    "  --vls       data VLs: 1, 2, 4 or 8 [1]\n"
    "  --seed      seed of every random choice [1]\n"
    "  --mcast-mode  multicast traffic as hardware multicast (hw: MFTs) or one unicast\n"
    "              copy per member (unicast) [hw]\n"
    "  --sweep     run loads FROM, FROM+STEP, ... TO (one output line each), then\n"
    "              where it saturates: a '# saturation: ...' line after the table\n"
    "              (with --json on stderr, unless --quiet). A point is saturated when\n"
    "              accepted < 95% of offered or ops_unfinished > 0; the line names the\n"
    "              last point below and the first at saturation (offered, load), or\n"
    "              'not reached up to offered X', and the most any point accepted\n"
    "  --jobs      sweep points run in parallel (output does not depend on it) [1]\n"
    "  --json      one JSON object per point on stdout instead of a table\n"
    "  --csv       also write all points as CSV to FILE\n"
    "              (any output FILE may be '-', standard output: it is then all of\n"
    "              stdout and the table goes to stderr; one such FILE, not with --json)\n"
    "  --links     write per-link utilisation (point,link,util) as CSV to FILE\n"
    "  --plot      with --sweep, or --merge of a sweep's jobs: draw the sweep into FILE.png with gnuplot\n"
    "              (latency vs accepted, accepted vs offered with the saturation point);\n"
    "              no gnuplot on PATH: exit 2 before anything runs\n"
    "  --members   multicast: write the group and the sources to FILE, one\n"
    "              'group NAME' / 'source NAME' line per end port (node description;\n"
    "              port GUID where end ports share one)\n"
    "  --sources   multicast: the sources are the 'source NAME' lines of FILE (a\n"
    "              --members file; its 'group' lines are skipped), not drawn; as many\n"
    "              as SOURCES asks for. With dump:DIR each must be a member of the\n"
    "              dumped group: a replay then sends from the hosts another run drew\n"
    "  --quiet     no notes, engine messages or progress on stderr (warnings and\n"
    "              errors still)\n"
    "  --no-wall   leave out wall_s and packet_hops_per_s (JSON; in CSV their columns stay, empty) and "
    "hops/s\n"
    "              (table): output identical run to run\n"
    "  --emit-jobs write the sweep as independent jobs into DIR instead of running it:\n"
    "              DIR/jobs.txt (one command per point: `parallel < DIR/jobs.txt`),\n"
    "              DIR/slurm.sh (`sbatch DIR/slurm.sh`, a job array); each job writes\n"
    "              DIR/points/N.json\n"
    "  --point     run only point N (0-based) of the sweep, seeded as in the sweep\n"
    "  --save      write the point(s) as full-precision records to FILE (for --merge;\n"
    "              --csv, --links, --members then belong to the merge, not here);\n"
    "              nothing on stdout, or with --json the point's JSON object as well\n"
    "  --merge     print (and --csv, --links) the sweep from DIR/points/*.json, exactly\n"
    "              as the direct sweep prints (and writes) it, saturation line included\n"
    "  --flows     run no model: follow each source's flow of a permutation (shift,\n"
    "              bitrev, transpose, randperm) through the tables as the model forwards\n"
    "              it (same DLID, SL, VLs) and report the flows per directed link and\n"
    "              per VL channel, the busiest links by name, and the rates a fluid\n"
    "              network sharing links and channels max-min fairly would give at\n"
    "              saturation ('fluid_accepted'), or with --load L at that load (each\n"
    "              flow capped at what its source offers: comparable with the point's\n"
    "              accepted; --json's 'fluid_saturated' is still the rate at saturation);\n"
    "              --links FILE gets link,flows,fluid_util.\n"
    "              Uniform and centric traffic: every (source, destination) pair\n"
    "              followed, weighted by its share of the source's messages (and\n"
    "              under dlid=random or sl=random every DLID and SL it may draw): the\n"
    "              expected load of each link and VL channel, and the channel-load\n"
    "              bound, the offered load at which the busiest one is full\n"
    "              ('bound_load'); --links FILE gets link,load,util\n"
    "  --config    FILE of 'key = value' lines: the options above without dashes\n"
    "              (net, routing, traffic, ..., json/quiet/no-wall/flows = yes|no) and --param\n"
    "              keys, each key once; options win. --point, --save, --merge and\n"
    "              --emit-jobs stay on the command line\n"
    "  --param     model parameter, repeatable:\n";

std::string Trim(const std::string& s) {
  size_t a = s.find_first_not_of(" \t\r");
  if (a == std::string::npos) return "";
  size_t b = s.find_last_not_of(" \t\r");
  return s.substr(a, b - a + 1);
}

struct Setting {
  std::string value;
  std::string where;  // "--opt" or "FILE:LINE"
  std::string key;    // the config file's key; empty on the command line
};

// The setting as the user wrote it, for messages: "--msg 1.5K" on the
// command line, "run.conf:3: msg = 1.5K" in a --config file.
std::string Named(const Setting& s) {
  if (s.key.empty()) return s.where + " " + s.value;
  return s.where + ": " + s.key + " = " + s.value;
}

const std::vector<std::string> kValueOptions = {
    "guid2lid", "lmc", "routing", "traffic", "msg", "load", "vls", "seed", "sweep",
    "jobs", "config", "param", "csv", "links", "plot", "mcast-mode", "members", "sources"};
const std::vector<std::string> kFlags = {"json", "quiet", "help", "no-wall", "flows"};
// Only on the command line (not in --config): they pick what the run does.
const std::vector<std::string> kCliOnlyOptions = {"emit-jobs", "point", "save", "merge"};

bool IsIn(const std::vector<std::string>& v, const std::string& s) {
  for (const std::string& x : v)
    if (x == s) return true;
  return false;
}

long long ToInt(const Setting& s, const std::string& what, long long min, long long max) {
  long long v = 0;
  if (!ParseInteger(s.value, &v) || v < min || v > max) throw Error(Named(s) + ": expected " + what);
  return v;
}

double ToDouble(const Setting& s, const std::string& value, const std::string& what) {
  double v = 0;
  if (!ParseDecimalReal(value, &v)) throw Error(Named(s) + ": expected " + what);
  return v;
}

uint32_t ToBytes(const Setting& s) {
  std::string v = s.value;
  uint64_t mult = 1;
  auto strip = [&](const char* suffix, uint64_t m) {
    const size_t n = std::strlen(suffix);
    if (v.size() > n && (v.compare(v.size() - n, n, suffix) == 0)) {
      v.resize(v.size() - n);
      mult = m;
      return true;
    }
    return false;
  };
  strip("KB", 1024) || strip("kB", 1024) || strip("K", 1024) || strip("k", 1024) || strip("MB", 1 << 20) ||
      strip("M", 1 << 20) || strip("GB", 1 << 30) || strip("G", 1 << 30) || strip("B", 1);
  // The number without its suffix, named as given ("--msg 1.5K", not "1.5").
  long long n = 0;
  try {
    n = ToInt({v, s.where, ""}, "", 1, 1 << 30);
  } catch (const Error&) {
    throw Error(Named(s) + ": expected a message size in bytes (1 .. 1G, suffix K, M or G allowed)");
  }
  if (uint64_t(n) * mult > (uint64_t(1) << 30)) throw Error(Named(s) + ": message larger than 1 GiB");
  return uint32_t(uint64_t(n) * mult);
}

// Offered load per source, as a fraction of link bandwidth: --load and
// every --sweep point.
constexpr double kMaxLoad = 64;

bool FileExists(const std::string& path) {
  std::ifstream in(path);
  return bool(in);
}

// Two names of one file (`run/fabric.net` and `run//fabric.net`, links).
bool SameFile(const std::string& a, const std::string& b) {
  std::error_code ec;
  return std::filesystem::equivalent(a, b, ec) && !ec;
}

// Where and how a sweep's results go: stdout (JSON lines or a table under
// `head`), CSV and per-link files; diagnostics on stderr. Shared by the
// direct sweep and --merge so that both print the same bytes.
struct Output {
  bool print = true;
  bool json = false;
  bool quiet = false;
  bool with_wall = true;
  bool saturation = false;  // a sweep (--sweep, --merge): report where it saturates
  std::string head;
  std::string csv;
  std::string links;
  std::string plot;  // --plot FILE.png
  std::string members_path, members_text;  // --members
  const LinkNames* link_names = nullptr;  // by global port (--links)
};

LinkNames NamesOf(const Network& network) {
  LinkNames names(size_t(network.num_global_ports()));
  for (int gp = 0; gp < network.num_global_ports(); ++gp)
    if (network.port(gp).peer >= 0) {
      names[size_t(gp)] = network.LinkName(gp);
      for (char& c : names[size_t(gp)])
        if (c == '"') c = '\'';
    }
  return names;
}

// The files that may be "-", standard output.
constexpr const char* kFileOptions[] = {"csv", "links", "members", "plot", "save"};

// Standard output holds one thing: two files given as "-" (or one and
// --json's lines) came out interleaved there, and neither could be read.
void RefuseTwoOnStdout(const std::map<std::string, Setting>& opt, bool json) {
  std::vector<std::string> on_stdout;
  if (json) on_stdout.push_back("--json");
  for (const char* file : kFileOptions)
    if (opt.count(file) && IsStdout(opt.at(file).value)) on_stdout.push_back(opt.at(file).where + " -");
  if (on_stdout.size() < 2) return;
  throw Error(on_stdout[0] + " and " + on_stdout[1] +
              ": both would go to standard output (give one of them a file)");
}

int Report(const std::vector<PointResult>& results, const Output& o) {
  int status = 0;
  // Drawn first: a failing gnuplot leaves nothing printed or written.
  const std::string png = o.plot.empty() ? "" : PlotPng(results, o.head.substr(2), "--plot " + o.plot);
  // A file written to stdout ("-") is all of it: the table goes to stderr,
  // as mcsetup's reports do beside their CSV.
  const bool file_on_stdout = o.csv == "-" || o.links == "-" || o.members_path == "-" || o.plot == "-";
  std::ostream& table = file_on_stdout ? std::cerr : std::cout;
  if (o.print && o.json) {
    for (const PointResult& r : results) std::cout << ToJson(r, o.with_wall) << "\n";
  } else if (o.print) {
    table << o.head << "\n" << TableHeader(o.with_wall) << "\n";
    for (const PointResult& r : results) table << ToTableRow(r, o.with_wall) << "\n";
    if (o.saturation) table << "# " << SaturationText(FindSaturation(results), results) << "\n";
  }
  table.flush();
  for (const PointResult& r : results) {
    if (r.deadlock) {
      std::cerr << "ibunion sim: point " << r.index << " (load " << LoadText(r) << "): " << r.deadlock_report
                << "\n";
      status = 1;
    } else if (!r.error.empty()) {
      std::cerr << "ibunion sim: point " << r.index << " (load " << LoadText(r) << "): " << r.error
                << (r.events > 0 && !r.conservation_ok ? "; its conservation check failed too" : "") << "\n";
      status = 1;
    } else if (!r.conservation_ok) {
      std::cerr << "ibunion sim: point " << r.index << ": conservation check failed (packets lost or duplicated)\n";
      status = 1;
    } else if (r.ops_unfinished && !o.quiet) {
      std::cerr << "ibunion sim: note: point " << r.index << " (load " << LoadText(r)
                << "): " << r.ops_unfinished
                << " measured messages undelivered after drain_ns (saturated); "
                << (r.ops_measured ? "latency is over the delivered ones\n"
                                   : "none was delivered, so the latency fields are 0 for want of one\n");
    } else if (r.ops_measured == 0 && !o.quiet) {
      // Latency 0 would read as a result: say there was none to measure.
      std::cerr << "ibunion sim: note: point " << r.index << " (load " << LoadText(r)
                << "): no message with a receiver was measured (a steady run: none arrived in the "
                   "measurement window); the latency fields are 0 for want of one\n";
    }
  }
  // JSON keeps one object per point on stdout: the summary goes to stderr.
  if (o.print && o.json && o.saturation && !o.quiet)
    std::cerr << "ibunion sim: " << SaturationText(FindSaturation(results), results) << "\n";
  // All output files or none (a bad --links must not leave a fresh --csv).
  std::vector<OutputFile> files;
  if (!o.csv.empty()) {
    std::string csv = CsvHeader() + "\n";
    for (const PointResult& r : results) csv += ToCsv(r, o.with_wall) + "\n";
    files.push_back({o.csv, [csv](std::ostream& os) { os << csv; }});
  }
  if (!o.links.empty() && o.link_names) {
    const LinkNames& names = *o.link_names;
    std::ostringstream os;
    os << "point,link,util\n";
    for (const PointResult& r : results)
      for (size_t gp = 0; gp < r.link_util.size() && gp < names.size(); ++gp)
        if (!names[gp].empty()) os << r.index << ",\"" << names[gp] << "\"," << r.link_util[gp] << "\n";
    files.push_back({o.links, [text = os.str()](std::ostream& out) { out << text; }});
  }
  if (!o.members_path.empty())
    files.push_back({o.members_path, [&o](std::ostream& os) { os << o.members_text; }});
  if (!o.plot.empty()) files.push_back({o.plot, [&png](std::ostream& os) { os << png; }});
  WriteFilesAtomically(files);
  return status;
}

// A --param or config-file setting as the user wrote it: "--param hot=3"
// or "run.conf:4: hot = 3".
std::string NamedParam(const Setting& s) { return s.key.empty() ? s.where : Named(s); }

// Settings that only some runs read: given to another run they were
// ignored without a word, so they are refused naming the runs that read
// them.
void RefuseUnreadSettings(const std::map<std::string, Setting>& opt,
                          const std::vector<std::pair<std::string, Setting>>& params, const TrafficSpec& spec,
                          const Params& p, bool dump) {
  // A batch run queues its messages at t=0 and runs to completion: no
  // arrivals, hence no load and no measurement window.
  std::string batch;
  for (const auto& [key, s] : params)
    if (key == "batch" && p.batch > 0) batch = NamedParam(s);
  const std::string not_batch =
      "not with " + batch + " (a batch run queues its messages at t=0 and runs to completion)";
  if (!batch.empty() && opt.count("load")) throw Error(Named(opt.at("load")) + ": " + not_batch);
  for (const auto& [key, s] : params) {
    std::string only;
    if (!batch.empty() &&
        (key == "arrival" || key == "warmup_ns" || key == "measure_ns" || key == "drain_ns"))
      only = not_batch;
    // A steady run stops at warmup_ns + measure_ns + drain_ns.
    if (batch.empty() && key == "max_ns") only = "only with --param batch=N (the limit of a batch run)";
    if (key == "hot" && spec.pattern != Pattern::kCentric) only = "only with --traffic centric:F";
    if (key == "shift" && spec.pattern != Pattern::kShift) only = "only with --traffic shift";
    if (key == "shift" && spec.shift) only = "not with " + spec.named + ", which sets it too";
    if (key == "mlid" && !(dump && spec.pattern == Pattern::kMcast))
      only = "only with --routing dump:DIR and multicast traffic (--traffic mcast:S:G)";
    if (key == "mcast_trees" &&
        (dump || spec.pattern != Pattern::kMcast || p.mcast_mode != McastMode::kHardware))
      only =
          "only with --traffic mcast:S:G, hardware multicast (mcast_mode hw) and an engine's --routing "
          "(a dump's group is its one MLID)";
    if (key == "vls" && opt.count("vls")) only = "not with " + Named(opt.at("vls")) + ", which sets it too";
    if (!only.empty()) throw Error(NamedParam(s) + ": " + only);
  }
}

// Bernoulli arrivals are one trial per message time, with the load as its
// probability: a load above 1 ran as 1 while its rows said the load asked
// for. Exponential and periodic gaps shrink below a message time (up to 64).
void RefuseBernoulliOverload(const std::map<std::string, Setting>& opt,
                             const std::vector<std::pair<std::string, Setting>>& params, const Params& p,
                             double top_load) {
  if (p.arrival != Arrival::kBernoulli || p.batch > 0 || top_load <= 1.0) return;
  std::string arrival = "arrival=bernoulli, the default";
  for (const auto& [key, s] : params)
    if (key == "arrival") arrival = NamedParam(s);
  const std::string why = " with Bernoulli arrivals (" + arrival +
                          ": at most one message per message time); arrival=exp or periodic offer up to 64";
  if (opt.count("sweep"))
    throw Error(Named(opt.at("sweep")) + ": expected 0 < FROM <= TO <= 1 and STEP > 0" + why);
  throw Error(Named(opt.at("load")) + ": expected an offered load in (0, 1]" + why);
}

// What --routing and the LID options ask for fits together, named before
// anything is read: a known engine, engine options it takes (each named by
// its --param or config line), LIDs from one source.
void CheckRouting(const std::map<std::string, Setting>& opt,
                  const std::vector<std::pair<std::string, Setting>>& params, const Params& p) {
  const Setting& r = opt.at("routing");
  const bool dump = r.value.rfind("dump:", 0) == 0;
  if (dump && r.value.size() == 5) throw Error(Named(r) + ": expected dump:DIR");
  if (opt.count("lmc")) {
    if (dump)
      throw Error(Named(opt.at("lmc")) +
                  ": not with --routing dump:DIR (DIR/fabric.net holds the LIDs the SM assigned)");
    ToInt(opt.at("lmc"), "an LMC 0..7", 0, 7);
  }
  if (dump) {
    for (const auto& [key, s] : params)
      if (key.rfind("engine.", 0) == 0)
        throw Error(s.where + ": no routing engine runs with --routing dump:DIR (the dumped tables are used)");
    return;
  }
  if (!IsIn(EngineNames(), r.value))
    throw Error(Named(r) + ": unknown routing engine (known: mlid, slid, xymesh, dump:DIR)");
  for (const auto& [key, s] : params) {
    if (key.rfind("engine.", 0) != 0) continue;
    try {
      MakeEngine(r.value, {key.substr(7) + "=" + s.value}, nullptr);
    } catch (const Error& e) {  // "--param engine.K=V" or "FILE:LINE: engine.K = V"
      throw Error(NamedParam(s) + ": " + e.what());
    }
  }
  // xymesh's VL count follows --vls unless engine.xymesh_vls sets it.
  bool has_vls = false;
  for (const std::string& o : p.engine_options) has_vls = has_vls || o.rfind("xymesh_vls=", 0) == 0;
  if (r.value == "xymesh" && !has_vls) {
    try {
      MakeEngine(r.value, {"xymesh_vls=" + std::to_string(p.vls)}, nullptr);
    } catch (const Error& e) {
      std::string where = opt.count("vls") ? Named(opt.at("vls")) : "";
      for (const auto& [key, s] : params)
        if (where.empty() && key == "vls") where = s.where;
      throw Error(where + ": xymesh takes 1, 2 or 4 data VLs (or set engine.xymesh_vls)");
    }
  }
}

// The command line as given: options by name, --param words in order,
// flags and positional words. `help` stops the pass where it stands, so
// only the words before it were checked.
struct CommandLine {
  std::map<std::string, Setting> options;
  std::vector<Setting> params;
  std::vector<std::string> positional;
  std::map<std::string, bool> flags;
  bool help = false;
};

// Read by the CLI's shared reader (cli::Args: its messages, and an option
// with a value given twice refused), --param as a list.
CommandLine ParseCommandLine(std::vector<std::string> words) {
  std::set<std::string> with_value, flags;
  for (const std::vector<std::string>* names : {&kValueOptions, &kCliOnlyOptions})
    for (const std::string& name : *names)
      if (name != "param") with_value.insert("--" + name);
  for (const std::string& name : kFlags) flags.insert("--" + name);
  flags.insert("-h");
  std::vector<char*> argv;
  for (std::string& w : words) argv.push_back(&w[0]);
  const cli::Args args(int(argv.size()), argv.data(), with_value, flags, {"--param"}, /*help_stops=*/true);
  CommandLine cl;
  cl.help = args.has("-h") || args.has("--help");
  if (cl.help) return cl;
  cl.positional = args.positional();
  for (const auto& [option, value] : args.options()) {
    const std::string name = option.substr(2);
    if (IsIn(kFlags, name))
      cl.flags[name] = true;
    else
      cl.options[name] = {value, option, ""};
  }
  for (const std::string& value : args.list("--param")) cl.params.push_back({value, "--param", ""});
  return cl;
}

// Every setting of a run, wherever it was given.
struct Settings {
  std::map<std::string, Setting> opt;
  std::vector<std::pair<std::string, Setting>> params;  // key, value@where
  std::vector<std::string> positional;
  bool json = false;
  bool quiet = false;
  bool with_wall = true;
  bool flows = false;  // --flows: follow the flows, run no model
};

// The settings of a --config file: options by key, --param keys in order.
void ReadConfigFile(const std::string& path, Settings* s) {
  std::ifstream in;
  try {
    in = OpenInputFile(path, "");
  } catch (const Error& e) {
    throw Error(std::string("--config ") + e.what());
  }
  std::string line;
  int no = 0;
  std::map<std::string, int> seen;  // key -> line
  while (std::getline(in, line)) {
    ++no;
    const std::string where = path + ":" + std::to_string(no);
    // A byte-order mark (an editor's UTF-8) made the first key unknown with
    // the mark invisible in the message.
    if (no == 1 && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);
    // A NUL ended every message quoting the line at that byte, reason and all.
    if (const size_t nul = line.find('\0'); nul != std::string::npos)
      throw Error(where + ": a NUL byte at column " + std::to_string(nul + 1) +
                  ": expected text lines 'key = value' (a binary file?)");
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    line = Trim(line);
    if (line.empty()) continue;
    const size_t eq = line.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(where + ": expected 'key = value', got '" + line + "'");
    std::string key = Trim(line.substr(0, eq));
    const std::string value = Trim(line.substr(eq + 1));
    if (value.empty()) throw Error(where + ": " + key + " = : expected a value after '='");
    if (key == "mcast_mode") key = "mcast-mode";
    if (key == "no_wall") key = "no-wall";
    // A second line for a key would silently replace (or, for engine
    // options, add to) the first: name both.
    if (seen.count(key))
      throw Error(where + ": '" + key + "' again (first at line " + std::to_string(seen[key]) +
                  "); give each key once");
    seen[key] = no;
    if (key == "net" || (IsIn(kFlags, key) && key != "help") ||
        (IsIn(kValueOptions, key) && key != "config" && key != "param")) {
      s->opt[key] = {value, where, key};
    } else if (IsParamKey(key)) {
      s->params.push_back({key, {value, where, key}});
    } else if (IsIn(kCliOnlyOptions, key) || key == "config" || key == "help") {
      // They pick what kind of run this is, or a file: not a run's setting.
      throw Error(where + ": '" + key + "' is an option of the command line only (--" + key +
                  "), not a config file's key");
    } else {
      throw Error(where + ": unknown key '" + key + "' (options without dashes, net, or a --param key)");
    }
  }
}

// The command line over the config file's settings (options win).
void MergeCommandLine(const CommandLine& cl, Settings* s) {
  const std::map<std::string, Setting>& cli = cl.options;
  std::map<std::string, Setting>& opt = s->opt;
  std::vector<std::pair<std::string, Setting>>& params = s->params;
  // --load and --sweep pick the loads: one or the other. From the same
  // place that is an error; a command-line one replaces the config file's
  // (options win).
  if (cli.count("load") && cli.count("sweep"))
    throw Error(Named(cli.at("load")) + ": not with " + Named(cli.at("sweep")) +
                " (one load or a sweep of loads, not both)");
  if (opt.count("load") && opt.count("sweep"))
    throw Error(Named(opt.at("sweep")) + ": not with " + Named(opt.at("load")) +
                " (one load or a sweep of loads, not both)");
  if (cli.count("load")) opt.erase("sweep");
  if (cli.count("sweep")) opt.erase("load");
  for (const auto& [k, v] : cli) opt[k] = v;
  // Each key once on the command line, as in a config file (the last one
  // was taken, or both handed to the engine); one from the command line
  // replaces the config file's (options win).
  std::map<std::string, std::string> cli_param_seen;  // key -> its --param word
  for (const Setting& p : cl.params) {
    const size_t eq = p.value.find('=');
    if (eq == std::string::npos || eq == 0) throw Error("--param " + p.value + ": expected key=value");
    const std::string key = p.value.substr(0, eq);
    const auto [first, fresh] = cli_param_seen.emplace(key, p.value);
    if (!fresh)
      throw Error("--param " + p.value + ": '" + key + "' again (first --param " + first->second +
                  "); give each key once");
    params.erase(
        std::remove_if(params.begin(), params.end(), [&](const auto& kv) { return kv.first == key; }),
        params.end());
    // The file's `vls` line is the option --vls, which this sets too.
    if (key == "vls" && !cli.count("vls")) opt.erase("vls");
    params.push_back({key, {p.value.substr(eq + 1), "--param " + p.value, ""}});
  }
}

// A flag: on the command line, or "yes"/"no" (and alike) in the config file.
bool FlagValue(const CommandLine& cl, const std::map<std::string, Setting>& opt, const std::string& name) {
  if (cl.flags.count(name)) return true;
  auto it = opt.find(name);
  if (it == opt.end()) return false;
  const std::string& v = it->second.value;
  if (v == "1" || v == "yes" || v == "true" || v == "on") return true;
  if (v == "0" || v == "no" || v == "false" || v == "off") return false;
  throw Error(it->second.where + ": " + name + " = " + v + ": expected yes or no");
}

// Every setting of the run: the config file's, the command line's over
// them, the flags resolved.
Settings ReadSettings(const CommandLine& cl) {
  Settings s;
  if (cl.options.count("config")) ReadConfigFile(cl.options.at("config").value, &s);
  MergeCommandLine(cl, &s);
  s.positional = cl.positional;
  s.json = FlagValue(cl, s.opt, "json");
  s.quiet = FlagValue(cl, s.opt, "quiet");
  s.with_wall = !FlagValue(cl, s.opt, "no-wall");
  s.flows = FlagValue(cl, s.opt, "flows");
  return s;
}

// FNV-1a over the contents of the files the run reads (InputFiles, but
// the config file, whose settings are in the key already): a dump
// directory refilled between two jobs of a set, or a NETFILE edited, gives
// another run. Reads each file once more, O(bytes): 0.35 s for 300 MB of
// ibroute text (measured), so about 1 s per job for FT(16,3)'s 750 MB at
// LMC 5, against the minutes such a fabric's points take.
std::vector<std::string> InputFiles(const Settings& s);
std::string InputsDigest(const Settings& s) {
  uint64_t h = Fnv1a(nullptr, 0);
  const std::string config = s.opt.count("config") ? s.opt.at("config").value : "";
  for (const std::string& file : InputFiles(s)) {
    if (file == config) continue;
    h = Fnv1aOfFile(file, Fnv1a(file.c_str(), file.size() + 1, h));
  }
  return DigestHex(h);
}

// What a point's result depends on, as one line: the net file and every
// setting but those that only pick the point or where results go, the
// input files' contents and the program's (the model's version). A job set
// records it (sweep.txt) and each job saves it with its point, so that a
// merge can refuse a point of another run.
std::string RunKey(const Settings& s) {
  static const std::vector<std::string> kNotTheRun = {"point",   "save", "emit-jobs", "jobs",
                                                      "config",  "csv",  "links",     "plot",
                                                      "members", "json", "quiet",     "no-wall"};
  std::string key;
  for (const std::string& w : s.positional) key += w + " ";
  for (const auto& [name, setting] : s.opt)
    if (!IsIn(kNotTheRun, name)) key += name + "=" + setting.value + " ";
  std::vector<std::string> params;
  for (const auto& [name, setting] : s.params) params.push_back("param " + name + "=" + setting.value);
  std::sort(params.begin(), params.end());
  for (const std::string& p : params) key += p + " ";
  key += "inputs-fnv1a=" + InputsDigest(s) + " model-fnv1a=" + ProgramDigest();
  for (char& c : key)
    if (c == '\n' || c == '\r') c = ' ';  // one line in sweep.txt
  return key;
}

// Whether a job set's run (RunKey) was a --sweep, so that its merge prints
// the saturation line as the sweep did, and a single --load or batch point
// none. Sets written before the run was kept were all treated as sweeps.
bool RunWasASweep(const std::string& run) {
  if (run.empty()) return true;
  std::istringstream words(run);
  std::string w;
  while (words >> w)
    if (w.rfind("sweep=", 0) == 0) return true;
  return false;
}

// --merge DIR: the sweep a job set computed, printed as the sweep would.
int RunMerge(const Settings& s) {
  const std::map<std::string, Setting>& opt = s.opt;
  for (const auto& [k, v] : opt)
    if (k != "merge" && k != "csv" && k != "links" && k != "plot")
      throw Error(v.where +
                  ": not with --merge (it takes --json, --csv, --links, --plot, --no-wall, --quiet)");
  if (!s.positional.empty()) throw Error("unexpected argument '" + s.positional[0] + "' with --merge");
  if (!s.params.empty()) throw Error(s.params[0].second.where + ": not with --merge");
  const std::string dir = opt.at("merge").value;
  if (opt.count("plot")) CheckPlotter("--plot " + opt.at("plot").value);
  const JobSet set = ReadJobSet(dir);
  // A plot is latency against a load sweep, as for a direct run.
  if (opt.count("plot") && !RunWasASweep(set.run))
    throw Error(opt.at("plot").where + " " + opt.at("plot").value + ": only for a sweep's job set; " + dir +
                " holds a run without --sweep");
  std::vector<std::string> outputs;
  for (const char* file : {"csv", "links", "plot"})
    if (opt.count(file)) outputs.push_back(opt.at(file).value);
  CheckOutputsWritable(outputs, JobSetFiles(dir, set));
  Output out;
  out.json = s.json;
  out.quiet = s.quiet;
  out.with_wall = s.with_wall;
  out.head = set.head;
  out.saturation = RunWasASweep(set.run);
  if (opt.count("csv")) out.csv = opt.at("csv").value;
  if (opt.count("plot")) out.plot = opt.at("plot").value;
  const std::vector<PointResult> results = ReadPoints(dir, set);
  // The heading the direct run gives on stderr; the engine's notes and
  // the progress lines were the jobs'.
  if (!s.quiet && set.head.size() > 2) std::cerr << "ibunion sim: " << set.head.substr(2) << "\n";
  if (!s.quiet)
    if (const std::vector<std::string> stray = StrayPointFiles(dir, set); !stray.empty()) {
      std::string list;
      for (size_t k = 0; k < stray.size() && k < 5; ++k) list += (k ? ", " : "") + stray[k];
      std::cerr << "ibunion sim: note: " << dir << "/points holds " << stray.size()
                << " file(s) that are no point of this set of " << set.points << " (" << list
                << (stray.size() > 5 ? ", ..." : "") << "): not merged\n";
    }
  LinkNames names;
  if (opt.count("links")) {
    names = ReadLinkNames(dir, results);
    out.links = opt.at("links").value;
    out.link_names = &names;
  }
  return Report(results, out);
}

// --flows runs no model: what only a run reads would be ignored.
void RefuseUnreadByFlows(const Settings& s) {
  if (!s.flows) return;
  for (const char* name : {"sweep", "jobs", "csv", "plot", "members", "emit-jobs", "point", "save", "merge"})
    if (s.opt.count(name))
      throw Error(Named(s.opt.at(name)) + ": not with --flows (it follows the flows and runs no model; "
                  "--links FILE takes the per-link counts)");
  for (const auto& [key, setting] : s.params)
    for (const char* run_key : {"arrival", "warmup_ns", "measure_ns", "drain_ns", "max_ns", "batch",
                                "deadlock_check_ns", "nic_msgs"})
      if (key == run_key) throw Error(NamedParam(setting) + ": not with --flows (a run's setting; none runs)");
}

// --flows: the report on stdout (text under the head line, or one JSON
// object), the per-link counts to --links FILE.
int ReportFlows(const Settings& s, const Network& network, const Workload& wl, const Params& p,
                uint32_t msg, const std::vector<double>& loads, const std::string& head) {
  const double load = s.opt.count("load") ? loads[0] : 0.0;
  std::string csv, report;
  if (HasOneFlowPerSource(wl.spec())) {
    const FlowReport r = AnalyseFlows(network, wl, p, msg, load);
    if (s.opt.count("links")) csv = FlowsLinksCsv(r, NamesOf(network));
    report = s.json ? FlowsJson(r) + "\n" : head + "\n" + FlowsText(r, network);
  } else {
    const LoadReport r = AnalyseLoad(network, wl, p, msg, load);
    if (s.opt.count("links")) csv = LoadLinksCsv(r, NamesOf(network));
    report = s.json ? LoadJson(r) + "\n" : head + "\n" + LoadText(r, network);
  }
  if (s.opt.count("links"))
    WriteFilesAtomically({{s.opt.at("links").value, [&csv](std::ostream& os) { os << csv; }}});
  std::ostream& out = s.opt.count("links") && IsStdout(s.opt.at("links").value) ? std::cerr : std::cout;
  out << report;
  return 0;
}

// The files the run reads: NETFILE, --guid2lid, --config and, with
// dump:DIR, the dumped tables.
std::vector<std::string> InputFiles(const Settings& s) {
  const std::map<std::string, Setting>& opt = s.opt;
  std::vector<std::string> inputs;
  if (!s.positional.empty()) inputs.push_back(s.positional[0]);
  for (const char* file : {"net", "guid2lid", "config", "sources"})
    if (opt.count(file)) inputs.push_back(opt.at(file).value);
  if (opt.count("routing") && opt.at("routing").value.rfind("dump:", 0) == 0)
    for (std::string& f : DumpInputFiles(opt.at("routing").value.substr(5))) inputs.push_back(std::move(f));
  return inputs;
}

// What the run writes fits what it does (a job writes its record only),
// and every output file can be written and is none of the inputs: checked
// before anything runs.
void CheckOutputs(const Settings& settings) {
  const std::map<std::string, Setting>& opt = settings.opt;
  if (opt.count("emit-jobs") && (opt.count("point") || opt.count("save")))
    throw Error("--emit-jobs: not with --point or --save (the jobs it writes use those)");
  // A job writes its record only; the merge writes the sweep's files.
  for (const char* file : {"csv", "links", "members", "plot"})
    if (opt.count(file) && (opt.count("emit-jobs") || opt.count("save")))
      throw Error(opt.at(file).where + ": not with " + (opt.count("emit-jobs") ? "--emit-jobs" : "--save") +
                  (std::string(file) == "members"
                       ? " (run the point directly to get the members)"
                       : std::string("; give it to the merge (ibunion sim --merge DIR --") + file +
                             " FILE), which writes it from the jobs' records"));
  // --plot: a sweep's; gnuplot checked before anything runs.
  if (opt.count("plot")) {
    if (!opt.count("sweep") || opt.count("point"))
      throw Error(opt.at("plot").where + " " + opt.at("plot").value +
                  ": only with --sweep (not --point) or --merge of a sweep's job set");
    CheckPlotter("--plot " + opt.at("plot").value);
  }

  // Output files that could not be written are named now, not after a
  // sweep that may run for hours (its results were printed, then lost).
  std::vector<std::string> outputs;
  for (const char* file : {"csv", "links", "members", "plot", "save"})
    if (opt.count(file)) outputs.push_back(opt.at(file).value);
  CheckOutputsWritable(outputs, InputFiles(settings));
}

// A config file's input files (net, guid2lid) that cannot be
// opened are named with the file's line: a path relative to the working
// directory, not to the config file's folder, read as a plain "cannot open
// topology file" with nothing pointing at the config.
void CheckConfigInputs(const Settings& settings) {
  for (const char* key : {"net", "guid2lid"}) {  // sources names its line itself
    const auto it = settings.opt.find(key);
    if (it == settings.opt.end() || it->second.key.empty()) continue;  // the command line's: named as given
    const std::string& path = it->second.value;
    try {
      OpenInputFile(path, "");
    } catch (const Error& e) {  // "PATH: cannot open (reason)", with the config's line and where paths start
      throw Error(
          it->second.where + ": " + key + " = " + e.what() +
          (path.empty() || path[0] == '/'
               ? ""
               : "; a relative path is taken from the working directory, not from the config file's folder"));
    }
  }
}

// The model's parameters: the --param settings, then --vls and --mcast-mode.
Params BuildParams(const Settings& settings) {
  const std::map<std::string, Setting>& opt = settings.opt;
  Params p;
  for (const auto& [key, s] : settings.params) SetParam(p, key, s.value, s.where);
  if (opt.count("vls")) {
    // The model runs any count, but only 1, 2, 4 and 8 are VL counts a port
    // can have (VLCap) and are what the model is tested with.
    p.vls = int(ToInt(opt.at("vls"), "a VL count 1, 2, 4 or 8", 1, 8));
    if (!IsValidVlCount(p.vls)) throw Error(Named(opt.at("vls")) + ": expected a VL count 1, 2, 4 or 8");
  }
  if (opt.count("mcast-mode"))
    SetParam(p, "mcast_mode", opt.at("mcast-mode").value, opt.at("mcast-mode").where);
  ValidateParams(p);
  return p;
}

// 64 is the model's cap; Bernoulli arrivals, the default, stop at 1.
constexpr const char* kLoadCap = " (1 with Bernoulli arrivals, the default; 64 with arrival=exp or periodic)";

// The offered loads of the points: one --load, or every point of --sweep.
// `top_load`: the highest asked for (a sweep's TO).
std::vector<double> ReadLoads(const std::map<std::string, Setting>& opt, double* top_load) {
  std::vector<double> loads;
  if (opt.count("sweep")) {
    const Setting& s = opt.at("sweep");
    const std::vector<std::string> parts = SplitFields(s.value, ':');
    if (parts.size() != 3) throw Error(Named(s) + ": expected FROM:TO:STEP");
    const double from = ToDouble(s, parts[0], "FROM:TO:STEP with numbers");
    const double to = ToDouble(s, parts[1], "FROM:TO:STEP with numbers");
    const double step = ToDouble(s, parts[2], "FROM:TO:STEP with numbers");
    // Every point a load --load takes.
    if (from <= 0 || step <= 0 || to < from || to > kMaxLoad)
      throw Error(Named(s) + ": expected 0 < FROM <= TO <= 64 and STEP > 0" + kLoadCap);
    loads = SweepLoads(from, to, step);
    *top_load = to;
    if (loads.size() > 10000) throw Error(Named(s) + ": more than 10000 points");
  } else {
    double load = 0.1;
    if (opt.count("load")) {
      load =
          ToDouble(opt.at("load"), opt.at("load").value, "an offered load > 0 (fraction of link bandwidth)");
      if (load <= 0 || load > kMaxLoad)
        throw Error(Named(opt.at("load")) + ": expected an offered load in (0, 64]" + kLoadCap);
    }
    loads = {load};
    *top_load = load;
  }
  return loads;
}

// What every point runs: the traffic, message size, seed, threads, loads.
struct RunPlan {
  TrafficSpec spec;
  uint32_t msg = 32;
  uint64_t seed = 1;
  int jobs = 1;
  std::vector<double> loads;
  int point = -1;  // --point N, -1 all of them
};

// The plan of the run, each setting checked against the parameters.
RunPlan PlanRun(const Settings& settings, const Params& p) {
  const std::map<std::string, Setting>& opt = settings.opt;
  const std::vector<std::pair<std::string, Setting>>& params = settings.params;
  RunPlan plan;
  plan.spec = opt.count("traffic") ? ParseTraffic(opt.at("traffic").value, Named(opt.at("traffic")))
                                   : ParseTraffic("uniform");
  RefuseUnreadSettings(opt, params, plan.spec, p,
                       opt.count("routing") && opt.at("routing").value.rfind("dump:", 0) == 0);
  plan.msg = opt.count("msg") ? ToBytes(opt.at("msg")) : 32;
  plan.seed =
      opt.count("seed") ? uint64_t(ToInt(opt.at("seed"), "a seed 0..9223372036854775807 (2^63 - 1)", 0, INT64_MAX)) : 1;
  plan.jobs = opt.count("jobs") ? int(ToInt(opt.at("jobs"), "a thread count 1..256", 1, 256)) : 1;
  double top_load = 0;
  plan.loads = ReadLoads(opt, &top_load);
  RefuseBernoulliOverload(opt, params, p, top_load);
  // --sweep 0.1:0.35:0.1 ends at 0.3: said, as the table's last row would
  // otherwise be the only sign.
  if (opt.count("sweep") && !settings.quiet && plan.loads.back() < top_load * (1 - 1e-9))
    std::cerr << "ibunion sim: note: " << Named(opt.at("sweep"))
              << ": TO is off the STEP grid; the last point is load " << JsonNumber(plan.loads.back())
              << "\n";
  if (p.batch > 0 && plan.loads.size() > 1)
    throw Error("--sweep makes no sense with --param batch (one run)");
  // Checked before the fabric is read and routed, which takes a while on a
  // large one, only to be refused.
  if (opt.count("save") && !opt.count("point") && plan.loads.size() > 1)
    throw Error("--save: one point per file; add --point N (0.." + std::to_string(plan.loads.size() - 1) + ")");
  if (opt.count("point"))
    plan.point = int(ToInt(opt.at("point"), "a point index 0.." + std::to_string(plan.loads.size() - 1), 0,
                           (long long)plan.loads.size() - 1));
  if (plan.point >= 0 && plan.jobs > 1 && !settings.quiet)
    std::cerr << "ibunion sim: note: " << Named(opt.at("jobs"))
              << " unused: --point runs one point, on one thread\n";
  if (opt.count("emit-jobs") && plan.jobs > 1 && !settings.quiet)
    std::cerr << "ibunion sim: note: " << Named(opt.at("jobs"))
              << " unused: each job runs one point, on one thread (run the jobs in parallel with GNU "
                 "parallel or a Slurm array)\n";
  return plan;
}

// The fabric and the tables that forward on it: dumped (dump:DIR) or
// computed by an engine, which then also picks the DLIDs and SLs.
struct Routing {
  std::string name;  // --routing's value
  std::string net;   // NETFILE as given; empty if none
  bool dump = false;
  Fabric fabric;
  Tables tables;
  FlatMfts mfts;  // the workload's trees, moved out of `tables` as the engine routes them
  std::unique_ptr<Engine> engine;
  std::shared_ptr<const DumpedPathMap> path_map;  // dump: the plugin's path selection, if it wrote one
  std::shared_ptr<const DumpedPathSls> path_sls;  // dump: the SA's SL per path, if read back
};

// The replay's SLs, for its note: the SA's per path only with path-sl.dump.
std::string DumpSlNote(const Params& p, const DumpedPathSls* path_sls) {
  if (UsesDumpedPathSls(p, path_sls)) return "SLs the SA's per path (" + path_sls->file + ")";
  switch (p.sl) {
    case SlPolicy::kFixed: return "SL " + std::to_string(p.sl_value) + " (sl=" + std::to_string(p.sl_value) + ")";
    case SlPolicy::kRandom: return "SLs at random (sl=random)";
    case SlPolicy::kHash: return "SLs a hash of source and destination (sl=hash)";
    default: return "SLs a hash of source and destination (no path-sl.dump: not the SLs the SA hands out)";
  }
}

// How `given` differs from `dumped` by switch and end-port GUIDs (the
// first difference), or "" when both hold the same nodes.
std::string FabricDifference(const Fabric& given, const Fabric& dumped) {
  auto counts = [](const Fabric& f) {
    return std::to_string(f.switches.size()) + " switches and " + std::to_string(f.end_ports.size()) + " end ports";
  };
  if (given.switches.size() != dumped.switches.size() || given.end_ports.size() != dumped.end_ports.size())
    return "it has " + counts(given) + ", the dump " + counts(dumped);
  for (const Switch& sw : given.switches)
    if (dumped.SwitchByGuid(sw.guid) < 0) return "its switch " + Hex16(sw.guid) + " is not in the dump";
  for (const EndPort& ep : given.end_ports)
    if (dumped.EndPortByGuid(ep.port_guid) < 0)
      return "its end port " + Hex16(ep.port_guid) + " (" + ep.name + ") is not in the dump";
  return "";
}

// "; LFTs by ENGINE (DIR/engine)": the engine fabric-run saw set the
// tables, which is OpenSM's fallback when the one asked for could not
// route the fabric; empty for a directory without the file.
std::string RoutedByNote(const std::string& dir) {
  std::ifstream in(dir + "/engine");
  std::string engine;
  if (!(in >> engine)) return "";
  return "; LFTs by " + engine + " (" + dir + "/engine)";
}

// dump:DIR: the fabric and tables as the ibsim harness dumped them.
void ReadDump(const Settings& s, const Params& p, Routing* r) {
  const std::map<std::string, Setting>& opt = s.opt;
  Fabric& fabric = r->fabric;
  Tables& tables = r->tables;
  const std::string dir = r->name.substr(5);  // not empty: refused in CheckRouting
  fabric = ReadNetFile(dir + "/fabric.net");
  if (!r->net.empty() && !SameFile(r->net, dir + "/fabric.net")) {
    // Another file of the same fabric (the topology the run was given) is
    // harmless; another fabric is a mix-up that would replay silently.
    const std::string other = FabricDifference(ReadNetFile(r->net), fabric);
    if (!other.empty())
      throw Error("NETFILE " + r->net + " is not the fabric of " + r->name + ": " + other + " (" + dir +
                  "/fabric.net); leave NETFILE out, dump:DIR replays its own fabric.net");
    if (!s.quiet)
      std::cerr << "ibunion sim: note: using " << dir << "/fabric.net (with the LIDs the SM assigned), not "
                << r->net << " (the same switches and end ports)\n";
  }
  if (opt.count("guid2lid")) {  // a warning is printed even with --quiet
    const std::string warning = ApplyGuid2LidFile(opt.at("guid2lid").value, fabric, CarriesLids(fabric));
    if (!warning.empty()) std::cerr << "ibunion sim: warning: " << warning << "\n";
  }
  // Either refuses a switch without its table, which would surface only
  // mid-run, as "no route" for the first packet through it.
  ReadLftsFile(dir + "/lfts.dump", fabric, tables);
  if (FileExists(dir + "/mfts.dump")) ReadMftsFile(dir + "/mfts.dump", fabric, tables);
  tables.Resize(fabric);
  r->path_sls = ReadDumpedPathSls(dir, fabric);
  if (FileExists(dir + "/sl2vl.dump")) ReadDumpedSl2Vl(dir + "/sl2vl.dump", fabric, p, r->path_sls.get(), tables);
  r->path_map = ReadDumpedPathMap(dir, fabric);
  if (!s.quiet)
    std::cerr << "ibunion sim: note: VLs "
              << (tables.sl2vl.empty() ? "SL mod " + std::to_string(p.vls) + " (no sl2vl.dump)"
                                       : "by the ports' SL-to-VL tables (sl2vl.dump)")
              << "; DLIDs "
              << (r->path_map ? "by " + r->path_map->file + " (the plugin's path selection)"
                              : std::string("base LIDs (no ibunion-*-paths.dump)"))
              << "; " << DumpSlNote(p, r->path_sls.get()) << RoutedByNote(dir) << "\n";
}

// An engine's tables for the fabric in NETFILE.
void RouteWithEngine(const Settings& s, const Params& p, Routing* r) {
  const std::map<std::string, Setting>& opt = s.opt;
  const bool quiet = s.quiet;
  LogSink log = [quiet](LogLevel level, const std::string& text) {
    if (!quiet && level != LogLevel::kVerbose) std::cerr << "ibunion sim: engine: " << text << "\n";
  };
  if (r->net.empty()) throw Error("missing NETFILE (see --help)");
  LidOptions lid_options;
  if (opt.count("guid2lid")) {
    lid_options.guid2lid = opt.at("guid2lid").value;
    lid_options.guid2lid_named = Named(opt.at("guid2lid"));
  }
  if (opt.count("lmc")) {
    lid_options.lmc = int(ToInt(opt.at("lmc"), "an LMC 0..7", 0, 7));
    lid_options.lmc_named = Named(opt.at("lmc"));
  }
  LidsGiven given;
  r->fabric = ReadNetFileWithLids(r->net, lid_options, &given);
  if (!given.warning.empty()) std::cerr << "ibunion sim: warning: " << given.warning << "\n";  // even --quiet
  if (!given.note.empty() && !quiet) std::cerr << "ibunion sim: note: " << given.note << "\n";
  // xymesh's VL policy follows --vls unless engine.xymesh_vls says otherwise.
  std::vector<std::string> engine_options = p.engine_options;
  bool has_vls = false;
  for (const std::string& o : engine_options) has_vls = has_vls || o.rfind("xymesh_vls=", 0) == 0;
  if (r->name == "xymesh" && !has_vls) engine_options.push_back("xymesh_vls=" + std::to_string(p.vls));
  r->engine = MakeEngine(r->name, engine_options, log);
  RouteUnicastAndVls(*r->engine, r->fabric, r->tables);
}

// Filled in place: the workload and the network keep pointers into it.
void BuildRouting(const Settings& s, const Params& p, Routing* r) {
  const std::map<std::string, Setting>& opt = s.opt;
  const std::vector<std::string>& positional = s.positional;
  if (!opt.count("routing")) throw Error("--routing is required (mlid, slid, xymesh or dump:DIR)");
  r->name = opt.at("routing").value;
  CheckRouting(opt, s.params, p);
  r->net = positional.empty() ? (opt.count("net") ? opt.at("net").value : "") : positional[0];
  if (positional.size() > 1) throw Error("unexpected argument '" + positional[1] + "'");
  r->dump = r->name.rfind("dump:", 0) == 0;
  if (r->dump) {
    ReadDump(s, p, r);
  } else {
    RouteWithEngine(s, p, r);
  }
}

// The params by key as the user gave them, for the Workload's messages.
ParamNames ParamNamesOf(const Settings& s) {
  ParamNames names;
  for (const auto& [key, setting] : s.params) names[key] = NamedParam(setting);
  return names;
}

// The workload's multicast groups routed, and its DLIDs and SLs chosen,
// as the routing does.
void RouteTraffic(const Params& p, const GivenSources& given, Routing* r, Workload* workload) {
  Workload& wl = *workload;
  Fabric& fabric = r->fabric;
  Tables& tables = r->tables;
  const bool dump = r->dump;
  const std::unique_ptr<Engine>& engine = r->engine;
  const std::shared_ptr<const DumpedPathMap>& path_map = r->path_map;
  if (wl.is_mcast() && dump) {
    // The dumped group, in either mode: unicast copies go to its members.
    const std::string mfts = r->name.substr(5) + "/mfts.dump";
    if (!FileExists(mfts))
      throw Error(mfts + ": missing (fabric-run --no-mft writes none), and multicast traffic replays the "
                  "group the SM set in the MFTs; rerun fabric-run without --no-mft");
    wl.UseDumpedTree(fabric, tables, p.mlid, given);
  } else if (!given.empty()) {
    wl.UseGivenSources(fabric, given);
  }
  if (wl.hardware_mcast() && !dump) {
    // Such trees are free of credit loops for their anchor's packets only.
    if (engine->TreesForAnchorOnly() && wl.trees().size() < wl.sources().size())
      throw Error("engine." + std::string(engine->name()) +
                  " trees (xymesh_mcast=source) carry their anchor's "
                  "packets only, and mcast_trees = " +
                  std::to_string(wl.trees().size()) + " puts " + std::to_string(wl.sources().size()) +
                  " sources on them: leave mcast_trees at 0 (one per source)");
    r->mfts = FlatMfts(int(fabric.switches.size()));
    r->mfts.Reserve(wl.trees().size());
    for (size_t i = 0; i < wl.trees().size(); ++i) {
      const McastTree& t = wl.trees()[i];
      McastGroup g;
      g.mlid = t.mlid;
      g.members = wl.Members(int(i));
      g.anchor = t.anchor;
      engine->RouteMulticast(fabric, g, tables);
      // Every tree's entries at once in the engine's maps (72 bytes per
      // switch and tree) were the set-up's peak: 321 MB for FT(32,3) with
      // one tree per source. No engine reads another group's entries, and
      // each MLID is routed once here (xymesh's KeepPreviousTree reads a
      // group's own earlier entries, which Take would have moved out).
      r->mfts.Take(fabric, t.mlid, tables);
    }
  }
  if (engine) {
    const Engine* e = engine.get();
    const Fabric* f = &fabric;
    wl.SetDlidFn([e, f](int s, int d) { return e->SelectDlid(*f, s, d); }, true);
    wl.SetPathSlFn([e, f](int s, Lid dlid) { return int(e->PathSl(*f, f->end_ports[s].base_lid, dlid)); },
                   e->DataVls() > 1, p.sl);
  } else {
    if (path_map) wl.SetDlidFn([path_map](int s, int d) { return path_map->map.Select(s, d); }, true);
    else wl.SetDlidFn(nullptr, false);
    // The SA's SLs, as its PathRecords hand them to applications, are the
    // dump's "engine" SLs: sl=auto takes them whenever they were read back
    // (they pick the VLs, as UsesDumpedPathSls says for the SL2VL check).
    if (const std::shared_ptr<const DumpedPathSls>& sls = r->path_sls)
      wl.SetPathSlFn([sls](int s, Lid dlid) { return sls->sls.Sl(s, dlid); }, /*vl_policy=*/true, p.sl);
    else
      wl.SetPathSlFn(nullptr, false, p.sl);
  }
}

// The engine's SL-to-VL tables, when it sets any for the simulated VL
// count, decide the VL of every switch hop (e.g. xymesh's dedicated VL per
// direction). Tables made for another VL count (an explicit
// engine.xymesh_vls) are not used: VL = SL mod VLs, as for engines
// without tables. End ports inject on SL mod VLs, or by their own table
// when a dump has one (sl2vl.dump).
Sl2VlFn Sl2VlOf(const Routing& r, const Params& p, bool quiet) {
  const Tables& tables = r.tables;
  const std::unique_ptr<Engine>& engine = r.engine;
  const std::string& routing = r.name;
  Sl2VlFn sl2vl;
  if (!tables.sl2vl.empty() && engine && engine->DataVls() != p.vls) {
    if (!quiet)
      std::cerr << "ibunion sim: note: engine " << routing << " set SL-to-VL tables for " << engine->DataVls()
                << " data VL(s), not " << p.vls << "; not used (VL = SL mod " << p.vls << ")\n";
  } else if (!tables.sl2vl.empty()) {
    const Tables* t = &tables;
    const int vls = p.vls;
    sl2vl = [t, vls](int sw, int in_port, int out_port, int sl) -> int {
      if (sw < 0) {  // an end port (in_port is its index): its own table when read back
        const auto it = t->end_port_sl2vl.find(in_port);
        return it == t->end_port_sl2vl.end() ? sl % vls : it->second[size_t(sl)];
      }
      if (size_t(sw) >= t->sl2vl.size() || t->sl2vl[sw].empty()) return sl % vls;
      return t->sl2vl[sw].get(in_port, out_port, sl);
    };
  }
  return sl2vl;
}

// Tables that do not fit the fabric: name the dump they came from.
// The MFTs already taken from the tables (RouteTraffic) move into it.
std::unique_ptr<Network> MakeNetwork(Routing& r, const Params& p, const Sl2VlFn& sl2vl) {
  try {
    return std::make_unique<Network>(r.fabric, r.tables, p.vls, sl2vl, r.mfts.switches() ? &r.mfts : nullptr);
  } catch (const Error& e) {
    if (!r.dump) throw;
    throw Error(r.name.substr(5) + "/lfts.dump: " + e.what());
  }
}

// --sources FILE: the 'source NAME' lines of a --members file. NAME is an
// end port's node description, port GUID or LID, as group files name
// members. Other lines must be 'group NAME', blank or '#' comments; a name
// the fabric lacks, one several end ports share or one given twice is
// refused.
GivenSources ReadGivenSources(const std::map<std::string, Setting>& opt, const Fabric& fabric) {
  GivenSources given;
  if (!opt.count("sources")) return given;
  const std::string& path = opt.at("sources").value;
  given.named = Named(opt.at("sources"));  // "--sources F", or "run.conf:3: sources = F"
  std::ifstream in;
  try {
    in = OpenInputFile(path, "");  // a directory too, which reads as an empty file
  } catch (const Error& e) {
    throw Error(given.named + ": cannot read the file; " + e.what());
  }
  const EndPortNames names = IndexEndPortNames(fabric);    // O(hosts), not a search per line
  std::vector<int> given_as(fabric.end_ports.size(), -1);  // per end port: its index in `given`
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string text = Trim(line);
    if (text.empty() || text[0] == '#') continue;
    const size_t space = text.find_first_of(" \t");
    const std::string word = text.substr(0, space);
    const std::string name = space == std::string::npos ? "" : Trim(text.substr(space));
    const std::string where = path + ":" + std::to_string(n);
    if ((word != "source" && word != "group") || name.empty())
      throw Error(where + ": expected 'source NAME' or 'group NAME' (as --members writes them), got '" + text + "'");
    if (word == "group") continue;
    int ep = -1;
    try {
      ep = EndPortOfWord(fabric, names, name);
    } catch (const Error& e) {
      throw Error(where + ": " + e.what());
    }
    if (ep < 0)
      throw Error(where + ": no end port named '" + name + "' in the fabric (" +
                  std::to_string(fabric.end_ports.size()) +
                  " end ports; expected a node description, port GUID or LID)" +
                  NotAnEndPortHint(fabric, name));
    int& first = given_as[size_t(ep)];
    if (first >= 0)
      throw Error(where + ": source '" + name + "' named again (first at " + given.where[size_t(first)] + ")");
    first = int(given.end_ports.size());
    given.end_ports.push_back(ep);
    given.where.push_back(where);
  }
  if (given.empty()) throw Error(given.named + ": no 'source NAME' line");
  return given;
}

// --members: the group and the sources, written with the results (all
// files or none), in host-number order whatever the net file's order. A
// host is named as --sources reads it back: by node description, or by
// port GUID where the description is shared.
std::string MembersText(const std::map<std::string, Setting>& opt, const Workload& wl, const Fabric& fabric) {
  std::string members_text;
  if (opt.count("members")) {
    if (!wl.is_mcast()) throw Error("--members: only for --traffic mcast:SOURCES:GROUP");
    const EndPortNames names = IndexEndPortNames(fabric);
    for (int h : wl.group_by_number()) members_text += "group " + EndPortWord(fabric, names, h) + "\n";
    for (int h : wl.sources()) members_text += "source " + EndPortWord(fabric, names, h) + "\n";
  }
  return members_text;
}

// The line that heads the results: the fabric, routing, traffic and run.
std::string HeadLine(const Routing& r, const Workload& wl, const RunPlan& plan, const Params& p) {
  const bool dump = r.dump;
  const std::string& routing = r.name;
  const std::string& net = r.net;
  const Fabric& fabric = r.fabric;
  const uint32_t msg = plan.msg;
  const uint64_t seed = plan.seed;
  std::ostringstream head;
  // Named after the file the fabric came from: with dump:DIR that is
  // DIR/fabric.net, whatever NETFILE said.
  head << "# " << (dump ? routing.substr(5) + "/fabric.net" : net) << ": " << fabric.end_ports.size() << " end ports, "
       << fabric.switches.size() << " switches; routing " << routing << "; " << wl.Describe()
       << "; msg " << msg << " B; " << p.vls << " VL(s); seed " << seed;
  return head.str();
}

// --emit-jobs DIR: the sweep written as independent jobs, not run.
void EmitJobs(const std::vector<std::string>& words, const std::string& dir, size_t points,
              const std::string& head, const std::string& run, const Network& network, bool quiet) {
  // The jobs repeat this command line without --emit-jobs.
  std::vector<std::string> job_words;
  for (size_t i = 0; i < words.size(); ++i) {
    if (words[i] == "--emit-jobs") {
      ++i;
      continue;
    }
    if (words[i].rfind("--emit-jobs=", 0) == 0) continue;
    // A job runs one point, on one thread: --jobs would only be noted.
    if (words[i] == "--jobs") {
      ++i;
      continue;
    }
    if (words[i].rfind("--jobs=", 0) == 0) continue;
    if (words[i] == "--quiet") continue;  // every job line ends with its own
    job_words.push_back(words[i]);
  }
  WriteJobSet(dir, job_words, int(points), head, run, NamesOf(network));
  if (!quiet)
    std::cerr << "ibunion sim: " << points << " job(s) in " << dir << "/jobs.txt; run them with\n"
              << "  parallel < " << dir << "/jobs.txt      (GNU parallel; or: bash " << dir << "/jobs.txt)\n"
              << "  sbatch " << dir << "/slurm.sh           (Slurm job array)\n"
              << "then: ibunion sim --merge " << dir << " " << kMergeOutputs << "\n";
}

// The points asked for: one (--point N) or all of them, in parallel.
std::vector<PointResult> RunAskedPoints(const Settings& s, const Network& network, const Workload& wl,
                                        const Params& p, const RunPlan& plan) {
  const std::vector<double>& loads = plan.loads;
  const uint32_t msg = plan.msg;
  const uint64_t seed = plan.seed;
  const int jobs = plan.jobs;
  const bool quiet = s.quiet;
  std::vector<PointResult> results;
  if (plan.point >= 0) {
    results = {RunPoint(network, wl, p, msg, loads[plan.point], seed, plan.point)};
  } else {
    // Progress on stderr: a bar on a terminal, a line per point elsewhere.
    std::unique_ptr<ProgressBar> bar;
    ProgressFn progress;
    TickFn tick;
    if (!quiet) {
      bar = std::make_unique<ProgressBar>(int(loads.size()), isatty(STDERR_FILENO) != 0);
      progress = [&bar](int done, int total, const PointResult& r) { bar->PointDone(done, total, r); };
      tick = [&bar](int index, double done) { bar->Tick(index, done); };
    }
    results = RunPoints(network, wl, p, msg, loads, seed, jobs, progress, tick);
    bar.reset();  // clears the bar before the results
  }
  return results;
}

// The results saved (--save), printed and written as asked.
int SaveAndReport(const Settings& s, const std::vector<PointResult>& results, const std::string& head,
                  const std::string& members_text, const Network& network) {
  const std::map<std::string, Setting>& opt = s.opt;
  if (opt.count("save")) {
    PointResult saved = results[0];
    saved.run = RunKey(s);
    const std::string record = ToRecord(saved) + "\n";
    WriteFilesAtomically({{opt.at("save").value, [&](std::ostream& os) { os << record; }}});
  }
  Output out;
  // A job's point goes to its file only; --json asks for it on stdout too.
  out.print = !opt.count("save") || s.json;
  out.json = s.json;
  out.quiet = s.quiet;
  out.with_wall = s.with_wall;
  out.head = head;
  out.saturation = opt.count("sweep") && !opt.count("point");
  if (opt.count("csv")) out.csv = opt.at("csv").value;
  if (opt.count("links")) out.links = opt.at("links").value;
  if (opt.count("plot")) out.plot = opt.at("plot").value;
  if (opt.count("members")) {
    out.members_path = opt.at("members").value;
    out.members_text = members_text;
  }
  LinkNames names;  // named only when asked for: one string per port
  if (!out.links.empty()) {
    names = NamesOf(network);
    out.link_names = &names;
  }
  return Report(results, out);
}

// kernel=lean on a configuration it does not run: refused before any
// point, named where kernel= was given (a point failure exited 1 with a
// zero row in the output).
void RefuseForLean(const Settings& settings, const Network& net, const Workload& wl, const Params& p) {
  const std::string why = LeanKernelRefusal(net, wl, p);
  if (why.empty()) return;
  for (const auto& [key, s] : settings.params)
    if (key == "kernel") throw Error(NamedParam(s) + ": " + why);
  throw Error("kernel=lean: " + why);
}

int Run(int argc, char** argv) {
  std::vector<std::string> words(argv, argv + argc);
  if (!words.empty() && words[0] == "sim") words.erase(words.begin());
  if (words.empty()) {
    std::cerr << kUsage;
    return 2;
  }

  CommandLine parsed = ParseCommandLine(words);
  if (parsed.help) {
    std::cout << kUsage << ParamHelp();
    return 0;
  }

  const Settings settings = ReadSettings(parsed);
  const std::map<std::string, Setting>& opt = settings.opt;
  RefuseTwoOnStdout(opt, settings.json);
  RefuseUnreadByFlows(settings);
  if (opt.count("merge")) return RunMerge(settings);
  CheckOutputs(settings);
  CheckConfigInputs(settings);

  const Params p = BuildParams(settings);
  const RunPlan plan = PlanRun(settings, p);
  if (settings.flows) RefuseUnfollowable(plan.spec, p);
  Routing routing;
  BuildRouting(settings, p, &routing);
  // Traffic set-up (shared by every point). The Workload checks the params
  // that must fit the fabric, named as they were given.
  Workload wl(plan.spec, p, routing.fabric, plan.seed, ParamNamesOf(settings));
  RouteTraffic(p, ReadGivenSources(opt, routing.fabric), &routing, &wl);
  const std::unique_ptr<Network> network_owner = MakeNetwork(routing, p, Sl2VlOf(routing, p, settings.quiet));
  const Network& network = *network_owner;
  // Not read again: on large fabrics the LFTs are tens of MB (switches x LIDs).
  if (network.OwnsTables()) routing.tables = Tables();
  const std::string members_text = MembersText(opt, wl, routing.fabric);
  if (p.kernel == KernelKind::kLean) RefuseForLean(settings, network, wl, p);

  const std::string head = HeadLine(routing, wl, plan, p);
  if (!settings.quiet) std::cerr << "ibunion sim: " << head.substr(2) << "\n";
  if (settings.flows) return ReportFlows(settings, network, wl, p, plan.msg, plan.loads, head);
  if (opt.count("emit-jobs")) {
    EmitJobs(words, opt.at("emit-jobs").value, plan.loads.size(), head, RunKey(settings), network,
             settings.quiet);
    return 0;
  }
  const std::vector<PointResult> results = RunAskedPoints(settings, network, wl, p, plan);
  return SaveAndReport(settings, results, head, members_text, network);
}

}  // namespace

int SimMain(int argc, char** argv) {
  try {
    return Run(argc, argv);
  } catch (const SimFailure& e) {
    std::cerr << "ibunion sim: " << e.what() << "\n";
    return 1;
  } catch (const cli::UsageError& e) {  // the command line (cli::Args)
    std::cerr << "ibunion sim: " << e.message << "\n";
    return 2;
  } catch (const Error& e) {
    std::cerr << "ibunion sim: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "ibunion sim: internal error: " << e.what() << "\n";
    return 3;
  }
}

}  // namespace ibu::sim
