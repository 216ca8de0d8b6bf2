#include "plugin/core/groups.h"

#include <algorithm>
#include <cctype>
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
#include "plugin/core/topology/recognize.h"

namespace ibu {

namespace {

// The generator's descriptions are labels: P(...) on fat-trees, H(x,y) on
// meshes. Real fabrics' ("node01 HCA-1") never are, and skip recognition.
bool LooksLikeHostLabel(const std::string& name) {
  return name.size() > 3 && (name[0] == 'P' || name[0] == 'H') && name[1] == '(' && name.back() == ')';
}

// index->labels, and index->label_of: each end port's recognised label
// that another end port has as its description. Both stay empty where
// there is no such label.
void IndexLabelsOfOthers(const Fabric& f, EndPortNames* index) {
  const KnownTopology known = RecognizeTopology(f);
  if (!known.tree && !known.mesh) return;
  std::vector<std::string> labels(f.end_ports.size());
  for (size_t e = 0; e < f.end_ports.size(); ++e) {
    const int sw = f.end_ports[e].switch_index;
    labels[e] = known.tree ? known.tree->HostLabel(static_cast<int>(e))
                : sw >= 0  ? known.mesh->HostLabel(sw)
                           : "";
    const auto it = index->by_description.find(labels[e]);
    if (it != index->by_description.end() && it->second != static_cast<int>(e))
      index->label_of.emplace(labels[e], static_cast<int>(e));
  }
  if (!index->label_of.empty()) index->labels = std::move(labels);
}

}  // namespace

// A linear search per member cost members x end ports (8 groups of 8192 on
// FT(32,3)): one index a file.
EndPortNames IndexEndPortNames(const Fabric& f) {
  EndPortNames index;
  index.by_description.reserve(f.end_ports.size());
  bool label_shaped = false;
  for (size_t i = 0; i < f.end_ports.size(); ++i) {
    const std::string& name = f.end_ports[i].name;
    const auto [it, fresh] = index.by_description.emplace(name, static_cast<int>(i));
    if (!fresh) it->second = kSharedName;
    label_shaped = label_shaped || LooksLikeHostLabel(name);
  }
  if (label_shaped) IndexLabelsOfOthers(f, &index);
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

namespace {

// The end port whose node description is `name`; -1 if none. A description
// several end ports share is refused, naming them.
int EndPortByDescription(const Fabric& f, const EndPortNames& names, const std::string& name) {
  const auto it = names.by_description.find(name);
  if (it == names.by_description.end()) return -1;
  if (it->second == kSharedName) RefuseSharedName(f, name);
  return it->second;
}

}  // namespace

int EndPortOfWord(const Fabric& f, const EndPortNames& names, const std::string& word) {
  if (const int by_name = EndPortByDescription(f, names, word); by_name >= 0) return by_name;
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

int SwitchOfWord(const Fabric& f, const std::string& word, bool quoted) {
  int by_name = -1;
  std::string guids;  // of the switches that share the description
  int sharing = 0;
  for (size_t s = 0; s < f.switches.size(); ++s) {
    if (f.switches[s].name != word) continue;
    by_name = static_cast<int>(s);
    if (++sharing <= 4) guids += (sharing > 1 ? ", " : "") + Hex16(f.switches[s].guid);
  }
  if (sharing > 1)
    throw Error("'" + word + "' is the node description of " + std::to_string(sharing) + " switches (GUIDs " +
                guids + (sharing > 4 ? ", ..." : "") + "): expected one of them by its GUID or LID");
  if (by_name >= 0 || quoted) return by_name;
  unsigned long long guid = 0;
  size_t digits = 0;
  if (ParseHexGuid(word, &guid, &digits) && digits == 16) return f.SwitchByGuid(guid);
  long long lid = 0;
  if (!ParseInteger(word, &lid) || lid <= 0 || lid > kMaxUnicastLid) return -1;
  const LidOwner o = f.owner(static_cast<Lid>(lid));
  return o.kind == Peer::Kind::kSwitch ? o.index : -1;
}

std::string NotAnEndPortHint(const Fabric& f, const std::string& word) {
  unsigned long long guid = 0;
  size_t digits = 0;
  // ibnetdiscover names nodes H-<node GUID> and S-<node GUID> in its files.
  const bool named = word.size() > 2 && (word[0] == 'H' || word[0] == 'S') && word[1] == '-';
  if (!ParseHexGuid(named ? "0x" + word.substr(2) : word, &guid, &digits)) return "";
  // 0x + 16 digits tells a GUID from a LID in hex (mcjoin's --port-guid
  // takes fewer, having no LID to confuse it with).
  if (!named && digits < 16) {
    const int ep = digits > 4 ? f.EndPortByGuid(guid) : -1;
    return ep < 0 ? "" : " (a port GUID is written with all 16 hex digits: " + Hex16(guid) + ")";
  }
  for (const EndPort& ep : f.end_ports)
    if (guid != 0 && ep.node_guid == guid)
      return " (" + word + ": the node GUID of CA '" + ep.name + "'; its port " +
             std::to_string(ep.port_num) + " is " + Hex16(ep.port_guid) + ")";
  if (const int sw = f.SwitchByGuid(guid); sw >= 0)
    return " (the GUID of " + f.SwitchLabel(sw) + ", not of an end port)";
  return "";
}

std::string LabelClash(const Fabric& f, const EndPortNames& names, const std::string& word, int ep) {
  const auto other = names.label_of.find(word);
  if (other == names.label_of.end() || other->second == ep ||
      f.end_ports[static_cast<size_t>(ep)].name != word)
    return "";
  return "'" + word + "' is " + Hex16(f.end_ports[static_cast<size_t>(ep)].port_guid) + " (labelled " +
         names.labels[static_cast<size_t>(ep)] + "); the host labelled " + word + " is " +
         Hex16(f.end_ports[static_cast<size_t>(other->second)].port_guid);
}

std::string EndPortWord(const Fabric& f, const EndPortNames& names, int ep) {
  const EndPort& port = f.end_ports.at(static_cast<size_t>(ep));
  const std::string& name = port.name;
  // An empty description, or one with blanks at an end, would not survive
  // a reader that trims the line.
  const bool trimmed = !name.empty() && !std::isspace(static_cast<unsigned char>(name.front())) &&
                       !std::isspace(static_cast<unsigned char>(name.back()));
  const auto it = names.by_description.find(name);
  const bool own = it != names.by_description.end() && it->second == ep && !names.label_of.count(name);
  return trimmed && own ? name : Hex16(port.port_guid);
}

namespace {

// Sets *slot from an option word's value; an option given twice is refused
// rather than the later one winning silently.
void TakeOnce(const std::string& file, int no, const std::string& word, std::string* slot) {
  const std::string key = word.substr(0, word.find('=') + 1);
  if (!slot->empty())
    throw InputError(file, no, "'" + word + "': " + key + " is given twice (first '" + key + *slot + "')");
  *slot = word.substr(key.size());
  if (slot->empty()) throw InputError(file, no, "'" + word + "': " + key + " needs a value");
}

// A word of a group line, quotes removed: "P(000)", "anchor=P(000)",
// "node01 HCA-1", "anchor=node01 HCA-1".
struct GroupWord {
  std::string text;
  bool quoted = false;  // the node description (after anchor=) was in double quotes
  bool anchor = false;  // anchor=MEMBER ("anchor=x" in quotes is a description)
  // As written, for messages: anchor="node01 HCA-1".
  std::string Shown() const {
    if (!quoted) return text;
    const size_t key = anchor ? 7 : 0;
    return text.substr(0, key) + '"' + text.substr(key) + '"';
  }
};

bool Blank(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// Splits a group line at blanks, up to a '#' outside quotes. A word that
// starts with '"', or anchor=", runs to the next '"': node descriptions
// hold blanks ("MT4119 ConnectX5 Mellanox Technologies" in ibnetdiscover's
// comments), which split words. No escapes: a description with a '"' in
// it is named by port GUID or LID.
std::vector<GroupWord> SplitGroupLine(const std::string& line, const std::string& file, int no) {
  std::vector<GroupWord> words;
  size_t i = 0;
  while (true) {
    while (i < line.size() && Blank(line[i])) ++i;
    if (i == line.size() || line[i] == '#') break;
    const size_t start = i;
    const bool anchor = line.compare(i, 8, "anchor=\"") == 0;
    if (line[i] != '"' && !anchor) {  // a plain word: up to a blank or a comment
      while (i < line.size() && !Blank(line[i]) && line[i] != '#') ++i;
      const std::string text = line.substr(start, i - start);
      words.push_back({text, false, text.rfind("anchor=", 0) == 0});
      continue;
    }
    const size_t open = anchor ? start + 7 : start;
    const size_t close = line.find('"', open + 1);
    if (close == std::string::npos)
      throw InputError(file, no,
                       "unterminated quote: '" + line.substr(start, 40) + (line.size() - start > 40 ? "..." : "") +
                           "' has no closing '\"' (expected a node description in double quotes, on one line)");
    if (close + 1 < line.size() && !Blank(line[close + 1]) && line[close + 1] != '#')
      throw InputError(file, no,
                       "'" + line.substr(start, close + 1 - start) + "' is followed by '" +
                           line.substr(close + 1, 20) + "': expected a blank after the closing '\"'");
    if (close == open + 1)
      throw InputError(file, no,
                       "'" + line.substr(start, 2 + (anchor ? 7 : 0)) + "': expected a node description in the quotes");
    words.push_back({line.substr(start, open - start) + line.substr(open + 1, close - open - 1), true, anchor});
    i = close + 1;
  }
  return words;
}

// The end port a member or anchor word names, with this line of the file
// named when the word is refused. A quoted one is a node description and
// nothing else (a quoted "0x..." is no GUID); -1 if none.
int ResolveWord(const Fabric& f, const EndPortNames& names, const GroupWord& w, const std::string& name,
                const std::string& file, int no) {
  try {
    return w.quoted ? EndPortByDescription(f, names, name) : EndPortOfWord(f, names, name);
  } catch (const Error& e) {
    throw InputError(file, no, e.what());
  }
}

// A member word that names no end port: the switch whose port 0 joined
// (IPoIB on a managed switch), by node description, GUID or LID.
void AddSwitchMember(const Fabric& f, const GroupWord& w, const std::string& file, int no, McastGroup& g) {
  const std::string word = w.quoted ? w.Shown() : "'" + w.Shown() + "'";
  int sw = -1;
  try {
    sw = SwitchOfWord(f, w.text, w.quoted);
  } catch (const Error& e) {
    throw InputError(file, no, e.what());
  }
  if (sw < 0)
    throw InputError(file, no,
                     "member " + word + " is neither an end port nor a switch of the fabric" +
                         (w.quoted ? " (no node has that description)"
                                   : " (name, port GUID or LID)" + NotAnEndPortHint(f, w.text)));
  if (std::find(g.switch_members.begin(), g.switch_members.end(), sw) != g.switch_members.end())
    throw InputError(file, no, "member " + word + " is listed twice");
  g.switch_members.push_back(sw);
}

}  // namespace

std::vector<McastGroup> ParseGroups(std::istream& is, const std::string& file, const Fabric& f,
                                    std::string* note) {
  std::vector<McastGroup> groups;
  std::set<Lid> seen;
  const EndPortNames by_names = IndexEndPortNames(f);
  // Descriptions inspect and trace print as other hosts' labels: the first,
  // and how many words (a shuffled or degraded generator tree).
  int no = 0;
  std::string first_clash;
  long clashes = 0;
  auto note_clash = [&](const std::string& word, int ep) {
    const std::string clash = LabelClash(f, by_names, word, ep);
    if (clash.empty()) return;
    if (clashes++ == 0) first_clash = "line " + std::to_string(no) + ": " + clash;
  };
  // in_group[m] == the line of the group m was last listed in: duplicates
  // found in O(1), not by a search of the members so far.
  std::vector<int> in_group(f.end_ports.size(), 0);
  std::string line;
  while (std::getline(is, line)) {
    ++no;
    const std::vector<GroupWord> words = SplitGroupLine(line, file, no);
    if (words.empty()) continue;
    const std::string mlid_word = words[0].Shown();
    long long mlid = 0;
    if (words[0].quoted || !ParseInteger(mlid_word, &mlid) || mlid < kMulticastLidBase ||
        mlid > kMaxMulticastLid)
      throw InputError(file, no, "expected a multicast LID 0xC000..0xFFFE first, got '" + mlid_word + "'");
    if (!seen.insert(static_cast<Lid>(mlid)).second)
      throw InputError(file, no, "MLID " + mlid_word + " is listed twice");
    McastGroup g;
    g.mlid = static_cast<Lid>(mlid);
    std::string anchor, sl;
    for (size_t i = 1; i < words.size(); ++i) {
      const GroupWord& w = words[i];
      const std::string word = w.Shown();
      if (w.anchor) {
        TakeOnce(file, no, w.text, &anchor);
        g.anchor = ResolveWord(f, by_names, w, anchor, file, no);
        if (g.anchor < 0)
          throw InputError(
              file, no,
              "anchor " + (w.quoted ? word.substr(7) : "'" + anchor + "'") +
                  " is not an end port of the fabric" +
                  (w.quoted ? " (no end port has that node description)" : NotAnEndPortHint(f, anchor)));
        note_clash(anchor, g.anchor);
        continue;
      }
      if (!w.quoted && word.rfind("sl=", 0) == 0) {
        TakeOnce(file, no, word, &sl);
        long long value = -1;
        if (!ParseInteger(sl, &value) || value < 0 || value > 15)
          throw InputError(file, no, "'" + word + "': expected sl=0..15 (the group's SL)");
        g.sl = static_cast<int>(value);
        continue;
      }
      int m = ResolveWord(f, by_names, w, w.text, file, no);
      if (m < 0) {
        AddSwitchMember(f, w, file, no, g);
        continue;
      }
      if (in_group[m] == no)
        throw InputError(file, no, "member " + (w.quoted ? word : "'" + word + "'") + " is listed twice");
      in_group[m] = no;
      g.members.push_back(m);
      note_clash(w.text, m);
    }
    if (g.members.empty())
      throw InputError(file, no,
                       "group " + mlid_word +
                           (g.switch_members.empty() ? " has no members"
                                                     : " has no end-port member (its tree is rooted at one; "
                                                       "switches only receive and send on it)"));
    groups.push_back(std::move(g));
  }
  // Given a group file, the user asked for groups: one without any (empty,
  // comments only: a generating step that matched nothing) built MFTs with
  // no group and verified a multicast that checked nothing, as a PASS.
  if (groups.empty())
    throw Error(file + ": no group in it (expected lines 'MLID MEMBER MEMBER ...', e.g. '0xC001 P(000) P(001)')");
  if (note)
    *note = clashes == 0 ? ""
                         : file + ": " + std::to_string(clashes) +
                               " word(s) are node descriptions that inspect and trace print as other hosts' "
                               "labels on this shuffled or degraded fabric; group files take descriptions (" +
                               first_clash + "): name such hosts by port GUID or LID to be sure";
  return groups;
}

std::vector<McastGroup> ReadGroupsFile(const std::string& path, const Fabric& f, std::string* note) {
  std::ifstream in = OpenInputFile(path, "group file");
  return ParseGroups(in, path, f, note);
}

}  // namespace ibu
