// A small argument reader shared by the subcommands (`ibunion sim`
// included): positional words and "--name value" / "--flag" options, with
// errors that name the option. An option with a value is given at most
// once, but for those read as a list: a second one is refused, not
// dropped; a flag given twice is the same flag.
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
  // `with_value`: options that take a value; `flags`: options that do not;
  // `lists`: options that take a value and may be given again, each value
  // kept in order (list()). `help_stops`: a -h or --help among `flags`
  // ends the reading where it stands (has() tells), the words after it
  // unchecked.
  Args(int argc, char** argv, const std::set<std::string>& with_value, const std::set<std::string>& flags,
       const std::set<std::string>& lists = {}, bool help_stops = false);

  const std::vector<std::string>& positional() const { return positional_; }
  bool has(const std::string& name) const;
  std::string get(const std::string& name, const std::string& fallback = "") const;
  // The options with a value other than the lists, by name, as given.
  const std::map<std::string, std::string>& options() const { return options_; }
  // A list option's values in the order given; none when not given.
  std::vector<std::string> list(const std::string& name) const;
  long integer(const std::string& name, long fallback, long min, long max) const;

  // Positional word i as an integer in [min, max], named for messages.
  long positional_int(size_t i, const std::string& what, long min, long max) const;

 private:
  std::vector<std::string> positional_;
  std::map<std::string, std::string> options_;
  std::map<std::string, std::vector<std::string>> lists_;
};

long ParseInt(const std::string& text, const std::string& what, long min, long max);

// Writes to `path` through a temp file and rename, so a failure never
// leaves a half-written file; "-" or "" means stdout. `write` streams the
// content (large tables never sit in memory twice).
void WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write);
void WriteFileAtomically(const std::string& path, const std::string& content);

}  // namespace ibu::cli
