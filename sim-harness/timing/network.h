// Topology and routing as the timing model sees them: the ibu::Fabric
// flattened into "global ports" (one per switch port and one per end port,
// each the sending side of one direction of a link), the forwarding tables
// (LFT by DLID, MFT by MLID, copied out of ibu::Tables into flat arrays)
// and the SL-to-VL hook. Immutable after construction, so one Network is
// shared by every sweep point and thread.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "plugin/core/fabric.h"
#include "plugin/core/tables.h"
#include "plugin/core/verify/paths.h"
#include "sim-harness/timing/huge_pages.h"

namespace ibu::sim {

// VL a packet of service level `sl` takes leaving switch `sw` through
// `out_port` after arriving on `in_port` (OpenSM's SL2VL tables are per
// (in port, out port) pair). Hosts (sw = -1, in_port = 0) map at injection.
// Called once per (switch, in, out, SL) at set-up, never per packet.
using Sl2VlFn = std::function<int(int sw, int in_port, int out_port, int sl)>;

struct GlobalPort {
  int32_t peer = -1;   // global port at the other end; -1 unconnected
  int32_t node = -1;   // switch index, or end-port index when is_host
  uint8_t port = 0;    // port number on that node
  bool is_host = false;
};

// Multicast forwarding as the model reads it: per (MLID, switch) the out
// ports, port 0 dropped. Each distinct port list is stored once: a switch
// sends most MLIDs to the same ports (a leaf to its hosts, say), so with
// one tree per source the lists were nearly all repeats (FT(32,3),
// mcast:all:all: 200 MB of lists, 17 of them distinct). The offsets are still
// MLIDs x switches, 4 bytes each (42 MB there): with per-source trees
// that grows as hosts^2.
class FlatMfts {
 public:
  explicit FlatMfts(int switches = 0) : switches_(switches) {}
  int switches() const { return switches_; }
  // Room for `mlids` more MLIDs' offsets without regrowing (they are the
  // bulk, and doubling them would hold twice as much).
  void Reserve(size_t mlids) { off_.reserve(off_.size() + mlids * size_t(switches_)); }
  // Switch `sw` forwards `mlid` to the ports of `mask`; throws ibu::Error
  // when one is beyond the switch's ports or not cabled.
  void Set(const Fabric& f, int sw, Lid mlid, const PortMask& mask);
  // Moves `mlid`'s entries out of t (every switch's) into this, so that
  // the engine's tables never hold all the trees at once.
  void Take(const Fabric& f, Lid mlid, Tables& t);
  // Out ports of `mlid` at `sw`, or nullptr when the switch has no entry;
  // `*count` receives their number.
  const uint8_t* Ports(int sw, Lid mlid, int* count) const {
    const int g = mlid >= kMulticastLidBase && mlid - kMulticastLidBase < int(mlid_index_.size())
                      ? mlid_index_[mlid - kMulticastLidBase]
                      : -1;
    if (g < 0) return nullptr;
    const int32_t off = off_[size_t(g) * size_t(switches_) + size_t(sw)];
    if (off < 0) return nullptr;
    *count = ports_[off];
    return &ports_[off + 1];
  }

 private:
  int32_t IndexOf(Lid mlid);  // assigned on first sight
  int32_t Intern(const uint8_t* list, size_t n);  // n bytes: count, ports...
  int switches_;
  std::vector<int32_t> mlid_index_;                   // by mlid - 0xC000; -1 none
  std::vector<int32_t> off_;                          // [index * switches + sw] -> offset in ports_, or -1
  std::vector<uint8_t> ports_;                        // lists: count, ports...
  std::unordered_multimap<uint64_t, int32_t> lists_;  // a list's hash -> its offset
};

class Network {
 public:
  // Checks that the tables fit the fabric (sizes, out ports within range
  // and connected); throws ibu::Error naming the switch, LID and port.
  // `sl2vl` may be empty: VL = SL mod vls everywhere.
  // `taken`: MFT entries already moved out of t (FlatMfts::Take), joined
  // by those t still holds.
  Network(const Fabric& f, const Tables& t, int vls, const Sl2VlFn& sl2vl = nullptr,
          FlatMfts* taken = nullptr);
  // Moved, never copied: the LFT rows point into this network's block,
  // which a move hands over and a copy would not.
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;
  Network(Network&&) = default;
  Network& operator=(Network&&) = default;

  const Fabric& fabric() const { return *fabric_; }
  int vls() const { return vls_; }
  int num_hosts() const { return int(fabric_->end_ports.size()); }
  int num_switches() const { return int(fabric_->switches.size()); }
  int num_global_ports() const { return int(ports_.size()); }

  int SwitchPort(int sw, int port) const { return sw_base_[sw] + port; }
  int HostPort(int host) const { return host_base_ + host; }
  const GlobalPort& port(int gp) const { return ports_[gp]; }

