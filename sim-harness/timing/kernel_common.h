// What the two event engines behind Simulator share: the interface they
// implement (Simulator::Impl), the message arrival process of steady-state
// runs and the pool helper. The classic kernel (simulator.cc) runs every
// configuration; the lean one (lean_kernel.cc, params kernel=lean) runs
// unicast traffic with one-packet buffers about twice as fast.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim-harness/timing/network.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/rng.h"
#include "sim-harness/timing/simulator.h"
#include "sim-harness/timing/stats.h"
#include "sim-harness/timing/traffic.h"

namespace ibu::sim {

class Simulator::Impl {
 public:
  virtual ~Impl() = default;
  virtual void AddMessage(int64_t t, int src, int dst, uint32_t bytes, int sl) = 0;
  virtual PointResult Run() = 0;
  virtual uint64_t DeliveredTo(int h) const = 0;
  std::function<void(double)> tick_;
  uint32_t msg_bytes_ = 32;
};

// The lean kernel (lean_kernel.cc); throws SimFailure naming what it does
// not support.
std::unique_ptr<Simulator::Impl> MakeLeanKernel(const Network& net, const Workload& wl, const Params& p,
                                                double load, uint64_t seed);

// What a deadlocked run reports, in both kernels' words: at `now`, with
// `live` packets in buffers, the credit loop `cycle` (channels as global
// port << `vl_shift` | VL, in dependency order) or, without one, the
// first few `blocked` output channels and the credits each had. `stalled`:
// no event was left that could move a packet (else a periodic check found
// the loop).
struct BlockedChannel {
  int channel;
  int credits;
};
constexpr size_t kBlockedShown = 8;
std::string DeadlockReport(const Network& net, int64_t now, uint64_t live, const std::vector<int>& cycle,
                           int vl_shift, bool stalled, const std::vector<BlockedChannel>& blocked);

// A time in ns drawn as a real number (message interarrivals, phases):
// at least 1, and a time past any run (2^62 ns, 146 years) for one beyond
// int64's range. A tiny load (1e-300) made such draws, and converting them
// overflowed: messages came every nanosecond, 'offered' 32 bytes/ns.
constexpr int64_t kPastAnyRun = int64_t(1) << 62;
inline int64_t DrawnNs(double ns) {
  if (!(ns < double(kPastAnyRun))) return kPastAnyRun;
  return std::max<int64_t>(1, std::llround(ns));
}

// The gaps between a source's message arrivals in steady state (params
// `arrival`). The constants are set once per point rather than per
// message (each was a division there).
class ArrivalProcess {
 public:
  void SetUp(const Params& p, double load, uint32_t msg_bytes, int hosts) {
    const double msg_ns = double(msg_bytes) * double(p.byte_ns);
    gap_mean_ns_ = msg_ns / load;
    log1p_neg_load_ = std::log1p(-std::min(1.0, load));
    gap_slot_ns_ = std::max<int64_t>(1, int64_t(msg_ns));
    gap_max_slots_ = double(kPastAnyRun / gap_slot_ns_);
    if (p.arrival != Arrival::kBernoulli) gap_carry_.assign(size_t(hosts), 0.0);
    rule_ = RuleFor(p.arrival, load, gap_max_slots_);
    if (rule_ == GapRule::kBernoulliTable) SetUpGeometricTable();
  }

  // The Bernoulli gap for the draw r, when the table decides (load 0.25
  // and up, below 1; apart from Gap for the tests).
  int64_t BernoulliGapOf(uint64_t r) const {
    if (const uint8_t k = geo_slices_[r >> (64 - kGeoSliceBits)]) [[likely]]
      return gap_slot_ns_ * k;
    return gap_slot_ns_ * GeometricByTable(UniformOpenOf(r));
  }

