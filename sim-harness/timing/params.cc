#include "sim-harness/timing/params.h"

#include <cstdlib>
#include <sstream>

#include "plugin/core/error.h"
#include "plugin/core/int_math.h"

namespace ibu::sim {

namespace {

// `where` and the setting, once: a --param's `where` is the setting itself
// ("--param fly_ns=-1: fly_ns=-1: expected" said it twice), a config
// file's is FILE:LINE.
std::string Setting(const std::string& where, const std::string& key, const std::string& value) {
  const std::string kv = key + "=" + value;
  const bool named = where.size() >= kv.size() && where.compare(where.size() - kv.size(), kv.size(), kv) == 0;
  return named ? where : where + ": " + kv;
}

int64_t ToInt(const std::string& where, const std::string& key, const std::string& value,
              int64_t min, int64_t max) {
  long long v = 0;
  if (!ParseInteger(value, &v) || v < min || v > max) {
    std::ostringstream os;
    os << Setting(where, key, value) << ": expected an integer in [" << min << ", " << max << "]";
    throw Error(os.str());
  }
  return v;
}

[[noreturn]] void BadChoice(const std::string& where, const std::string& key,
                            const std::string& value, const std::string& choices) {
  throw Error(Setting(where, key, value) + ": expected " + choices);
}

constexpr int64_t kBig = int64_t(1) << 52;

struct Key {
  const char* name;
  const char* help;
};

constexpr Key kKeys[] = {
    {"fly_ns", "link fly time, ns [20]"},
    {"route_ns", "switch routing time (lookup, replication, arbitration, start-up), ns [100]"},
    {"byte_ns", "serialisation time per byte, ns [4] (0.25 bytes/ns links)"},
    {"packet_bytes", "packet size; messages are split into packets [32]"},
    {"in_buf", "input buffer per port and VL, packets [1]"},
    {"out_buf", "output buffer per port and VL, packets [1]"},
    {"vls", "data VLs, 1, 2, 4 or 8 (also --vls) [1]"},
    {"warmup_ns", "warm-up before the measurement window [50000]"},
    {"measure_ns", "measurement window [200000]"},
    {"drain_ns", "max time after the window to deliver the window's messages [1000000]"},
    {"max_ns", "batch runs: hard limit on simulated time [1e10]"},
    {"batch", "N>0: each source queues N messages at t=0, run to completion [0]"},
    {"deadlock_check_ns", "period of the credit-loop search [100000]"},
    {"nic_msgs", "messages a host adapter holds ready (over its VLs); later arrivals wait [8]"},
    {"arrival", "bernoulli|exp|periodic message arrivals; bernoulli offers loads up to 1 [bernoulli]"},
    {"sl",
     "auto|engine|hash|random|N: SL per message (engine: the engine's PathSl, as the SA hands out;\n"
     "                          auto: engine when it has a VL policy, e.g. xymesh, else hash) [auto]"},
    {"dlid",
     "engine|base|random|hash: DLID a source uses [engine; for dump: the plugin's paths.dump, else base]"},
    {"hot", "centric: number of the hot host (see host_order) [0]"},
    {"mcast_trees", "hardware multicast: MLIDs per group, 1..sources; 0 = one per source [0]"},
    {"mlid", "dump: routing: MLID to use (0 = the one reaching most hosts) [0]"},
    {"shift", "shift pattern distance, below the host count (0 = hosts/2) [0]"},
    {"host_order",
     "address|file: host numbers (hot=, permutations, drawn destinations and multicast\n"
     "                          hosts, arrival order): the fat-tree's P() or the mesh's N(x,y)\n"
     "                          labels (file order when neither is recognised), or net-file\n"
     "                          order [address]"},
    {"kernel",
     "classic|lean: event engine; lean runs unicast traffic with in_buf=out_buf=1 only,\n"
     "                          about 1.45x faster (FT(8,3) 0.6: 16.1 against 11.1 M packet-hops/s\n"
     "                          in one run, docs/benchmarks.md),\n"
     "                          same timing rules [classic]"},
    {"engine.KEY", "option KEY=VALUE passed to the routing engine"},
};

}  // namespace

bool IsValidVlCount(int vls) { return vls == 1 || vls == 2 || vls == 4 || vls == 8; }

bool IsParamKey(const std::string& key) {
  if (key.rfind("engine.", 0) == 0) return key.size() > 7;
  if (key == "mcast_mode") return true;
  for (const Key& k : kKeys)
    if (key == k.name) return true;
  return false;
}

std::string ParamHelp() {
  std::ostringstream os;
  for (const Key& k : kKeys) os << "      " << k.name << std::string(20 - std::string(k.name).size(), ' ') << k.help << "\n";
  return os.str();
}

void SetParam(Params& p, const std::string& key, const std::string& value,
              const std::string& where) {
  if (key == "fly_ns") p.fly_ns = ToInt(where, key, value, 0, 1000000);
  else if (key == "route_ns") p.route_ns = ToInt(where, key, value, 0, 1000000);
  else if (key == "byte_ns") p.byte_ns = ToInt(where, key, value, 1, 1000);
  else if (key == "packet_bytes") p.packet_bytes = int(ToInt(where, key, value, 1, 65535));
  else if (key == "in_buf") p.in_buf = int(ToInt(where, key, value, 1, 64));
  else if (key == "out_buf") p.out_buf = int(ToInt(where, key, value, 1, 64));
  else if (key == "vls") {
    p.vls = int(ToInt(where, key, value, 1, 8));
    if (!IsValidVlCount(p.vls)) BadChoice(where, key, value, "a VL count 1, 2, 4 or 8");
  }
  else if (key == "warmup_ns") p.warmup_ns = ToInt(where, key, value, 0, kBig);
  else if (key == "measure_ns") p.measure_ns = ToInt(where, key, value, 1, kBig);
  else if (key == "drain_ns") p.drain_ns = ToInt(where, key, value, 0, kBig);
  else if (key == "max_ns") p.max_ns = ToInt(where, key, value, 1, kBig);
  else if (key == "batch") p.batch = int(ToInt(where, key, value, 0, 1000000));
  else if (key == "deadlock_check_ns") p.deadlock_check_ns = ToInt(where, key, value, 1, kBig);
  else if (key == "nic_msgs") p.nic_msgs = int(ToInt(where, key, value, 1, 1 << 20));
  else if (key == "hot") p.hot = int(ToInt(where, key, value, 0, 1 << 24));
  else if (key == "mcast_trees")
    p.mcast_trees = int(ToInt(where, key, value, 0, kMaxMcastTrees));
  else if (key == "mlid") p.mlid = int(ToInt(where, key, value, 0, 0xffff));
  else if (key == "shift") p.shift = int(ToInt(where, key, value, 0, 1 << 24));
  else if (key == "arrival") {
    if (value == "bernoulli") p.arrival = Arrival::kBernoulli;
    else if (value == "exp" || value == "exponential") p.arrival = Arrival::kExponential;
    else if (value == "periodic") p.arrival = Arrival::kPeriodic;
    else BadChoice(where, key, value, "bernoulli, exp or periodic");
  } else if (key == "sl") {
    if (value == "auto") p.sl = SlPolicy::kAuto;
    else if (value == "engine") p.sl = SlPolicy::kEngine;
    else if (value == "hash") p.sl = SlPolicy::kHash;
    else if (value == "random") p.sl = SlPolicy::kRandom;
    else {
      p.sl = SlPolicy::kFixed;
      p.sl_value = int(ToInt(where, key, value, 0, 15));
    }
  } else if (key == "dlid") {
    if (value == "engine") p.dlid = DlidPolicy::kEngine;
    else if (value == "base") p.dlid = DlidPolicy::kBase;
    else if (value == "random") p.dlid = DlidPolicy::kRandom;
    else if (value == "hash") p.dlid = DlidPolicy::kHash;
    else BadChoice(where, key, value, "engine, base, random or hash");
  } else if (key == "host_order") {
    if (value == "address") p.host_order = HostNumbering::kAddress;
    else if (value == "file") p.host_order = HostNumbering::kFile;
    else BadChoice(where, key, value, "address or file");
  } else if (key == "kernel") {
    if (value == "classic")
      p.kernel = KernelKind::kClassic;
    else if (value == "lean")
      p.kernel = KernelKind::kLean;
    else
      BadChoice(where, key, value, "classic or lean");
  } else if (key == "mcast_mode") {
    if (value == "hw" || value == "hardware") p.mcast_mode = McastMode::kHardware;
    else if (value == "unicast") p.mcast_mode = McastMode::kUnicast;
    else BadChoice(where, key, value, "hw or unicast");
  } else if (key.rfind("engine.", 0) == 0 && key.size() > 7) {
    p.engine_options.push_back(key.substr(7) + "=" + value);
  } else {
    throw Error(where + ": unknown parameter '" + key + "' (see ibunion sim --help)");
  }
}

void ValidateParams(const Params& p) {
  if (p.vls < 1 || p.vls > 8) throw Error("vls must be 1..8");
  if (p.in_buf < 1 || p.out_buf < 1) throw Error("buffers must hold at least one packet");
  if (p.packet_bytes < 1) throw Error("packet_bytes must be >= 1");
}

}  // namespace ibu::sim
