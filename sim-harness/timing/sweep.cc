#include "sim-harness/timing/sweep.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <mutex>
#include <thread>

#include "sim-harness/timing/simulator.h"

namespace ibu::sim {

uint64_t PointSeed(uint64_t seed, int index) {
  return Mix64(seed ^ Mix64(uint64_t(index) + 0x51u));
}

std::vector<double> SweepLoads(double from, double to, double step) {
  std::vector<double> loads;
  if (step <= 0) return loads;
  const double eps = step / 1000.0;
  for (int i = 0;; ++i) {
    const double v = from + step * i;
    if (v > to + eps || i > 100000) break;
    loads.push_back(v);
  }
  return loads;
}

PointResult RunPoint(const Network& net, const Workload& wl, const Params& p, uint32_t msg_bytes,
                     double load, uint64_t seed, int index, const TickFn& tick) {
  PointResult r;
  try {
    Simulator sim(net, wl, p, load, PointSeed(seed, index));
    sim.SetMessageBytes(msg_bytes);
    if (tick) sim.SetTick([&tick, index](double done) { tick(index, done); });
    r = sim.Run();
  } catch (const SimFailure& e) {
    r = PointResult{};
    r.load = load;
    r.error = e.what();
    r.conservation_ok = false;
  }
  r.index = index;
  return r;
}

std::vector<PointResult> RunPoints(const Network& net, const Workload& wl, const Params& p,
                                   uint32_t msg_bytes, const std::vector<double>& loads,
                                   uint64_t seed, int jobs, const ProgressFn& progress,
                                   const TickFn& tick) {
  const int n = int(loads.size());
  std::vector<PointResult> results(n);
  std::atomic<int> next{0};
  std::mutex mu;
  int done = 0;
  std::exception_ptr first_error;
  auto worker = [&]() {
    for (;;) {
      const int i = next.fetch_add(1);
      if (i >= n) return;
      PointResult r;
      try {
        r = RunPoint(net, wl, p, msg_bytes, loads[i], seed, i, tick);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!first_error) first_error = std::current_exception();
        next.store(n);
        return;
      }
      std::lock_guard<std::mutex> lock(mu);
      results[i] = std::move(r);
      ++done;
      if (progress) progress(done, n, results[i]);
    }
  };
  jobs = std::max(1, std::min(jobs, n));
  if (jobs == 1) {
    worker();
  } else {
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j) threads.emplace_back(worker);
    for (std::thread& t : threads) t.join();
  }
  if (first_error) std::rethrow_exception(first_error);
  return results;
}

}  // namespace ibu::sim