  // The gap to source h's next message arrival.
  [[gnu::always_inline]] int64_t Gap(int h, Mt64& rng) {
    switch (rule_) {
      case GapRule::kBernoulliTable:  // the usual one: tested first
        [[likely]] return BernoulliGapOf(rng());
      case GapRule::kBernoulliLog: {
        const double k = GeometricByLog(UniformOpen(rng));
        return k < gap_max_slots_ ? gap_slot_ns_ * int64_t(k) : kPastAnyRun;
      }
      case GapRule::kEverySlot:
        return gap_slot_ns_;
      case GapRule::kExponential:
        return CarriedGap(h, -gap_mean_ns_ * std::log(UniformOpen(rng)));
      case GapRule::kPeriodic:
      default:
        return CarriedGap(h, gap_mean_ns_);
    }
  }

 private:
  // How Gap draws, decided once per point rather than per message.
  // Bernoulli (one trial per message time, success probability = load):
  // by the table of powers or by the log formula, or every message time at
  // load 1 and above.
  enum class GapRule { kBernoulliTable, kBernoulliLog, kEverySlot, kExponential, kPeriodic };
  static GapRule RuleFor(Arrival arrival, double load, double max_slots) {
    switch (arrival) {
      case Arrival::kExponential:
        return GapRule::kExponential;
      case Arrival::kPeriodic:
        return GapRule::kPeriodic;
      case Arrival::kBernoulli:
      default:
        if (load >= 1.0) return GapRule::kEverySlot;
        return load >= kGeoMinLoad && max_slots > kGeoMaxGap ? GapRule::kBernoulliTable
                                                             : GapRule::kBernoulliLog;
    }
  }

  // The Bernoulli gap in message times for the uniform draw u: the first
  // success, 1 + floor(log(u) / log(1 - load)).
  double GeometricByLog(double u) const { return 1 + std::floor(std::log(u) / log1p_neg_load_); }

  // The same number without the log (a fifth of a message's cost in the
  // lean kernel): k - 1 is the j with (1-load)^(j+1) < u <= (1-load)^j,
  // found by walking a table of the powers. The log formula rounds, so
  // where u lies within a relative 1e-12 of a power (its rounding error is
  // below 1e-14 there) or beyond the table, that formula decides: the
  // result is the log formula's, bit for bit, for every u.
  void SetUpGeometricTable() {
    for (int j = 0; j <= kGeoPowers; ++j) {
      const double pw = std::exp(double(j) * log1p_neg_load_);
      geo_above_[j] = pw * (1 + kGeoBand);
      geo_below_[j] = pw * (1 - kGeoBand);
    }
    geo_above_[kGeoPowers + 1] = -1;  // stops the walk
    // Where the walk ends the formula decides when u is not clearly below
    // power j: never for j = 0 (u <= 1, power 0), always past the table.
    geo_below_[0] = 2;
    geo_below_[kGeoPowers] = 0;
    SetUpGeometricSlices();
  }
  // The walk's k for u, or 0 where the log formula decides.
  int64_t GeometricByWalk(double u) const {
    const double* above = geo_above_ + 1;
    while (u <= *above) ++above;  // u is not clearly above the power *above widens
    // Now u is clearly above power j + 1; is it clearly below power j?
    const ptrdiff_t j = above - (geo_above_ + 1);
    return u >= geo_below_[j] ? 0 : j + 1;
  }
  int64_t GeometricByTable(double u) const {
    const int64_t k = GeometricByWalk(u);
    return k ? k : int64_t(GeometricByLog(u));
  }
  // The walk's exit is as likely to come at one step as at another, so it
  // cost a mispredicted branch per message. Sliced by the draw's top bits,
  // u has one k over all but a few slices (those holding a power, at most
  // 30 of 4096 at kGeoMinLoad): the slice's entry gives it, 0 sends the
  // draw to the walk. The walk's k is non-increasing in u, and u in r, so
  // the same k at both ends of a slice (the walk deciding at both) is
  // the k of every draw in it.
  void SetUpGeometricSlices() {
    constexpr uint64_t kLow = (uint64_t(1) << (64 - kGeoSliceBits)) - 1;
    for (uint64_t i = 0; i < (uint64_t(1) << kGeoSliceBits); ++i) {
      const uint64_t first = i << (64 - kGeoSliceBits);
      const int64_t a = GeometricByWalk(UniformOpenOf(first)),
                    b = GeometricByWalk(UniformOpenOf(first | kLow));
      geo_slices_[i] = a == b && a > 0 && a <= 255 ? uint8_t(a) : 0;
    }
  }
  // Above this load the walk takes at most 4 steps on average.
  static constexpr double kGeoMinLoad = 0.25;
  static constexpr int kGeoPowers = 64;
  static constexpr double kGeoBand = 1e-12;
  // The longest gap, in message times, a draw makes at kGeoMinLoad (u is
  // at least 2^-53: 1 + floor(53 ln 2 / -ln 0.75) = 128): the table's
  // gaps need no check against kPastAnyRun while the cap lies above it.
  static constexpr double kGeoMaxGap = 128;
  // (1-load)^j widened by the band up and down; geo_above_ ends with -1,
  // geo_below_ holds sentinels at 0 (2: the table decides) and at
  // kGeoPowers (0: the formula decides).
  double geo_above_[kGeoPowers + 2] = {}, geo_below_[kGeoPowers + 1] = {};
  static constexpr int kGeoSliceBits = 12;
  uint8_t geo_slices_[size_t(1) << kGeoSliceBits] = {};

