// Splitting a list option or a CSV line into its fields.
#pragma once

#include <string>
#include <vector>

namespace ibu {

// `text` cut at every `sep`, empty fields kept: "a,b," is three fields and
// "" one. getline on a separator drops an empty last field, which let
// "4,16," and "0.1:0.3:0.1:" through as complete lists.
inline std::vector<std::string> SplitFields(const std::string& text, char sep) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (size_t at; (at = text.find(sep, start)) != std::string::npos; start = at + 1)
    fields.push_back(text.substr(start, at - start));
  fields.push_back(text.substr(start));
  return fields;
}

}  // namespace ibu
