// Traffic: what the hosts send. A TrafficSpec is the parsed --traffic word;
// a Workload is everything decided once per run from the set-up seed (the
// permutation, the multicast group and its sources, the MLIDs, the DLID
// each source uses) and shared read-only by all sweep points. The
// per-point random choices (uniform destinations, arrival times) are made
// by the simulator with its own generator through Destination().
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "plugin/core/engine.h"
#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"
#include "sim-harness/timing/params.h"
#include "sim-harness/timing/rng.h"

namespace ibu::sim {

enum class Pattern { kUniform, kCentric, kShift, kBitrev, kTranspose, kRandperm, kMcast };

// A host count given as a fraction of all hosts ("0.4", "40%", "all") or
// as a number ("1", "12").
struct HostCount {
  bool fraction = true;
  double value = 1.0;
  int Resolve(int hosts) const;  // at least 1, at most hosts
};

struct TrafficSpec {
  Pattern pattern = Pattern::kUniform;
  double centric = 0.1;  // centric:F
  int shift = 0;         // shift:K (0 = hosts/2)
  HostCount sources, group;  // mcast:SOURCES:GROUP
  std::string text;
  std::string named;  // where it came from, for messages: "--traffic TEXT"
};

// Parses uniform | centric[:F] | shift[:K] | bitrev | transpose | randperm |
// mcast:SOURCES:GROUP; throws ibu::Error "NAMED: ..." otherwise. `named` is
// how the user gave it ("run.conf:3: traffic = TEXT"); "--traffic TEXT"
// when empty. Workload's errors about the pattern name it the same way.
TrafficSpec ParseTraffic(const std::string& text, const std::string& named = "");

// DLID source `src` uses for end port `dst` (indices into end_ports).
using DlidFn = std::function<Lid(int src, int dst)>;
// SL of a message from end port `src` to `dlid` (unicast or MLID): the
// engine's PathSl for (src's base LID, dlid).
using PathSlFn = std::function<int(int src, Lid dlid)>;

// How the user gave the params a Workload checks against the fabric, for
// its messages: key -> "--param hot=3" or "run.conf:4: hot = 3". A key
// without an entry is named by its key and value.
using ParamNames = std::map<std::string, std::string>;

// Multicast sources named by the user (--sources FILE) instead of drawn:
// end-port indices, each with where it was named ("FILE:LINE") for
// messages, and how the whole was given ("--sources FILE").
struct GivenSources {
  std::vector<int> end_ports;
  std::vector<std::string> where;
  std::string named;
  bool empty() const { return end_ports.empty(); }
};

// One multicast tree: an MLID and the end ports the switches deliver it
// to, which are the workload's group plus `outsiders`. The group is kept
// once, not per tree: with one tree per source a copy each was
// sources x members ints (FT(32,3), mcast:all:all: 268 MB).
struct McastTree {
  Lid mlid = 0;
  std::vector<int> outsiders;  // its sources outside the group, sorted end-port indices
  int anchor = -1;
};

// splitmix64: the hash used for SL and DLID spreading (stable everywhere).
inline uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Uniform integer in [0, n) from a 64-bit generator, without the
// implementation-defined std::uniform_int_distribution.
template <typename Rng>
inline uint64_t UniformBelow(Rng& rng, uint64_t n) {
  // Lemire's multiply-shift with rejection: unbiased and portable.
  uint64_t x = rng();
  __uint128_t m = __uint128_t(x) * n;
  uint64_t l = uint64_t(m);
  if (l < n) {
    const uint64_t t = (0 - n) % n;
    while (l < t) {
      x = rng();
      m = __uint128_t(x) * n;
      l = uint64_t(m);
    }
  }
  return uint64_t(m >> 64);
}

// Uniform double in (0, 1] from one 64-bit draw (non-decreasing in r).
inline double UniformOpenOf(uint64_t r) { return (double(r >> 11) + 1.0) * (1.0 / 9007199254740992.0); }
inline double UniformOpen(Mt64& rng) { return UniformOpenOf(rng()); }

class Workload {
 public:
  // Decides sources, permutation and group from `seed`. Throws ibu::Error
  // when the pattern or a param does not fit the host count (bitrev and
  // transpose need a power of two / of four; mcast needs two hosts; hot
  // must be one of them), naming params as `names` has them.
  Workload(const TrafficSpec& spec, const Params& p, const Fabric& f, uint64_t seed,
           const ParamNames& names = {});