  // Whole nanoseconds whose sum keeps the fractions: each gap rounded on
  // its own offered another load than asked, periodic 4.44 ns gaps (1-byte
  // messages at load 0.9) 11% more as 4 ns, exponential ones about 2% less
  // (draws below 0.5 ns became 1).
  int64_t CarriedGap(int h, double ns) {
    if (!(ns < double(kPastAnyRun))) return kPastAnyRun;
    const double exact = ns + gap_carry_[h];
    const int64_t gap = DrawnNs(exact);
    gap_carry_[h] = exact - double(gap);
    return gap;
  }

  GapRule rule_ = GapRule::kBernoulliLog;
  // Mean gap, log1p(-load) (the Bernoulli gaps' divisor), the message time
  // in whole ns and how many of them stay below kPastAnyRun.
  double gap_mean_ns_ = 0, log1p_neg_load_ = 0, gap_max_slots_ = 0;
  int64_t gap_slot_ns_ = 1;
  std::vector<double> gap_carry_;  // per host: the last gap's rounding, owed to the next one
};

// How a point runs: steady state at a load (a measurement window), a
// batch per source, or only scripted messages (AddMessage); the last two
// until everything is delivered.
enum class RunMode { kSteady, kBatch, kScript };

// A scripted message (Simulator::AddMessage).
struct ScriptEntry {
  int64_t t;
  int src, dst, sl;
  uint32_t bytes;
};

// The events that start and end a run, whatever a kernel numbers them.
enum class RunEvent { kGen, kScript, kWindowEnd, kStop };
struct RunWindow {
  int64_t w0 = 0, w1 = 0, gen_end = 0;  // measurement window; arrivals stop at gen_end
};

// The measurement window and the first events, through `push(t, RunEvent,
// arg)`: each source's first arrival at a random phase (steady state),
// every source's batch at t=0, the script's messages (sorted by time,
// stably); and the run's end. Counts the arrival events in *gen_pending.
template <typename Push>
RunWindow ScheduleRunEvents(RunMode mode, const Params& p, double load, uint32_t msg_bytes,
                            const std::vector<int>& sources, Mt64& rng, std::vector<ScriptEntry>& script,
                            uint64_t* gen_pending, Push push) {
  RunWindow w;
  if (mode == RunMode::kSteady) {
    w.w0 = p.warmup_ns;
    w.w1 = p.warmup_ns + p.measure_ns;
    w.gen_end = w.w1 + p.drain_ns;
    push(w.w1, RunEvent::kWindowEnd, 0);
    push(w.gen_end, RunEvent::kStop, 0);
    const double msg_ns = double(msg_bytes) * double(p.byte_ns);
    const uint64_t phase = uint64_t(DrawnNs(std::ceil(msg_ns / load)));
    for (int h : sources) {
      ++*gen_pending;
      push(int64_t(UniformBelow(rng, phase)), RunEvent::kGen, uint64_t(h));
    }
    return w;
  }
  // The window is the whole run, up to the hard limit: a run cut there
  // counts no link time or delivery past it (a link counted the rest of a
  // packet it had started, 128x busy in a 1-ns run).
  w.w0 = 0;
  w.w1 = p.max_ns;
  w.gen_end = 0;
  push(p.max_ns, RunEvent::kStop, 0);
  if (mode == RunMode::kBatch)
    for (int h : sources) {
      ++*gen_pending;
      push(0, RunEvent::kGen, uint64_t(h));
    }
  std::stable_sort(script.begin(), script.end(),
                   [](const ScriptEntry& a, const ScriptEntry& b) { return a.t < b.t; });
  for (size_t i = 0; i < script.size(); ++i) {
    ++*gen_pending;
    push(script[i].t, RunEvent::kScript, i);
  }
  return w;
}

// Per host, the arrival times of messages its adapter had no room for
// yet (nic_msgs), oldest first: saturated runs keep a time stamp per
// waiting message instead of the message. Each host's count of waiting
// ones is kept apart: Waiting, asked per message and per packet an
// adapter sends, reads one number.
class ArrivalBacklog {
 public:
  explicit ArrivalBacklog(int hosts = 0) : times_(size_t(hosts)), waiting_(size_t(hosts), 0) {}
  bool Waiting(int h) const { return waiting_[size_t(h)] != 0; }
  uint64_t total() const { return total_; }
  void Add(int h, int64_t t) {
    times_[size_t(h)].push_back(t);
    ++waiting_[size_t(h)];
    ++total_;
  }
  // Hands h's arrivals to `take(t)`, oldest first, while `room()` holds.
  // The waiting ones are the last waiting_[h] of times_[h] (a `take` may
  // release some of them itself, or drop those taken).
  template <typename Room, typename Take>
  void Release(int h, Room room, Take take) {
    std::vector<int64_t>& b = times_[size_t(h)];
    uint32_t& waiting = waiting_[size_t(h)];
    while (room() && waiting > 0) {
      const int64_t t = b[b.size() - waiting--];
      --total_;
      take(t);
    }
    const size_t taken = b.size() - waiting;
    if (waiting == 0) {
      b.clear();
    } else if (taken > 1024 && taken * 2 > b.size()) {  // amortised: drop what was taken
      b.erase(b.begin(), b.begin() + ptrdiff_t(taken));
    }
  }
  // Arrivals still waiting at h that `counts(t)` counts.
  template <typename Pred>
  size_t CountWaiting(int h, Pred counts) const {
    const std::vector<int64_t>& b = times_[size_t(h)];
    return size_t(std::count_if(b.end() - waiting_[size_t(h)], b.end(), counts));
  }

