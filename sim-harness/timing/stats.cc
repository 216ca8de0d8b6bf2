#include "sim-harness/timing/stats.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <sstream>

#include "plugin/core/int_math.h"

namespace ibu::sim {

std::string JsonNumber(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string LoadText(const PointResult& r) { return std::isnan(r.load) ? "batch" : JsonNumber(r.load); }

namespace {

std::string Num(double v) { return JsonNumber(v); }

// Every digit a double has: records keep figures exactly.
std::string Full(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

// Latency quantiles and maxima are whole nanoseconds: every digit of them
// (six significant ones printed 1162563 as 1.16256e+06).
std::string WholeNs(double v) {
  return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 0x1p53 ? Full(v) : JsonNumber(v);
}

// CSV leaves a batch run's load empty.
std::string CsvNumber(double v) { return std::isfinite(v) ? JsonNumber(v) : ""; }

std::string JsonString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string CsvString(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c == '\n' ? ' ' : c;
  }
  return out + "\"";
}

// Hops per VL in one CSV field, VL 0 first, separated by ';' (no quoting
// needed): how the SL-to-VL tables spread the traffic, as JSON's vl_hops.
std::string VlHopsField(const PointResult& r) {
  std::string out;
  for (size_t v = 0; v < r.vl_hops.size(); ++v) out += (v ? ";" : "") + std::to_string(r.vl_hops[v]);
  return out;
}

}  // namespace

double Quantile(std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  size_t k = size_t(std::ceil(q * double(v.size())));
  k = k == 0 ? 0 : k - 1;
  if (k >= v.size()) k = v.size() - 1;
  std::nth_element(v.begin(), v.begin() + long(k), v.end());
  return double(v[k]);
}

void LatencySamples::Store(int64_t ns) {
  if (ns >= 0 && ns < kDense) {
    if (size_t(ns) >= dense_.size()) {
      // Grown by a quarter, not doubled: the counts up to the largest
      // latency, not twice that.
      if (size_t(ns) >= dense_.capacity())
        dense_.reserve(std::min(size_t(kDense), std::max(size_t(ns) + 1, dense_.size() + dense_.size() / 4)));
      dense_.resize(size_t(ns) + 1, 0);
    }
    if (dense_[size_t(ns)] < UINT32_MAX) {
      ++dense_[size_t(ns)];
      return;
    }
  }
  sparse_.push_back(ns);
}

double LatencySamples::Quantile(double q) {
  if (count_ == 0) return 0;
  // The rank Quantile(v, q) picks; the dense counts in value order, then
  // the sparse samples (negative ones first, the rest above every dense one).
  uint64_t k = uint64_t(std::ceil(q * double(count_)));
  k = k == 0 ? 0 : k - 1;
  if (k >= count_) k = count_ - 1;
  std::sort(sparse_.begin(), sparse_.end());
  const uint64_t negative = uint64_t(std::lower_bound(sparse_.begin(), sparse_.end(), 0) - sparse_.begin());
  if (k < negative) return double(sparse_[k]);
  uint64_t below = negative;
  size_t next = negative;  // sparse samples within the dense range (full counts)
  for (size_t v = 0; v < dense_.size(); ++v) {
    while (next < sparse_.size() && sparse_[next] == int64_t(v)) ++next, ++below;
    below += dense_[v];
    if (below > k) return double(v);
  }
  return double(sparse_[k - (below - next)]);
}

void Summarise(const RunCounters& c, const RunEnd& e, LatencySamples& latencies, double wall_s,
               PointResult* out) {
  PointResult& r = *out;
  const int64_t end = std::max(e.now_ns, c.last_delivery_ns);
  r.simulated_ns = end;
  r.wall_s = wall_s;
  r.packet_hops = c.hops;
  r.vl_hops = c.vl_hops;
  r.events = c.events;
  r.packets_delivered = c.delivered_pkts;
  r.packet_hops_per_s = wall_s > 0 ? double(c.hops) / wall_s : 0;
  if (!e.steady && !r.deadlock && e.hit_limit && e.live_ops > 0)
    r.error = "run did not complete within max_ns=" + std::to_string(e.max_ns) + " ns (" +
              std::to_string(e.live_ops) + " messages undelivered)";
  // A drained run's window is the whole run, up to the hard limit.
  const double window =
      e.steady ? double(e.window_ns) : double(std::max<int64_t>(1, std::min(end, e.max_ns)));
  r.offered = double(c.offered_bytes) / window / e.hosts;
  r.accepted = double(c.accepted_bytes) / window / e.hosts;
  if (e.centric) {
    r.hot_offered = (double(c.hot_offered_bytes) + e.hot_backlogged_bytes) / window;
    r.hot_accepted = double(e.hot_accepted_bytes) / window;
  }
  r.ops_measured = latencies.count();
  r.ops_unfinished = e.ops_unfinished;
  if (latencies.count()) {
    r.latency_avg_ns = latencies.sum() / double(latencies.count());
    r.latency_max_ns = double(latencies.max());
    r.latency_p99_ns = latencies.Quantile(0.99);
  }
  if (!e.steady) r.completion_ns = c.last_delivery_ns;
  r.link_util.assign(e.link_busy_ns.size(), 0.0);
  double sum = 0;
  int links = 0;
  for (size_t gp = 0; gp < e.link_busy_ns.size(); ++gp) {
    if (e.link_busy_ns[gp] < 0) continue;
    const double u = double(e.link_busy_ns[gp]) / window;
    r.link_util[gp] = u;
    r.link_util_max = std::max(r.link_util_max, u);
    sum += u;
    ++links;
  }
  r.link_util_avg = links ? sum / links : 0;
  // Conservation, double entry: every packet created (injected or
  // replicated) was freed after its delivery, consumed by its last
  // replication, dropped at a dead-end branch, or is still in a buffer;
  // every delivery counted was of a packet that reached the last link. When
  // the run drained, every expected delivery happened (duplicates and
  // strays are rejected as they happen by the kernel's per-receiver counters).
  const uint64_t created = c.injected + c.copies;
  r.conservation_ok = created == c.freed_delivered + c.consumed + c.dropped + e.live_pkts &&
                      c.delivered_pkts + c.sunk >= c.freed_delivered && e.live_pkts == e.pool_in_use;
  const bool drained = !r.deadlock && r.error.empty() && !e.steady;
  if (drained)
    r.conservation_ok = r.conservation_ok && e.live_pkts == 0 && e.live_ops == 0 &&
                        c.delivered_total == c.expected_total &&
                        c.delivered_pkts + c.sunk == c.freed_delivered;
}

namespace {

// A run that failed before its tallies were summed (a SimFailure: every
// count 0) had its balance never checked, which "violated" would misstate.
// One cut at max_ns was summed and checked: ok or violated.
const char* ConservationWord(const PointResult& r) {
  if (!r.error.empty() && r.events == 0) return "unchecked";
  return r.conservation_ok ? "ok" : "violated";
}

}  // namespace

std::string ToJson(const PointResult& r, bool with_wall) {
  std::ostringstream os;
  os << "{\"point\":" << r.index << ",\"load\":" << Num(r.load) << ",\"offered\":" << Num(r.offered)
     << ",\"accepted\":" << Num(r.accepted) << ",\"latency_avg_ns\":" << Num(r.latency_avg_ns)
     << ",\"latency_p99_ns\":" << WholeNs(r.latency_p99_ns)
     << ",\"latency_max_ns\":" << WholeNs(r.latency_max_ns) << ",\"ops_measured\":" << r.ops_measured
     << ",\"ops_unfinished\":" << r.ops_unfinished << ",\"completion_ns\":" << r.completion_ns
     << ",\"hot_offered\":" << Num(r.hot_offered) << ",\"hot_accepted\":" << Num(r.hot_accepted)
     << ",\"link_util_max\":" << Num(r.link_util_max) << ",\"link_util_avg\":" << Num(r.link_util_avg)
     << ",\"packets_delivered\":" << r.packets_delivered << ",\"packet_hops\":" << r.packet_hops
     << ",\"events\":" << r.events << ",\"simulated_ns\":" << r.simulated_ns << ",\"vl_hops\":[";
  for (size_t v = 0; v < r.vl_hops.size(); ++v) os << (v ? "," : "") << r.vl_hops[v];
  os << "]";
  if (with_wall)
    os << ",\"wall_s\":" << Num(r.wall_s) << ",\"packet_hops_per_s\":" << Num(r.packet_hops_per_s);
  os << ",\"conservation\":\"" << ConservationWord(r) << "\""
     << ",\"deadlock\":" << (r.deadlock ? "true" : "false");
  if (r.deadlock) os << ",\"deadlock_report\":" << JsonString(r.deadlock_report);
  if (!r.error.empty()) os << ",\"error\":" << JsonString(r.error);
  os << "}";
  return os.str();
}

std::string CsvHeader() {
  return "point,load,offered,accepted,latency_avg_ns,latency_p99_ns,latency_max_ns,ops_measured,"
         "ops_unfinished,completion_ns,hot_offered,hot_accepted,link_util_max,link_util_avg,"
         "packets_delivered,packet_hops,events,simulated_ns,wall_s,packet_hops_per_s,conservation,"
         "deadlock,vl_hops,error";
}

std::string ToCsv(const PointResult& r, bool with_wall) {
  std::ostringstream os;
  os << r.index << "," << CsvNumber(r.load) << "," << Num(r.offered) << "," << Num(r.accepted) << ","
     << Num(r.latency_avg_ns) << "," << WholeNs(r.latency_p99_ns) << "," << WholeNs(r.latency_max_ns) << ","
     << r.ops_measured << "," << r.ops_unfinished << "," << r.completion_ns << "," << Num(r.hot_offered)
     << "," << Num(r.hot_accepted) << "," << Num(r.link_util_max) << "," << Num(r.link_util_avg) << ","
     << r.packets_delivered << "," << r.packet_hops << "," << r.events << "," << r.simulated_ns << ","
     << (with_wall ? Num(r.wall_s) : "") << "," << (with_wall ? Num(r.packet_hops_per_s) : "") << ","
     << ConservationWord(r) << "," << (r.deadlock ? 1 : 0) << "," << VlHopsField(r) << ","
     << CsvString(r.deadlock ? r.deadlock_report : r.error);
  return os.str();
}

std::string TableHeader(bool with_wall) {
  return std::string("   load  offered accepted  lat_avg_ns  lat_p99_ns  util_max   delivered") +
         (with_wall ? "     hops/s" : "");
}

std::string ToTableRow(const PointResult& r, bool with_wall) {
  char wall[32] = "";
  if (with_wall) std::snprintf(wall, sizeof wall, " %10.3g", r.packet_hops_per_s);
  char load[16] = "  batch";
  if (!std::isnan(r.load)) std::snprintf(load, sizeof load, "%7.4f", r.load);
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s %8.5f %8.5f %11.1f %11.1f %9.3f %11llu%s%s", load, r.offered, r.accepted,
                r.latency_avg_ns, r.latency_p99_ns, r.link_util_max,
                static_cast<unsigned long long>(r.packets_delivered), wall,
                r.deadlock ? "  DEADLOCK" : (r.error.empty() ? "" : "  ERROR"));
  return buf;
}

// --- saturation ---

bool IsSaturated(const PointResult& r) {
  return r.accepted < kSaturationAccepted * r.offered || r.ops_unfinished > 0;
}

bool IsHotSaturated(const PointResult& r) {
  return r.hot_offered > 0 && r.hot_accepted < kSaturationAccepted * r.hot_offered;
}

namespace {

// One rule's pass over a judged point `i`: the first saturated one, and
// the last before it (reset by FinishCrossing when none saturated).
void TrackCrossing(bool saturated, int i, int* at, int* below) {
  if (*at >= 0) return;
  if (saturated) *at = i;
  else *below = i;
}
void FinishCrossing(int at, int* below) {
  if (at < 0) *below = -1;
}

}  // namespace

Saturation FindSaturation(const std::vector<PointResult>& points) {
  Saturation s;
  for (size_t i = 0; i < points.size(); ++i) {
    const PointResult& r = points[i];
    if (r.deadlock || !r.error.empty()) continue;
    ++s.judged;
    s.max_accepted = std::max(s.max_accepted, r.accepted);
    TrackCrossing(IsSaturated(r), int(i), &s.at, &s.below);
    TrackCrossing(IsHotSaturated(r), int(i), &s.hot_at, &s.hot_below);
    s.last = int(i);
  }
  FinishCrossing(s.at, &s.below);
  FinishCrossing(s.hot_at, &s.hot_below);
  return s;
}

namespace {

// Centric sweeps: where the hot host's own link saturated, e.g. "; the hot
// host: between load 0.07 and 0.08 (there it accepted 0.2212 of the 0.2475
// bytes/ns offered to it)"; empty for other traffic.
std::string HotText(const Saturation& s, const std::vector<PointResult>& points) {
  const bool centric = std::any_of(points.begin(), points.end(), [](const PointResult& r) { return r.hot_offered > 0; });
  if (!centric) return "";
  auto load = [&](int i) { return Num(points[size_t(i)].load); };
  if (s.hot_at < 0) return "; the hot host: not saturated up to load " + load(s.last);
  const PointResult& r = points[size_t(s.hot_at)];
  const std::string there = " (there it accepted " + Num(r.hot_accepted) + " of the " + Num(r.hot_offered) +
                            " bytes/ns offered to it)";
  if (s.hot_below < 0) return "; the hot host: at or below load " + load(s.hot_at) + ", the first point" + there;
  return "; the hot host: between load " + load(s.hot_below) + " and " + load(s.hot_at) + there;
}

// "; N of M points failed (deadlock or error), left out": without it a
// sweep whose last points closed a credit loop read "not reached". The
// saturation rule judged the others.
std::string FailedText(const Saturation& s, const std::vector<PointResult>& points) {
  const size_t failed = points.size() - size_t(s.judged);
  if (!failed) return "";
  return "; " + std::to_string(failed) + " of " + std::to_string(points.size()) +
         " points failed (deadlock or error), left out";
}

// The line for the points that ran.
std::string JudgedText(const Saturation& s, const std::vector<PointResult>& points) {
  if (s.judged == 0) return "saturation: unknown (no point ran without an error)";
  auto at = [&](int i) { return Num(points[size_t(i)].offered) + " (load " + Num(points[size_t(i)].load) + ")"; };
  // The rule lets a point accept up to 5% less than it offers (window
  // noise), so the last point it calls sustained can already offer more
  // than any point accepted: the capacity is then below the interval.
  const bool past = s.reached() && s.below >= 0 && points[size_t(s.below)].offered > s.max_accepted;
  const std::string most =
      "; accepted at most " + Num(s.max_accepted) + " bytes/ns/host" +
      (past ? " (below offered " + Num(points[size_t(s.below)].offered) +
                  ": the capacity lies below the interval, within the rule's 5% of offered)"
            : "") +
      HotText(s, points);
  if (!s.reached()) return "saturation: not reached up to offered " + at(s.last) + " bytes/ns/host" + most;
  if (s.below < 0) return "saturation: at or below offered " + at(s.at) + " bytes/ns/host, the first point" + most;
  return "saturation: between offered " + at(s.below) + " and " + at(s.at) + " bytes/ns/host" + most;
}

}  // namespace

std::string SaturationText(const Saturation& s, const std::vector<PointResult>& points) {
  return JudgedText(s, points) + FailedText(s, points);
}

// --- records (--save / --merge) ---

namespace {

// A record's figure: all of `text` a finite decimal number >= 0.
std::optional<double> NonNegativeNumber(const std::string& text) {
  double v = 0;
  if (!ParseDecimalReal(text, &v) || !std::isfinite(v) || v < 0) return std::nullopt;
  return v;
}

// A record's count: all of `text` decimal digits, within 64 bits.
std::optional<uint64_t> Count(const std::string& text) {
  if (!IsDecimalDigits(text)) return std::nullopt;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno == ERANGE) return std::nullopt;
  return uint64_t(v);
}

// The values of a flat JSON object: numbers and arrays of numbers as text,
// strings unescaped, true/false as "1"/"0". A key given twice is refused.
class FlatJson {
 public:
  explicit FlatJson(const std::string& t) : t_(t) {}
  bool Parse(std::map<std::string, std::string>* scalars,
             std::map<std::string, std::vector<double>>* arrays, std::string* why) {
    Ws();
    if (!Eat('{')) return Bad(why, "expected '{'");
    Ws();
    if (Eat('}')) return true;
    for (;;) {
      std::string key, val;
      Ws();
      if (!String(&key)) return Bad(why, "expected a key");
      Ws();
      if (!Eat(':')) return Bad(why, "expected ':' after \"" + key + "\"");
      if (scalars->count(key) || arrays->count(key)) return Bad(why, "\"" + key + "\" given twice");
      Ws();
      if (Peek() == '"') {
        if (!String(&val)) return Bad(why, "bad string for \"" + key + "\"");
        (*scalars)[key] = val;
      } else if (Eat('[')) {
        std::vector<double>& a = (*arrays)[key];
        Ws();
        if (!Eat(']'))
          for (;;) {
            Ws();
            double v = 0;
            if (!Number(&val) || !ParseDecimalReal(val, &v)) return Bad(why, "bad number in \"" + key + "\"");
            a.push_back(v);
            Ws();
            if (Eat(']')) break;
            if (!Eat(',')) return Bad(why, "expected ',' or ']' in \"" + key + "\"");
          }
      } else if (Word("true")) {
        (*scalars)[key] = "1";
      } else if (Word("false")) {
        (*scalars)[key] = "0";
      } else if (Word("null")) {
        (*scalars)[key] = "nan";
      } else if (Number(&val)) {
        (*scalars)[key] = val;
      } else {
        return Bad(why, "bad value for \"" + key + "\"");
      }
      Ws();
      if (Eat('}')) break;
      if (!Eat(',')) return Bad(why, "expected ',' or '}' after \"" + key + "\"");
    }
    Ws();
    return i_ == t_.size() || Bad(why, "text after the object");
  }

