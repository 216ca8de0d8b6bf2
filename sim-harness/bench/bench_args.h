// Command-line words of the core benchmarks: integers checked as `ibunion`
// checks them (atoi took "x" for 0, and --repeat 0 indexed an empty vector).
#pragma once

#include <cstdio>
#include <cstdlib>
#include <cstring>
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

// -h or --help anywhere: the usage on stdout, exit 0 (it was refused as
// a missing argument, exit 2).
inline void HelpIfAsked(int argc, char** argv, const char* usage) {
  for (int i = 1; i < argc; ++i)
    if (!std::strcmp(argv[i], "-h") || !std::strcmp(argv[i], "--help")) {
      std::printf("usage: %s\n", usage);
      std::exit(0);
    }
}

// Exits 2 with the usage line and why.
[[noreturn]] inline void UsageExit(const char* prog, const char* usage, const std::string& why) {
  std::fprintf(stderr, "%s: %s\nusage: %s\n", prog, why.c_str(), usage);
  std::exit(2);
}

}  // namespace ibu::bench
