#include "sim-harness/mcast/interrupt.h"

#include <signal.h>

#include <cstdlib>
#include <string>

namespace ibu::mcast {

namespace {

constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
volatile sig_atomic_t g_pending = 0;

void Note(int sig) { g_pending = sig; }

std::string SignalName(int sig) {
  switch (sig) {
    case SIGINT: return "SIGINT";
    case SIGTERM: return "SIGTERM";
    case SIGHUP: return "SIGHUP";
    default: return "signal " + std::to_string(sig);
  }
}

}  // namespace

Interrupted::Interrupted(int sig) : Error("interrupted by " + SignalName(sig)), signal_(sig) {}

InterruptGuard::InterruptGuard() {
  g_pending = 0;
  for (int sig : kSignals) {
    struct sigaction old {};
    sigaction(sig, nullptr, &old);
    if (old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = Note;
    sa.sa_flags = SA_RESETHAND;  // no SA_RESTART: a blocked read/poll returns
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, nullptr);
  }
}

InterruptGuard::~InterruptGuard() {
  for (int sig : kSignals) {
    struct sigaction cur {};
    sigaction(sig, nullptr, &cur);
    if (cur.sa_handler == Note) signal(sig, SIG_DFL);
  }
}

int PendingInterrupt() { return g_pending; }

void ThrowIfInterrupted() {
  if (g_pending) throw Interrupted(g_pending);
}

void IgnoreInterruptsInWorker() {
  for (int sig : kSignals) signal(sig, SIG_IGN);
}

void ExitForSignal(int sig) {
  // exit, not raise: under ibsim, libumad2sim gives its client slot back
  // from an exit handler, which a death by signal skips (ibsim serves 10).
  std::exit(128 + sig);
}

}  // namespace ibu::mcast
