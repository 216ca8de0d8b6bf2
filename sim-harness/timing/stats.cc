#include "sim-harness/timing/stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ibu::sim {

namespace {

std::string Num(double v) {
  if (!std::isfinite(v)) return "null";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

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

}  // namespace

double Quantile(std::vector<int64_t>& v, double q) {
  if (v.empty()) return 0;
  size_t k = size_t(std::ceil(q * double(v.size())));
  k = k == 0 ? 0 : k - 1;
  if (k >= v.size()) k = v.size() - 1;
  std::nth_element(v.begin(), v.begin() + long(k), v.end());
  return double(v[k]);
}

std::string ToJson(const PointResult& r, bool with_wall) {
  std::ostringstream os;
  os << "{\"point\":" << r.index << ",\"load\":" << Num(r.load) << ",\"offered\":" << Num(r.offered)
     << ",\"accepted\":" << Num(r.accepted) << ",\"latency_avg_ns\":" << Num(r.latency_avg_ns)
     << ",\"latency_p99_ns\":" << Num(r.latency_p99_ns)
     << ",\"latency_max_ns\":" << Num(r.latency_max_ns) << ",\"ops_measured\":" << r.ops_measured
     << ",\"ops_unfinished\":" << r.ops_unfinished << ",\"completion_ns\":" << r.completion_ns
     << ",\"hot_accepted\":" << Num(r.hot_accepted)
     << ",\"link_util_max\":" << Num(r.link_util_max)
     << ",\"link_util_avg\":" << Num(r.link_util_avg)
     << ",\"packets_delivered\":" << r.packets_delivered << ",\"packet_hops\":" << r.packet_hops << ",\"events\":" << r.events
     << ",\"simulated_ns\":" << r.simulated_ns << ",\"vl_hops\":[";
  for (size_t v = 0; v < r.vl_hops.size(); ++v) os << (v ? "," : "") << r.vl_hops[v];
  os << "]";
  if (with_wall)
    os << ",\"wall_s\":" << Num(r.wall_s) << ",\"packet_hops_per_s\":" << Num(r.packet_hops_per_s);
  os << ",\"conservation\":" << (r.conservation_ok ? "\"ok\"" : "\"violated\"")
     << ",\"deadlock\":" << (r.deadlock ? "true" : "false");
  if (r.deadlock) os << ",\"deadlock_report\":" << JsonString(r.deadlock_report);
  if (!r.error.empty()) os << ",\"error\":" << JsonString(r.error);
  os << "}";
  return os.str();
}

std::string CsvHeader() {
  return "point,load,offered,accepted,latency_avg_ns,latency_p99_ns,latency_max_ns,ops_measured,"
         "ops_unfinished,completion_ns,hot_accepted,link_util_max,link_util_avg,"
         "packets_delivered,packet_hops,events,simulated_ns,wall_s,packet_hops_per_s,conservation,"
         "deadlock,error";
}

std::string ToCsv(const PointResult& r, bool with_wall) {
  std::ostringstream os;
  os << r.index << "," << Num(r.load) << "," << Num(r.offered) << "," << Num(r.accepted) << ","
     << Num(r.latency_avg_ns) << "," << Num(r.latency_p99_ns) << "," << Num(r.latency_max_ns)
     << "," << r.ops_measured << "," << r.ops_unfinished << "," << r.completion_ns << ","
     << Num(r.hot_accepted) << "," << Num(r.link_util_max) << "," << Num(r.link_util_avg) << ","
     << r.packets_delivered << "," << r.packet_hops << "," << r.events << "," << r.simulated_ns << ","
     << (with_wall ? Num(r.wall_s) : "") << "," << (with_wall ? Num(r.packet_hops_per_s) : "")
     << "," << (r.conservation_ok ? "ok" : "violated") << "," << (r.deadlock ? 1 : 0) << ","
     << CsvString(r.deadlock ? r.deadlock_report : r.error);
  return os.str();
}

std::string TableHeader() {
  return "   load  offered accepted  lat_avg_ns  lat_p99_ns  util_max   delivered     hops/s";
}

std::string ToTableRow(const PointResult& r) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%7.4f %8.5f %8.5f %11.1f %11.1f %9.3f %11llu %10.3g%s", r.load,
                r.offered, r.accepted, r.latency_avg_ns, r.latency_p99_ns, r.link_util_max,
                static_cast<unsigned long long>(r.packets_delivered), r.packet_hops_per_s,
                r.deadlock ? "  DEADLOCK" : (r.error.empty() ? "" : "  ERROR"));
  return buf;
}

}  // namespace ibu::sim
