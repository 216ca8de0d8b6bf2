#include "sim-harness/mcast/setup_bench.h"

#include <algorithm>
#include <numeric>
#include <ostream>
#include <random>
#include <thread>

#include "plugin/core/error.h"
#include "plugin/core/verify/multicast.h"
#include "sim-harness/mcast/interrupt.h"

namespace ibu::mcast {

namespace {

double MsBetween(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

// Random, seeded choice of `count` end ports.
std::vector<int> PickMembers(const Fabric& f, int count, uint64_t seed) {
  std::vector<int> all(f.end_ports.size());
  std::iota(all.begin(), all.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(all.begin(), all.end(), rng);
  all.resize(std::min<size_t>(all.size(), static_cast<size_t>(count)));
  return all;
}

// MGIDs of this harness: ff12:e1b0::N, outside the IPoIB signatures, so
// OpenSM validates nothing beyond the IBA rules.
Gid HarnessMgid(uint32_t n) {
  Gid g{};
  g[0] = 0xff;
  g[1] = 0x12;
  g[2] = 0xe1;
  g[3] = 0xb0;
  for (int i = 15; i >= 12; --i, n >>= 8) g[i] = static_cast<uint8_t>(n);
  return g;
}

// Joins and leaves of one harness run, so that whatever happens every
// group it joined is left again.
class GroupLedger {
 public:
  GroupLedger(const Fabric& f, SaWorkerPool& sa) : f_(f), sa_(sa) {}
  ~GroupLedger() { LeaveEverything(); }

  SaOp Op(bool join, const Gid& mgid, int ep) const {
    SaOp op;
    op.join = join;
    op.mgid = mgid;
    op.port_guid = f_.end_ports[ep].port_guid;
    op.worker = ep % sa_.size();
    return op;
  }

  // Runs the ops and books successful joins/leaves. Throws on any failure,
  // naming the member and the SA's answer.
  std::vector<SaOpResult> Run(const std::vector<SaOp>& ops, double* wall_ms, const char* what) {
    std::vector<SaOpResult> r = sa_.Run(ops, wall_ms);
    std::string first_error;
    for (size_t i = 0; i < ops.size(); ++i) {
      const auto key = std::make_pair(ops[i].mgid, ops[i].port_guid);
      if (r[i].ok) {
        if (ops[i].join) joined_.insert(key);
        else joined_.erase(key);
      } else if (first_error.empty()) {
        first_error = std::string(what) + " of port 0x" + Hex(ops[i].port_guid) + " to " +
                      FormatGid(ops[i].mgid) + " failed: " + r[i].error;
      }
    }
    if (!first_error.empty()) throw SubnetFailure(first_error);
    ThrowIfInterrupted();  // after the booking: what was joined is left
    return r;
  }

  void LeaveEverything() {
    std::vector<SaOp> ops;
    for (const auto& [mgid, guid] : joined_) {
      SaOp op;
      op.join = false;
      op.mgid = mgid;
      op.port_guid = guid;
      const int ep = f_.EndPortByGuid(guid);
      op.worker = ep < 0 ? 0 : ep % sa_.size();
      ops.push_back(op);
    }
    joined_.clear();
    if (ops.empty()) return;
    double wall;
    try {
      sa_.Run(ops, &wall);
    } catch (...) {  // best effort: the SM drops the groups with the run anyway
    }
  }

 private:
  static std::string Hex(uint64_t v) {
    char b[20];
    std::snprintf(b, sizeof b, "%016llx", static_cast<unsigned long long>(v));
    return b;
  }
  const Fabric& f_;
  SaWorkerPool& sa_;
  std::set<std::pair<Gid, uint64_t>> joined_;
};

std::vector<double> SaMs(const std::vector<SaOpResult>& r, size_t from = 0) {
  std::vector<double> v;
  for (size_t i = from; i < r.size(); ++i) v.push_back(r[i].sa_us / 1000.0);
  return v;
}

void Require(const TreeWait& w, const std::string& what) {
  if (!w.ok) throw SubnetFailure(what + ": " + w.why);
}

}  // namespace

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

TreeWait TreeWatcher::WaitFor(Lid mlid, const std::vector<int>& members, Clock::time_point t0,
                              double timeout_ms) {
  const size_t n = f_.switches.size();
  std::vector<std::vector<PortMask>> masks;     // [round][switch]
  std::vector<std::vector<double>> read_at;     // [round][switch], ms since t0
  McastGroup group;
  group.mlid = mlid;
  group.members = members;
  TreeWait w;
  const auto start = Clock::now();
  while (true) {
    ThrowIfInterrupted();
    masks.emplace_back(n);
    read_at.emplace_back(n);
    Tables t;
    t.Resize(f_);
    int holding = 0;
    for (size_t s = 0; s < n; ++s) {
      const Switch& sw = f_.switches[s];
      masks.back()[s] = reader_.Read(sw.lid, sw.num_ports, mlid);
      read_at.back()[s] = MsBetween(t0, Clock::now());
      if (masks.back()[s].any()) {
        t.mft[s].groups[mlid] = masks.back()[s];
        ++holding;
      }
    }
    ++w.rounds;
    bool done;
    if (members.empty()) {
      done = holding == 0;
      if (!done) w.why = std::to_string(holding) + " switch(es) still hold the MLID";
    } else {
      const McastReport rep = VerifyMulticast(f_, t, group, 1);
      done = rep.ok();
      if (!done) w.why = rep.errors.empty() ? "verifier failed" : rep.errors.front();
    }
    if (done) {
      w.ok = true;
      w.tree_switches = holding;
      w.why.clear();
      break;
    }
    if (MsBetween(t0, Clock::now()) > timeout_ms) {
      w.why = "not ready after " + std::to_string(static_cast<long>(timeout_ms)) + " ms: " + w.why;
      break;
    }
  }
  w.round_ms = MsBetween(start, Clock::now()) / w.rounds;
  // Bracket the last change: per switch, last read with a non-final mask
  // and the read after it.
  const std::vector<PortMask>& final_masks = masks.back();
  w.lo_ms = 0;
  w.hi_ms = 0;
  for (size_t s = 0; s < n; ++s) {
    for (int r = static_cast<int>(masks.size()) - 2; r >= 0; --r)
      if (masks[r][s] != final_masks[s]) {
        w.lo_ms = std::max(w.lo_ms, read_at[r][s]);
        w.hi_ms = std::max(w.hi_ms, read_at[r + 1][s]);
        break;
      }
  }
  if (w.hi_ms == 0) {  // final at the first read: done by then
    for (size_t s = 0; s < n; ++s) w.hi_ms = std::max(w.hi_ms, read_at[0][s]);
  }
  return w;
}

void CheckGroupSizes(const Fabric& f, const std::vector<int>& sizes) {
  for (int size : sizes)
    if (size < 2 || size > static_cast<int>(f.end_ports.size()))
      throw Error("group size " + std::to_string(size) + ": expected 2.." +
                  std::to_string(f.end_ports.size()) + " (the fabric's end ports)");
}

void CheckLabel(const std::string& label) {
  // The first cell of every CSV row (WriteSamplesCsv does not quote).
  if (label.find_first_of(",\r\n") != std::string::npos)
    throw Error("label '" + label + "': expected no comma or line break (it is a CSV cell)");
}

std::vector<SetupSample> RunSetupBench(const Fabric& f, SaWorkerPool& sa, MftReader& reader,
                                       const SetupConfig& cfg, std::ostream& log) {
  CheckGroupSizes(f, cfg.sizes);
  CheckLabel(cfg.label);
  TreeWatcher watch(f, reader);
  GroupLedger ledger(f, sa);
  std::vector<SetupSample> out;
  uint32_t next_mgid = 1;
  for (int size : cfg.sizes) {
    for (int rep = 0; rep < cfg.reps; ++rep) {
      SetupSample smp;
      smp.size = size;
      smp.rep = rep;
      const std::vector<int> members = PickMembers(f, size, cfg.seed * 1000003 + size * 101 + rep);
      const Gid mgid = HarnessMgid(next_mgid++);
      double wall = 0;
      // Basic: the creator's join creates the group, the others join at once.
      const auto t_create = Clock::now();
      auto created = ledger.Run({ledger.Op(true, mgid, members[0])}, &wall, "create");
      smp.create_ms = created[0].sa_us / 1000.0;
      smp.mlid = created[0].mlid;
      std::vector<SaOp> joins;
      for (size_t i = 1; i < members.size(); ++i) joins.push_back(ledger.Op(true, mgid, members[i]));
      auto joined = ledger.Run(joins, &wall, "join");
      if (cfg.fail_after_joins)
        throw SubnetFailure("stopping after the joins of the first group, as asked (--fail-after-joins)");
      const auto t_last_join = Clock::now();
      smp.joins_wall_ms = MsBetween(t_create, t_last_join);
      smp.join_med_ms = Median(SaMs(joined));
      for (double ms : SaMs(joined)) smp.join_max_ms = std::max(smp.join_max_ms, ms);
      smp.ready = watch.WaitFor(smp.mlid, members, t_last_join, cfg.ready_timeout_ms);
      Require(smp.ready, "group of " + std::to_string(size) + " never became usable");
      std::vector<SaOp> leaves;
      for (int ep : members) leaves.push_back(ledger.Op(false, mgid, ep));
      auto left = ledger.Run(leaves, &smp.leaves_wall_ms, "leave");
      smp.leave_med_ms = Median(SaMs(left));
      smp.gone = watch.WaitFor(smp.mlid, {}, Clock::now(), cfg.ready_timeout_ms);
      Require(smp.gone, "MLID of the left group of " + std::to_string(size) + " not removed");
      if (cfg.pool) {
        // Pool: a group of every end port, built in the background (not
        // timed); creating the communicator = the others leaving.
        const Gid pool_mgid = HarnessMgid(next_mgid++);
        std::vector<int> everyone(f.end_ports.size());
        std::iota(everyone.begin(), everyone.end(), 0);
        auto pool_created = ledger.Run({ledger.Op(true, pool_mgid, members[0])}, &wall, "pool create");
        const Lid pool_mlid = pool_created[0].mlid;
        std::vector<SaOp> pool_joins;
        std::vector<bool> in_comm(f.end_ports.size(), false);
        for (int ep : members) in_comm[ep] = true;
        for (int ep : everyone)
          if (ep != members[0]) pool_joins.push_back(ledger.Op(true, pool_mgid, ep));
        ledger.Run(pool_joins, &wall, "pool join");
        Require(watch.WaitFor(pool_mlid, everyone, Clock::now(), cfg.ready_timeout_ms),
                "pool group never became usable");
        std::vector<SaOp> outsiders;
        for (int ep : everyone)
          if (!in_comm[ep]) outsiders.push_back(ledger.Op(false, pool_mgid, ep));
        ledger.Run(outsiders, &smp.pool_leaves_wall_ms, "pool leave");
        smp.pool_settled = watch.WaitFor(pool_mlid, members, Clock::now(), cfg.ready_timeout_ms);
        Require(smp.pool_settled, "pool group did not shrink to the communicator");
        std::vector<SaOp> rest;
        for (int ep : members) rest.push_back(ledger.Op(false, pool_mgid, ep));
        ledger.Run(rest, &wall, "pool cleanup leave");
      }
      log << cfg.label << ": size " << size << " rep " << rep << ": create " << smp.create_ms
          << " ms, joins " << smp.joins_wall_ms << " ms, ready +" << smp.ready.ready_ms() << " ms ("
          << smp.ready.rounds << " polls of " << smp.ready.round_ms << " ms), leaves "
          << smp.leaves_wall_ms << " ms, gone +" << smp.gone.ready_ms() << " ms";
      if (cfg.pool) log << ", pool leaves " << smp.pool_leaves_wall_ms << " ms";
      log << "\n";
      out.push_back(smp);
    }
  }
  return out;
}

void CheckBurstMembers(const Fabric& f, int members) {
  if (members < 1 || members > static_cast<int>(f.end_ports.size()))
    throw Error("burst: members per group must be 1.." + std::to_string(f.end_ports.size()) +
                " (the fabric's end ports), got " + std::to_string(members));
}

TreeWait AllReady(const std::vector<TreeWait>& waits) {
  TreeWait all;
  all.ok = !waits.empty();
  double polling_ms = 0;
  for (const TreeWait& w : waits) {
    all.ok = all.ok && w.ok;
    all.lo_ms = std::max(all.lo_ms, w.lo_ms);
    all.hi_ms = std::max(all.hi_ms, w.hi_ms);
    all.rounds += w.rounds;
    polling_ms += w.round_ms * w.rounds;
    all.tree_switches = std::max(all.tree_switches, w.tree_switches);
    if (all.why.empty()) all.why = w.why;
  }
  all.round_ms = all.rounds ? polling_ms / all.rounds : 0;
  return all;
}

BurstResult RunJoinBurst(const Fabric& f, SaWorkerPool& sa, MftReader& reader, int groups,
                         int members, uint64_t seed, double timeout_ms, std::ostream& log) {
  CheckBurstMembers(f, members);
  TreeWatcher watch(f, reader);
  GroupLedger ledger(f, sa);
  BurstResult res;
  std::vector<std::vector<int>> sets;
  std::vector<Gid> mgids;
  std::vector<SaOp> creates, joins;
  for (int g = 0; g < groups; ++g) {
    sets.push_back(PickMembers(f, members, seed * 7919 + g));
    mgids.push_back(HarnessMgid(0x10000u + static_cast<uint32_t>(g)));
    creates.push_back(ledger.Op(true, mgids[g], sets[g][0]));
  }
  // Interleave the groups so every worker has joins of every group in flight.
  for (int i = 1; i < members; ++i)
    for (int g = 0; g < groups; ++g) joins.push_back(ledger.Op(true, mgids[g], sets[g][i]));
  const auto t0 = Clock::now();
  double wall;
  auto created = ledger.Run(creates, &wall, "burst create");
  ledger.Run(joins, &wall, "burst join");
  const auto t_last = Clock::now();
  res.joins = static_cast<int>(creates.size() + joins.size());
  res.joins_wall_ms = MsBetween(t0, t_last);
  res.joins_per_s = res.joins / (res.joins_wall_ms / 1000.0);
  std::vector<TreeWait> waits;
  for (int g = 0; g < groups; ++g) {
    res.mlids.push_back(created[g].mlid);
    waits.push_back(watch.WaitFor(created[g].mlid, sets[g], t_last, timeout_ms));
    Require(waits.back(), "burst group " + std::to_string(g));
  }
  res.all_ready = AllReady(waits);
  log << "burst: " << res.joins << " joins in " << res.joins_wall_ms << " ms ("
      << res.joins_per_s << "/s); all " << groups << " trees usable +" << res.all_ready.ready_ms()
      << " ms after the last join\n";
  return res;
}

void WriteSamplesCsv(std::ostream& os, const std::string& label,
                     const std::vector<SetupSample>& samples) {
  os << "label,size,rep,mlid,create_ms,join_med_ms,join_max_ms,joins_wall_ms,ready_ms,ready_lo_ms,"
        "ready_hi_ms,poll_round_ms,polls,tree_switches,leave_med_ms,leaves_wall_ms,gone_ms,"
        "pool_leaves_wall_ms,pool_settled_ms\n";
  for (const SetupSample& s : samples) {
    os << label << ',' << s.size << ',' << s.rep << ',' << s.mlid << ',' << s.create_ms << ','
       << s.join_med_ms << ',' << s.join_max_ms << ',' << s.joins_wall_ms << ','
       << s.ready.ready_ms() << ',' << s.ready.lo_ms << ',' << s.ready.hi_ms << ','
       << s.ready.round_ms << ',' << s.ready.rounds << ',' << s.ready.tree_switches << ','
       << s.leave_med_ms << ',' << s.leaves_wall_ms << ',' << s.gone.ready_ms() << ','
       << s.pool_leaves_wall_ms << ',' << s.pool_settled.ready_ms() << '\n';
  }
}

}  // namespace ibu::mcast
