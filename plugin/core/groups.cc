#include "plugin/core/groups.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "plugin/core/error.h"
#include "plugin/core/input_files.h"
#include "plugin/core/int_math.h"

namespace ibu {

// A linear search per member cost members x end ports (8 groups of 8192 on
// FT(32,3)): one index a file.
EndPortNames IndexEndPortNames(const Fabric& f) {
  EndPortNames index;
  index.reserve(f.end_ports.size());
  for (size_t i = 0; i < f.end_ports.size(); ++i) {
    const auto [it, fresh] = index.emplace(f.end_ports[i].name, static_cast<int>(i));
    if (!fresh) it->second = kSharedName;
  }
  return index;
}

namespace {

[[noreturn]] void RefuseSharedName(const Fabric& f, const std::string& name) {
  std::string guids;
  int count = 0;
  for (const EndPort& ep : f.end_ports) {
    if (ep.name != name) continue;
    if (++count <= 4) guids += (count > 1 ? ", " : "") + Hex16(ep.port_guid);
  }
  if (count > 4) guids += ", ...";
  throw Error("'" + name + "' is the node description of " + std::to_string(count) + " end ports (port GUIDs " +
              guids + "): expected one of them by its port GUID or LID");
}

}  // namespace

int EndPortOfWord(const Fabric& f, const EndPortNames& names, const std::string& word) {
  const auto it = names.find(word);
  if (it != names.end()) {
    if (it->second == kSharedName) RefuseSharedName(f, word);
    return it->second;
  }
  // A GUID in full, 0x and 16 digits: a LID written in hex has fewer, so the
  // digit count, not the 0x, tells them apart.
  unsigned long long guid = 0;
  size_t digits = 0;
  if (ParseHexGuid(word, &guid, &digits) && digits == 16) return f.EndPortByGuid(guid);
  long long lid = 0;
  if (!ParseInteger(word, &lid) || lid <= 0 || lid > kMaxUnicastLid) return -1;
  LidOwner o = f.owner(static_cast<Lid>(lid));
  return o.kind == Peer::Kind::kEndPort ? o.index : -1;
}

namespace {

// EndPortOfWord with this line of the file named when it refuses the word.
int ResolveMember(const Fabric& f, const EndPortNames& names, const std::string& word, const std::string& file,
                  int no) {
  try {
    return EndPortOfWord(f, names, word);
  } catch (const Error& e) {
    throw InputError(file, no, e.what());
  }
}

// Sets *slot from an option word's value; an option given twice is refused
// rather than the later one winning silently.
void TakeOnce(const std::string& file, int no, const std::string& word, std::string* slot) {
  const std::string key = word.substr(0, word.find('=') + 1);
  if (!slot->empty())
    throw InputError(file, no, "'" + word + "': " + key + " is given twice (first '" + key + *slot + "')");
  *slot = word.substr(key.size());
  if (slot->empty()) throw InputError(file, no, "'" + word + "': " + key + " needs a value");
}

}  // namespace

std::vector<McastGroup> ParseGroups(std::istream& is, const std::string& file, const Fabric& f) {
  std::vector<McastGroup> groups;
  std::set<Lid> seen;
  const EndPortNames by_names = IndexEndPortNames(f);
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
    long long mlid = 0;
    if (!ParseInteger(word, &mlid) || mlid < kMulticastLidBase || mlid > 0xFFFE)
      throw InputError(file, no, "expected a multicast LID 0xC000..0xFFFE first, got '" + word + "'");
    if (!seen.insert(static_cast<Lid>(mlid)).second)
      throw InputError(file, no, "MLID " + word + " is listed twice");
    McastGroup g;
    g.mlid = static_cast<Lid>(mlid);
    const std::string mlid_word = word;
    std::string anchor, sl;
    while (words >> word) {
      if (word.rfind("anchor=", 0) == 0) {
        TakeOnce(file, no, word, &anchor);
        g.anchor = ResolveMember(f, by_names, anchor, file, no);
        if (g.anchor < 0)
          throw InputError(file, no, "anchor '" + anchor + "' is not an end port of the fabric");
        continue;
      }
      if (word.rfind("sl=", 0) == 0) {
        TakeOnce(file, no, word, &sl);
        long long value = -1;
        if (!ParseInteger(sl, &value) || value < 0 || value > 15)
          throw InputError(file, no, "'" + word + "': expected sl=0..15 (the group's SL)");
        g.sl = static_cast<int>(value);
        continue;
      }
      int m = ResolveMember(f, by_names, word, file, no);
      if (m < 0)
        throw InputError(file, no, "member '" + word +
                                       "' is not an end port of the fabric (name, port GUID or LID)");
      if (in_group[m] == no) throw InputError(file, no, "member '" + word + "' is listed twice");
      in_group[m] = no;
      g.members.push_back(m);
    }
    if (g.members.empty()) throw InputError(file, no, "group " + mlid_word + " has no members");
    groups.push_back(std::move(g));
  }
  // Given a group file, the user asked for groups: one without any (empty,
  // comments only: a generating step that matched nothing) built MFTs with
  // no group and verified a multicast that checked nothing, as a PASS.
  if (groups.empty())
    throw Error(file + ": no group in it (expected lines 'MLID MEMBER MEMBER ...', e.g. '0xC001 P(000) P(001)')");
  return groups;
}

std::vector<McastGroup> ReadGroupsFile(const std::string& path, const Fabric& f) {
  std::ifstream in = OpenInputFile(path, "group file");
  return ParseGroups(in, path, f);
}

}  // namespace ibu
