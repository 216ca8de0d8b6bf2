// Ctrl-C, SIGTERM or SIGHUP during a run on a live subnet. The SM keeps
// every group a killed harness had joined (a real SM outlives the run, and
// a later run's "create" then joins the stale group), so a signal is only
// noted: the run stops at its next step, leaves what it joined, and then
// exits with 128 + the signal's number.
#pragma once

#include "plugin/core/error.h"

namespace ibu::mcast {

// Thrown at the first step after a signal was noted.
class Interrupted : public Error {
 public:
  explicit Interrupted(int sig);
  int signal() const { return signal_; }

 private:
  int signal_;
};

// Installs the handlers while it lives (a second signal kills at once, the
// default again); signals ignored on entry (nohup) stay ignored.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// The signal noted since the guard was installed, or 0.
int PendingInterrupt();
void ThrowIfInterrupted();

// SA worker processes: the harness's process group gets Ctrl-C too, and a
// worker that died of it could not send the leaves; workers end when the
// harness closes their pipe (or dies: PR_SET_PDEATHSIG).
void IgnoreInterruptsInWorker();

// After the clean-up: exits with 128 + sig, the status a shell reports
// for a death by that signal.
[[noreturn]] void ExitForSignal(int sig);

}  // namespace ibu::mcast
