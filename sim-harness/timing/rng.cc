#include "sim-harness/timing/rng.h"

// With GCC on x86-64 glibc a second copy of Refill is built for AVX2 and
// taken at load time where the CPU has it (target_clones, an ifunc): the
// same operations four words a step instead of SSE2's two, half the
// instructions. Clang (the fuzz builds) and other targets build one copy.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && defined(__GLIBC__)
#define IBU_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define IBU_AVX2_CLONE
#endif

namespace ibu::sim {

// Every loop runs an even count: -O2 vectorises only loops with no
// remainder to finish one by one.
IBU_AVX2_CLONE void Mt64::Refill() {
  size_t k = 0;
  for (; k < kN - kM; ++k) mt_[k] = Twist(mt_[k], mt_[k + 1], mt_[k + kM]);
  for (; k < kN - 2; ++k) mt_[k] = Twist(mt_[k], mt_[k + 1], mt_[k + kM - kN]);
  mt_[kN - 2] = Twist(mt_[kN - 2], mt_[kN - 1], mt_[kM - 2]);
  mt_[kN - 1] = Twist(mt_[kN - 1], mt_[0], mt_[kM - 1]);
  for (k = 0; k < kN; ++k) out_[k] = Temper(mt_[k]);
  next_ = 0;
}

}  // namespace ibu::sim