  const TrafficSpec& spec() const { return spec_; }
  int hosts() const { return hosts_; }
  // Centric: end-port index of the hot host (param hot= numbers it).
  int hot() const { return hot_; }
  // Host number of end port `ep` (host_order), and the key that spreads a
  // pair's hashed SL or DLID: by numbers, so a pair gets the same SL
  // whatever order the net file lists its hosts in.
  int Number(int ep) const { return number_of_[size_t(ep)]; }
  uint64_t PairKey(int src, int dst) const {
    return uint64_t(Number(src)) * uint64_t(hosts_) + uint64_t(Number(dst));
  }
  bool is_mcast() const { return spec_.pattern == Pattern::kMcast; }
  bool hardware_mcast() const { return is_mcast() && mode_ == McastMode::kHardware; }

  // Hosts that generate traffic (end-port indices) in host-number order:
  // the simulator starts their arrivals in this order, so a dump that
  // lists the hosts in another order replays the very same run.
  const std::vector<int>& sources() const { return sources_; }
  bool IsSource(int h) const { return source_flag_[h]; }

  // Unicast patterns: destination of the next message from `src`, drawing
  // from `rng` for the random patterns; -1 when src sends nothing.
  // The uniform pattern, drawn per message, is inline; the rest is not.
  int Destination(int src, Mt64& rng) const {
    return spec_.pattern == Pattern::kUniform ? AnyOtherHost(src, rng) : OtherDestination(src, rng);
  }

  // The share of src's messages that Destination sends to dst, as a
  // weight (summing to 1 over dst for a source, 0 for one that sends
  // nothing): uniform 1/(hosts-1) each; centric F more to the hot host from
  // every other source; a permutation 1 to the partner. Multicast: 0.
  double Share(int src, int dst) const;

  // DLID from src to dst under the chosen policy (`rng` for "random").
  // The tabulated engine rule, one lookup per message, is inline (only
  // that rule has a table).
  Lid Dlid(int src, int dst, Mt64& rng) const {
    if (!dlid_table_.empty()) return dlid_table_[size_t(src) * size_t(hosts_) + size_t(dst)];
    return OtherDlid(src, dst, rng);
  }
  void SetDlidFn(DlidFn fn, bool engine_rule);
  // The DLIDs Dlid may give a message from src to dst, each as likely
  // (for analyses that weigh every draw): under dlid=random every LID of
  // dst, DlidDraw k = its base LID + k; otherwise the one Dlid gives.
  int DlidDraws(int dst) const { return dlid_policy_ == DlidPolicy::kRandom ? lid_count_[dst] : 1; }
  bool RandomDlid() const { return dlid_policy_ == DlidPolicy::kRandom; }
  Lid DlidDraw(int src, int dst, int k, Mt64& rng) const {
    return dlid_policy_ == DlidPolicy::kRandom ? Lid(base_lid_[dst] + k) : Dlid(src, dst, rng);
  }

  // The engine's path SLs: `vl_policy` (the engine spreads VLs by SL, e.g.
  // xymesh shared) makes them the default (sl=auto). Without a function
  // sl=engine is refused.
  void SetPathSlFn(PathSlFn fn, bool vl_policy, SlPolicy policy);
  // Whether messages take their SL from PathSl (sl=engine, or auto with
  // an engine VL policy).
  bool UsesPathSl() const { return use_path_sl_; }
  // PathSl(src, dlid); cached per (src, unicast DLID) when small enough,
  // so a message pays a table lookup, not a virtual call.
  int PathSl(int src, Lid dlid) const;

  // Multicast: destination group (sorted end-port indices), and the same
  // hosts in host-number order (the order of emulating unicast copies).
  const std::vector<int>& group() const { return group_; }
  const std::vector<int>& group_by_number() const { return group_by_number_; }
  // Hardware multicast: trees the engine must build (MLIDs from 0xC001 on),
  // one per `mcast_trees` share of the sources, each holding the group plus
  // its sources (send-only members count for routing, as in IB).
  const std::vector<McastTree>& trees() const { return trees_; }
  int TreeOf(int src) const { return tree_of_[src]; }
  // Tree `t`'s members (group and outsiders), sorted: built on each call,
  // O(members), for set-up and reports rather than per packet.
  std::vector<int> Members(int t) const;
  int MemberCount(int t) const { return int(group_.size() + trees_[t].outsiders.size()); }
  // Rank of host `h` in tree `t`'s sorted member list (Members), or -1.
  int Rank(int t, int h) const;
  // Dump mode: replaces the group and trees by the one the dumped MFTs
  // deliver `mlid` to (members found from the masks), sources drawn from it
  // by host number, or `given` when not empty (each must be a member); in
  // unicast mode the group alone (copies go to its members, no tree).
  // GROUP other than all of them is refused.
  void UseDumpedTree(const Fabric& f, const Tables& t, int mlid, const GivenSources& given = {});
  // Engine mode: the sources are `given`, not drawn (as many as SOURCES
  // asks for); the trees are rebuilt around them.
  void UseGivenSources(const Fabric& f, const GivenSources& given);

