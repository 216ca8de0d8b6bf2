// The machine's effective clock, for benchmarks that print rates: a chain
// of dependent adds runs one add per core cycle while the thread has the
// core, so adds per wall nanosecond are the cycles this process got per
// nanosecond (clock speed, turbo, and time lost to other guests included).
// sim_bench.sh divides it by packet-hops per second: cycles per hop, a
// figure that compares across machines and days where M/s does not (the
// same kind of machine ran this chain at 1.2 to 3.5 G/s in different
// sessions, docs/benchmarks.md).
//
//   clock_probe [MS]   prints G adds/s, the best of 5 runs of MS ms [200]
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Eight adds per iteration, each depending on the one before: the chain's
// latency (one cycle per add), not the loop's bookkeeping, sets the pace.
// The empty asm makes every add a real instruction the compiler can
// neither fold nor vectorise.
uint64_t AddChain(uint64_t iterations) {
  uint64_t x = 0;
  for (uint64_t i = 0; i < iterations; ++i) {
#define IBU_ADD \
  x += i;       \
  asm volatile("" : "+r"(x))
    IBU_ADD;
    IBU_ADD;
    IBU_ADD;
    IBU_ADD;
    IBU_ADD;
    IBU_ADD;
    IBU_ADD;
    IBU_ADD;
#undef IBU_ADD
  }
  return x;
}
constexpr int kAddsPerIteration = 8;

// G adds/s of one run of about `ms` milliseconds.
double OneRun(double ms) {
  using Clock = std::chrono::steady_clock;
  uint64_t iterations = 1 << 16;
  for (;;) {  // grow the run until it lasts `ms`: no assumed clock
    const auto start = Clock::now();
    volatile uint64_t sink = AddChain(iterations);
    (void)sink;
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    if (s * 1e3 >= ms) return double(iterations) * kAddsPerIteration / s / 1e9;
    iterations *= 2;
  }
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
  double best = 0;
  for (int i = 0; i < 5; ++i) {
    const double r = OneRun(ms);
    if (r > best) best = r;
  }
  std::printf("%.3f\n", best);
  return 0;
}
