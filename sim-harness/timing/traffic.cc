#include "sim-harness/timing/traffic.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <map>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/fields.h"
#include "plugin/core/int_math.h"
#include "plugin/core/topology/host_order.h"

namespace ibu::sim {

namespace {

// `named`: the setting as given, "--traffic TEXT" or "FILE:LINE: traffic = TEXT".
[[noreturn]] void Bad(const std::string& named, const std::string& why) {
  throw Error(named + ": " + why);
}

double ToDouble(const std::string& named, const std::string& word, const std::string& what) {
  double v = 0;
  if (!ParseDecimalReal(word, &v)) Bad(named, "'" + word + "' is not a number (" + what + ")");
  return v;
}

HostCount ParseCount(const std::string& named, std::string word, const std::string& what) {
  HostCount c;
  if (word == "all") return c;
  bool percent = false;
  if (!word.empty() && word.back() == '%') {
    percent = true;
    word.pop_back();
  }
  const double v = ToDouble(named, word, what);
  if (percent) {
    c.value = v / 100.0;
  } else if (word.find_first_of(".eE") != std::string::npos) {
    c.value = v;
  } else {
    c.fraction = false;
    c.value = v;
  }
  if (c.fraction && (c.value <= 0.0 || c.value > 1.0))
    Bad(named, what + " " + word + (percent ? "%" : "") + " must be a fraction in (0, 1]");
  if (!c.fraction && (c.value < 1 || c.value != std::floor(c.value)))
    Bad(named, what + " " + word + " must be a host count >= 1 or a fraction like 0.4 or 40%");
  return c;
}

// k distinct hosts out of n, sorted.
std::vector<int> Sample(int n, int k, Mt64& rng) {
  std::vector<int> all(n);
  for (int i = 0; i < n; ++i) all[i] = i;
  for (int i = 0; i < k; ++i) std::swap(all[i], all[i + UniformBelow(rng, uint64_t(n - i))]);
  all.resize(k);
  std::sort(all.begin(), all.end());
  return all;
}

// A count of hosts above the `of` it is drawn from ("the fabric's 16"):
// a mistake, not "all" (fractions always fit).
void RefuseTooManyHosts(const std::string& named, const HostCount& c, const char* what, int of,
                        const std::string& of_what) {
  if (c.fraction || c.value <= of) return;
  char given[32];
  std::snprintf(given, sizeof given, "%.0f", c.value);
  throw Error(named + ": " + what + " " + given + " is more hosts than " + of_what + " (give a count up to " +
              std::to_string(of) + ", a fraction like 0.4 or 40%, or all)");
}

// A fraction of `of` hosts that rounds to none: Resolve took it as one
// host, a group or source set the fraction never asked for.
void RefuseNoHosts(const std::string& named, const HostCount& c, const char* what, int of,
                   const std::string& of_what) {
  if (!c.fraction || std::lround(c.value * of) >= 1) return;
  char given[32], least[32];
  std::snprintf(given, sizeof given, "%g", c.value);
  std::snprintf(least, sizeof least, "%g", 0.5 / of);
  throw Error(named + ": " + what + " " + given + " of " + of_what +
              " rounds to no host (give a fraction of at least " + least + ", or a host count)");
}

// A shift distance `k` of `n` hosts outside 1..n-1 wrapped to k mod n
// without a word; a multiple of n moved no host and sent nothing.
void RefuseShiftBeyondHosts(const std::string& named, int k, int n) {
  if (k < n) return;
  const std::string range = "expected a shift distance 1.." + std::to_string(n - 1);
  if (k % n == 0)
    throw Error(named + ": every one of the fabric's " + std::to_string(n) + " hosts maps to itself (" +
                std::to_string(k) + " is a multiple of " + std::to_string(n) + "), so nothing is sent (" +
                range + ")");
  throw Error(named + ": shift " + std::to_string(k) + " is not below the fabric's " + std::to_string(n) +
              " hosts (" + range + "; it is not taken mod " + std::to_string(n) + ")");
}

int Log2Exact(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return (1 << k) == n ? k : -1;
}

}  // namespace

int HostCount::Resolve(int hosts) const {
  int n = fraction ? int(std::lround(value * hosts)) : int(value);
  return std::max(1, std::min(n, hosts));
}

TrafficSpec ParseTraffic(const std::string& text, const std::string& named) {
  TrafficSpec s;
  s.text = text;
  s.named = named.empty() ? "--traffic " + text : named;
  const std::string& where = s.named;
  const std::vector<std::string> w = SplitFields(text, ':');
  const std::string& name = w[0];
  auto want = [&](size_t lo, size_t hi, const std::string& form) {
    if (w.size() < lo || w.size() > hi) Bad(where, "expected " + form);
  };
  if (name == "uniform") {
    want(1, 1, "uniform");
    s.pattern = Pattern::kUniform;
  } else if (name == "centric") {
    want(1, 2, "centric:F with F the fraction of messages to the hot host");
    s.pattern = Pattern::kCentric;
    if (w.size() == 2) {
      std::string f = w[1];
      bool percent = !f.empty() && f.back() == '%';
      if (percent) f.pop_back();
      s.centric = ToDouble(where, f, "hot fraction") / (percent ? 100.0 : 1.0);
      if (s.centric < 0.0 || s.centric > 1.0) Bad(where, "hot fraction must be in [0, 1]");
    }
  } else if (name == "shift") {
    want(1, 2, "shift or shift:K");
    s.pattern = Pattern::kShift;
    if (w.size() == 2) {
      long long k = 0;  // an integer as every integer is read: decimal or 0x hex, not 1e3
      if (!ParseInteger(w[1], &k) || k < 1 || k > 10000000)
        Bad(where, "shift distance must be an integer 1..10000000");
      s.shift = int(k);
    }
  } else if (name == "bitrev") {
    want(1, 1, "bitrev");
    s.pattern = Pattern::kBitrev;
  } else if (name == "transpose") {
    want(1, 1, "transpose");
    s.pattern = Pattern::kTranspose;
  } else if (name == "randperm") {
    want(1, 1, "randperm");
    s.pattern = Pattern::kRandperm;
  } else if (name == "mcast") {
    want(3, 3, "mcast:SOURCES:GROUP, each a fraction (0.4, 40%, all) or a host count (1, 12)");
    s.pattern = Pattern::kMcast;
    s.sources = ParseCount(where, w[1], "SOURCES");
    s.group = ParseCount(where, w[2], "GROUP");
  } else {
    Bad(where, "unknown pattern '" + name +
                  "' (known: uniform, centric:F, shift[:K], bitrev, transpose, randperm, "
                  "mcast:SOURCES:GROUP)");
  }
  return s;
}

Workload::Workload(const TrafficSpec& spec, const Params& p, const Fabric& f, uint64_t seed,
                   const ParamNames& names)
    : spec_(spec),
      names_(names),
      mode_(p.mcast_mode),
      trees_wanted_(p.mcast_trees),
      hosts_(int(f.end_ports.size())),
      hot_(p.hot),
      seed_(seed),
      dlid_policy_(p.dlid) {
  const int n = hosts_;
  if (n < 2) throw Error("the fabric has " + std::to_string(n) + " end ports; traffic needs two");
  Mt64 rng(seed ^ 0x5eed5e7u);
  source_flag_.assign(n, false);
  base_lid_.resize(n);
  lid_count_.resize(n);
  for (int h = 0; h < n; ++h) {
    base_lid_[h] = f.end_ports[h].base_lid;
    lid_count_[h] = f.end_ports[h].lid_count();
  }
  const HostOrder order =
      p.host_order == HostNumbering::kFile ? HostsInFileOrder(f) : HostsInAddressOrder(f);
  host_at_ = order.end_ports;
  order_name_ = order.name;
  number_of_.assign(size_t(n), 0);
  for (int i = 0; i < n; ++i) number_of_[size_t(host_at_[size_t(i)])] = i;
  perm_.assign(n, -1);  // by host number until translated below
  switch (spec_.pattern) {
    case Pattern::kUniform:
      for (int h = 0; h < n; ++h) sources_.push_back(h);
      break;
    case Pattern::kCentric:
      if (hot_ >= n)
        throw Error(NamedParam("hot", hot_) + ": expected a host number 0.." + std::to_string(n - 1) +
                    ", the fabric has " + std::to_string(n) + " hosts");
      hot_ = host_at_[size_t(hot_)];
      for (int h = 0; h < n; ++h) sources_.push_back(h);
      break;
    case Pattern::kMcast:
      DrawGroupAndSources(f, rng);
      break;
    default:
      PermuteHostNumbers(p, rng);
  }
  TranslatePermutation();
  SortByNumber(sources_);
  for (int h : sources_) source_flag_[h] = true;
  BuildTrees();
}

void Workload::DrawGroupAndSources(const Fabric& f, Mt64& rng) {
  const int n = hosts_;
  RefuseTooManyHosts(spec_.named, spec_.sources, "SOURCES", n, "the fabric's " + std::to_string(n));
  RefuseTooManyHosts(spec_.named, spec_.group, "GROUP", n, "the fabric's " + std::to_string(n));
  const std::string hosts_text = "the fabric's " + std::to_string(n) + " hosts";
  RefuseNoHosts(spec_.named, spec_.sources, "SOURCES", n, hosts_text);
  RefuseNoHosts(spec_.named, spec_.group, "GROUP", n, hosts_text);
  SetGroup(EndPortsOf(Sample(n, spec_.group.Resolve(n), rng)));
  sources_ = EndPortsOf(Sample(n, spec_.sources.Resolve(n), rng));
  RefuseLoneSource(f, "");
}

// A permutation of the host numbers with no host sending to itself, each
// such permutation as likely: shuffles are drawn until one has no fixed
// point (e ~ 2.72 shuffles on average, for any n). Repairing a fixed
// point by a swap with the next host had made the pair h+1 -> h twice as
// likely as any other (1.97 such pairs per permutation on FT(8,3) over
// 300 seeds, 1.01 expected); a shuffle with no fixed point is kept as it
// was, so those seeds' permutations are unchanged.
void Workload::DrawDerangement(Mt64& rng) {
  const int n = hosts_;
  for (;;) {
    for (int h = 0; h < n; ++h) perm_[h] = h;
    if (n < 2) return;  // none exists; TranslatePermutation says so
    for (int i = n - 1; i > 0; --i) std::swap(perm_[i], perm_[UniformBelow(rng, uint64_t(i + 1))]);
    bool fixed_point = false;
    for (int h = 0; h < n && !fixed_point; ++h) fixed_point = perm_[h] == h;
    if (!fixed_point) return;
  }
}

// shift, bitrev, transpose, randperm: perm_[number] = the number it sends
// to, refused when the pattern does not fit the host count.
void Workload::PermuteHostNumbers(const Params& p, Mt64& rng) {
  const int n = hosts_;
  switch (spec_.pattern) {
    case Pattern::kShift: {
      const int k = spec_.shift ? spec_.shift : (p.shift ? p.shift : n / 2);
      RefuseShiftBeyondHosts(spec_.shift ? spec_.named : NamedParam("shift", k), k, n);
      for (int h = 0; h < n; ++h) perm_[h] = (h + k) % n;
      break;
    }
    case Pattern::kBitrev: {
      const int bits = Log2Exact(n);
      if (bits < 0)
        throw Error(spec_.named + ": bitrev needs a power-of-two host count; the fabric has " +
                    std::to_string(n));
      for (int h = 0; h < n; ++h) {
        int r = 0;
        for (int b = 0; b < bits; ++b)
          if (h & (1 << b)) r |= 1 << (bits - 1 - b);
        perm_[h] = r;
      }
      break;
    }
    case Pattern::kTranspose: {
      // Host r*k + c to c*k + r: a square mesh's H(x,y) to H(y,x), and on
      // 2^2b hosts the usual swap of the number's bit halves.
      const int k = int(std::lround(std::sqrt(double(n))));
      if (k * k != n)
        throw Error(spec_.named +
                    ": transpose needs a square host count (k x k, as a square mesh has); the fabric has " +
                    std::to_string(n));
      for (int h = 0; h < n; ++h) perm_[h] = (h % k) * k + h / k;
      break;
    }
    case Pattern::kRandperm:
      DrawDerangement(rng);
      break;
    default:
      break;
  }
}

// perm_ from host numbers to end ports; without drawn sources, every host
// that sends to another is one.
void Workload::TranslatePermutation() {
  const int n = hosts_;
  std::vector<int> by_number(n, -1);
  for (int i = 0; i < n; ++i)
    if (perm_[i] >= 0) by_number[size_t(host_at_[i])] = host_at_[size_t(perm_[i])];
  perm_ = std::move(by_number);
  if (!perm_.empty() && spec_.pattern != Pattern::kMcast && sources_.empty()) {
    for (int h = 0; h < n; ++h)
      if (perm_[h] >= 0 && perm_[h] != h) sources_.push_back(h);
    // bitrev on two hosts: a run with no traffic at all printed zeros.
    if (sources_.empty())
      throw Error(spec_.named + ": every one of the fabric's " + std::to_string(n) +
                  " hosts maps to itself, so nothing is sent");
  }
}

void Workload::SortByNumber(std::vector<int>& end_ports) const {
  std::sort(end_ports.begin(), end_ports.end(), [this](int a, int b) { return Number(a) < Number(b); });
}

void Workload::SetGroup(std::vector<int> end_ports) {
  group_ = std::move(end_ports);
  std::sort(group_.begin(), group_.end());
  group_by_number_ = group_;
  SortByNumber(group_by_number_);
}

// The end ports of host numbers, sorted.
std::vector<int> Workload::EndPortsOf(const std::vector<int>& numbers) const {
  std::vector<int> eps;
  eps.reserve(numbers.size());
  for (int i : numbers) eps.push_back(host_at_[size_t(i)]);
  std::sort(eps.begin(), eps.end());
  return eps;
}

// A source sends to the group's other members: none when the group is
// that source alone, and the run had no traffic at all.
void Workload::RefuseLoneSource(const Fabric& f, const std::string& how) const {
  if (group_.size() != 1 || sources_ != group_) return;
  throw Error(spec_.named + ": the group drawn (seed " + std::to_string(seed_) + ") is its one source " +
              f.end_ports[size_t(group_[0])].name + (how.empty() ? "" : " (" + how + ")") +
              " alone, so nothing is sent (give a larger group" + (how.empty() ? ", or another seed)" : ")"));
}

void Workload::TakeSources(const GivenSources& given, int of, const std::string& of_what) {
  const int want = spec_.sources.Resolve(of);
  if (int(given.end_ports.size()) != want)
    throw Error(given.named + ": names " + std::to_string(given.end_ports.size()) + " source(s), but " +
                spec_.named + " asks for " + std::to_string(want) + " of " + of_what +
                " (give SOURCES as " + std::to_string(given.end_ports.size()) + ")");
  SetSources(given.end_ports);
}

void Workload::SetSources(std::vector<int> end_ports) {
  sources_ = std::move(end_ports);
  SortByNumber(sources_);
  source_flag_.assign(hosts_, false);
  for (int h : sources_) source_flag_[size_t(h)] = true;
}

void Workload::UseGivenSources(const Fabric& f, const GivenSources& given) {
  if (!is_mcast()) throw Error(given.named + ": only with multicast traffic (--traffic mcast:SOURCES:GROUP)");
  TakeSources(given, hosts_, "the fabric's " + std::to_string(hosts_) + " hosts");
  RefuseLoneSource(f, given.named);
  BuildTrees();
}

// One tree per source by default, each holding the group and its source:
// sources x members entries here, and as many MLIDs for the engine to
// build (each O(members + tree switches)) and MFT entries for the model,
// so quadratic in the hosts for mcast:F:G with fractions (FT(32,3),
// mcast:0.4:0.4: 3277 trees of 3277 members, 1.3 s and 0.3 GB more than
// one shared tree); mcast_trees=N bounds it.
void Workload::BuildTrees() {
  trees_.clear();
  tree_of_.assign(hosts_, -1);
  if (!hardware_mcast()) return;
  const int sources = int(sources_.size());
  // A tree beyond the sources would have none to send on it: it was
  // dropped without a word.
  if (trees_wanted_ > sources)
    throw Error(NamedParam("mcast_trees", trees_wanted_) + ": more MLIDs than the " +
                std::to_string(sources) + " source(s) spread over them (give 1.." + std::to_string(sources) +
                ", or 0 for one per source)");
  const int k = trees_wanted_ ? trees_wanted_ : sources;
  // MLIDs 0xC001..0xFFFE (0xFFFF is the permissive LID): beyond them a
  // tree's MLID wrapped into the unicast LIDs.
  if (k > kMaxMcastTrees)
    throw Error(std::to_string(sources) + " multicast sources with one tree each need " + std::to_string(k) +
                " MLIDs, and " + std::to_string(kMaxMcastTrees) +
                " exist (0xC001-0xFFFE): give mcast_trees=N (--param or config file) with N at most " +
                std::to_string(kMaxMcastTrees) + " to share trees among them");
  trees_.resize(k);
  for (int t = 0; t < k; ++t) trees_[t].mlid = Lid(kMulticastLidBase + 1 + t);
  for (size_t i = 0; i < sources_.size(); ++i) {
    const int t = int(i % size_t(k));
    const int s = sources_[i];
    tree_of_[s] = t;
    if (trees_[t].anchor < 0) trees_[t].anchor = s;
    if (std::binary_search(group_.begin(), group_.end(), s)) continue;
    std::vector<int>& out = trees_[t].outsiders;
    out.insert(std::lower_bound(out.begin(), out.end(), s), s);
  }
}

std::vector<int> Workload::Members(int t) const {
  const std::vector<int>& out = trees_[t].outsiders;
  std::vector<int> m;
  m.reserve(group_.size() + out.size());
  std::merge(group_.begin(), group_.end(), out.begin(), out.end(), std::back_inserter(m));
  return m;
}

std::string Workload::NamedParam(const std::string& key, long long value) const {
  const auto it = names_.find(key);
  if (it != names_.end()) return it->second;
  return key + " = " + std::to_string(value) + " (--param or config file)";
}

// The group and the outsiders are disjoint, so h's rank in their merge is
// the count of both below it. Per delivered packet: without outsiders (a
// tree per source in the group) one search, as when trees held a copy.
int Workload::Rank(int t, int h) const {
  const auto g = std::lower_bound(group_.begin(), group_.end(), h);
  const bool in_group = g != group_.end() && *g == h;
  const std::vector<int>& out = trees_[t].outsiders;
  if (out.empty()) return in_group ? int(g - group_.begin()) : -1;
  const auto o = std::lower_bound(out.begin(), out.end(), h);
  const bool outsider = o != out.end() && *o == h;
  return in_group || outsider ? int(g - group_.begin()) + int(o - out.begin()) : -1;
}

// The group of a replay is the dumped MLID's members: a GROUP asking for
// another one was dropped without a word (only the heading's group size
// differed from it).
void Workload::RefuseGroupOtherThanDumped(int members, Lid mlid) const {
  const HostCount& g = spec_.group;
  if (g.fraction ? g.value == 1.0 : int(g.value) == members) return;
  throw Error(spec_.named + ": with --routing dump:DIR the group is the " + std::to_string(members) +
              " members of the dumped MLID " + HexLid(mlid) + "; give GROUP as all or " + std::to_string(members));
}

void Workload::UseDumpedTree(const Fabric& f, const Tables& t, int mlid, const GivenSources& given) {
  // Members: end ports hanging off a switch port in the MLID's masks.
  std::map<Lid, std::vector<bool>> reach;
  for (size_t s = 0; s < t.mft.size(); ++s)
    for (const auto& [m, mask] : t.mft[s].groups) {
      std::vector<bool>& r = reach[m];
      r.resize(hosts_, false);
      const Switch& sw = f.switches[s];
      for (int p = 1; p <= sw.num_ports && p < 256; ++p)
        if (mask.test(p) && sw.ports[p].is_end_port()) r[sw.ports[p].index] = true;
    }
  if (reach.empty())
    throw Error(spec_.named + ": the dumped MFTs hold no multicast group to take the members from");
  Lid chosen = 0;
  size_t best = 0;
  for (const auto& [m, r] : reach) {
    const size_t c = size_t(std::count(r.begin(), r.end(), true));
    if (mlid ? m == mlid : c > best) {
      chosen = m;
      best = c;
    }
  }
  if (mlid && chosen == 0) {
    throw Error("--param mlid=" + HexLid(Lid(mlid)) + ": the dumped MFTs have no such MLID");
  }
  if (best < 2) throw Error("the dumped multicast group reaches fewer than two end ports");
  std::vector<int> members;
  const std::vector<bool>& r = reach[chosen];
  for (int h = 0; h < hosts_; ++h)
    if (r[h]) members.push_back(h);
  SetGroup(std::move(members));
  RefuseGroupOtherThanDumped(int(group_.size()), chosen);
  // Sources are drawn from the members: a count beyond them was taken as all.
  RefuseTooManyHosts(spec_.named, spec_.sources, "SOURCES", int(group_.size()),
                     "the " + std::to_string(group_.size()) + " members of the dumped group (MLID " + HexLid(chosen) +
                         ") it draws them from");
  const std::string members_text = "the dumped group's " + std::to_string(group_.size()) + " members";
  RefuseNoHosts(spec_.named, spec_.sources, "SOURCES", int(group_.size()), members_text);
  if (!given.empty()) {
    for (size_t i = 0; i < given.end_ports.size(); ++i)
      if (!std::binary_search(group_.begin(), group_.end(), given.end_ports[i]))
        throw Error(given.where[i] + ": source " + f.end_ports[size_t(given.end_ports[i])].name +
                    " is not a member of the dumped MLID " + HexLid(chosen) +
                    " (the end ports its MFT entries reach); a source sends on the group's tree");
    TakeSources(given, int(group_.size()), members_text);
  } else {
    // Drawn by host number, so a dump lists its hosts in any order.
    const std::vector<int>& by_number = group_by_number_;
    Mt64 rng(seed_ ^ 0xd0e5u);
    std::vector<int> drawn;
    for (int i : Sample(int(by_number.size()), spec_.sources.Resolve(int(by_number.size())), rng))
      drawn.push_back(by_number[size_t(i)]);
    SetSources(std::move(drawn));
  }
  trees_.clear();
  tree_of_.assign(hosts_, -1);
  if (!hardware_mcast()) return;  // unicast copies to the members: no tree
  trees_.assign(1, McastTree{chosen, {}, -1});
  for (int s : sources_) tree_of_[s] = 0;
}

int Workload::OtherDestination(int src, Mt64& rng) const {
  switch (spec_.pattern) {
    case Pattern::kUniform:
      return AnyOtherHost(src, rng);
    case Pattern::kCentric:
      if (src != hot_ && UniformOpen(rng) <= spec_.centric) return hot_;
      return AnyOtherHost(src, rng);
    case Pattern::kMcast:
      return -1;
    default: {
      const int d = perm_[src];
      return d == src ? -1 : d;
    }
  }
}

double Workload::Share(int src, int dst) const {
  if (dst == src || !source_flag_[src]) return 0.0;
  const double any = 1.0 / double(hosts_ - 1);  // AnyOtherHost's draw
  switch (spec_.pattern) {
    case Pattern::kUniform:
      return any;
    case Pattern::kCentric:
      if (src == hot_) return any;
      return (1.0 - spec_.centric) * any + (dst == hot_ ? spec_.centric : 0.0);
    case Pattern::kMcast:
      return 0.0;
    default:
      return perm_[src] == dst ? 1.0 : 0.0;
  }
}

void Workload::SetDlidFn(DlidFn fn, bool engine_rule) {
  dlid_fn_ = std::move(fn);
  if (dlid_policy_ == DlidPolicy::kAuto)
    dlid_policy_ = engine_rule && dlid_fn_ ? DlidPolicy::kEngine : DlidPolicy::kBase;
  if (dlid_policy_ == DlidPolicy::kEngine && !dlid_fn_)
    throw Error("--param dlid=engine: no routing engine and no ibunion-*-paths.dump in the dump; use dlid=base, random or hash");
  dlid_table_.clear();
  if (dlid_policy_ == DlidPolicy::kEngine && size_t(hosts_) * hosts_ <= kMaxDlidTable) {
    dlid_table_.resize(size_t(hosts_) * hosts_);
    for (int s = 0; s < hosts_; ++s)
      for (int d = 0; d < hosts_; ++d) dlid_table_[size_t(s) * hosts_ + d] = s == d ? 0 : dlid_fn_(s, d);
  }
}

void Workload::SetPathSlFn(PathSlFn fn, bool vl_policy, SlPolicy policy) {
  path_sl_fn_ = std::move(fn);
  if (policy == SlPolicy::kEngine && !path_sl_fn_)
    throw Error(
        "--param sl=engine: no routing engine and no path-sl.dump in the dump to ask for path SLs "
        "(sim-harness/ibsim/read-path-sl reads the SA's back); use sl=hash, random or N");
  use_path_sl_ = TakesPathSls(policy, bool(path_sl_fn_), vl_policy);
  sl_table_.clear();
  sl_lids_ = 0;
  if (!use_path_sl_) return;
  // Table of every (source, unicast DLID): hosts x LIDs bytes, built only
  // while that stays small (a 16x16 mesh: 256 x 512); larger fabrics ask
  // the engine once per message.
  Lid top = 0;
  for (size_t d = 0; d < base_lid_.size(); ++d) top = std::max<Lid>(top, Lid(base_lid_[d] + lid_count_[d]));
  if (size_t(hosts_) * top > (size_t(1) << 20)) return;
  sl_lids_ = top;
  sl_table_.assign(size_t(hosts_) * top, 0);
  for (int s = 0; s < hosts_; ++s)
    for (size_t d = 0; d < base_lid_.size(); ++d)
      for (int k = 0; k < lid_count_[d]; ++k) {
        const Lid l = Lid(base_lid_[d] + k);
        sl_table_[size_t(s) * top + l] = uint8_t(path_sl_fn_(s, l) & 15);
      }
}

int Workload::PathSl(int src, Lid dlid) const {
  if (dlid < sl_lids_) return sl_table_[size_t(src) * sl_lids_ + dlid];
  return path_sl_fn_(src, dlid) & 15;
}

// Dlid without the engine rule's table.
Lid Workload::OtherDlid(int src, int dst, Mt64& rng) const {
  switch (dlid_policy_) {
    case DlidPolicy::kEngine:  // a fabric too large for the table: tested first
      [[likely]] return dlid_fn_(src, dst);
    case DlidPolicy::kRandom:
      return Lid(base_lid_[dst] + UniformBelow(rng, uint64_t(lid_count_[dst])));
    case DlidPolicy::kHash:
      return Lid(base_lid_[dst] + Mix64(PairKey(src, dst)) % uint64_t(lid_count_[dst]));
    default:
      return base_lid_[dst];
  }
}

std::string Workload::Describe() const {
  std::ostringstream os;
  os << "traffic " << spec_.text << ": " << sources_.size() << " source(s) of " << hosts_ << " hosts";
  if (is_mcast()) {
    os << ", group of " << group_.size() << " hosts";
    if (hardware_mcast()) os << ", " << trees_.size() << " MLID(s)";
    else os << ", emulated by unicast copies";
  }
  os << ", numbered in " << order_name_;
  return os.str();
}

}  // namespace ibu::sim
