#include "sim-harness/timing/rng.h"

// Two copies of the same loops (rng.h, Mt64::Isa). The AVX2 one is a
// target attribute, not target_clones: a clone picked by an ifunc cannot
// be called by name, so no test could run the other one.
#if defined(__x86_64__) && defined(__GNUC__)
#define IBU_RNG_AVX2 1
#else
#define IBU_RNG_AVX2 0
#endif

namespace ibu::sim {

// Every loop runs an even count: -O2 vectorises only loops with no
// remainder to finish one by one.
[[gnu::always_inline]] inline void Mt64::Fill() {
  size_t k = 0;
  for (; k < kN - kM; ++k) mt_[k] = Twist(mt_[k], mt_[k + 1], mt_[k + kM]);
  for (; k < kN - 2; ++k) mt_[k] = Twist(mt_[k], mt_[k + 1], mt_[k + kM - kN]);
  mt_[kN - 2] = Twist(mt_[kN - 2], mt_[kN - 1], mt_[kM - 2]);
  mt_[kN - 1] = Twist(mt_[kN - 1], mt_[0], mt_[kM - 1]);
  for (k = 0; k < kN; ++k) out_[k] = Temper(mt_[k]);
  next_ = 0;
}

void Mt64::RefillBaseline() {
  ++refills_[int(Isa::kBaseline)];
  Fill();
}

#if IBU_RNG_AVX2
__attribute__((target("avx2"))) void Mt64::RefillAvx2() {
  ++refills_[int(Isa::kAvx2)];
  Fill();
}
#endif

bool Mt64::CpuRuns(Isa isa) {
  if (isa == Isa::kBaseline) return true;
#if IBU_RNG_AVX2
  __builtin_cpu_init();  // Mt64s may be built before libgcc's own call
  return __builtin_cpu_supports("avx2");
#else
  return false;
#endif
}

void Mt64::Refill() {
#if IBU_RNG_AVX2
  if (isa_ == Isa::kAvx2) {
    RefillAvx2();
    return;
  }
#endif
  RefillBaseline();
}

}  // namespace ibu::sim
