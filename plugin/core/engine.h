// The routing engines as the front doors see them: a name, options parsed
// from "key=value" words, and calls that fill Tables for a Fabric. Both the
// OpenSM adapter and the CLI go through this interface, so an algorithm
// exists once.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"

namespace ibu {

enum class LogLevel { kError, kInfo, kVerbose };
using LogSink = std::function<void(LogLevel, const std::string&)>;

// A multicast group as the SM sees it: MLID and member end ports (indices
// into Fabric::end_ports). Send-only members count as members for routing.
struct McastGroup {
  Lid mlid = 0;
  std::vector<int> members;
  int anchor = -1;  // optional: end-port index to root the tree at
  // SL the group's senders use (the SA's MCMemberRecord, fixed when the
  // group was created); -1 when unknown, and engines with a VL policy pick.
  int sl = -1;
  // Switches whose port 0 joined (IPoIB on a managed switch), by switch
  // index: a tree that reaches one sets port 0 in its mask, as OpenSM's
  // own multicast routing does. Trees are rooted at end-port members, so a
  // group needs at least one of those.
  std::vector<int> switch_members = {};
};

class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;

  // Fills t.lft for every switch. Throws ibu::Error (with the first
  // offending switch/port) when the fabric is not one this engine routes.
  virtual void RouteUnicast(const Fabric& f, Tables& t) = 0;

  // Sets t.mft[sw].groups[g.mlid] on every switch (and erases the MLID on
  // switches off the tree). Needs RouteUnicast to have run on the same
  // fabric. Throws ibu::Error when the group cannot be built.
  virtual void RouteMulticast(const Fabric& f, const McastGroup& g,
                              Tables& t) = 0;

  // The group has no members left (OpenSM cleared its MLID): drop its MFT
  // entries and whatever the engine keeps about it.
  virtual void ForgetMulticast(const Fabric& f, Lid mlid, Tables& t) {
    (void)f;
    for (Mft& m : t.mft) m.groups.erase(mlid);
  }

  // Switch members of the group RouteMulticast last built that its tree
  // leaves out (no tree of the engine's kind reaches them together with
  // the rest of the group), each with why; their port 0 gets no copies.
  virtual std::vector<std::pair<int, std::string>> SwitchMembersLeftOut() const { return {}; }

  // Switches holding `mlid`'s MFT entries after the last RouteMulticast,
  // so a caller can hand them on in O(tree) instead of scanning every
  // switch; nullptr when the engine does not keep them.
  virtual const std::vector<int>* McastSwitches(Lid mlid) const {
    (void)mlid;
    return nullptr;
  }

  // SL-to-VL tables (t.sl2vl, one per switch) for engines with a VL policy;
  // engines without one leave them empty (every SL on VL 0).
  virtual void RouteSl2Vl(const Fabric& f, Tables& t) {
    (void)f;
    (void)t;
  }

  // SL for a path (OpenSM's path_sl hook): the SL the SA hands out for
  // traffic from `slid` to `dlid`. Multicast packets use the group's SL.
  virtual uint8_t PathSl(const Fabric& f, Lid slid, Lid dlid) const {
    (void)f;
    (void)slid;
    (void)dlid;
    return 0;
  }

  // Whether the multicast trees carry their anchor's packets only (one
  // sender per group, as the timing model's per-source trees have): their
  // freedom from credit loops holds for that sender alone, so the
  // credit-loop check floods them from the anchor, and OpenSM, whose
  // groups let every member send, must not get them.
  virtual bool TreesForAnchorOnly() const { return false; }

  // Whether PathSl matters for the routing (its VLs keep it deadlock-free):
  // only then does the plugin replace the SL OpenSM would hand out (its QoS
  // policy's, or one a PathRecord query asks for). Without a policy, SL 0
  // for every path dropped QoS SLs and refused queries for another SL.
  virtual bool HasSlPolicy() const { return false; }

  // Number of data VLs the engine's SL2VL tables use (1 = no VL policy).
  virtual int DataVls() const { return 1; }

  // DLID a source should use to reach `dst` (end-port indices): the
  // engine's path-selection rule, which hosts and the timing model follow.
  virtual Lid SelectDlid(const Fabric& f, int src, int dst) const {
    (void)src;
    return f.end_ports.at(dst).base_lid;
  }
};

// A fabric's unicast routes and the SL-to-VL tables that keep them free of
// credit loops (empty for engines without a VL policy), into fresh `t`:
// the first step of every front door (OpenSM's adapter, route, verify's
// scheme comparison, sim), before any multicast group. Throws as
// RouteUnicast does.
void RouteUnicastAndVls(Engine& engine, const Fabric& f, Tables& t);

// "multicast group 0xc002 refused: REASON" for a group RouteMulticast
// turned away (its throw's message), the MLID as logs and tables write it;
// a reason naming the group already ("multicast group 0xc002: ...") says
// it once. OpenSM's adapter logs it; offline route warns with it.
std::string McastRefusal(Lid mlid, const std::string& reason);

