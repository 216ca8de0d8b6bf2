// Parameters of the packet-level timing model (DESIGN.md section 5). The
// defaults are the papers' (seeds 001 and 002): 20 ns link fly time, 100 ns
// switch routing time, 4 ns per byte (1X SDR after 8b/10b), 32-byte
// packets, per-VL input and output buffers of one packet. Every field can be
// overridden with `--param key=value` or a `key = value` line of a config
// file; SetParam is the one place that knows the keys.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "plugin/core/fabric.h"

namespace ibu::sim {

enum class Arrival { kBernoulli, kExponential, kPeriodic };
// SL per message. kEngine: the routing engine's PathSl for (source LID,
// DLID), what OpenSM's SA hands out; kAuto: kEngine when the engine has a VL
// policy (DataVls() > 1, e.g. xymesh shared), else kHash.
enum class SlPolicy { kAuto, kEngine, kHash, kRandom, kFixed };

// Whether messages carry the path SLs their routing gives (an engine's
// PathSl, or the SA's read back with a dump) rather than the policy's own:
// always under sl=engine; under sl=auto when those SLs pick the VLs
// (`sls_pick_vls`: an engine that spreads VLs by SL; the SA's SLs always).
inline bool TakesPathSls(SlPolicy policy, bool have_path_sls, bool sls_pick_vls) {
  return have_path_sls && (policy == SlPolicy::kEngine || (policy == SlPolicy::kAuto && sls_pick_vls));
}
enum class DlidPolicy { kAuto, kEngine, kBase, kRandom, kHash };
enum class McastMode { kHardware, kUnicast };
// How host numbers (hot=, a permutation's pairs, a drawn multicast group)
// map to hosts: by the recognised fat-tree's or mesh's addresses, or in
// the order the net file lists them.
enum class HostNumbering { kAddress, kFile };
// The event engine: the classic kernel runs every configuration, the lean
// one (lean_kernel.cc) unicast traffic with one-packet buffers, faster.
enum class KernelKind { kClassic, kLean };

// Hardware multicast trees a run can have: one MLID each, 0xC001-0xFFFE
// (0xFFFF is the permissive LID).
constexpr int kMaxMcastTrees = kMaxMulticastLid - kMulticastLidBase;

struct Params {
  // --- link and switch timing (integer nanoseconds) ---
  int64_t fly_ns = 20;     // wire + PHY, per link, head and credits alike
  int64_t route_ns = 100;  // switch: lookup, replication, arbitration, start-up
  int64_t byte_ns = 4;     // serialisation time of one byte
  int packet_bytes = 32;   // payload per packet; messages are split
  int in_buf = 1;          // input buffer per (port, VL), in packets
  int out_buf = 1;         // output buffer per (port, VL), in packets
  int vls = 1;             // data VLs: 1, 2, 4 or 8 from the command line (IsValidVlCount)

  // --- run control ---
  int64_t warmup_ns = 50000;
  int64_t measure_ns = 200000;
  // After the window traffic keeps flowing until every message generated in
  // the window is delivered, or for at most this long (saturation).
  int64_t drain_ns = 1000000;
  int64_t max_ns = 10000000000;  // hard stop for batch runs
  // Batch mode (completion-time experiments): every source queues `batch`
  // messages at t=0, nothing more is generated, the run ends when all are
  // delivered. 0 = steady state with warm-up and window.
  int batch = 0;
  int64_t deadlock_check_ns = 100000;  // period of the cycle search
  // Messages a host adapter holds ready to send (over all VLs); arrivals
  // beyond wait in the host's backlog with their time stamp.
  int nic_msgs = 8;

  // --- traffic details ---
  Arrival arrival = Arrival::kBernoulli;
  SlPolicy sl = SlPolicy::kAuto;  // SL per message; VL = SL2VL(SL)
  int sl_value = 0;               // for SlPolicy::kFixed
  DlidPolicy dlid = DlidPolicy::kAuto;  // engine's rule, base LID for dumps
  int hot = 0;                    // centric: index of the hot end port
  McastMode mcast_mode = McastMode::kHardware;
  int mcast_trees = 0;            // MLIDs per group; 0 = one per source
  int mlid = 0;                   // dump mode: MLID to use (0 = largest group)
  int shift = 0;                  // shift pattern distance (0 = N/2)
  HostNumbering host_order = HostNumbering::kAddress;
  KernelKind kernel = KernelKind::kClassic;

  // Words "k=v" handed to ibu::MakeEngine (from `engine.k=v` params).
  std::vector<std::string> engine_options;
};

// Sets one key; throws ibu::Error "WHERE: ..." naming the key and what was
// expected. `where` is "--param" or "FILE:LINE".
void SetParam(Params& p, const std::string& key, const std::string& value,
              const std::string& where);

// The VL counts a port can have (VLCap: 1, 2, 4, 8 data VLs): the only
// ones --vls and the vls key take. The engine runs any count 1..8
// (ValidateParams) but is tested with these.
bool IsValidVlCount(int vls);

// True when `key` is a parameter key (engine.* included).
bool IsParamKey(const std::string& key);

// One line per key with its default, for --help.
std::string ParamHelp();

// Checks cross-field constraints (buffers >= 1, vls in 1..8, ...).
void ValidateParams(const Params& p);

}  // namespace ibu::sim
