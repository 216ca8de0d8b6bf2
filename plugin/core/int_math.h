// Small number helpers shared by the fat-tree code and the front doors.
#pragma once

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <string>
#include <string_view>

namespace ibu {

// An integer as command lines and config files write it: decimal, or
// hexadecimal after 0x (GUID-like values, MLIDs); never octal, so "010" is
// ten. False on anything else, leading blanks, trailing text or overflow.
// After 0x only hex digits: strtoll's base 16 took a second "0x" too
// ("0x0x10" was 16).
inline bool ParseInteger(const std::string& text, long long* value) {
  const bool hex = text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
  const char* digits = text.c_str() + (hex ? 2 : 0);
  if (*digits == '\0' || std::isspace(static_cast<unsigned char>(*digits)) ||
      (hex && text.find_first_not_of("0123456789abcdefABCDEF", 2) != std::string::npos))
    return false;
  errno = 0;
  char* end = nullptr;
  *value = std::strtoll(digits, &end, hex ? 16 : 10);
  return *end == '\0' && errno != ERANGE;
}

// A real number as command lines and config files write one: decimal, with
// an optional sign, point and exponent ("0.25", "25e-2", "-0"). False on
// strtod's other forms (hex floats "0x0.8p0", inf, nan), leading blanks,
// trailing text, overflow and underflow.
inline bool ParseDecimalReal(const std::string& text, double* value) {
  if (text.empty() || text.find_first_not_of("0123456789+-.eE") != std::string::npos) return false;
  errno = 0;
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return *end == '\0' && errno != ERANGE;
}

// Decimal digits and nothing else (no sign, blank or 0x), as the tools
// print counts and port numbers.
inline bool IsDecimalDigits(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
}

// A GUID as OpenSM and ibnetdiscover print them: 0x and 1..16 hex digits,
// nothing else (no sign, no decimal, no trailing text). `digits`: how many
// hex digits there were (16 for a GUID printed in full).
inline bool ParseHexGuid(std::string_view text, unsigned long long* guid, size_t* digits = nullptr) {
  if (text.size() < 3 || text.size() > 18 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return false;
  unsigned long long v = 0;
  for (size_t i = 2; i < text.size(); ++i) {
    const char c = text[i];
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return false;
    v = v << 4 | static_cast<unsigned long long>(d);
  }
  *guid = v;
  if (digits) *digits = text.size() - 2;
  return true;
}

// base^exp (base >= 0) when it is at most `limit`, else -1: no overflow
// whatever exponent a fabric or a command line gives.
inline long IntPowAtMost(long base, int exp, long limit) {
  long r = 1;
  for (; exp > 0; --exp) {
    if (base != 0 && r > limit / base) return -1;
    r *= base;
  }
  return r;
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