// "multicast group 0xc001: switch SW<1,0> (...) joined (its port 0) and gets
// no copies: WHY" for a switch member a tree left out (SwitchMembersLeftOut).
// OpenSM's adapter logs it; offline route warns with it.
std::string SwitchMemberLeftOut(const Fabric& f, Lid mlid, int sw, const std::string& why);

// The MFT entries of multicast trees, per MLID, kept so that rebuilding one
// group (a join or a leave) erases only the switches of its previous tree
// instead of scanning every switch: cost O(tree), not O(fabric).
class McastTreeTables {
 public:
  // Replaces g.mlid's entries in t with `tree` ((switch, mask) pairs).
  void Apply(const Fabric& f, Lid mlid, const std::vector<std::pair<int, PortMask>>& tree,
             Tables& t);
  void Clear() { switches_.clear(); }
  // The switches of mlid's current tree (empty when it has none).
  const std::vector<int>* Switches(Lid mlid) const;

 private:
  std::unordered_map<Lid, std::vector<int>> switches_;
};

// VL arbitration for an engine's `vls` VLs (OpenSM's update_vlarb): the
// low-priority table lists every VL once with equal weight and the
// high-priority table stays empty, so no VL the SL2VL tables use starves
// and none is favoured (OpenSM's default puts VL0 alone in the high table,
// which would favour SL 0's traffic in shared mode). Entries (VL, weight)
// of one 32-entry block: 0-1 low, 2-3 high; unlisted entries are weight 0.
std::vector<std::pair<uint8_t, uint8_t>> EqualVlArbitration(int vls, int block);

// Engine names the core knows: "mlid", "slid", "xymesh".
std::vector<std::string> EngineNames();

// One option key an engine (or a front door) reads: the values it takes,
// as an unknown key's message lists them ("on|off"), and how a value is
// read (throws ibu::Error naming `word`, as written, on a bad one).
struct OptionKey {
  std::string key;     // "mlid_rotate"
  std::string values;  // "on|off"
  std::function<void(const std::string& value, const std::string& word)> read;
};

// `key`=on|off (ParseOnOff's words) into *flag.
OptionKey OnOffKey(const std::string& key, bool* flag);

// Builds an engine from its name and "key=value" option words, read once,
// in their order, so that the first word's first problem is the one named
// (throws ibu::Error naming the word and what was expected): a byte that is
// not printable ASCII (shown by VisibleWord), no '=', a key of no engine in
// `offered`, a key of `name` given twice ("mlid_rotate=on mlid_rotate=off":
// which one was meant is a guess), a key `name` does not know (listing its
// keys), blanks around '=', a bad value. Keys that belong
// to another engine of `offered` are left to it. `offered`: the engines
// that share the options (OpenSM's mlid and xymesh, which get one
// event_plugin_options); empty, as in a CLI command that runs one engine,
// only `name` itself, so `--engine slid --options mlid_rotate=off` is
// refused, not ignored. `front_door_keys`: keys of `name`'s prefix that the
// front door reads itself (OpenSM's adapter: <engine>_dump), checked in
// their place among the words and listed first among the known keys.
// `log` receives notes such as folded path digits.
std::unique_ptr<Engine> MakeEngine(const std::string& name, const std::vector<std::string>& options,
                                   LogSink log, const std::vector<std::string>& offered = {},
                                   const std::vector<OptionKey>& front_door_keys = {});

// The value of an on/off option (also 1/0, true/false, yes/no); throws
// ibu::Error naming "key=value" otherwise.
bool ParseOnOff(const std::string& key, const std::string& value);

// `word` with every byte that is not printable ASCII (a control character,
// a no-break space pasted from a web page) as \xNN: printed raw they are
// invisible or look like the blank they are not.
// A blank (' ', as OptionWords joins pieces) stays as it is.
std::string VisibleWord(const std::string& word);

// "key=value" -> (key, value), blanks around '=' left out; throws
// ibu::Error naming the word when there is no '=' or no key.
std::pair<std::string, std::string> SplitWord(const std::string& word);

// Throws ibu::Error naming a word with blanks around '=' as written
// ("option 'mlid_rotate = off': blanks around '='; expected key=value as
// one word (mlid_rotate=off)"). MakeEngine calls it once it knows the key,
// so that a word with an unknown key is refused for its key, as one
// without blanks.
void RefuseBlanksAroundEquals(const std::string& word);

// The words of "a=1 b=2", the pieces a blank split off a word kept with it
// as written ("mlid_rotate = off", "mlid_rotate= off", "mlid_rotate =off",
// joined by one blank), for MakeEngine, which names the blanks once it
// knows their key.
std::vector<std::string> OptionWords(const std::string& text);

// The words of `text` whose key starts "<engine>_" for an engine of
// EngineNames(), joined by blanks; the other words are appended to
// *others. OpenSM hands one event_plugin_options string to every event
// plugin it loads, so beside other plugins only these words are ours. The
// pieces of "mlid_rotate = off", "mlid_rotate =off" and "mlid_rotate= off"
// stay with their key, so MakeEngine names the blanks.
std::string OwnOptionWords(const std::string& text, std::vector<std::string>* others);

}  // namespace ibu
