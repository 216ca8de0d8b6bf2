// Runs several points (offered loads) of one set-up, in parallel threads.
// Each point has its own Simulator and its own generator seeded from
// (seed, point index), and results are returned in point order, so the
// output does not depend on the number of threads.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "sim-harness/timing/network.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/stats.h"
#include "sim-harness/timing/traffic.h"

namespace ibu::sim {

// Seed of point `index` of a run seeded with `seed`.
uint64_t PointSeed(uint64_t seed, int index);

// Loads FROM, FROM+STEP, ... up to TO (inclusive, within STEP/1000).
std::vector<double> SweepLoads(double from, double to, double step);

// Called (under a lock) when a point finishes: points done so far, total.
using ProgressFn = std::function<void(int done, int total, const PointResult&)>;
// Called from a point's thread while it runs: its index and the fraction done.
using TickFn = std::function<void(int index, double done)>;

// Point `index` of a sweep at offered load `load`, seeded as RunPoints seeds
// it: a job running one point gives the same result as the whole sweep.
PointResult RunPoint(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                     double load, uint64_t seed, int index, const TickFn& tick = nullptr);

// A point that fails (SimFailure) carries the message in PointResult::error;
// other exceptions propagate after all threads stopped.
std::vector<PointResult> RunPoints(const Network& net, const Workload& wl, const Params& p,
                                   uint32_t msg_bytes, const std::vector<double>& loads,
                                   uint64_t seed, int jobs, const ProgressFn& progress = nullptr,
                                   const TickFn& tick = nullptr);

}  // namespace ibu::sim
