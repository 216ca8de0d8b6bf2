// Input files opened one way: a path that cannot be read, or that is a
// directory, is refused naming the path, what it should have been and the
// system's reason. A directory opens as an empty stream, so it was read as
// an empty file: `route --groups DIR` built no group without a word.
#pragma once

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "plugin/core/error.h"

namespace ibu {

// `what`: "topology file", "LFT dump", ... ("" for none).
inline std::ifstream OpenInputFile(const std::string& path, const std::string& what) {
  std::ifstream in(path);
  int err = 0;
  struct stat st;
  if (!in)
    err = errno;
  else if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    err = EISDIR;
  if (err != 0)
    throw Error(path + ": cannot open" + (what.empty() ? "" : " " + what) + " (" + std::strerror(err) + ")");
  return in;
}

}  // namespace ibu
