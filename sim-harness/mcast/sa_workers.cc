#include "sim-harness/mcast/sa_workers.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>

#include "plugin/core/error.h"
#include "sim-harness/mcast/interrupt.h"

namespace ibu::mcast {

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// The request line a worker reads: "J|L MGID PORTGUID STATE PKEY".
std::string RequestLine(const SaOp& op) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%c %s %" PRIx64 " %u %x\n", op.join ? 'J' : 'L',
                FormatGid(op.mgid).c_str(), op.port_guid, static_cast<unsigned>(op.state),
                op.pkey);
  return buf;
}

// Child side: one SA client bound to `host`, answering request lines with
// "ok MLID US" or "err US MESSAGE". Never returns.
[[noreturn]] void WorkerMain(const std::string& host, int timeout_ms, int in_fd, int out_fd) {
  setenv("SIM_HOST", host.c_str(), 1);
  FILE* in = fdopen(in_fd, "r");
  FILE* out = fdopen(out_fd, "w");
  try {
    SaClient sa("", 0, timeout_ms);
    std::fprintf(out, "ready %" PRIx64 "\n", sa.port_guid());
    std::fflush(out);
    char line[256];
    while (std::fgets(line, sizeof line, in)) {
      char verb = 0, mgid[64];
      uint64_t guid = 0;
      unsigned state = 1, pkey = 0xffff;
      if (std::sscanf(line, "%c %63s %" SCNx64 " %u %x", &verb, mgid, &guid, &state, &pkey) != 5) {
        std::fprintf(out, "err 0 malformed request line\n");
        std::fflush(out);
        continue;
      }
      MemberRequest req;
      req.mgid = ParseGid(mgid);
      req.state = static_cast<JoinState>(state);
      req.pkey = static_cast<uint16_t>(pkey);
      if (guid) req.port_gid = sa.GidOfPort(guid);
      const auto t0 = Clock::now();
      MemberReply r = verb == 'J' ? sa.Join(req) : sa.Leave(req);
      const double us = MsSince(t0) * 1000.0;
      if (r.ok) std::fprintf(out, "ok %u %.1f\n", r.mlid, us);
      else std::fprintf(out, "err %.1f %s\n", us, r.error.c_str());
      std::fflush(out);
    }
  } catch (const std::exception& e) {
    std::fprintf(out, "fail %s\n", e.what());
    std::fflush(out);
  }
  // exit, not _exit: libumad2sim hands its ibsim client slot back (and
  // removes its ./sys-PID tree) in an atexit handler. With _exit every
  // worker kept a slot of ibsim's 10 until ibsim stopped, so a second
  // mcsetup run in the same subnet could not attach. The parent flushed
  // its stdio before the fork, so nothing of its is written twice.
  std::exit(0);
}

// Reads what is available on fd into `pending`; returns complete lines.
// An empty result with eof set means the worker is gone.
std::vector<std::string> ReadLines(int fd, std::string& pending, bool* eof) {
  char buf[4096];
  const ssize_t n = read(fd, buf, sizeof buf);
  *eof = n <= 0 && !(n < 0 && errno == EINTR);
  if (n > 0) pending.append(buf, static_cast<size_t>(n));
  std::vector<std::string> lines;
  size_t nl;
  while ((nl = pending.find('\n')) != std::string::npos) {
    lines.push_back(pending.substr(0, nl));
    pending.erase(0, nl + 1);
  }
  return lines;
}

void WriteAll(int fd, const std::string& s) {
  size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw Error("SA worker pipe closed");
    done += static_cast<size_t>(n);
  }
}

}  // namespace

SaWorkerPool::SaWorkerPool(const std::vector<std::string>& hosts, int timeout_ms) {
  signal(SIGPIPE, SIG_IGN);
  for (const std::string& host : hosts) {
    int down[2], up[2];
    if (pipe(down) < 0 || pipe(up) < 0) {
      StopAll(/*wait_for_exit=*/false);
      throw Error(std::string("pipe: ") + std::strerror(errno));
    }
    const pid_t parent = getpid();
    std::fflush(nullptr);  // the worker exits with exit(): no buffered output twice
    const pid_t pid = fork();
    if (pid < 0) {
      StopAll(/*wait_for_exit=*/false);
      throw Error(std::string("fork: ") + std::strerror(errno));
    }
    if (pid == 0) {
      // Killed with the harness (SIGTERM, timeout, Ctrl-C), not left behind
      // holding an ibsim client slot: StopAll runs only when it unwinds.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(0);  // it died before the prctl
      IgnoreInterruptsInWorker();
      for (const Worker& w : workers_) {
        close(w.to);
        close(w.from);
      }
      close(down[1]);
      close(up[0]);
      WorkerMain(host, timeout_ms, down[0], up[1]);
    }
    close(down[0]);
    close(up[1]);
    Worker w;
    w.pid = pid;
    w.to = down[1];
    w.from = up[0];
    w.host = host;
    workers_.push_back(w);
  }
  // Every worker says "ready GUID" once its SA client is up, or why not.
  for (Worker& w : workers_) {
    std::vector<std::string> lines;
    bool eof = false;
    while (lines.empty() && !eof && !PendingInterrupt()) lines = ReadLines(w.from, w.pending, &eof);
    if (const int sig = PendingInterrupt()) {  // no group joined yet: nothing to leave
      StopAll(/*wait_for_exit=*/false);
      throw Interrupted(sig);
    }
    unsigned long long guid = 0;
    if (lines.empty() || std::sscanf(lines[0].c_str(), "ready %llx", &guid) != 1) {
      // The worker's line is "fail REASON" (its protocol word is not part of the reason).
      // A worker that died without a word most often ran as a host the live
      // subnet lacks (another fabric's NET; under ibsim SIM_HOST names it).
      const std::string why = lines.empty() ? "exited before its SA client was up (is it a host of the "
                                              "live subnet? NET must be that subnet)"
                              : lines[0].rfind("fail ", 0) == 0 ? lines[0].substr(5)
                                                                : lines[0];
      StopAll(/*wait_for_exit=*/false);
      throw Error("SA worker on host '" + w.host + "': " + why);
    }
    w.port_guid = guid;
  }
}