 private:
  char Peek() const { return i_ < t_.size() ? t_[i_] : '\0'; }
  bool Eat(char c) {
    if (Peek() != c) return false;
    ++i_;
    return true;
  }
  void Ws() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\t' || t_[i_] == '\r')) ++i_;
  }
  bool Word(const char* w) {
    const std::string s(w);
    if (t_.compare(i_, s.size(), s) != 0) return false;
    i_ += s.size();
    return true;
  }
  bool Number(std::string* out) {
    const size_t a = i_;
    while (i_ < t_.size() && std::strchr("+-0123456789.eE", t_[i_])) ++i_;
    *out = t_.substr(a, i_ - a);
    return i_ > a;
  }
  bool String(std::string* out) {
    if (!Eat('"')) return false;
    out->clear();
    while (i_ < t_.size() && t_[i_] != '"') {
      char c = t_[i_++];
      if (c == '\\') {
        if (i_ >= t_.size()) return false;
        c = t_[i_++];
        if (c == 'u') {
          if (i_ + 4 > t_.size()) return false;
          c = char(std::strtol(t_.substr(i_, 4).c_str(), nullptr, 16));
          i_ += 4;
        } else if (c == 'n') {
          c = '\n';
        }
      }
      *out += c;
    }
    return Eat('"');
  }
  bool Bad(std::string* why, const std::string& what) {
    *why = what + " at character " + std::to_string(i_);
    return false;
  }
  const std::string& t_;
  size_t i_ = 0;
};

}  // namespace

