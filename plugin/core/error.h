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

// A multicast group the engine cannot build a tree for on this fabric (no
// up*/down* tree left in a degraded fat-tree, no loop-free tree on
// xymesh's multicast VL): OpenSM's adapter and offline route refuse that
// group and build the others, where bad input (a member not cabled, a
// missing anchor) stays an error of the run.
class McastRefused : public Error {
 public:
  using Error::Error;
};

// "\xNN": how a message shows a byte that would not print.
inline std::string EscapedByte(unsigned char b) {
  static const char kHex[] = "0123456789abcdef";
  return std::string("\\x") + kHex[b >> 4] + kHex[b & 15];
}

// A piece of an input line quoted in a message: at most 60 bytes, control
// bytes but tab as '?' (a binary file or a megabyte line made a message of the
// same size), bytes beyond ASCII as \xNN (an editor's byte-order mark
// before a valid word was invisible on a terminal: the quote looked right).
inline std::string Excerpt(const std::string& text) {
  std::string out;
  for (const char c : text.substr(0, 60)) {
    const auto b = static_cast<unsigned char>(c);
    if ((b < 0x20 && c != '\t') || b == 0x7f)
      out += '?';
    else if (b < 0x80)
      out += c;
    else
      out += EscapedByte(b);
  }
  return text.size() > 60 ? out + "..." : out;
}

// "FILE:LINE: what" — the shape every input error takes.
inline Error InputError(const std::string& file, int line,
                        const std::string& what) {
  return Error(file + ":" + std::to_string(line) + ": " + what);
}

// One entry per key in an input file (a table per switch, a row per LID, a
// path-map line per pair): a repeat (two files concatenated, a damaged one)
// would silently replace what came first, so it is refused naming both
// lines. `seen` is the line of the first, 0 if none; `what` describes the
// repeat, built only when there is one.
template <typename Describe>
void RefuseRepeat(int& seen, Describe what, const std::string& file, int line) {
  if (seen != 0)
    throw InputError(file, line, what() + " appears again (first at line " + std::to_string(seen) + ")");
  seen = line;
}

}  // namespace ibu
