// Statistics of one simulated point and their output forms (JSON line, CSV
// row, human table). Traffic is in bytes/ns per host: 0.25 is a full 1X SDR
// link at the default 4 ns/byte.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ibu::sim {

struct PointResult {
  int index = 0;      // sweep point
  // Offered load asked for, fraction of link bandwidth; NaN for a batch run,
  // which queues its messages at t=0 and offers no load (JSON null).
  double load = 0;

  // Window averages (bytes/ns/host). offered counts every byte that is to
  // reach a receiver (a multicast message once per receiver).
  double offered = 0;
  double accepted = 0;
  // Centric: bytes/ns offered to the hot host (the measured messages drawn
  // for it) and accepted by it, whole, not per host.
  double hot_offered = 0;
  double hot_accepted = 0;

  // Messages generated in the window: generation to last byte delivered
  // (for multicast, at the last receiver).
  uint64_t ops_measured = 0;
  uint64_t ops_unfinished = 0;  // still in flight when the drain limit hit
  double latency_avg_ns = 0;
  double latency_p99_ns = 0;
  double latency_max_ns = 0;
  int64_t completion_ns = 0;  // batch / scripted runs: last delivery time

  uint64_t packets_delivered = 0;  // packet copies delivered to hosts, whole run
  uint64_t packet_hops = 0;        // link traversals (injection link included)
  std::vector<uint64_t> vl_hops;   // packet_hops per VL: how SL2VL spread the traffic
  uint64_t events = 0;             // events processed
  int64_t simulated_ns = 0;
  double wall_s = 0;
  double packet_hops_per_s = 0;

  double link_util_max = 0;  // busy fraction of directed links in the window
  double link_util_avg = 0;
  std::vector<double> link_util;  // per global port (sending side)

  bool conservation_ok = true;  // nothing lost, nothing duplicated
  bool deadlock = false;
  std::string deadlock_report;  // channels of the credit loop
  std::string error;            // failed run (no route, duplicate, ...)
  // The settings that made the point (sim's RunKey), in saved records only:
  // a merge refuses a point of another run.
  std::string run;
};

// A number as JSON and CSV fields have it: 6 significant digits, null
// when not finite (latency_p99_ns and latency_max_ns, whole nanoseconds,
// are printed with every digit).
std::string JsonNumber(double v);
// A point's load for people: "0.6", or "batch" for a batch run.
std::string LoadText(const PointResult& r);

// One JSON object on one line. `with_wall` = false drops wall_s and
// packet_hops_per_s (the only fields that differ between identical runs).
std::string ToJson(const PointResult& r, bool with_wall = true);
std::string CsvHeader();
std::string ToCsv(const PointResult& r, bool with_wall = true);
// The human-readable table; `with_wall` = false drops the hops/s column
// (the only one that differs between two runs of the same point).
std::string TableHeader(bool with_wall = true);
std::string ToTableRow(const PointResult& r, bool with_wall = true);

// A point as one JSON object holding every field at full precision (doubles
// as %.17g, per-link and per-VL arrays included): what a sweep job writes
// (--save) and the merge reads back, so merged output equals the direct
// sweep's. FromRecord returns false with `*why` on malformed text.
std::string ToRecord(const PointResult& r);
bool FromRecord(const std::string& text, PointResult* r, std::string* why);

// --- saturation: the one definition of the rule ---
// A point is saturated when it accepted less than kSaturationAccepted (95%)
// of the traffic offered in the window, or when measured messages were
// still undelivered after drain_ns (ops_unfinished > 0). The second test
// only adds certainty: a backlog usually drains within drain_ns even far
// past saturation, so ops_unfinished alone misses most saturated points.
// sim-harness/experiments/run's curve() applies the same test in awk to
// stop a curve (two saturated points in a row); keep the two identical.
constexpr double kSaturationAccepted = 0.95;
bool IsSaturated(const PointResult& r);
// Centric traffic: the hot host accepts less than kSaturationAccepted of
// what is offered to it. Its messages are a small part of all traffic (a
// tenth at centric:0.1), so IsSaturated sees its link full only once the
// congestion behind it costs the other hosts too: up to 1.31x the load at
// which the tables' channel-load bound (flows.h) fills that link. Never
// true for other traffic (hot_offered 0). Reported beside IsSaturated, not
// folded into it: the papers' curves stop by the aggregate rule.
bool IsHotSaturated(const PointResult& r);

// Where a sweep saturates. Points are taken in the order given (rising
// load); failed ones (error, deadlock) are left out. `at`: the first
// saturated point, `below`: the point before it (-1 when `at` is the first
// point), `last`: the last point judged; indices into the vector, -1 for
// none. `max_accepted`: the most any judged point accepted (the curve's
// saturation throughput, as run --summary reports it).
struct Saturation {
  int judged = 0;
  int below = -1;
  int at = -1;
  int last = -1;
  double max_accepted = 0;
  // Centric traffic: the same for IsHotSaturated (-1 when no point was).
  int hot_below = -1;
  int hot_at = -1;
  bool reached() const { return at >= 0; }
};
Saturation FindSaturation(const std::vector<PointResult>& points);