 private:
  std::vector<std::vector<int64_t>> times_;
  std::vector<uint32_t> waiting_;
  uint64_t total_ = 0;
};

// The message side both kernels share (CRTP, no state of its own): a
// source's messages arrive (OnGen: one, or a batch; OnScript: one of the
// script's), enter the adapter when it has room and nothing older waits
// (Arrive, Materialise), and a run is done when its measured messages are
// (CheckDone); the run's end state for the statistics (EndOfRun, with the
// hot host's backlog: BackloggedHotBytes). Each kernel kept its own
// copy, so a rule fixed in one (the hot host's backlog) had to be fixed
// twice. K keeps the state and gives GenerateOp, Push, Measured, kGenEvent
// and Receivers(h), the copies one of h's messages makes (1 for unicast).
template <typename K>
class MessageSide {
 protected:
  void Arrive(int h) {
    K& k = self();
    const int64_t t = k.q_.now();
    if (k.Measured(t)) {
      ++k.measured_pending_;
      k.counters_.offered_bytes += uint64_t(k.msg_bytes_) * k.Receivers(h);
    }
    // The adapter has room and nothing older waits: straight to the queue,
    // as Materialise would do, without the round trip through the backlog.
    if (!k.backlog_.Waiting(h) && k.inflight_msgs_[h] < uint32_t(k.p_.nic_msgs)) {
      GenerateArrived(h, t);
      return;
    }
    k.backlog_.Add(h, t);
    Materialise(h);
  }

