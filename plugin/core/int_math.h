// Small integer helpers shared by the fat-tree code and the front doors.
#pragma once

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>

namespace ibu {

// An integer as command lines and config files write it: decimal, or
// hexadecimal after 0x (GUID-like values, MLIDs); never octal, so "010" is
// ten. False on anything else, leading blanks, trailing text or overflow.
inline bool ParseInteger(const std::string& text, long long* value) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* digits = text.c_str() + (hex ? 2 : 0);
  if (*digits == '\0' || std::isspace(static_cast<unsigned char>(*digits)) ||
      (hex && (*digits == '-' || *digits == '+')))
    return false;
  errno = 0;
  char* end = nullptr;
  *value = std::strtoll(digits, &end, hex ? 16 : 10);
  return *end == '\0' && errno != ERANGE;
}

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
