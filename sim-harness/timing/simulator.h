// The packet-level switch and host model (one sweep point). See README.md
// beside this file for the timing rules; in short, with F = fly_ns,
// R = route_ns, b = byte_ns and L the packet's bytes:
//
//  * a link sends one packet at a time, L*b ns each; its head reaches the
//    far input buffer F ns after the start (virtual cut-through: the packet
//    moves on before its tail is in);
//  * a switch looks the head up R ns after it arrives (LFT by DLID, MFT by
//    MLID), then moves the packet through the crossbar into the output
//    buffer of (out port, VL) as soon as that buffer has room, arbitrating
//    round-robin over (input port, VL) requests; the output port sends
//    round-robin over its VLs whose head packet has a credit;
//  * a credit for an input buffer slot is returned when the packet's tail
//    has left it (L*b after the crossbar transfer starts) and reaches the
//    sender F ns later; hosts sink at link rate (no credits towards hosts);
//  * multicast copies leave per output as each output buffer frees (IB
//    behaviour); the input buffer slot is held until the last copy left.
//    A branch with no port left consumes the packet at its lookup: the
//    slot is free when its tail is in, or at the lookup if that is later.
//
// Zero-load latency of a one-packet message over H switches:
//   (H + 1) * F + H * R + L * b.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "sim-harness/timing/network.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/stats.h"
#include "sim-harness/timing/traffic.h"

namespace ibu::sim {

// A failed run: a packet with no route, a routing loop, a duplicate or
// stray delivery, an internal invariant. The message names switch and LID.
class SimFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Why `kernel=lean` cannot run this configuration ("supports ...; got
// multicast traffic (hardware)"), "" when it can: `ibunion sim` checks it
// before any point runs, so a refused configuration is a set-up error.
std::string LeanKernelRefusal(const Network& net, const Workload& wl, const Params& p);

class Simulator {
 public:
  // `load`: offered load per source as a fraction of link bandwidth. With
  // params.batch > 0 every source queues `batch` messages at t=0 instead;
  // with load == 0 and no batch only AddMessage() traffic is simulated.
  // Both of those run until everything is delivered.
  Simulator(const Network& net, const Workload& wl, const Params& p, double load, uint64_t seed);
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  // Scripted message (tests): generated at `t_ns` by host `src` for host
  // `dst`, or for src's multicast tree when dst < 0 (hardware multicast
  // workloads). `sl` < 0: the SL policy of the params. `bytes` 0 = --msg.
  void AddMessage(int64_t t_ns, int src, int dst, uint32_t bytes, int sl = -1);

  // Called now and then (every 2^16 events) from Run() with an estimate of
  // the fraction done (0..1): simulated time against the measurement
  // window's end, or deliveries against those expected for batch runs.
  void SetTick(std::function<void(double done)> tick);

  // Message size for generated traffic (default 32 bytes).
  void SetMessageBytes(uint32_t bytes);

  // Runs the point. Deadlocks are reported in the result; a SimFailure is
  // thrown for the errors above.
  PointResult Run();

  // Deliveries so far to host `h` (packet copies), for tests.
  uint64_t DeliveredTo(int h) const;

  // The kernel, specialised in simulator.cc for common configurations.
  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace ibu::sim
