// A small argument reader shared by the subcommands: positional words and
// "--name value" / "--flag" options, with errors that name the option. An
// option with a value is given at most once (as in `ibunion sim`): a second
// one is refused, not dropped; a flag given twice is the same flag.
#pragma once

#include <functional>
#include <iosfwd>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ibu::cli {

// Thrown for bad usage; main prints it and exits 2.
struct UsageError {
  std::string message;
};

class Args {
 public:
  // `with_value`: options that take a value; `flags`: options that do not.
  Args(int argc, char** argv, const std::set<std::string>& with_value,
       const std::set<std::string>& flags);

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
  long integer(const std::string& name, long fallback, long min, long max) const;

  // Positional word i as an integer in [min, max], named for messages.
  long positional_int(size_t i, const std::string& what, long min, long max) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> options_;
};

long ParseInt(const std::string& text, const std::string& what, long min, long max);

// Writes to `path` through a temp file and rename, so a failure never
// leaves a half-written file; "-" or "" means stdout. `write` streams the
// content (large tables never sit in memory twice).
void WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace ibu::cli
