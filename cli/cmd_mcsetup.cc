// `ibunion mcsetup measure|burst|effective`: the cost of setting up
// multicast groups on a live subnet (seed 003), and the effective latency
// of the Basic, Lazy and Pool designs built from it.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cli/commands.h"
#include "plugin/core/error.h"
#include "plugin/core/fields.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"
#include "plugin/core/netfile.h"
#include "plugin/core/output_files.h"
#include "sim-harness/mcast/effective_latency.h"
#include "sim-harness/mcast/interrupt.h"
#include "sim-harness/mcast/setup_bench.h"

namespace ibu::cli {

namespace {

constexpr const char* kUsage =
    "usage: ibunion mcsetup measure NET [--guid2lid FILE] [--sizes 4,16] [--reps 3] [--workers 8]\n"
    "                               [--no-pool] [--seed S] [--label NAME] [--csv FILE] [--timeout-ms MS]\n"
    "                               [--fail-after-joins  (tests: fail mid-run, then clean up)]\n"
    "       ibunion mcsetup burst NET [--guid2lid FILE] [--groups 8] [--members 125] [--workers 8]\n"
    "                               [--seed S] [--timeout-ms MS]   (--members: default 125, or\n"
    "                               every end port of a smaller fabric)\n"
    "       ibunion mcsetup effective --setup CSV --costs CSV [--iterations 1,10,100,1000]\n"
    "                               [--csv FILE]\n"
    "measure/burst run on a live subnet (under ibsim: LD_PRELOAD=$IBUNION_UMAD2SIM and\n"
    "IBSIM_SOCKNAME, as `fabric-run --exec` provides them). NET is the subnet as\n"
    "ibnetdiscover prints it (LIDs included; or --guid2lid FILE, the SM's guid2lid,\n"
    "gives them). Requests go through --workers SA\n"
    "clients, one process per simulated host (proxy joins for the other members;\n"
    "ibsim serves at most 10 client processes, OpenSM and this one included).\n"
    "measure: per group size and repetition, create / join / leave latency through\n"
    "the SA and the time from the last join until the MFTs read back from every\n"
    "switch deliver exactly once (multicast testing); Pool: a group of every host,\n"
    "the non-members of the communicator leave. Every group is left again, also\n"
    "on Ctrl-C, SIGTERM or SIGHUP (exit status 128 + the signal). Exit status 1\n"
    "when the subnet does not go along (the SA refuses or loses a request, a tree\n"
    "is not ready or not gone in time), 2 for bad input.\n"
    "effective: Basic / Lazy / Pool / point-to-point effective latency per broadcast\n"
    "from a measure CSV and broadcast costs (CSV label,size,p2p_msg_us,hw_bcast_us\n"
    "from the timing model); tables on stdout, or on stderr with --csv - (the CSV\n"
    "is then all of stdout).\n";

std::vector<int> ParseIntList(const std::string& text, const std::string& what, long min,
                              long max) {
  std::vector<int> v;
  for (const std::string& word : SplitFields(text, ',')) {
    if (word.empty())
      throw UsageError{"option " + what + ": expected a comma-separated list of integers, got '" + text + "'"};
    v.push_back(static_cast<int>(ParseInt(word, "option " + what, min, max)));
    // A value twice measures it twice and plots it as two points.
    if (std::count(v.begin(), v.end() - 1, v.back()))
      throw UsageError{"option " + what + ": " + word + " is in '" + text +
                       "' twice; expected each value once"};
  }
  return v;
}

// SA workers on `count` hosts spread over the fabric's end ports.
std::vector<std::string> WorkerHosts(const Fabric& f, int count) {
  std::vector<std::string> hosts;
  const size_t n = f.end_ports.size();
  for (int i = 0; i < count && static_cast<size_t>(i) < n; ++i)
    hosts.push_back(f.end_ports[i * n / count].name);
  return hosts;
}

// The live subnet with the LIDs its SM assigned: from NET's ibnetdiscover
// comments or the SM's guid2lid file, never the generator's layout (which
// LoadFabric gives a file without LIDs, and the SM need not have used).
Fabric LoadLiveFabric(const Args& args) {
  if (args.positional().size() != 2)
    throw UsageError{std::string("expected NET (ibnetdiscover output of the live subnet)\n") + kUsage};
  return LoadSubnetFabric(args, args.positional()[1]);
}

// Runs a check of the harness on an option's value; its complaint names
// the option. For checks that need the fabric, made before any SA worker
// starts on the live subnet.
void AsOption(const std::string& option, const std::function<void()>& check) {
  try {
    check();
  } catch (const Error& e) {
    throw UsageError{"option " + option + ": " + e.what()};
  }
}

int Measure(const Args& args) {
  const Fabric f = LoadLiveFabric(args);
  mcast::SetupConfig cfg;
  cfg.sizes = ParseIntList(args.get("--sizes", "4,16"), "--sizes", 2, 100000);
  cfg.reps = static_cast<int>(args.integer("--reps", 3, 1, 1000));
  cfg.seed = static_cast<uint64_t>(args.integer("--seed", 1, 0, 1L << 40));
  cfg.pool = !args.has("--no-pool");
  cfg.fail_after_joins = args.has("--fail-after-joins");
  cfg.label = args.get("--label", "run");
  cfg.ready_timeout_ms = static_cast<double>(args.integer("--timeout-ms", 60000, 1, 3600000));
  const int workers = static_cast<int>(args.integer("--workers", 8, 1, 8));
  const std::string csv = args.get("--csv", "-");
  AsOption("--sizes", [&] { mcast::CheckGroupSizes(f, cfg.sizes); });
  AsOption("--label", [&] { mcast::CheckLabel(cfg.label); });
  std::vector<std::string> inputs = {args.positional()[1]};
  if (args.has("--guid2lid")) inputs.push_back(args.get("--guid2lid"));
  CheckOutputsWritable({csv}, inputs);  // now, not after the run on the live subnet
  // Workers first: this process must not hold a umad connection when it forks.
  mcast::SaWorkerPool sa(WorkerHosts(f, workers), 2000);
  mcast::MftReader reader("", 0, 2000);
  const auto samples = mcast::RunSetupBench(f, sa, reader, cfg, std::cerr);
  WriteFileAtomically(csv, [&](std::ostream& os) { mcast::WriteSamplesCsv(os, cfg.label, samples); });
  return 0;
}

int Burst(const Args& args) {
  const Fabric f = LoadLiveFabric(args);
  const int groups = static_cast<int>(args.integer("--groups", 8, 1, 1000));
  // The paper's burst is 8 groups of 125; a smaller fabric gets groups of
  // every end port unless --members says otherwise.
  const int members = static_cast<int>(
      args.integer("--members", std::min<long>(125, static_cast<long>(f.end_ports.size())), 1, 100000));
  const int workers = static_cast<int>(args.integer("--workers", 8, 1, 8));
  const auto seed = static_cast<uint64_t>(args.integer("--seed", 1, 0, 1L << 40));
  const auto timeout_ms = static_cast<double>(args.integer("--timeout-ms", 120000, 1, 3600000));
  AsOption("--members", [&] { mcast::CheckBurstMembers(f, members); });
  // Every option is read: only now do the SA workers start.
  mcast::SaWorkerPool sa(WorkerHosts(f, workers), 2000);
  mcast::MftReader reader("", 0, 2000);
  const auto r = mcast::RunJoinBurst(f, sa, reader, groups, members, seed, timeout_ms, std::cerr);
  std::cout << "joins " << r.joins << "\njoins_wall_ms " << r.joins_wall_ms << "\njoins_per_s "
            << r.joins_per_s << "\nall_ready_ms " << r.all_ready.ready_ms() << "\nmlids";
  for (uint16_t m : r.mlids) std::cout << " 0x" << std::hex << m << std::dec;
  std::cout << "\n";
  return 0;
}

// One CSV line without its CRLF's CR (a file saved by a spreadsheet on
// Windows): the last column's name and cells kept it, so its header "had
// no column" hw_bcast_us.
bool GetCsvLine(std::istream& in, std::string& line) {
  if (!std::getline(in, line)) return false;
  if (!line.empty() && line.back() == '\r') line.pop_back();
  return true;
}

// A CSV with a header line, read into rows of named columns.
std::vector<std::map<std::string, std::string>> ReadCsv(const std::string& path,
                                                        const std::vector<std::string>& needed) {
  std::ifstream in = OpenInputFile(path, "CSV file");
  std::string line;
  if (!GetCsvLine(in, line)) throw Error(path + ":1: expected a header line");
  const std::vector<std::string> header = SplitFields(line, ',');
  for (const std::string& col : needed)
    if (std::find(header.begin(), header.end(), col) == header.end())
      throw Error(path + ":1: header has no column '" + col + "'");
  std::vector<std::map<std::string, std::string>> rows;
  for (int no = 2; GetCsvLine(in, line); ++no) {
    if (line.empty()) continue;
    const std::vector<std::string> cells = SplitFields(line, ',');
    if (cells.size() != header.size())
      throw Error(path + ":" + std::to_string(no) + ": expected " + std::to_string(header.size()) +
                  " fields, found " + std::to_string(cells.size()));
    std::map<std::string, std::string> row;
    for (size_t i = 0; i < cells.size(); ++i) row[header[i]] = cells[i];
    row["#line"] = std::to_string(no);
    rows.push_back(row);
  }
  return rows;
}

// Column `col` of `row` as a decimal number >= 0, and at most `max` if given.
double Number(const std::map<std::string, std::string>& row, const std::string& col, const std::string& path,
              std::optional<long> max = std::nullopt) {
  const std::string& text = row.at(col);
  double v = -1;
  if (!ParseDecimalReal(text, &v) || !std::isfinite(v) || v < 0 || (max && v > double(*max)))
    throw Error(path + ":" + row.at("#line") + ": column " + col + ": expected a number " +
                (max ? "0.." + std::to_string(*max) : std::string(">= 0")) + ", got '" + text + "'");
  return v;
}

// A group size: a whole number of members, at least 2 (a group of one has
// no broadcast), at most a fabric's end ports.
int GroupSize(const std::map<std::string, std::string>& row, const std::string& path) {
  const double v = Number(row, "size", path, kMaxUnicastLid);
  const std::string where = path + ":" + row.at("#line") + ": column size: ";
  if (v != std::floor(v)) throw Error(where + "expected a whole number, got '" + row.at("size") + "'");
  if (v < 2) throw Error(where + "expected a group of 2 or more members, got '" + row.at("size") + "'");
  return static_cast<int>(v);
}

// A broadcast cost: a time, so more than zero (EffectiveLatency divides by it).
double Cost(const std::map<std::string, std::string>& row, const std::string& col, const std::string& path) {
  const double v = Number(row, col, path);
  if (v <= 0)
    throw Error(path + ":" + row.at("#line") + ": column " + col + ": expected a time > 0, got '" +
                row.at(col) + "'");
  return v;
}

using GroupKey = std::pair<std::string, int>;  // label, size

// The measure CSV's repetitions, by label and size.
std::map<GroupKey, std::vector<mcast::SetupCosts>> ReadSetups(const std::string& path) {
  std::map<GroupKey, std::vector<mcast::SetupCosts>> setups;
  for (const auto& row :
       ReadCsv(path, {"label", "size", "joins_wall_ms", "ready_ms", "pool_leaves_wall_ms"})) {
    mcast::SetupCosts s;
    s.create_join_ms = Number(row, "joins_wall_ms", path);
    s.ready_ms = Number(row, "ready_ms", path);
    s.pool_leave_ms = Number(row, "pool_leaves_wall_ms", path);
    setups[{row.at("label"), GroupSize(row, path)}].push_back(s);
  }
  if (setups.empty())
    throw Error(path +
                ": no rows after the header: expected one per group and repetition (mcsetup measure --csv)");
  return setups;
}

// The timing model's costs, one row per label and size.
std::map<GroupKey, mcast::BroadcastCosts> ReadBroadcastCosts(const std::string& path) {
  std::map<GroupKey, mcast::BroadcastCosts> costs;
  std::map<GroupKey, std::string> line_of;
  for (const auto& row : ReadCsv(path, {"label", "size", "p2p_msg_us", "hw_bcast_us"})) {
    const GroupKey key{row.at("label"), GroupSize(row, path)};
    const auto [first, fresh] = line_of.emplace(key, row.at("#line"));
    if (!fresh)
      throw Error(path + ":" + row.at("#line") + ": label " + key.first + " size " +
                  std::to_string(key.second) + " again (first at line " + first->second +
                  "): expected one row per label and size");
    mcast::BroadcastCosts b;
    b.p2p_us = mcast::BinomialBroadcastUs(key.second, Cost(row, "p2p_msg_us", path));
    b.hw_us = Cost(row, "hw_bcast_us", path);
    costs[key] = b;
  }
  return costs;
}

struct EffectiveRow {
  GroupKey key;
  int iterations;
  mcast::Effective e;
};

int EffectiveMain(const Args& args) {
  if (args.positional().size() != 1)
    throw UsageError{"effective takes no NET or other word, got '" + args.positional()[1] + "'\n" + kUsage};
  const std::string setup_path = args.get("--setup"), costs_path = args.get("--costs");
  if (setup_path.empty() || costs_path.empty())
    throw UsageError{std::string("effective needs --setup CSV and --costs CSV\n") + kUsage};
  const std::vector<int> iterations =
      ParseIntList(args.get("--iterations", "1,10,100,1000"), "--iterations", 1, 100000000);
  if (args.has("--csv")) CheckOutputsWritable({args.get("--csv")}, {setup_path, costs_path});
  const auto setups = ReadSetups(setup_path);
  const auto costs = ReadBroadcastCosts(costs_path);
  // Medians over the repetitions of each (label, size); everything is
  // computed before anything is printed, so an error leaves no half table.
  std::map<GroupKey, mcast::SetupCosts> medians;
  std::vector<EffectiveRow> rows;
  for (const auto& [key, list] : setups) {
    std::vector<double> cj, rd, pl;
    for (const auto& s : list) {
      cj.push_back(s.create_join_ms);
      rd.push_back(s.ready_ms);
      pl.push_back(s.pool_leave_ms);
    }
    const mcast::SetupCosts med{mcast::Median(cj), mcast::Median(rd), mcast::Median(pl)};
    medians[key] = med;
    auto c = costs.find(key);
    if (c == costs.end())
      throw Error(costs_path + ": no broadcast costs for label " + key.first + " size " +
                  std::to_string(key.second));
    for (int n : iterations) rows.push_back({key, n, mcast::EffectiveLatency(med, c->second, n)});
  }
  // With --csv - the CSV is all of stdout: the tables go to stderr then,
  // as measure's report does beside its CSV.
  std::FILE* report = args.has("--csv") && IsStdout(args.get("--csv")) ? stderr : stdout;
  std::fprintf(report, "%-16s %5s %14s %12s %14s   (set-up, ms: medians of %s)\n", "label", "size",
               "create+joins", "ready", "pool_leaves", setup_path.c_str());
  for (const auto& [key, m] : medians)
    std::fprintf(report, "%-16s %5d %14.3f %12.3f %14.3f\n", key.first.c_str(), key.second, m.create_join_ms,
                 m.ready_ms, m.pool_leave_ms);
  std::fprintf(report, "\n");
  std::ostringstream csv;
  csv << "label,size,iterations,original_us,basic_us,lazy_us,pool_us,basic_over_lazy,basic_over_pool\n";
  std::fprintf(report, "%-16s %5s %10s %12s %12s %12s %12s %8s %8s\n", "label", "size", "iterations",
               "original_us", "basic_us", "lazy_us", "pool_us", "B/Lazy", "B/Pool");
  for (const auto& [key, n, e] : rows) {
    std::fprintf(report, "%-16s %5d %10d %12.2f %12.2f %12.2f %12.2f %8.2f %8.2f\n", key.first.c_str(),
                 key.second, n, e.original_us, e.basic_us, e.lazy_us, e.pool_us, e.basic_us / e.lazy_us,
                 e.basic_us / e.pool_us);
    csv << key.first << ',' << key.second << ',' << n << ',' << e.original_us << ',' << e.basic_us << ','
        << e.lazy_us << ',' << e.pool_us << ',' << e.basic_us / e.lazy_us << ',' << e.basic_us / e.pool_us
        << '\n';
  }
  FlushReport(report);
  if (args.has("--csv")) WriteFileAtomically(args.get("--csv"), csv.str());
  return 0;
}

struct VerbOptions {
  std::set<std::string> with_value, flags;
  bool Takes(const std::string& option) const { return with_value.count(option) || flags.count(option); }
};

// Each verb's own options; the command line is read with their union.
const std::map<std::string, VerbOptions>& OptionsOfVerbs() {
  static const std::map<std::string, VerbOptions> kOptionsOf = {
      {"measure",
       {{"--guid2lid", "--lmc", "--sizes", "--reps", "--workers", "--seed", "--label", "--csv", "--timeout-ms"},
        {"--no-pool", "--fail-after-joins"}}},
      {"burst", {{"--guid2lid", "--lmc", "--groups", "--members", "--workers", "--seed", "--timeout-ms"}, {}}},
      {"effective", {{"--setup", "--costs", "--iterations", "--csv"}, {}}}};
  return kOptionsOf;
}

Args ReadMcSetupArgs(int argc, char** argv) {
  std::set<std::string> with_value, flags = {"-h", "--help"};
  for (const auto& [verb, options] : OptionsOfVerbs()) {
    with_value.insert(options.with_value.begin(), options.with_value.end());
    flags.insert(options.flags.begin(), options.flags.end());
  }
  return Args(argc, argv, with_value, flags);
}

// The verbs share one command line; an option of another verb would be
// accepted and ignored, so it is refused by name.
void RefuseOptionsOfOtherVerbs(const Args& args, const std::string& verb) {
  const auto own = OptionsOfVerbs().find(verb);
  if (own == OptionsOfVerbs().end()) return;
  // Named with every verb that has it (--csv is measure's and effective's).
  for (const auto& [name, options] : OptionsOfVerbs())
    for (const auto* set : {&options.with_value, &options.flags})
      for (const std::string& o : *set) {
        if (!args.has(o) || own->second.Takes(o)) continue;
        std::string verbs;
        for (const auto& [other, other_options] : OptionsOfVerbs())
          if (other_options.Takes(o)) verbs += (verbs.empty() ? "" : " and ") + other;
        throw UsageError{o + " is not an option of mcsetup " + verb + " (it is one of " + verbs + ")\n" +
                         kUsage};
      }
}

// Runs measure or burst on the live subnet under an InterruptGuard: Ctrl-C
// (or SIGTERM, SIGHUP) stops the run at its next step; by the time the
// error reaches here every group it joined has been left and every SA
// worker stopped, and the process exits with 128 + the signal's number.
int OnLiveSubnet(int (*run)(const Args&), const Args& args) {
  mcast::InterruptGuard guard;
  try {
    return run(args);
  } catch (const Error& e) {
    const int sig = mcast::PendingInterrupt();
    if (!sig && dynamic_cast<const mcast::SubnetFailure*>(&e)) {
      std::cerr << "ibunion mcsetup: " << e.what() << "\n";
      return 1;
    }
    if (!sig) throw;
    std::cerr << "ibunion mcsetup: " << mcast::Interrupted(sig).what()
              << ": stopped; every group this run joined was left again\n";
    mcast::ExitForSignal(sig);
  }
}

}  // namespace

int McSetupMain(int argc, char** argv) {
  const Args args = ReadMcSetupArgs(argc, argv);
  if (args.has("-h") || args.has("--help")) {
    std::cout << kUsage;
    return 0;
  }
  const auto& pos = args.positional();
  const std::string verb = pos.empty() ? "" : pos[0];
  RefuseOptionsOfOtherVerbs(args, verb);
  if (verb == "measure") return OnLiveSubnet(Measure, args);
  if (verb == "burst") return OnLiveSubnet(Burst, args);
  if (verb == "effective") return EffectiveMain(args);
  throw UsageError{
      (verb.empty() ? std::string("expected a verb:") : "unknown verb '" + verb + "': expected") +
      " measure, burst or effective\n" + kUsage};
}

}  // namespace ibu::cli
