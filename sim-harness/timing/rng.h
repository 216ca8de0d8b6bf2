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

namespace ibu::sim {

class Mt64 {
 public:
  using result_type = uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type(0); }

  explicit Mt64(uint64_t seed = 5489u) : isa_(Best()) {
    mt_[0] = seed;
    for (size_t i = 1; i < kN; ++i) mt_[i] = kF * (mt_[i - 1] ^ (mt_[i - 1] >> 62)) + i;
    next_ = kN;
  }

  result_type operator()() {
    if (next_ >= kN) [[unlikely]] Refill();
    return out_[next_++];
  }

  // The refill is built twice on x86-64 (GCC and clang): for the baseline
  // ISA and for AVX2, which does the same operations four words a step
  // instead of two, half the instructions. A generator takes the best ISA
  // the CPU runs; tests pin each one the CPU runs, so the copy a CPU
  // without AVX2 takes is checked on every machine (unless the whole build
  // targets AVX2, -mavx2 or -march=native, which makes both copies AVX2).
  enum class Isa : uint8_t { kBaseline, kAvx2 };
  static bool CpuRuns(Isa isa);
  static Isa Best() { return CpuRuns(Isa::kAvx2) ? Isa::kAvx2 : Isa::kBaseline; }
  // Refills with `isa`'s copy from now on; false (and no change) where the
  // build has no such copy or the CPU cannot run it.
  bool Pin(Isa isa) {
    if (!CpuRuns(isa)) return false;
    isa_ = isa;
    return true;
  }
  // Refills made by `isa`'s copy, counted inside each copy: tests check a
  // pinned generator ran the copy it was pinned to.
  uint32_t RefillsBy(Isa isa) const { return refills_[int(isa)]; }

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
  // Once per kN draws, out of line (rng.cc).
  void Refill();
  void RefillBaseline();
  void RefillAvx2();  // built only where CpuRuns(Isa::kAvx2) can be true
  void Fill();

  uint64_t mt_[kN];   // the generator's state
  uint64_t out_[kN];  // the draws it makes: mt_ tempered
  size_t next_;
  Isa isa_;
  uint32_t refills_[2] = {};  // by Isa
};

}  // namespace ibu::sim
