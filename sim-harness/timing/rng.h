// The timing model's random generator: MT19937-64, the same sequence as
// std::mt19937_64 for the same seed (a unit test compares them), so every
// recorded result stays what it was. Its own copy because the library's is
// slow where the model draws per message: operator() is an out-of-line call
// and the refill picks the twist constant with a branch that mispredicts
// half the time (about one mispredict per generated message). Here the draw
// is inline and the refill branch-free, and the refill also tempers the
// whole block, in loops the compiler vectorises, so a draw is one load.
#pragma once

#include <cstddef>
#include <cstdint>

// On x86-64, a second copy of the function built for AVX2, taken at load
// time where the CPU has it (GCC's target_clones): the same operations,
// vectorised wider.
#if defined(__x86_64__)
#define IBU_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define IBU_AVX2_CLONE
#endif

namespace ibu::sim {

class Mt64 {
 public:
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type(0); }

  explicit Mt64(uint64_t seed = 5489u) {
    mt_[0] = seed;
    for (size_t i = 1; i < kN; ++i) mt_[i] = kF * (mt_[i - 1] ^ (mt_[i - 1] >> 62)) + i;
    next_ = kN;
  }

  result_type operator()() {
    if (next_ >= kN) [[unlikely]] Refill();
    return out_[next_++];
  }

 private:
  static constexpr size_t kN = 312, kM = 156;
  static constexpr uint64_t kF = 6364136223846793005ULL;
  static constexpr uint64_t kUpper = ~uint64_t(0) << 31, kLower = ~kUpper;
  static uint64_t Twist(uint64_t hi, uint64_t lo, uint64_t far) {
    const uint64_t y = (hi & kUpper) | (lo & kLower);
    return far ^ (y >> 1) ^ ((0 - (y & 1)) & 0xB5026F5AA96619E9ULL);
  }
  static uint64_t Temper(uint64_t z) {
    z ^= (z >> 29) & 0x5555555555555555ULL;
    z ^= (z << 17) & 0x71D67FFFEDA60000ULL;
    z ^= (z << 37) & 0xFFF7EEE000000000ULL;
    return z ^ (z >> 43);
  }
  // Every loop runs an even count: -O2 vectorises only loops with no
  // remainder to finish one by one. IBU_AVX2_CLONE adds a copy for AVX2
  // (four words a step, SSE2 two: half the instructions).
  [[gnu::noinline]] IBU_AVX2_CLONE void Refill() {
    size_t k = 0;
    for (; k < kN - kM; ++k) mt_[k] = Twist(mt_[k], mt_[k + 1], mt_[k + kM]);
    for (; k < kN - 2; ++k) mt_[k] = Twist(mt_[k], mt_[k + 1], mt_[k + kM - kN]);
    mt_[kN - 2] = Twist(mt_[kN - 2], mt_[kN - 1], mt_[kM - 2]);
    mt_[kN - 1] = Twist(mt_[kN - 1], mt_[0], mt_[kM - 1]);
    for (k = 0; k < kN; ++k) out_[k] = Temper(mt_[k]);
    next_ = 0;
  }

  uint64_t mt_[kN];   // the generator's state
  uint64_t out_[kN];  // the draws it makes: mt_ tempered
  size_t next_;
};

}  // namespace ibu::sim
