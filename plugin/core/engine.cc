#include "plugin/core/engine.h"

#include <algorithm>
#include <cstdio>
#include <sstream>
#include <unordered_map>

#include "plugin/core/error.h"
#include "plugin/core/routing/mlid.h"
#include "plugin/core/routing/xymesh.h"

namespace ibu {

namespace {

bool PrintableAscii(unsigned char c) { return c > ' ' && c < 0x7f; }

// An option word with its blanks left out ("mlid_rotate = off" -> "mlid_rotate=off").
std::string Closed(std::string word) {
  word.erase(std::remove(word.begin(), word.end(), ' '), word.end());
  return word;
}

// Keys are prefixed by the engine they configure ("mlid_rotate"); keys of
// other engines are left to them, unknown keys of ours are errors.
bool Owns(const std::string& key, const std::string& engine) {
  return key.rfind(engine + "_", 0) == 0;
}

class MlidEngine : public Engine {
 public:
  MlidEngine(MlidOptions opt, LogSink log, const char* name)
      : opt_(opt), log_(std::move(log)), name_(name) {}

  const char* name() const override { return name_; }

  void RouteUnicast(const Fabric& f, Tables& t) override {
    router_.reset();
    trees_.Clear();
    router_ = std::make_unique<MlidRouter>(f, RecognizeFatTree(f), opt_);
    if (log_)
      for (const std::string& note : router_->Notes()) log_(LogLevel::kInfo, note);
    router_->Route(t);
    const std::string degraded = router_->DegradedNote();
    // Pairs left without a route (only a valley joins them) would be black
    // holes where OpenSM's next engine (minhop; updn, deadlock-free) routes
    // every pair: refuse the fabric. A miscabled tree labelled as a gutted bigger one came here
    // too (one extra cable on FT(4,3): 'FT(16,2)', 192 pairs dropped).
    if (router_->UnroutablePairs() > 0) {
      router_.reset();
      throw Error(degraded);
    }
    if (log_ && !degraded.empty()) log_(LogLevel::kInfo, degraded);
  }

  // Touches only this group's entries: the switches of its previous tree
  // and of its new one.
  void RouteMulticast(const Fabric& f, const McastGroup& g, Tables& t) override {
    if (!router_) throw Error(std::string(name_) + ": multicast needs unicast routing first");
    std::vector<std::pair<int, std::string>> left_out;
    left_out_.clear();  // also when the group is refused
    trees_.Apply(f, g.mlid, router_->McastTree(g, &left_out), t);
    left_out_ = std::move(left_out);
  }

  std::vector<std::pair<int, std::string>> SwitchMembersLeftOut() const override { return left_out_; }

  void ForgetMulticast(const Fabric& f, Lid mlid, Tables& t) override {
    trees_.Apply(f, mlid, {}, t);
  }

  const std::vector<int>* McastSwitches(Lid mlid) const override { return trees_.Switches(mlid); }

  Lid SelectDlid(const Fabric& f, int src, int dst) const override {
    if (!router_) return f.end_ports.at(dst).base_lid;
    return router_->SelectDlid(src, dst);
  }

