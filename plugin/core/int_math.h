// Small integer helpers shared by the fat-tree code.
#pragma once

namespace ibu {

// base^exp for small non-negative exponents (digit weights of labels).
inline long IntPow(long base, int exp) {
  long r = 1;
  while (exp-- > 0) r *= base;
  return r;
}

// Smallest l with 2^l >= v.
inline int CeilLog2(long v) {
  int l = 0;
  while ((1L << l) < v) ++l;
  return l;
}

}  // namespace ibu