  // The message that arrived at `t` enters h's adapter; one with no
  // receiver (a source alone in its group) takes back what Arrive booked.
  void GenerateArrived(int h, int64_t t) {
    K& k = self();
    if (!k.GenerateOp(h, -1, k.msg_bytes_, -1, t, true) && k.Measured(t)) {
      --k.measured_pending_;
      k.counters_.offered_bytes -= uint64_t(k.msg_bytes_) * k.Receivers(h);
    }
  }

  void Materialise(int h) {
    K& k = self();
    k.backlog_.Release(
        h, [&] { return k.inflight_msgs_[h] < uint32_t(k.p_.nic_msgs); },
        [&](int64_t t) { GenerateArrived(h, t); });
  }

  void OnGen(int h) {
    K& k = self();
    --k.gen_pending_;
    if (k.mode_ == RunMode::kBatch) {
      for (int i = 0; i < k.p_.batch; ++i) Arrive(h);
      return;
    }
    Arrive(h);
    const int64_t next = k.q_.now() + k.arrivals_.Gap(h, k.rng_);
    if (next < k.gen_end_) {
      ++k.gen_pending_;
      k.Push(next, K::kGenEvent, uint64_t(h));
    }
  }

  // The script's message i (AddMessage) arrives.
  void OnScript(size_t i) {
    K& k = self();
    --k.gen_pending_;
    const ScriptEntry& s = k.script_[i];
    k.GenerateOp(s.src, s.dst, s.bytes, s.sl, k.q_.now(), false);
    CheckDone();
  }

  void CheckDone() {
    K& k = self();
    if (k.mode_ == RunMode::kSteady) {
      if (k.window_over_ && k.measured_pending_ == 0) k.stop_ = true;
    } else if (k.live_ops_ == 0 && k.gen_pending_ == 0 && k.backlog_.total() == 0) {
      k.stop_ = true;
    }
  }

  // The run's end state for Summarise, but for the links' busy time,
  // which each kernel keeps its own way.
  RunEnd EndOfRun() const {
    const K& k = static_cast<const K&>(*this);
    RunEnd e;
    e.steady = k.mode_ == RunMode::kSteady;
    e.hit_limit = k.hit_limit_;
    e.now_ns = k.q_.now();
    e.window_ns = k.w1_ - k.w0_;
    e.max_ns = k.p_.max_ns;
    e.hosts = k.H_;
    e.centric = k.hot_ >= 0;
    if (e.centric) {
      e.hot_backlogged_bytes = BackloggedHotBytes();
      e.hot_accepted_bytes = k.host_rx_[k.hot_];
    }
    e.live_pkts = k.live_pkts_;
    e.pool_in_use = k.pkts_.size() - k.free_pkts_.size();
    e.live_ops = k.live_ops_;
    e.ops_unfinished = k.measured_pending_;
    return e;
  }

  double BackloggedHotBytes() const {
    const K& k = static_cast<const K&>(*this);
    double bytes = 0;
    for (int h = 0; h < k.H_; ++h) {
      const size_t measured = k.backlog_.CountWaiting(h, [&k](int64_t t) { return k.Measured(t); });
      bytes += double(measured) * double(k.msg_bytes_) * k.wl_.Share(h, k.hot_);
    }
    return bytes;
  }

 private:
  K& self() { return static_cast<K&>(*this); }
};

// A slot of an index-based pool: a freed one if any, else a new one at the
// end (amortised: the pools stop growing once the run reaches steady state).
template <typename T>
uint32_t TakeSlot(std::vector<T>& pool, std::vector<uint32_t>& free_list) {
  if (!free_list.empty()) {
    const uint32_t i = free_list.back();
    free_list.pop_back();
    return i;
  }
  pool.emplace_back();
  return uint32_t(pool.size() - 1);
}

}  // namespace ibu::sim
