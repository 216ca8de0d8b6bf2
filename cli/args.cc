#include "cli/args.h"

#include "plugin/core/int_math.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "plugin/core/error.h"
#include "plugin/core/output_files.h"

namespace ibu::cli {

namespace {

// A separated value that is one of the command's options, or a long
// option: the value was forgotten. A single dash (stdout) and negative
// numbers stay values.
bool LooksLikeOption(const std::string& word, const std::set<std::string>& with_value,
                     const std::set<std::string>& flags, const std::set<std::string>& lists) {
  return (word.size() > 2 && word.rfind("--", 0) == 0) || with_value.count(word) || flags.count(word) ||
         lists.count(word);
}

}  // namespace

Args::Args(int argc, char** argv, const std::set<std::string>& with_value, const std::set<std::string>& flags,
           const std::set<std::string>& lists, bool help_stops) {
  for (int i = 0; i < argc; ++i) {
    std::string a = argv[i];
    if (a.size() > 1 && a[0] == '-' && !(a.size() > 1 && std::isdigit(static_cast<unsigned char>(a[1])))) {
      std::string value;
      size_t eq = a.find('=');
      bool inline_value = a.rfind("--", 0) == 0 && eq != std::string::npos;
      std::string name = inline_value ? a.substr(0, eq) : a;
      if (flags.count(name)) {
        if (inline_value) throw UsageError{"option " + name + " takes no value"};
        options_.emplace(name, "");
        if (help_stops && (name == "-h" || name == "--help")) return;
        continue;
      }
      if (!with_value.count(name) && !lists.count(name))
        throw UsageError{"unknown option " + name + " (see --help)"};
      if (inline_value) {
        value = a.substr(eq + 1);
      } else {
        if (i + 1 >= argc) throw UsageError{"option " + name + " needs a value"};
        value = argv[++i];
        // `-o --guid2lid` wrote the net file to a file named "--guid2lid".
        if (LooksLikeOption(value, with_value, flags, lists))
          throw UsageError{"option " + name + " needs a value (got the option " + value + ")"};
      }
      // An empty file name meant stdout (`--guid2lid ''` mixed the guid2lid
      // file into the net file); no option takes an empty value.
      if (value.empty()) throw UsageError{"option " + name + ": expected a value, got an empty one"};
      if (lists.count(name)) {
        lists_[name].push_back(value);
        continue;
      }
      const auto [first, fresh] = options_.emplace(name, value);
      if (!fresh)
        throw UsageError{name + " given twice ('" + first->second + "', then '" + value + "'): give it once"};
      continue;
    }
    positional_.push_back(a);
  }
}

bool Args::has(const std::string& name) const { return options_.count(name) > 0; }

std::vector<std::string> Args::list(const std::string& name) const {
  auto it = lists_.find(name);
  return it == lists_.end() ? std::vector<std::string>() : it->second;
}

std::string Args::get(const std::string& name, const std::string& fallback) const {
  auto it = options_.find(name);
  return it == options_.end() ? fallback : it->second;
}

long ParseInt(const std::string& text, const std::string& what, long min, long max) {
  long long v = 0;
  if (!ParseInteger(text, &v))  // decimal or 0x hex, as `ibunion sim` reads them
    throw UsageError{what + ": expected an integer, got '" + text + "'"};
  if (v < min || v > max)
    throw UsageError{what + ": expected " + std::to_string(min) + ".." + std::to_string(max) +
                     ", got " + text};
  return v;
}

long Args::integer(const std::string& name, long fallback, long min, long max) const {
  if (!has(name)) return fallback;
  return ParseInt(get(name), "option " + name, min, max);
}

long Args::positional_int(size_t i, const std::string& what, long min, long max) const {
  if (i >= positional_.size()) throw UsageError{"missing " + what};
  return ParseInt(positional_[i], what, min, max);
}

void WriteFileAtomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  WriteFilesAtomically({{path, write}});
}

void WriteFileAtomically(const std::string& path, const std::string& content) {
  WriteFileAtomically(path, [&](std::ostream& os) { os << content; });
}

}  // namespace ibu::cli
