// Multicast group set-up cost on a live subnet (seed 003): create, join and
// leave latency through the SA, and "multicast testing" — the time from the
// last join until the MFTs read back from the switches deliver exactly once
// to every member from every member.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <vector>

#include "plugin/core/error.h"
#include "plugin/core/fabric.h"
#include "sim-harness/mcast/mft_reader.h"
#include "sim-harness/mcast/sa_workers.h"

namespace ibu::mcast {

// A run on the live subnet that did not go through: the SA refused or lost
// a request, or a tree did not come up (or go) in time. mcsetup exits 1
// for it, as mcjoin does for a refusal; exit 2 stays for bad input.
class SubnetFailure : public Error {
 public:
  using Error::Error;
};

using Clock = std::chrono::steady_clock;

// When a group's MFTs became usable, bracketed by polling: every switch is
// read once per round; a switch last seen with its old mask at time a and
// first seen with its final mask at b changed in (a, b], so the tree was
// complete in (max a, max b]. Polling itself costs SMPs that queue at the
// simulator beside OpenSM's: round_ms says how coarse the bracket is.
struct TreeWait {
  bool ok = false;
  double lo_ms = 0, hi_ms = 0;  // bracket, relative to the caller's t0
  int rounds = 0;
  double round_ms = 0;          // mean duration of one polling round
  int tree_switches = 0;        // switches holding the MLID at the end
  std::string why;              // why not ok (timeout: the verifier's last complaint)
  double ready_ms() const { return (lo_ms + hi_ms) / 2; }
};

class TreeWatcher {
 public:
  TreeWatcher(const Fabric& f, MftReader& reader) : f_(f), reader_(reader) {}
  // Polls until `mlid` delivers exactly once within `members` (end-port
  // indices) from each of them — or, with no members, until no switch holds
  // it — or until timeout_ms after t0.
  TreeWait WaitFor(Lid mlid, const std::vector<int>& members, Clock::time_point t0,
                   double timeout_ms);

 private:
  const Fabric& f_;
  MftReader& reader_;
};

struct SetupConfig {
  std::vector<int> sizes{4, 16};
  int reps = 3;
  uint64_t seed = 1;
  bool pool = true;              // also measure the Pool design's leaves
  double ready_timeout_ms = 60000;
  std::string label = "run";     // engine/configuration name for the output
  bool fail_after_joins = false; // fault injection for tests: throw once the
                                 // first group is joined (exercises clean-up)
};

// One group's life: Basic (create, joins, ready, leaves, gone) and Pool
// (a full group pre-created; the non-participants leave).
struct SetupSample {
  int size = 0, rep = 0;
  uint16_t mlid = 0;
  double create_ms = 0;           // the creator's SA request (implicit create)
  double join_med_ms = 0, join_max_ms = 0;  // per-request SA latency of the other joins
  double joins_wall_ms = 0;       // from the create to the last join answer
  TreeWait ready;                 // multicast testing, from the last join answer
  double leave_med_ms = 0, leaves_wall_ms = 0;
  TreeWait gone;                  // from the last leave answer until no switch holds the MLID
  double pool_leaves_wall_ms = 0; // Pool: non-participants' leaves, to the last answer
  TreeWait pool_settled;          // Pool: MFTs exactly the participants' tree again
};

// Throw ibu::Error unless every size is a group the fabric can hold (2 ..
// its end ports), and unless the label can be a CSV cell. RunSetupBench
// checks both first; callers check them before any worker starts too, so a
// size the fabric cannot hold is not found after the sizes before it ran.
void CheckGroupSizes(const Fabric& f, const std::vector<int>& sizes);
void CheckLabel(const std::string& label);

// Runs cfg.sizes x cfg.reps samples; members are drawn at random (seeded)
// from the fabric's end ports. Requests for end port i go through worker
// i mod workers (a proxy join's leave must come from the same proxy).
// Every group it joined is left again, also when a step fails (then it
// throws ibu::Error saying which step). Progress lines go to `log`.
std::vector<SetupSample> RunSetupBench(const Fabric& f, SaWorkerPool& sa, MftReader& reader,
                                       const SetupConfig& cfg, std::ostream& log);

// A burst: `groups` groups of `members` random end ports each, every join
// issued at once through all workers; then all groups' trees are awaited.
struct BurstResult {
  int joins = 0, failed = 0;
  double joins_wall_ms = 0;
  double joins_per_s = 0;
  TreeWait all_ready;  // the slowest group, from the last join answer
  std::vector<uint16_t> mlids;
};
// When all of several trees were usable: each tree's time lies in its own
// bracket (lo, hi], so the last of them lies in (max lo, max hi]. The
// groups are polled one after the other, so a later group's bracket can be
// (0, time it was first read]: the slowest bracket end is not the slowest tree.
TreeWait AllReady(const std::vector<TreeWait>& waits);
// Throws ibu::Error unless groups of `members` fit the fabric's end ports.
void CheckBurstMembers(const Fabric& f, int members);
BurstResult RunJoinBurst(const Fabric& f, SaWorkerPool& sa, MftReader& reader, int groups,
                         int members, uint64_t seed, double timeout_ms, std::ostream& log);

// Median of the repetitions (0 for none).
double Median(std::vector<double> v);

void WriteSamplesCsv(std::ostream& os, const std::string& label,
                     const std::vector<SetupSample>& samples);

}  // namespace ibu::mcast