 private:
  MlidOptions opt_;
  LogSink log_;
  const char* name_;
  std::unique_ptr<MlidRouter> router_;
  McastTreeTables trees_;
  std::vector<std::pair<int, std::string>> left_out_;  // of the last RouteMulticast
};

}  // namespace

std::string VisibleWord(const std::string& word) {
  std::string out;
  for (unsigned char c : word) {
    if (PrintableAscii(c) || c == ' ') {  // ' ': the one blank OptionWords joins pieces by
      out += static_cast<char>(c);
      continue;
    }
    out += EscapedByte(c);
  }
  return out;
}

std::pair<std::string, std::string> SplitWord(const std::string& word) {
  const std::string closed = Closed(word);
  const size_t eq = closed.find('=');
  if (eq == std::string::npos || eq == 0) throw Error("option '" + word + "': expected key=value");
  return {closed.substr(0, eq), closed.substr(eq + 1)};
}

void RefuseBlanksAroundEquals(const std::string& word) {
  if (word.find(' ') == std::string::npos) return;
  const std::string fixed = Closed(word);
  // The word meant, when closing the blanks gives one ("mlid_rotate= = off" does not).
  const bool one_word = fixed[0] != '=' && std::count(fixed.begin(), fixed.end(), '=') == 1;
  throw Error("option '" + word + "': blanks around '='; expected key=value as one word" +
              (one_word ? " (" + fixed + ")" : std::string()));
}

bool ParseOnOff(const std::string& key, const std::string& value) {
  if (value == "on" || value == "1" || value == "true" || value == "yes") return true;
  if (value == "off" || value == "0" || value == "false" || value == "no") return false;
  // "mlid_rotate=off,foo=1" read as one value: say how options are listed.
  const std::string comma =
      value.find(',') != std::string::npos ? "; options are separated by spaces, not commas" : "";
  throw Error("option '" + key + "=" + value +
              "': expected on or off (or 1/0, yes/no, true/false; lower case)" + comma);
}

std::string SwitchMemberLeftOut(const Fabric& f, Lid mlid, int sw, const std::string& why) {
  return "multicast group " + HexLid(mlid) + ": " + f.SwitchLabel(sw) +
         " joined (its port 0) and gets no copies: " + why;
}

void McastTreeTables::Apply(const Fabric& f, Lid mlid,
                            const std::vector<std::pair<int, PortMask>>& tree, Tables& t) {
  t.Resize(f);
  std::vector<int>& previous = switches_[mlid];
  for (int sw : previous) t.mft[sw].groups.erase(mlid);
  // Sized to the tree: grown by doubling, the lists of thousands of groups
  // were half slack (one tree per source on FT(32,3): 34 MB for 18).
  std::vector<int> now;
  now.reserve(tree.size());
  for (const auto& [sw, mask] : tree) {
    t.mft[sw].groups[mlid] = mask;
    now.push_back(sw);
  }
  previous = std::move(now);
}

const std::vector<int>* McastTreeTables::Switches(Lid mlid) const {
  static const std::vector<int> kNone;
  const auto it = switches_.find(mlid);
  return it == switches_.end() ? &kNone : &it->second;
}

std::vector<std::string> EngineNames() { return {"mlid", "slid", "xymesh"}; }

namespace {

// The last of the words that a blank split off words[first]: "mlid_rotate",
// "=", "off"; "mlid_rotate", "=off"; "mlid_rotate=", "off" (no key takes an
// empty value, so the next bare word is taken as meant for it). `first`
// itself when nothing was split off. The one rule for OptionWords and
// OwnOptionWords, which keep them together.
size_t LastPieceOf(const std::vector<std::string>& words, size_t first) {
  const auto no_eq = [](const std::string& w) { return w.find('=') == std::string::npos; };
  const auto value_follows = [&](size_t j) {  // a word ending in '=' before a bare word
    return words[j].back() == '=' && j + 1 < words.size() && no_eq(words[j + 1]);
  };
  const std::string& w = words[first];
  if ((no_eq(w) || w.back() == '=') && first + 1 < words.size() && words[first + 1][0] == '=')
    return value_follows(first + 1) ? first + 2 : first + 1;
  return value_follows(first) ? first + 1 : first;
}

}  // namespace

std::string OwnOptionWords(const std::string& text, std::vector<std::string>* others) {
  std::string own;
  // "mlid_rotate = off" is one word of OptionWords: the '=' and the value
  // go with their key, so that the engine names the blanks (else:
  // "mlid_rotate: expected key=value", and '=' and "off" handed to the
  // other plugins).
  for (const std::string& w : OptionWords(text)) {
    const std::string key = w.substr(0, w.find('='));
    bool ours = false;
    for (const std::string& engine : EngineNames()) ours = ours || Owns(key, engine);
    if (ours)
      own += (own.empty() ? "" : " ") + w;
    else
      others->push_back(w);
  }
  return own;
}

std::vector<std::string> OptionWords(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> pieces, words;
  for (std::string w; in >> w;) pieces.push_back(w);
  for (size_t i = 0; i < pieces.size(); ++i) {
    std::string word = pieces[i];
    for (const size_t last = LastPieceOf(pieces, i); i < last;) word += " " + pieces[++i];
    words.push_back(word);
  }
  return words;
}

OptionKey OnOffKey(const std::string& key, bool* flag) {
  return {key, "on|off",
          [key, flag](const std::string& value, const std::string&) { *flag = ParseOnOff(key, value); }};
}

namespace {

// A byte that is not printable ASCII: a no-break space reads as a blank
// and a control character as nothing, so the word is not what it looks like.
void RefuseUnprintable(const std::string& word) {
  const auto odd =
      std::find_if_not(word.begin(), word.end(), [](char c) { return c == ' ' || PrintableAscii(c); });
  if (odd != word.end())
    throw Error("option '" + VisibleWord(word) + "': byte " + VisibleWord(std::string(1, *odd)) +
                " is not printable ASCII; expected key=value words separated by spaces or tabs");
}

// Every key must belong to an engine the front door offers: a key of an
// engine it does not have (slid_ in OpenSM, mlid_ in a command that runs
// slid) would never be read.
void RefuseUnoffered(const std::string& word, const std::string& key,
                     const std::vector<std::string>& engines) {
  std::string known;
  for (size_t i = 0; i < engines.size(); ++i) {
    if (Owns(key, engines[i])) return;
    known += (i == 0 ? "" : i + 1 == engines.size() ? " or " : ", ") + engines[i] + "_";
  }
  throw Error("option '" + word + "': unknown key (keys start with " + known + ")");
}

// `seen`: key -> the first word that gave it.
void RefuseRepeatedKey(const std::string& word, const std::string& key,
                       std::unordered_map<std::string, std::string>& seen) {
  const auto [it, fresh] = seen.emplace(key, word);
  if (!fresh)
    throw Error("option '" + word + "': key " + key + " given twice (first as '" + it->second +
                "'); expected each key once");
}

const OptionKey& KnownKey(const std::string& word, const std::string& key, const std::string& engine,
                          const std::vector<OptionKey>& keys) {
  std::string known;
  for (const OptionKey& k : keys) {
    if (k.key == key) return k;
    known += (known.empty() ? "" : ", ") + k.key + "=" + k.values;
  }
  throw Error("option '" + word + "': unknown key for engine " + engine + " (known: " + known + ")");
}

// The one option checker: each word in turn, its first problem thrown
// before a later word is looked at; `keys` read the words of `engine`.
void ReadOptionWords(const std::string& engine, const std::vector<std::string>& words,
                     const std::vector<std::string>& offered, const std::vector<OptionKey>& keys) {
  const std::vector<std::string> engines = offered.empty() ? std::vector<std::string>{engine} : offered;
  std::unordered_map<std::string, std::string> seen;
  for (const std::string& word : words) {
    RefuseUnprintable(word);
    const auto [key, value] = SplitWord(word);
    RefuseUnoffered(word, key, engines);
    if (!Owns(key, engine)) continue;  // another engine's, checked by it
    RefuseRepeatedKey(word, key, seen);
    const OptionKey& known = KnownKey(word, key, engine, keys);
    RefuseBlanksAroundEquals(word);  // only now: a word with an unknown key is refused for its key
    known.read(value, word);
  }
}

// The front door's keys first, as an unknown key's message lists them.
std::vector<OptionKey> Joined(std::vector<OptionKey> front_door_keys, std::vector<OptionKey> engine_keys) {
  front_door_keys.insert(front_door_keys.end(), engine_keys.begin(), engine_keys.end());
  return front_door_keys;
}

}  // namespace

std::unique_ptr<Engine> MakeEngine(const std::string& name, const std::vector<std::string>& options,
                                   LogSink log, const std::vector<std::string>& offered,
                                   const std::vector<OptionKey>& front_door_keys) {
  if (name == "mlid" || name == "slid") {
    MlidOptions opt;
    opt.single_lid = name == "slid";
    ReadOptionWords(name, options, offered,
                    Joined(front_door_keys, {OnOffKey(name + "_rotate", &opt.rotate)}));
    return std::make_unique<MlidEngine>(opt, std::move(log), name == "mlid" ? "mlid" : "slid");
  }
  if (name == "xymesh") {
    XyMeshOptions opt;
    ReadOptionWords(name, options, offered, Joined(front_door_keys, XyMeshOptionKeys(&opt)));
    return MakeXyMeshEngine(opt, std::move(log));
  }
  throw Error("unknown routing engine '" + name + "' (known: mlid, slid, xymesh)");
}

void RouteUnicastAndVls(Engine& engine, const Fabric& f, Tables& t) {
  t.Resize(f);
  engine.RouteUnicast(f, t);
  engine.RouteSl2Vl(f, t);
}

std::string McastRefusal(Lid mlid, const std::string& reason) {
  const std::string group = "multicast group " + HexLid(mlid);
  const bool named = reason.rfind(group + ": ", 0) == 0;
  return group + " refused: " + (named ? reason.substr(group.size() + 2) : reason);
}

std::vector<std::pair<uint8_t, uint8_t>> EqualVlArbitration(int vls, int block) {
  constexpr uint8_t kWeight = 32;  // in 64-byte units: one 2 KB packet per turn
  std::vector<std::pair<uint8_t, uint8_t>> entries;
  if (block != 0) return entries;
  for (int vl = 0; vl < vls && vl < 15; ++vl) entries.push_back({static_cast<uint8_t>(vl), kWeight});
  return entries;
}

}  // namespace ibu
