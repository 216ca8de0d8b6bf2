// Multicast group files for offline routing and verification:
//   # comment
//   0xC001  P(200) P(201) P(210) P(211)  anchor=P(000)
// One group per line: the MLID, then members named by node description,
// port GUID (0x + 16 hex digits) or LID (decimal or 0x hex; MLIDs too,
// never octal). A member that names a switch (its description, GUID or
// LID) is a switch member: its port 0 joined (McastGroup::switch_members).
// A description with blanks goes in double quotes, "node01 HCA-1" or
// anchor="node01 HCA-1" (no escapes; a quoted word is only ever a
// description); an unterminated quote is refused. An optional
// anchor=MEMBER roots the tree there (seed 002's worked example); without
// one the engine chooses.
// An optional sl=N is the SL the group's senders use (what the SA put in
// its MCMemberRecord); engines with a VL policy pick the tree to match.
// Each option at most once a line.
#pragma once

#include <iosfwd>
#include <string>
#include <unordered_map>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"

namespace ibu {

// End ports by node description, built once for EndPortOfWord: the port's
// index, or kSharedName when several ports have the description (both ports
// of a dual-port HCA, hosts left at the vendor's default description).
constexpr int kSharedName = -2;
struct EndPortNames {
  std::unordered_map<std::string, int> by_description;
  // A fabric whose recognised host labels (fat-tree P(...), mesh H(x,y)) are
  // not all its node descriptions (a shuffled or degraded generator tree):
  // every end port's label, and each label that is another end port's
  // description with the port it labels (inspect and trace show that name
  // on the other host). Empty otherwise.
  std::vector<std::string> labels;
  std::unordered_map<std::string, int> label_of;
};
// Recognises the topology only when some description looks like a label.
EndPortNames IndexEndPortNames(const Fabric& f);

// "" unless `word`, which names end port `ep` by its description, is
// another end port's label: then "'P(00)' is 0x... (labelled P(30)); the
// host labelled P(00) is 0x...", for a note.
std::string LabelClash(const Fabric& f, const EndPortNames& names, const std::string& word, int ep);

// The end port `word` names: its node description, port GUID (0x + 16 hex
// digits) or LID (decimal or 0x hex, never octal); -1 when none. A
// description several end ports share names none of them: throws
// ibu::Error naming their port GUIDs, rather than taking the first.
int EndPortOfWord(const Fabric& f, const EndPortNames& names, const std::string& word);

// The switch `word` names: its node description (one switch's), GUID (0x +
// 16 hex digits, node or port 0) or LID; -1 when none. A quoted word is a
// description only. A description several switches share throws
// ibu::Error naming their GUIDs. Cost O(switches): group files name few.
int SwitchOfWord(const Fabric& f, const std::string& word, bool quoted);

// Why `word`, which EndPortOfWord found no end port for, may have been
// meant for one: " (0x...: the node GUID of CA 'desc'; its port 1 is 0x...)",
// " (the GUID of switch SW<0,0> (0x..., LID 18), not of an end port)", or "" when no
// such slip is seen. For the callers' "no such host" messages.
std::string NotAnEndPortHint(const Fabric& f, const std::string& word);

// What EndPortOfWord reads back as `ep`: its node description, or its port
// GUID when other end ports share the description (dual-port HCAs, hosts
// left at the vendor's default), it is another end port's label, or it is
// empty or has blanks at an end, so files written with it round-trip.
std::string EndPortWord(const Fabric& f, const EndPortNames& names, int ep);

// Throws ibu::Error "FILE:LINE: ..." naming the word and what was expected,
// and "FILE: ..." on a file without any group. *note (if given) is set to a
// line for the user when member or anchor words are descriptions that inspect and
// trace print as other hosts' labels (LabelClash); "" otherwise.
std::vector<McastGroup> ParseGroups(std::istream& is, const std::string& file, const Fabric& f,
                                    std::string* note = nullptr);
std::vector<McastGroup> ReadGroupsFile(const std::string& path, const Fabric& f, std::string* note = nullptr);

}  // namespace ibu