// One line, no newline, without a prefix, e.g. "saturation: between offered
// 0.125 (load 0.5) and 0.15 (load 0.6) bytes/ns/host; accepted at most
// 0.14 bytes/ns/host", or "saturation: not reached up to offered ...".
std::string SaturationText(const Saturation& s, const std::vector<PointResult>& points);

// p-quantile (0..1) of samples by nearest rank; reorders `v`.
double Quantile(std::vector<int64_t>& v, double q);

// Latencies of the measured messages: count, sum (added in arrival order,
// as a loop over all of them would), max and the exact nearest-rank
// quantile. A vector of every sample grew with the simulated time (8 B a
// message: 0.3-0.5 GB for 20 ms of FT(16,3) at saturation, 25 GB for
// 100 ms of FT(32,3) at half load); latencies below kDense ns are counted
// per nanosecond instead (4 B a nanosecond up to the largest one seen,
// 64 MB at most), and only longer ones, which arise past saturation where
// the hosts' backlogs grow with time too, are kept one by one.
class LatencySamples {
 public:
  static constexpr int64_t kDense = int64_t(1) << 24;  // 16.8 ms
  // Inline for a latency already seen (the common case: once per message).
  void Add(int64_t ns) {
    ++count_;
    sum_ += double(ns);
    max_ = std::max(max_, ns);
    if (uint64_t(ns) < dense_.size() && dense_[size_t(ns)] < UINT32_MAX) [[likely]] {
      ++dense_[size_t(ns)];
      return;
    }
    Store(ns);
  }
  uint64_t count() const { return count_; }
  double sum() const { return sum_; }
  int64_t max() const { return max_; }
  // Quantile(v, q) of all samples added; 0 when there are none.
  double Quantile(double q);

 private:
  // A sample the dense counts do not take yet: they grow, or it is kept.
  void Store(int64_t ns);
  uint64_t count_ = 0;
  double sum_ = 0;
  int64_t max_ = 0;
  std::vector<uint32_t> dense_;  // [ns] -> samples of that latency
  std::vector<int64_t> sparse_;  // the rest: >= kDense, negative, or a full count
};

// What the kernel tallies while a point runs, raw. Summarise derives the
// point's statistics from it, so what each number means is decided here,
// not in the event loop (BookSim's split of simulator and statistics).
struct RunCounters {
  // Packets and links, the whole run.
  uint64_t hops = 0;              // link traversals (injection links included)
  std::vector<uint64_t> vl_hops;  // ... per VL
  uint64_t events = 0;
  uint64_t injected = 0;         // packets the hosts sent
  uint64_t copies = 0;           // multicast replications in the switches
  uint64_t freed_delivered = 0;  // freed once their last link, to an end port, was taken
  uint64_t consumed = 0;         // freed by their last replication
  uint64_t dropped = 0;          // ended at a branch with no port left
  uint64_t delivered_pkts = 0;   // copies delivered to receivers
  uint64_t sunk = 0;             // copies that reached a send-only source, dropped there
  uint64_t expected_total = 0;   // deliveries the generated messages are due (sunk ones too)
  uint64_t delivered_total = 0;  // ... and those made
  int64_t last_delivery_ns = 0;
  // Bytes of the measured messages: offered (a multicast byte once per
  // receiver), to the hot host (centric: counted when the destination is
  // drawn), and accepted inside the window.
  uint64_t offered_bytes = 0;
  uint64_t hot_offered_bytes = 0;
  uint64_t accepted_bytes = 0;
};

// The state at a point's end that its statistics need beside the counters.
struct RunEnd {
  bool steady = true;      // steady state with a window; else batch or script, run until drained
  bool hit_limit = false;  // stopped by max_ns (batch, script) or the drain limit
  int64_t now_ns = 0;
  int64_t window_ns = 0;  // steady state: the measurement window's length
  int64_t max_ns = 0;     // batch, script: the hard limit
  int hosts = 0;
  bool centric = false;
  double hot_backlogged_bytes = 0;    // measured messages still in adapters: their expected share
  uint64_t hot_accepted_bytes = 0;    // into the hot host, in the window
  std::vector<int64_t> link_busy_ns;  // per global port, inside the window; -1: not cabled
  uint64_t live_pkts = 0;             // packets still in buffers
  uint64_t pool_in_use = 0;           // packet slots taken (must equal live_pkts)
  uint64_t live_ops = 0;              // messages not complete
  uint64_t ops_unfinished = 0;        // ... of them measured
};

// Fills `r`'s statistics from a run's counters and end state, `wall_s`
// seconds of it: throughput, latency, link use, and the conservation check
// (which, like the error for a run cut at max_ns, reads r->deadlock).
void Summarise(const RunCounters& c, const RunEnd& e, LatencySamples& latencies, double wall_s,
               PointResult* r);

}  // namespace ibu::sim