SaWorkerPool::~SaWorkerPool() { StopAll(/*wait_for_exit=*/true); }

void SaWorkerPool::StopAll(bool wait_for_exit) {
  for (Worker& w : workers_) {
    if (w.to >= 0) close(w.to);  // EOF on stdin: the worker exits
    w.to = -1;
  }
  for (Worker& w : workers_) {
    if (w.pid > 0) {
      int status;
      // A worker stuck in an SA call gives up after its MAD timeout; a
      // second, final wait kills it.
      for (int i = 0; wait_for_exit && i < 50 && waitpid(w.pid, &status, WNOHANG) == 0; ++i)
        usleep(100000);
      if (waitpid(w.pid, &status, WNOHANG) == 0) {
        kill(w.pid, SIGKILL);
        waitpid(w.pid, &status, 0);
      }
    }
    if (w.from >= 0) close(w.from);
    w.pid = -1;
    w.from = -1;
  }
  workers_.clear();
}

std::vector<SaOpResult> SaWorkerPool::Run(const std::vector<SaOp>& ops, double* wall_ms) {
  std::vector<SaOpResult> results(ops.size());
  std::vector<std::deque<size_t>> queue(workers_.size());
  for (size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].worker < 0 || ops[i].worker >= size())
      throw Error("SA op for worker " + std::to_string(ops[i].worker) + " of " +
                  std::to_string(size()));
    queue[ops[i].worker].push_back(i);
  }
  std::vector<long> in_flight(workers_.size(), -1);
  const auto t0 = Clock::now();
  auto send_next = [&](size_t w) {
    if (queue[w].empty()) return;
    in_flight[w] = static_cast<long>(queue[w].front());
    queue[w].pop_front();
    WriteAll(workers_[w].to, RequestLine(ops[in_flight[w]]));
  };
  for (size_t w = 0; w < workers_.size(); ++w) send_next(w);
  size_t answered = 0;
  while (answered < ops.size()) {
    std::vector<pollfd> fds;
    std::vector<size_t> who;
    for (size_t w = 0; w < workers_.size(); ++w)
      if (in_flight[w] >= 0) {
        fds.push_back({workers_[w].from, POLLIN, 0});
        who.push_back(w);
      }
    if (fds.empty()) break;
    if (poll(fds.data(), fds.size(), -1) < 0 && errno != EINTR)
      throw Error(std::string("poll: ") + std::strerror(errno));
    for (size_t k = 0; k < fds.size(); ++k) {
      if (!(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const size_t w = who[k];
      bool eof = false;
      for (const std::string& line : ReadLines(workers_[w].from, workers_[w].pending, &eof)) {
        SaOpResult& r = results[in_flight[w]];
        r.done_ms = MsSince(t0);
        unsigned mlid = 0;
        double us = 0;
        int used = 0;
        if (std::sscanf(line.c_str(), "ok %u %lf", &mlid, &us) == 2) {
          r.ok = true;
          r.mlid = static_cast<uint16_t>(mlid);
          r.sa_us = us;
        } else if (std::sscanf(line.c_str(), "err %lf %n", &us, &used) == 1) {
          r.sa_us = us;
          r.error = line.substr(used);
        } else {
          r.error = "worker on host '" + workers_[w].host + "': " + line;
        }
        ++answered;
        in_flight[w] = -1;
        send_next(w);
      }
      if (eof && in_flight[w] >= 0) {  // the worker died: fail what it had
        for (size_t i : queue[w]) results[i].error = "SA worker on host '" + workers_[w].host + "' exited";
        results[in_flight[w]].error = "SA worker on host '" + workers_[w].host + "' exited";
        answered += queue[w].size() + 1;
        queue[w].clear();
        in_flight[w] = -1;
      }
    }
  }
  *wall_ms = MsSince(t0);
  return results;
}

}  // namespace ibu::mcast
