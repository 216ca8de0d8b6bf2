// Command-line words of the core benchmarks: integers checked as `ibunion`
// checks them (atoi took "x" for 0, and --repeat 0 indexed an empty vector).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string>

#include "plugin/core/int_math.h"

namespace ibu::bench {

// Exits 2 with "PROG: WHAT: expected MIN..MAX, got 'TEXT'" unless TEXT is
// an integer in [min, max].
inline int IntArg(const char* prog, const char* what, const char* text, long min, long max) {
  long long v = 0;
  if (!ParseInteger(text, &v) || v < min || v > max) {
    std::fprintf(stderr, "%s: %s: expected %ld..%ld, got '%s'\n", prog, what, min, max, text);
    std::exit(2);
  }
  return static_cast<int>(v);
}

// Exits 2 with the usage line and why.
[[noreturn]] inline void UsageExit(const char* prog, const char* usage, const std::string& why) {
  std::fprintf(stderr, "%s: %s\nusage: %s\n", prog, why.c_str(), usage);
  std::exit(2);
}

}  // namespace ibu::bench