  // Whether the network holds its own copy of every table, so the Tables it
  // was built from may be freed. Not when the LFTs exceed 1 GB or their
  // copy could not be allocated: then they are read in place and the
  // Tables must outlive the network.
  bool OwnsTables() const { return !lft_block_.empty() || lft_row_.empty(); }

  // Address of the LFT entry, never null: a byte holding kNoPort where
  // the switch has no entry, so that a caller may prefetch it, or keep it
  // and read it later without a test (the lean kernel's packets carry
  // theirs).
  const uint8_t* LftSlot(int sw, Lid dlid) const {
    return dlid < lft_len_[sw] ? lft_row_[sw] + dlid : &kNoEntry;
  }
  // LFT lookup; kNoPort when the switch has no entry.
  uint8_t Lft(int sw, Lid dlid) const { return *LftSlot(sw, dlid); }

  // Bytes of LFT the model looks up (switches x LIDs: the part of the
  // memory that grows fastest with the fabric).
  size_t LftBytes() const {
    size_t n = 0;
    for (uint32_t l : lft_len_) n += l;
    return n;
  }

  // MFT lookup: out ports of `mlid` at `sw` (port 0 dropped), or nullptr
  // when the switch has no entry for it. `*count` receives the number.
  const uint8_t* Mft(int sw, Lid mlid, int* count) const { return mfts_.Ports(sw, mlid, count); }

  int Vl(int sw, int in_port, int out_port, int sl) const {
    if (sl2vl_.empty()) return sl_mod_vls_[sl];
    const SwitchSl2Vl& s = sl2vl_[sw];
    return s.vl[(size_t(in_port) * s.stride + out_port) * 16 + sl];
  }
  int HostVl(int host, int sl) const {
    return host_vl_.empty() ? sl_mod_vls_[sl] : host_vl_[size_t(host) * 16 + sl];
  }
  // SLs that take the same VL on every hop, host links included, form a
  // class; the load analysis carries one load per class instead of per SL.
  // Per SL the lowest SL of its class (an SL, so Vl() and HostVl() take it).
  // O(SL2VL entries x classes), on demand.
  std::array<uint8_t, 16> SlClassLeaders() const;
  // Every SL takes one VL on every hop, host links included (no SL2VL
  // turns): a packet keeps its source's VL. Computed once with the tables.
  bool SlKeepsItsVl() const { return sl_keeps_vl_; }

  // The out port of `dlid` at `sw` for a packet that arrived on `in_port`
  // when the LFT names a usable one (set, not the switch itself, not the
  // arrival port, cabled), else kNoPort.
  int UsableOutPort(int sw, Lid dlid, int in_port) const {
    const uint8_t out = Lft(sw, dlid);
    if (out == kNoPort || out == 0 || out == in_port || ports_[SwitchPort(sw, out)].peer < 0) return kNoPort;
    return out;
  }
  // Why UsableOutPort refused, for the error: "no route: SW has no LFT
  // entry for LID 5 (packet arrived on port 2)" and alike.
  std::string RouteProblem(int sw, Lid dlid, int in_port) const;
  // Links a packet may cross before it is taken for a routing loop: the
  // verifier's and trace's limit (TraceHopLimit says why).
  int MaxHops() const { return TraceHopLimit(*fabric_); }

  // "switch NAME (...) port P" / "host NAME"
  std::string PortName(int gp) const;
  // Directed link label "A port 3 -> B port 1".
  std::string LinkName(int gp) const;

 private:
  // The constructor's steps, in order; each throws ibu::Error naming what
  // does not match.
  static void CheckTableCounts(const Fabric& f, const Tables& t);
  void NumberGlobalPorts(const Fabric& f);
  static void CheckLftPorts(const Fabric& f, const Tables& t);
  static void CheckEndPortLids(const Fabric& f, const Tables& t);
  void CopyLftRows(const Tables& t);
  void FlattenMfts(const Fabric& f, const Tables& t, FlatMfts* taken);
  void TabulateSl2Vl(const Fabric& f, int vls, const Sl2VlFn& sl2vl);

  struct SwitchSl2Vl {
    int stride = 0;
    std::vector<uint8_t> vl;
  };
  const Fabric* fabric_;
  int vls_;
  uint8_t sl_mod_vls_[16];  // the default map, SL mod vls, without a division per packet
  // LFTs copied into one block (huge pages where the kernel allows: the
  // lookups are random over many MB), or rows pointing into the tables.
  HugeVector<uint8_t> lft_block_;
  std::vector<const uint8_t*> lft_row_;
  std::vector<uint32_t> lft_len_;
  static constexpr uint8_t kNoEntry = kNoPort;
  std::vector<int32_t> sw_base_;
  int32_t host_base_ = 0;
  std::vector<GlobalPort> ports_;
  FlatMfts mfts_;
  std::vector<SwitchSl2Vl> sl2vl_;
  std::vector<uint8_t> host_vl_;
  bool sl_keeps_vl_ = true;  // without SL2VL tables VL = SL mod vls everywhere
  bool EverySlKeepsOneVl(const Fabric& f) const;
};

}  // namespace ibu::sim