std::string ToRecord(const PointResult& r) {
  std::ostringstream os;
  os << "{\"point\":" << r.index << ",\"load\":" << (std::isnan(r.load) ? "null" : Full(r.load))
     << ",\"offered\":" << Full(r.offered) << ",\"accepted\":" << Full(r.accepted)
     << ",\"hot_offered\":" << Full(r.hot_offered) << ",\"hot_accepted\":" << Full(r.hot_accepted)
     << ",\"ops_measured\":" << r.ops_measured << ",\"ops_unfinished\":" << r.ops_unfinished
     << ",\"latency_avg_ns\":" << Full(r.latency_avg_ns) << ",\"latency_p99_ns\":" << Full(r.latency_p99_ns)
     << ",\"latency_max_ns\":" << Full(r.latency_max_ns) << ",\"completion_ns\":" << r.completion_ns
     << ",\"packets_delivered\":" << r.packets_delivered << ",\"packet_hops\":" << r.packet_hops
     << ",\"events\":" << r.events << ",\"simulated_ns\":" << r.simulated_ns
     << ",\"wall_s\":" << Full(r.wall_s) << ",\"packet_hops_per_s\":" << Full(r.packet_hops_per_s)
     << ",\"link_util_max\":" << Full(r.link_util_max) << ",\"link_util_avg\":" << Full(r.link_util_avg)
     << ",\"conservation_ok\":" << (r.conservation_ok ? "true" : "false")
     << ",\"deadlock\":" << (r.deadlock ? "true" : "false")
     << ",\"deadlock_report\":" << JsonString(r.deadlock_report) << ",\"error\":" << JsonString(r.error)
     << ",\"run\":" << JsonString(r.run) << ",\"vl_hops\":[";
  for (size_t v = 0; v < r.vl_hops.size(); ++v) os << (v ? "," : "") << r.vl_hops[v];
  os << "],\"link_util\":[";
  for (size_t g = 0; g < r.link_util.size(); ++g) os << (g ? "," : "") << Full(r.link_util[g]);
  os << "]}";
  return os.str();
}

