// Errors inside the core are exceptions of this one type; the front doors
// (OpenSM adapter, CLI) catch them, so nothing crosses the C boundary.
#pragma once

#include <stdexcept>
#include <string>

namespace ibu {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};

// "FILE:LINE: what" — the shape every input error takes.
inline Error InputError(const std::string& file, int line,
                        const std::string& what) {
  return Error(file + ":" + std::to_string(line) + ": " + what);
}

}  // namespace ibu
