// The machine's effective clock, for benchmarks that print rates: a chain
// of dependent adds runs one add per core cycle while the thread has the
// core, so adds per wall nanosecond are the cycles per nanosecond this
// process gets. sim_bench.sh divides it by packet-hops per second: cycles
// per hop, which corrects a rate for the clock speed and the share of the
// core a run got, not for memory latency (nanoseconds, whatever the
// clock). The machines of this project's sessions ran at 2.0-2.2 G adds/s
// in session 45 (docs/benchmarks.md); a rate measured on another day or
// machine says little without it.
//
//   clock_probe [MS]   prints G adds/s, the best of 5 timed runs of about MS ms [200]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

using Clock = std::chrono::steady_clock;

// Eight adds per iteration, each depending on the one before: the chain's
// latency (one cycle per add), not the loop's bookkeeping, sets the pace.
// One asm block keeps them eight register adds at any optimisation level
// (at -O0 separate statements went through memory, about 5 times slower).
uint64_t AddChain(uint64_t iterations) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < iterations; ++i) {
#if defined(__x86_64__)
    asm volatile(
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\t"
        "add %1, %0\n\tadd %1, %0\n\tadd %1, %0\n\tadd %1, %0"
        : "+r"(x)
        : "r"(i));
#elif defined(__aarch64__)
    asm volatile(
        "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\t"
        "add %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1\n\tadd %0, %0, %1"
        : "+r"(x)
        : "r"(i));
#else  // elsewhere: eight adds the compiler must keep (exact at -O1 and above)
#pragma GCC unroll 8
    for (int k = 0; k < 8; ++k) {
      x += i;
      asm volatile("" : "+r"(x));
    }
#endif
  }
  return x;
}
constexpr int kAddsPerIteration = 8;

double SecondsFor(uint64_t iterations) {
  const auto start = Clock::now();
  volatile uint64_t sink = AddChain(iterations);
  (void)sink;
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// The iteration count of a run of about `ms` milliseconds: doubled until a
// run lasts ms / 2, then scaled (no clock assumed).
uint64_t IterationsFor(double ms) {
  uint64_t iterations = 1 << 12;
  double s = SecondsFor(iterations);
  while (s * 1e3 < ms / 2) {
    iterations *= 2;
    s = SecondsFor(iterations);
  }
  return uint64_t(double(iterations) * (ms / 1e3) / s) + 1;
}

}  // namespace

int main(int argc, char** argv) {
  double ms = 200;
  if (argc > 2) {
    std::fprintf(stderr, "clock_probe: takes at most one argument, MS\n");
    return 2;
  }
  if (argc == 2) {
    char* end = nullptr;
    ms = std::strtod(argv[1], &end);
    if (*end != '\0' || !(ms >= 1 && ms <= 60000)) {
      std::fprintf(stderr, "clock_probe: MS: expected milliseconds, 1 to 60000, got '%s'\n", argv[1]);
      return 2;
    }
  }
  const uint64_t iterations = IterationsFor(ms);
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    const double r = double(iterations) * kAddsPerIteration / SecondsFor(iterations) / 1e9;
    if (r > best) best = r;
  }
  std::printf("%.3f\n", best);
  return 0;
}
