#include "plugin/core/groups.h"

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "plugin/core/error.h"

namespace ibu {

namespace {

// End ports by node description, the first of equal names (as
// Fabric::EndPortByName finds it), built once a file: a linear search per
// member cost members x end ports (8 groups of 8192 on FT(32,3)).
std::unordered_map<std::string, int> EndPortsByName(const Fabric& f) {
  std::unordered_map<std::string, int> index;
  index.reserve(f.end_ports.size());
  for (size_t i = 0; i < f.end_ports.size(); ++i) index.emplace(f.end_ports[i].name, static_cast<int>(i));
  return index;
}

// A member word: node description, port GUID or LID.
int ResolveMember(const Fabric& f, const std::unordered_map<std::string, int>& by_names,
                  const std::string& word) {
  const auto it = by_names.find(word);
  if (it != by_names.end()) return it->second;
  char* end = nullptr;
  unsigned long long v = std::strtoull(word.c_str(), &end, 0);
  if (end == word.c_str() || *end) return -1;
  if (word.size() > 8) return f.EndPortByGuid(v);  // a GUID
  if (v == 0 || v > kMaxUnicastLid) return -1;
  LidOwner o = f.owner(static_cast<Lid>(v));
  return o.kind == Peer::Kind::kEndPort ? o.index : -1;
}

}  // namespace

std::vector<McastGroup> ParseGroups(std::istream& is, const std::string& file, const Fabric& f) {
  std::vector<McastGroup> groups;
  std::set<Lid> seen;
  const std::unordered_map<std::string, int> by_names = EndPortsByName(f);
  // in_group[m] == the line of the group m was last listed in: duplicates
  // found in O(1), not by a search of the members so far.
  std::vector<int> in_group(f.end_ports.size(), 0);
  std::string line;
  int no = 0;
  while (std::getline(is, line)) {
    ++no;
    line = line.substr(0, line.find('#'));
    std::istringstream words(line);
    std::string word;
    if (!(words >> word)) continue;
    char* end = nullptr;
    unsigned long mlid = std::strtoul(word.c_str(), &end, 0);
    if (*end || mlid < kMulticastLidBase || mlid > 0xFFFE)
      throw InputError(file, no, "expected a multicast LID 0xC000..0xFFFE first, got '" + word + "'");
    if (!seen.insert(static_cast<Lid>(mlid)).second)
      throw InputError(file, no, "MLID " + word + " is listed twice");
    McastGroup g;
    g.mlid = static_cast<Lid>(mlid);
    std::string anchor;
    while (words >> word) {
      if (word.rfind("anchor=", 0) == 0) {
        anchor = word.substr(7);
        g.anchor = ResolveMember(f, by_names, anchor);
        if (g.anchor < 0)
          throw InputError(file, no, "anchor '" + anchor + "' is not an end port of the fabric");
        continue;
      }
      if (word.rfind("sl=", 0) == 0) {
        char* sl_end = nullptr;
        const long sl = std::strtol(word.c_str() + 3, &sl_end, 10);
        if (word.size() == 3 || *sl_end || sl < 0 || sl > 15)
          throw InputError(file, no, "'" + word + "': expected sl=0..15 (the group's SL)");
        g.sl = static_cast<int>(sl);
        continue;
      }
      int m = ResolveMember(f, by_names, word);
      if (m < 0)
        throw InputError(file, no, "member '" + word +
                                       "' is not an end port of the fabric (name, port GUID or LID)");
      if (in_group[m] == no) throw InputError(file, no, "member '" + word + "' is listed twice");
      in_group[m] = no;
      g.members.push_back(m);
    }
    if (g.members.empty()) throw InputError(file, no, "group " + std::to_string(mlid) + " has no members");
    groups.push_back(std::move(g));
  }
  return groups;
}

std::vector<McastGroup> ReadGroupsFile(const std::string& path, const Fabric& f) {
  std::ifstream in(path);
  if (!in) throw Error(path + ": cannot open group file (" + std::strerror(errno) + ")");
  return ParseGroups(in, path, f);
}

}  // namespace ibu