  // Human note for stderr ("group of 12 hosts, 5 sources, 5 trees").
  std::string Describe() const;

 private:
  // The constructor's steps by pattern.
  void DrawGroupAndSources(const Fabric& f, Mt64& rng);
  void PermuteHostNumbers(const Params& p, Mt64& rng);
  void DrawDerangement(Mt64& rng);
  void TranslatePermutation();
  void BuildTrees();
  // `given` replaces the sources, drawn from `of` hosts (of_what names
  // them); refused unless it has the count SOURCES resolves to there.
  void TakeSources(const GivenSources& given, int of, const std::string& of_what);
  void SetSources(std::vector<int> end_ports);  // in host-number order, with their flags
  // A group that is its one source alone sends nothing: refused (`how`
  // says where that source came from, empty when drawn).
  void RefuseLoneSource(const Fabric& f, const std::string& how) const;
  std::vector<int> EndPortsOf(const std::vector<int>& numbers) const;
  // A host other than `src`, uniformly, drawn by host number: the same
  // seed picks the same host whatever the net file's order.
  int AnyOtherHost(int src, Mt64& rng) const {
    const int d = int(UniformBelow(rng, uint64_t(hosts_ - 1)));
    return host_at_[size_t(d >= Number(src) ? d + 1 : d)];
  }
  void SortByNumber(std::vector<int>& end_ports) const;
  // group_ stays sorted by end-port index (membership and Rank search it);
  // group_by_number_ holds the same hosts in host-number order.
  void SetGroup(std::vector<int> end_ports);
  int OtherDestination(int src, Mt64& rng) const;
  Lid OtherDlid(int src, int dst, Mt64& rng) const;
  // Dump mode: GROUP must be all of the dumped MLID's `members`.
  void RefuseGroupOtherThanDumped(int members, Lid mlid) const;
  // The param `key` (now `value`) as the user gave it, for messages.
  std::string NamedParam(const std::string& key, long long value) const;

  TrafficSpec spec_;
  ParamNames names_;
  McastMode mode_;
  int trees_wanted_;
  int hosts_;
  int hot_;
  uint64_t seed_;
  std::vector<int> sources_;
  std::vector<bool> source_flag_;
  std::vector<int> perm_;      // by end-port index: partner, -1 none
  std::vector<int> host_at_;   // host number -> end-port index (host_order)
  std::vector<int> number_of_;  // end-port index -> host number
  std::string order_name_;
  std::vector<int> group_;
  std::vector<int> group_by_number_;
  std::vector<McastTree> trees_;
  std::vector<int> tree_of_;
  DlidPolicy dlid_policy_;
  DlidFn dlid_fn_;
  // The engine rule's DLID per (src, dst), filled by SetDlidFn up to 256
  // hosts; above, the rule is called per message. A larger table is not
  // faster: tabulating FT(16,3)'s 2^20 pairs (2 MB) cut lean's
  // instructions by 4% (506 to 485 per hop) but slowed its wall time by
  // about 12% (interleaved, 5 of 5 runs slower): one more random line per
  // message in a working set already past L2.
  static constexpr size_t kMaxDlidTable = size_t(1) << 16;
  std::vector<Lid> dlid_table_;  // dlid=engine only
  PathSlFn path_sl_fn_;
  bool use_path_sl_ = false;
  Lid sl_lids_ = 0;                   // unicast LIDs covered by sl_table_
  std::vector<uint8_t> sl_table_;     // [src * sl_lids_ + dlid], hosts x LIDs when small enough
  std::vector<Lid> base_lid_;
  std::vector<int> lid_count_;
};

// The SLs MessageSl may give, each as likely (for analyses that weigh
// every draw): the 16 of sl=random, SL k for draw k, unless the engine's
// path SLs rule; otherwise the one it gives.
inline int SlDraws(const Workload& wl, const Params& p) {
  return !wl.UsesPathSl() && p.sl == SlPolicy::kRandom ? 16 : 1;
}
// SL of a message from `src` to `dlid` that no script entry fixes: the
// engine's path SL when the workload takes those, else the policy of `p`;
// `key` spreads the hash policy (unicast: Workload::PairKey).
template <typename Rng>
inline int MessageSl(const Workload& wl, const Params& p, int src, uint64_t key, Lid dlid, Rng& rng) {
  if (wl.UsesPathSl()) return wl.PathSl(src, dlid);
  switch (p.sl) {
    case SlPolicy::kFixed: return p.sl_value;
    case SlPolicy::kRandom: return int(UniformBelow(rng, 16));
    default:  // sl=hash, and sl=auto without path SLs: the usual case
      [[likely]] return int(Mix64(key) & 15);
  }
}

}  // namespace ibu::sim
