// SA clients in parallel: one child process per simulated host, each with
// its own libumad2sim connection (ibsim binds a process to the host named
// by SIM_HOST when it first opens a umad device, and serves at most 10
// client processes, OpenSM included), fed requests over pipes.
//
// A worker acts for many member ports through proxy joins, so a group of
// any size can be joined by a handful of concurrent SA clients; the SA sees
// `workers` requests in flight at once, as from that many hosts.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim-harness/mcast/sa_client.h"

namespace ibu::mcast {

struct SaOp {
  bool join = true;            // false: leave
  Gid mgid{};
  uint64_t port_guid = 0;      // member port (0: the worker's own)
  JoinState state = JoinState::kFull;
  uint16_t pkey = 0xffff;
  int worker = 0;              // which worker sends it (leave from the joiner)
};

struct SaOpResult {
  bool ok = false;
  uint16_t mlid = 0;
  double sa_us = 0;       // the worker's own request-to-answer time
  double done_ms = 0;     // answer time since the batch started
  std::string error;      // decoded SA status or transport failure
};

class SaWorkerPool {
 public:
  // Forks one worker per host name; must run before this process opens a
  // umad device itself (a forked connection would be shared). Throws
  // ibu::Error naming the host whose worker could not reach the SA.
  SaWorkerPool(const std::vector<std::string>& hosts, int timeout_ms);
  ~SaWorkerPool();  // stops every worker and waits for it (by PID)
  SaWorkerPool(const SaWorkerPool&) = delete;
  SaWorkerPool& operator=(const SaWorkerPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }
  uint64_t port_guid(int worker) const { return workers_.at(worker).port_guid; }

  // Runs the ops, each worker its own in order, all workers at once.
  // Results in op order; *wall_ms: from the start to the last answer.
  std::vector<SaOpResult> Run(const std::vector<SaOp>& ops, double* wall_ms);

 private:
  struct Worker {
    pid_t pid = -1;
    int to = -1, from = -1;  // pipe ends in the parent
    uint64_t port_guid = 0;
    std::string host;
    std::string pending;     // partial answer line
  };
  // Closes every worker's pipe and reaps it; with wait_for_exit, lets a
  // worker finish its SA call first (up to 5 s), otherwise kills it at once
  // (a worker that never came up has joined nothing).
  void StopAll(bool wait_for_exit);

  std::vector<Worker> workers_;
};

}  // namespace ibu::mcast