bool FromRecord(const std::string& text, PointResult* r, std::string* why) {
  std::map<std::string, std::string> s;
  std::map<std::string, std::vector<double>> a;
  if (!FlatJson(text).Parse(&s, &a, why)) return false;
  for (const char* key : {"point", "load", "offered", "accepted", "hot_accepted", "ops_measured", "ops_unfinished",
                          "latency_avg_ns", "latency_p99_ns", "latency_max_ns", "completion_ns",
                          "packets_delivered", "packet_hops", "events", "simulated_ns", "wall_s",
                          "packet_hops_per_s", "link_util_max", "link_util_avg", "conservation_ok", "deadlock",
                          "deadlock_report", "error"})
    if (!s.count(key)) {
      *why = std::string("missing field \"") + key + "\"";
      return false;
    }
  if (!a.count("vl_hops") || !a.count("link_util")) {
    *why = "missing field \"vl_hops\" or \"link_util\"";
    return false;
  }
  // A hand-edited or foreign record: a figure that is not a number of its
  // kind would be printed as a result ("accepted -1", "inf", 2^64 - 1).
  std::string bad;  // the first field that is not, with what it should be
  auto reject = [&](const char* key, const std::string& expected, const std::string& got) {
    if (bad.empty()) bad = std::string("field \"") + key + "\": expected " + expected + ", got " + got;
  };
  auto d = [&](const char* k) {
    const std::optional<double> v = NonNegativeNumber(s[k]);
    if (!v) reject(k, "a finite number >= 0", s[k]);
    return v.value_or(0);
  };
  auto u = [&](const char* k, uint64_t max = ~uint64_t(0)) {
    const std::optional<uint64_t> v = Count(s[k]);
    if (!v || *v > max)
      reject(k, max == ~uint64_t(0) ? "a whole number >= 0" : "a whole number 0.." + std::to_string(max),
             s[k]);
    return v.value_or(0);
  };
  auto i = [&](const char* k) { return int64_t(u(k, uint64_t(INT64_MAX))); };
  auto flag = [&](const char* k) {
    if (s[k] != "0" && s[k] != "1") reject(k, "true or false", s[k]);
    return s[k] == "1";
  };
  PointResult p;
  p.index = int(u("point", uint64_t(INT32_MAX)));
  p.load = s["load"] == "nan" ? std::nan("") : d("load");  // a batch run's null
  p.offered = d("offered");
  p.accepted = d("accepted");
  p.hot_offered = s.count("hot_offered") ? d("hot_offered") : 0;  // records saved before it existed lack it
  p.hot_accepted = d("hot_accepted");
  p.ops_measured = u("ops_measured");
  p.ops_unfinished = u("ops_unfinished");
  p.latency_avg_ns = d("latency_avg_ns");
  p.latency_p99_ns = d("latency_p99_ns");
  p.latency_max_ns = d("latency_max_ns");
  p.completion_ns = i("completion_ns");
  p.packets_delivered = u("packets_delivered");
  p.packet_hops = u("packet_hops");
  p.events = u("events");
  p.simulated_ns = i("simulated_ns");
  p.wall_s = d("wall_s");
  p.packet_hops_per_s = d("packet_hops_per_s");
  p.link_util_max = d("link_util_max");
  p.link_util_avg = d("link_util_avg");
  p.conservation_ok = flag("conservation_ok");
  p.deadlock = flag("deadlock");
  p.deadlock_report = s["deadlock_report"];
  p.error = s["error"];
  p.run = s.count("run") ? s["run"] : "";  // records saved before it existed lack it
  for (double v : a["vl_hops"]) {
    if (!(v >= 0 && v < 0x1p63 && v == std::floor(v))) reject("vl_hops", "whole numbers >= 0", Full(v));
    p.vl_hops.push_back(uint64_t(v));
  }
  for (double v : a["link_util"])
    if (!(v >= 0 && std::isfinite(v))) reject("link_util", "finite numbers >= 0", Full(v));
  p.link_util = a["link_util"];
  if (!bad.empty()) {
    *why = bad;
    return false;
  }
  *r = std::move(p);
  return true;
}

}  // namespace ibu::sim
