// The lean kernel (params kernel=lean): the timing rules of simulator.h,
// exactly, for unicast traffic with one-packet input and output buffers,
// with about 1.5 events per packet-hop instead of 2.6. The design is the
// prototype's (sim-harness/bench/lean_kernel/lean.cc, docs/benchmarks.md):
//
//  * a routing event per hop (the head looked up R after it arrived: all
//    wait the same R, so they queue in a ring in time order, beside the
//    event wheel), and a per-port service event only when the port has
//    something to do at a known later time (requesters waiting for the
//    output slot that frees when the tail leaves, a ready VL waiting for
//    its link or its credit).
//    A tail that leaves with nobody waiting makes no event: the output slot
//    and the link are free from that nanosecond on (`ofree`, `busy_until`
//    <= now), checked when next needed.
//  * the credit of a one-packet input buffer is one time stamp in the
//    sender's channel (`cred`: when the sender may use the slot again).
//  * output arbitration: per (output, VL) channel a bit mask of the input
//    ports whose head packet asks for it; round-robin over (input port,
//    input VL) keys by rotate + count trailing zeros, then the port's VLs.
//
// Same times as the classic kernel; what differs is the order of events of
// the same nanosecond (a link or slot freed at t is free for every event of
// t, not only for those after the classic TxDone event; the wheel's events
// of t come before its lookups), so the results agree statistically, not
// bit for bit.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "plugin/core/find_cycle.h"
#include "sim-harness/timing/event_queue.h"
#include "sim-harness/timing/huge_pages.h"
#include "sim-harness/timing/kernel_common.h"

namespace ibu::sim {

namespace {

// The wheel's events. A head's lookup (routing) is no wheel event: those
// wait in their own ring (routed_).
enum LeanEv : uint64_t {
  // The network event: while one is pending, a buffered packet can still
  // move (so can a head waiting for its lookup).
  kPort = 0,  // arg: global port; a service the port asked for (wake_at)
  kGen = 1,   // arg: host; a message arrives, the next is scheduled
  kScript = 2,
  kWindowEnd = 3,
  kStop = 4,
  kDeadlockCheck = 5,
  kWindowStart = 6,  // the links' busy time before w0 is noted (not counted as an event)
  kLastEvent = kWindowStart,
};
constexpr LeanEv EventOf(RunEvent e) {
  return e == RunEvent::kGen         ? kGen
         : e == RunEvent::kScript    ? kScript
         : e == RunEvent::kWindowEnd ? kWindowEnd
                                     : kStop;
}
// An event word: the argument above the type's three bits (decoding is an
// and and a shift, no 64-bit mask constant to load per event).
constexpr int kTypeBits = 3;
static_assert(kLastEvent < (1 << kTypeBits), "every event type fits the type bits");
inline uint64_t Ev(LeanEv t, uint64_t arg) { return (arg << kTypeBits) | uint64_t(t); }
inline uint64_t TypeOf(uint64_t ev) { return ev & ((1u << kTypeBits) - 1); }
inline uint64_t ArgOf(uint64_t ev) { return ev >> kTypeBits; }

constexpr int64_t kHeld = std::numeric_limits<int64_t>::max();  // a slot taken, time unknown
constexpr uint32_t kNoPkt = ~uint32_t(0);
constexpr int32_t kNone = -1;
// Request masks hold one bit per input port number (port 0 is management).
constexpr int kMaxLeanPort = 63;

#define IBU_LEAN_HOT __attribute__((always_inline)) inline

// Times compared by value, so that the compiler selects without a branch:
// std::min and std::max, which return references, compiled to branches
// here, and either time may win.
IBU_LEAN_HOT int64_t Earlier(int64_t a, int64_t b) { return b < a ? b : a; }
IBU_LEAN_HOT int64_t Later(int64_t a, int64_t b) { return a < b ? b : a; }

// kV: the VL count (1, 2, 4 or 8), a constant so that channel addressing
// and round-robin arithmetic fold.
template <int kV>
class LeanKernel final : public Simulator::Impl, private MessageSide<LeanKernel<kV>> {
 public:
  LeanKernel(const Network& net, const Workload& wl, const Params& p, double load, uint64_t seed);

  void AddMessage(int64_t t, int src, int dst, uint32_t bytes, int sl) override;
  PointResult Run() override;
  uint64_t DeliveredTo(int h) const override { return host_pkts_.at(h); }

 private:
  // Per global port, the sending side of its link: 32 bytes, two a cache
  // line (the prototype's compactness is much of its speed).
  struct alignas(32) Port {
    int64_t busy_until = 0;   // link free from this ns on
    int64_t wake_at = kHeld;  // pending service event, kHeld = none
    int32_t peer = -1;        // global port at the far end
    int32_t node = -1;        // switch or host index
    int32_t peer_node = -1;   // ... of the peer
    uint8_t peer_port = 0;    // the peer's port number (switches: at most kMaxLeanPort)
    uint8_t kind = 0;         // kIsHost | kToHost
    uint8_t ready = 0;        // VLs with a packet to start (output slot full, host queue not empty)
    uint8_t rr_vl = 0;        // last VL started (the one on the wire while busy)
  };
  static constexpr uint8_t kIsHost = 1, kToHost = 2;
  static bool IsHost(const Port& P) { return P.kind & kIsHost; }
  static bool ToHost(const Port& P) { return P.kind & kToHost; }
  // Per channel (sending global port << vsh | VL): the sender's output
  // slot, the credit and the input slot at the far end it feeds.
  // 32 bytes; the round-robin pointer lives apart (rr_last_).
  struct alignas(32) Chan {
    int64_t ofree = 0;        // output slot free from this ns; kHeld while it holds a packet
    int64_t cred = 0;         // far input slot usable from this ns; kHeld while occupied
    uint64_t req = 0;         // switch output: bit per input port with a head asking for it
    uint32_t opkt = kNoPkt;   // packet in the output slot
    uint32_t inpkt = kNoPkt;  // packet in the far input slot
  };
  // 32 bytes: none straddles two cache lines (at 28 bytes about 4 in 10
  // did, two misses on large fabrics).
  struct alignas(32) Packet {
    // Its LFT entry at the switch it arrived at (Network::LftSlot), looked
    // up once as it is sent there: routing and the look-ahead read it
    // without the switch's row (the switch is the feeding port's peer).
    const uint8_t* lft;
    uint32_t msg;
    int32_t upch;  // channel feeding its input slot
    int32_t want;  // output channel asked for, kNone before routing or after the grant
    int32_t base;  // global port of its switch's port 0, set as it is sent there: OutPortOf reads no port
    uint16_t dlid, bytes, hops;
    uint8_t in_port, sl;  // at most kMaxLeanPort; 0-15
  };
  static_assert(sizeof(Packet) == 32, "a packet in one half cache line");
  struct Message {
    int64_t gen_ns, last_ns;
    int32_t next;  // host queue link
    uint32_t bytes, sent, npackets, delivered, remaining;
    uint16_t dlid;
    uint16_t sl, vl;  // not bytes: byte stores may alias anything, and cost 0.3-0.8 instructions per hop
    bool measured;
  };
  using Mode = RunMode;

  // --- set-up ---
  static int64_t MaxNetworkDelay(const Params& p) {
    return std::max<int64_t>(p.fly_ns + p.route_ns, int64_t(p.packet_bytes) * p.byte_ns + p.fly_ns);
  }
  void CheckSupported() const {
    const std::string why = LeanKernelRefusal(net_, wl_, p_);
    if (!why.empty()) throw SimFailure("kernel=lean: " + why);
  }
  void BuildPorts();

  // --- addressing ---
  Chan& Ch(size_t c) { return chan_[c]; }
  const Chan& Ch(size_t c) const { return chan_[c]; }
  size_t ChanOf(int gp, int vl) const { return (size_t(gp) << vsh_) | size_t(vl); }
  // The VL a packet arrived on: that of the channel feeding its input slot.
  static int InVl(const Packet& K) { return K.upch & int(vmask_); }
  // The global port a packet arrived on, and its switch.
  int InPort(const Packet& K) const { return K.base + K.in_port; }
  int InSwitch(const Packet& K) const { return port_[K.upch >> vsh_].peer_node; }
  // The global port of port `out` of the switch K is at: a switch's global
  // ports are consecutive (BuildPorts checks it), so no switch row is read.
  int OutPortOf(const Packet& K, int out) const { return K.base + out; }
  int64_t Dur(int bytes) const { return int64_t(bytes) * p_.byte_ns; }
  // A packet's link time. When no message of the run leaves a short
  // packet it is one constant, so that a grant (the credit's time) and a
  // port service (the link's) need not wait for the packet's line, which
  // is seldom in cache there: 1.00-1.04 on FT(16,3), most past saturation
  // (docs/benchmarks.md, session 55).
  int64_t LinkTime(const Packet& K) const { return full_dur_ > 0 ? full_dur_ : Dur(K.bytes); }
  bool EveryPacketFull() const;

  // --- events ---
  void Push(int64_t t, LeanEv type, uint64_t arg) {
    if (type == kPort) ++pending_services_;
    q_.Push(t, Ev(type, arg));
  }
  // Where the ring keeps its i-th entry since the run began, and that entry.
  size_t RoutedSlot(uint64_t i) const { return size_t(i & routed_mask_); }
  uint32_t RoutedAt(uint64_t i) const { return routed_[RoutedSlot(i)]; }
  // Packet pi's head is looked up routed_ns_ from now: every push of a
  // nanosecond falls at the same time, so the ring keeps no times, and
  // MarkRouted notes where that nanosecond's pushes end.
  IBU_LEAN_HOT void PushRouted(uint32_t pi) { routed_[RoutedSlot(routed_tail_++)] = pi; }
  // At the end of nanosecond t: the lookups pushed during it are due at
  // t + routed_ns_, up to the ring's tail.
  IBU_LEAN_HOT void MarkRouted(int64_t t) {
    if (routed_tail_ == marked_tail_) return;
    due_[due_tail_++ & due_mask_] = {t + routed_ns_, routed_tail_};
    marked_tail_ = routed_tail_;
  }
  // When the oldest head waiting for its lookup is due (EventQueue::kNever
  // when none waits).
  int64_t NextRouted() const {
    return due_head_ == due_tail_ ? EventQueue::kNever : due_[due_head_ & due_mask_].t;
  }
  // Port p must look again at `t` (> now): one event, the earliest asked.
  IBU_LEAN_HOT void EnsureWake(int p, int64_t t) {
    if (t < port_[p].wake_at) {
      port_[p].wake_at = t;
      Push(t, kPort, uint64_t(p));
    }
  }
  void Reschedule(int p, const Chan& last);
  void Reschedule(int p) { Reschedule(p, Ch(ChanOf(p, port_[p].rr_vl))); }
  void OnRouted(uint32_t pi);
  void OnPort(int p);
  void TryStart(int p);
  void Kick(int p, int vl);
  void StartTx(int p, int vl);
  int64_t BusyBefore(int p, int64_t t) const;
  void NoteBusyBefore(int64_t t, std::vector<int64_t>* busy);
  uint32_t NextHostPacket(Port& P, int vl);
  void Grant(uint32_t pi, int upch, int oc, int key);
  void Arbitrate(int oc);
  // The input channel (feeding channel) of input port `in_port`, VL `vl`
  // of switch `sw` whose head asks for `oc`, or kNone.
  int32_t Asking(int sw, int in_port, int vl, int oc) const;
  void Deliver(uint32_t pi, int h, int64_t t);
  void MessageDone(uint32_t mi);

  // --- traffic ---
  bool Measured(int64_t t) const { return mode_ != Mode::kSteady || (t >= w0_ && t < w1_); }
  uint32_t PacketsOf(uint32_t bytes) const {
    return (bytes + uint32_t(p_.packet_bytes) - 1) / uint32_t(p_.packet_bytes);
  }
  bool GenerateOp(int src, int dst_hint, uint32_t bytes, int sl_hint, int64_t t, bool precounted);
  // The message side (kernel_common.h), shared with the classic kernel.
  friend class MessageSide<LeanKernel>;
  using Side = MessageSide<LeanKernel>;
  using Side::BackloggedHotBytes;
  using Side::CheckDone;
  using Side::EndOfRun;
  using Side::Materialise;
  using Side::OnGen;
  using Side::OnScript;
  static constexpr LeanEv kGenEvent = kGen;
  static uint64_t Receivers(int) { return 1; }  // unicast only

  uint32_t AllocPacket();
  void FreePacket(uint32_t pi) {
    free_pkts_.push_back(pi);
    --live_pkts_;
  }

  // --- deadlock ---
  bool FindCycle(std::vector<int>* cycle) const;
  void ReportDeadlock(bool stalled);

  // --- run ---
  template <bool kPrefetch>
  [[gnu::noinline]] void EventLoop();
  void ScheduleRun();
  void FillResult(double wall);
  double Done() const {
    if (mode_ == Mode::kSteady) return std::min(0.99, double(q_.now()) / double(std::max<int64_t>(1, w1_)));
    return counters_.expected_total
               ? std::min(0.99, double(counters_.delivered_total) / double(counters_.expected_total))
               : 0.0;
  }
  template <typename F>
  [[noreturn, gnu::cold, gnu::noinline]] void FailWith(const F& what) {
    std::ostringstream os;
    os << "t=" << q_.now() << " ns: " << what();
    throw SimFailure(os.str());
  }

  // Fabrics whose tables and channels outgrow the L1 are bound by memory
  // latency: look a few lookups ahead in the ring (across nanoseconds) and
  // fetch what they will read, and a few port services ahead in the
  // current nanosecond (cannot change what is computed). Distances and the
  // threshold as measured (docs/benchmarks.md, session 52): on FT(8,3)
  // (270 KB) the look-ahead gains 6%, on FT(4,3) (15 KB) it costs 1%.
  static constexpr size_t kAheadFar = 8, kAheadMid = 5, kAheadNear = 2;
  static constexpr size_t kPrefetchAboveBytes = size_t(128) << 10;
  IBU_LEAN_HOT void PrefetchPort(uint64_t ev) const {
    if (TypeOf(ev) == kPort) __builtin_prefetch(&port_[ArgOf(ev)]);
  }
  // The ring entry `ahead` places after the next lookup, or null.
  const uint32_t* RoutedAhead(size_t ahead) const {
    return routed_head_ + ahead < routed_tail_ ? &routed_[RoutedSlot(routed_head_ + ahead)] : nullptr;
  }
  // The three steps of the look-ahead; one test when the ring holds the
  // farthest (the usual case on the fabrics that prefetch).
  IBU_LEAN_HOT void PrefetchRoutedAhead() const {
    static_assert(kAheadNear < kAheadMid && kAheadMid < kAheadFar, "the far step is the farthest");
    const uint64_t h = routed_head_;
    if (h + kAheadFar < routed_tail_) [[likely]] {
      PrefetchFar(RoutedAt(h + kAheadFar));
      PrefetchMid(RoutedAt(h + kAheadMid));
      PrefetchNear(RoutedAt(h + kAheadNear));
      return;
    }
    if (const uint32_t* e = RoutedAhead(kAheadMid)) PrefetchMid(*e);
    if (const uint32_t* e = RoutedAhead(kAheadNear)) PrefetchNear(*e);
  }
  IBU_LEAN_HOT void PrefetchFar(uint32_t pi) const { __builtin_prefetch(&pkts_[pi]); }
  IBU_LEAN_HOT void PrefetchMid(uint32_t pi) const {
    const Packet& P = pkts_[pi];
    __builtin_prefetch(P.lft);
    __builtin_prefetch(&chan_[size_t(P.upch)]);
  }
  // Reads the LFT entry fetched above: the output channel and port the
  // routing will touch.
  IBU_LEAN_HOT void PrefetchNear(uint32_t pi) const {
    const Packet& P = pkts_[pi];
    const uint8_t out = *P.lft;
    if (out == kNoPort || out == 0) return;
    const int o = OutPortOf(P, out);
    // With one VL per SL the packet keeps its VL: no SL2VL read.
    const int ovl = vl_fixed_ ? InVl(P) : net_.Vl(InSwitch(P), P.in_port, out, P.sl);
    __builtin_prefetch(&chan_[ChanOf(o, ovl)]);
    __builtin_prefetch(&port_[o]);
  }

  // --- configuration ---
  const Network& net_;
  const Workload& wl_;
  Params p_;
  double load_;
  Mt64 rng_;
  int H_, G_;
  static constexpr int V_ = kV;
  static constexpr int vsh_ = kV <= 1 ? 0 : kV <= 2 ? 1 : kV <= 4 ? 2 : 3;
  static constexpr uint32_t vmask_ = (1u << vsh_) - 1;
  int max_hops_;
  int64_t full_dur_ = 0;  // Dur(packet_bytes) when EveryPacketFull, else 0 (set by Run)
  int64_t routed_ns_;  // a head is looked up this long after its link starts: fly + route
  Mode mode_;
  int64_t w0_ = 0, w1_ = 0, gen_end_ = 0;
  ArrivalProcess arrivals_;
  std::vector<Lid> host_base_;
  std::vector<uint16_t> host_lids_;
  bool prefetch_ahead_ = false;
  // Every SL has one VL on every link (no SL2VL turns, as on fat-trees):
  // all requesters of an output channel are on its VL, and arbitration
  // need not look at the others.
  bool vl_fixed_ = false;

  // --- state ---
  // HugeVector: large fabrics' per-hop state, read at random (huge_pages.h).
  EventQueue q_;
  // Heads waiting for their lookup, in the order their links started:
  // each waits routed_ns_, so the ring is in time order and they need no
  // wheel (two events in three). An entry is the packet; its time is that
  // of its nanosecond's mark (due_). The ring cannot overfill, so it is
  // not checked (a check per push cost FT(16,3) 3%): an entry holds an
  // input slot (cred = kHeld) until its lookup, and the ring has a place
  // for every channel.
  HugeVector<uint32_t> routed_;
  uint64_t routed_head_ = 0, routed_tail_ = 0, routed_mask_ = 0;
  // Per nanosecond with pushes, in time order: when its lookups are due
  // and where they end in the ring (MarkRouted). Counting a nanosecond's
  // lookups this way, instead of testing a time kept in each entry, was
  // 1.00-1.03 (docs/benchmarks.md, session 56).
  struct Due {
    int64_t t;
    uint64_t end;
  };
  std::vector<Due> due_;
  uint64_t due_head_ = 0, due_tail_ = 0, due_mask_ = 0, marked_tail_ = 0;
  HugeVector<Port> port_;
  HugeVector<Chan> chan_;
  HugeVector<uint16_t> rr_last_;  // per channel: last (input port << vsh | VL) granted
  // Per port: ns of all packets started on the link, and the part of it
  // before w0 and before w1, noted at those times (NoteBusyBefore). The
  // window's busy time is their difference: one add per hop, no test of
  // the window.
  HugeVector<int64_t> link_sent_;
  std::vector<int64_t> busy_before_w0_, busy_before_w1_;
  HugeVector<Packet> pkts_;
  std::vector<uint32_t> free_pkts_;
  std::vector<Message> msgs_;
  std::vector<uint32_t> free_msgs_;
  std::vector<int32_t> hq_head_, hq_tail_;  // per (host, VL) message queue
  std::vector<ScriptEntry> script_;
  ArrivalBacklog backlog_;
  std::vector<uint32_t> inflight_msgs_;  // per host: queued messages not fully sent

  uint64_t pending_services_ = 0;  // kPort events in the wheel (the stall check: EventLoop)
  uint64_t live_pkts_ = 0;
  uint64_t live_ops_ = 0;
  uint64_t gen_pending_ = 0;
  uint64_t measured_pending_ = 0;
  bool window_over_ = false;
  bool stop_ = false;
  bool hit_limit_ = false;

  // --- statistics (stats.h) ---
  RunCounters counters_;
  // counters_.vl_hops and their sum, counters_.hops, until FillResult (no
  // vector to load, one count per hop)
  uint64_t vl_hops_[kV] = {};
  std::vector<uint64_t> host_pkts_;
  std::vector<uint64_t> host_rx_;
  int hot_ = -1;
  LatencySamples latencies_;
  PointResult result_;
};

template <int kV>
LeanKernel<kV>::LeanKernel(const Network& net, const Workload& wl, const Params& p, double load,
                           uint64_t seed)
    : net_(net),
      wl_(wl),
      p_(p),
      load_(load),
      rng_(seed),
      H_(net.num_hosts()),
      G_(net.num_global_ports()),
      max_hops_(net.MaxHops()),
      routed_ns_(p.fly_ns + p.route_ns),
      q_(EventQueue::WheelBitsFor(MaxNetworkDelay(p)) + 1) {
  ValidateParams(p_);
  if (net.vls() != kV || p_.vls != kV) throw SimFailure("internal: network built for a different VL count");
  if (p_.sl == SlPolicy::kEngine && !wl_.UsesPathSl())
    throw SimFailure("sl=engine: the workload has no engine path SLs (Workload::SetPathSlFn)");
  CheckSupported();
  mode_ = p_.batch > 0 ? Mode::kBatch : (load_ > 0 ? Mode::kSteady : Mode::kScript);
  if (wl_.spec().pattern == Pattern::kCentric) hot_ = wl_.hot();
  BuildPorts();
  host_base_.resize(H_);
  host_lids_.resize(H_);
  for (int h = 0; h < H_; ++h) {
    host_base_[h] = net_.fabric().end_ports[h].base_lid;
    host_lids_[h] = uint16_t(net_.fabric().end_ports[h].lid_count());
  }
  hq_head_.assign(size_t(H_) * V_, kNone);
  hq_tail_.assign(size_t(H_) * V_, kNone);
  backlog_ = ArrivalBacklog(H_);
  inflight_msgs_.assign(H_, 0);
  host_rx_.assign(H_, 0);
  host_pkts_.assign(H_, 0);
  counters_.vl_hops.assign(V_, 0);
  // Every live packet sits in one input or output slot.
  pkts_.reserve(chan_.size() * 2 + 16);
  size_t ring = 1;
  while (ring < chan_.size()) ring *= 2;
  routed_.assign(ring, 0);
  routed_mask_ = ring - 1;
  // A mark per nanosecond of the last routed_ns_ with pushes, each with
  // at least one lookup in the ring.
  size_t marks = 1;
  while (marks < ring && int64_t(marks) < routed_ns_ + 2) marks *= 2;
  due_.assign(marks, Due{});
  due_mask_ = marks - 1;
  vl_fixed_ = net_.SlKeepsItsVl();
  prefetch_ahead_ = net_.LftBytes() + chan_.size() * sizeof(Chan) > kPrefetchAboveBytes;
}

template <int kV>
void LeanKernel<kV>::BuildPorts() {
  port_.assign(G_, Port{});
  chan_.assign(size_t(G_) << vsh_, Chan{});
  rr_last_.assign(chan_.size(), 0);
  link_sent_.assign(G_, 0);
  const uint16_t no_last = uint16_t(((kMaxLeanPort + 1) << vsh_) - 1);  // round-robin starts at port 0
  for (int gp = 0; gp < G_; ++gp) {
    Port& P = port_[gp];
    const GlobalPort& g = net_.port(gp);
    P.peer = g.peer;
    P.node = g.node;
    P.peer_node = g.peer >= 0 ? net_.port(g.peer).node : -1;
    P.peer_port = g.peer >= 0 ? uint8_t(net_.port(g.peer).port) : 0;
    P.kind = uint8_t((g.is_host ? kIsHost : 0) | (g.peer >= 0 && net_.port(g.peer).is_host ? kToHost : 0));
    P.rr_vl = uint8_t(V_ - 1);
    // OutPortOf relies on it.
    if (g.peer >= 0 && !net_.port(g.peer).is_host && g.peer - P.peer_port != net_.SwitchPort(P.peer_node, 0))
      throw SimFailure("internal: switch ports not numbered consecutively");
    for (int vl = 0; vl < V_; ++vl) rr_last_[ChanOf(gp, vl)] = no_last;
  }
}

template <int kV>
void LeanKernel<kV>::AddMessage(int64_t t, int src, int dst, uint32_t bytes, int sl) {
  if (src < 0 || src >= H_ || dst >= H_) throw SimFailure("AddMessage: host index out of range");
  if (dst < 0) throw SimFailure("kernel=lean: supports unicast traffic only; got a multicast script message");
  script_.push_back({t, src, dst, sl, bytes ? bytes : msg_bytes_});
}

template <int kV>
uint32_t LeanKernel<kV>::AllocPacket() {
  ++live_pkts_;
  if (!free_pkts_.empty()) {
    const uint32_t pi = free_pkts_.back();
    free_pkts_.pop_back();
    return pi;
  }
  if (pkts_.size() == pkts_.capacity())
    FailWith([] { return "internal: more packets alive than buffer slots"; });
  pkts_.emplace_back();
  return uint32_t(pkts_.size() - 1);
}

// --- ports and links ---

// When the (busy or blocked) port p must look again: the end of its
// transmission if requesters wait for the output slot that frees then, or
// the first moment a ready VL has both the link and a credit. `last` must
// be the channel of the port's last VL started (rr_vl): StartTx has it at
// hand, the other callers take the one-argument form.
template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::Reschedule(int p, const Chan& last) {
  const Port& P = port_[p];
  int64_t need = kHeld;
  // kHeld (a slot held, a credit not back) is the largest time: it never wins.
  if (last.req) need = last.ofree;
  for (uint32_t m = P.ready; m; m &= m - 1)
    need = Earlier(need, Later(Ch(ChanOf(p, __builtin_ctz(m))).cred, P.busy_until));
  if (need != kHeld) EnsureWake(p, need);
}

template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::OnPort(int p) {
  Port& P = port_[p];
  if (P.wake_at != q_.now()) return;  // superseded by an earlier service
  P.wake_at = kHeld;
  if (P.busy_until > q_.now()) {
    Reschedule(p);
    return;
  }
  // The slot the last tail freed goes to a requester first (what the
  // classic TxDone does). Only a service finds one waiting: a lookup that
  // finds a free slot takes it (OnRouted checks that nobody waits), and a
  // slot freed at t with requesters has a service at t, which runs before
  // t's lookups (so TryStart from Kick need not look).
  if (!IsHost(P)) {
    const int last = int(ChanOf(p, P.rr_vl));
    if (Ch(last).req && Ch(last).ofree <= q_.now()) Arbitrate(last);
  }
  TryStart(p);
}

// Port p, link free now (and its freed slot given to a waiting requester,
// if any: OnPort): the next VL in round-robin order with a credit starts.
template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::TryStart(int p) {
  Port& P = port_[p];
  const int64_t now = q_.now();
  // One ready VL (the common case): no round-robin to do.
  const uint32_t ready = P.ready;
  if ((ready & (ready - 1)) == 0) {
    if (ready) {
      const int vl = __builtin_ctz(ready);
      if (ToHost(P) || Ch(ChanOf(p, vl)).cred <= now) {
        StartTx(p, vl);
        return;
      }
    }
    Reschedule(p);
    return;
  }
  // The ready VLs rotated so that bit 0 is the one after the last sent.
  const uint32_t s = (P.rr_vl + 1) & vmask_;
  const uint32_t all = (1u << kV) - 1;
  for (uint32_t m = ((P.ready >> s) | (P.ready << ((kV - s) & vmask_))) & all; m; m &= m - 1) {
    const int vl = int((__builtin_ctz(m) + s) & vmask_);
    if (ToHost(P) || Ch(ChanOf(p, vl)).cred <= now) {
      StartTx(p, vl);
      return;
    }
  }
  Reschedule(p);
}

// VL vl of port p has just become ready.
template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::Kick(int p, int vl) {
  const Port& P = port_[p];
  if (P.busy_until <= q_.now()) {
    TryStart(p);
  } else {
    const int64_t cr = Ch(ChanOf(p, vl)).cred;
    if (cr != kHeld) EnsureWake(p, Later(cr, P.busy_until));
  }
}

// The next packet of the VL queue vl of host port P, made as it leaves
// (classic HostTransmitNext); StartTx then lets the backlog in.
template <int kV>
IBU_LEAN_HOT uint32_t LeanKernel<kV>::NextHostPacket(Port& P, int vl) {
  const int h = P.node;
  const size_t q = size_t(h) * V_ + vl;
  const int32_t mi = hq_head_[q];
  Message& m = msgs_[mi];
  const uint32_t bytes = std::min<uint32_t>(uint32_t(p_.packet_bytes), m.bytes - m.sent);
  m.sent += bytes;
  const bool last = m.sent == m.bytes;
  if (last) {
    hq_head_[q] = m.next;
    if (m.next == kNone) {
      hq_tail_[q] = kNone;
      P.ready &= uint8_t(~(1u << vl));
    }
    --inflight_msgs_[h];
  }
  const uint32_t pi = AllocPacket();
  Packet& K = pkts_[pi];
  K.msg = uint32_t(mi);
  K.dlid = m.dlid;
  K.bytes = uint16_t(bytes);
  K.sl = uint8_t(m.sl);
  K.hops = 0;
  K.want = kNone;
  ++counters_.injected;
  return pi;
}

// The ns link p was busy before t, for t >= now: a link sends one packet
// at a time, so of all it has sent only the rest of the last one, still on
// the wire, can lie at or after t.
template <int kV>
int64_t LeanKernel<kV>::BusyBefore(int p, int64_t t) const {
  return link_sent_[p] - std::max<int64_t>(0, port_[p].busy_until - t);
}

// Once: every link's BusyBefore(t), at t, or before it once the run has
// stopped (nothing is sent after that).
template <int kV>
void LeanKernel<kV>::NoteBusyBefore(int64_t t, std::vector<int64_t>* busy) {
  if (!busy->empty()) return;
  if (t <= 0) {  // nothing is sent before the run starts
    busy->assign(G_, 0);
    return;
  }
  if (q_.now() > t) FailWith([&] { return "internal: link busy time noted after t=" + std::to_string(t); });
  busy->resize(G_);
  for (int p = 0; p < G_; ++p) (*busy)[p] = BusyBefore(p, t);
}

// Port p (link free now) starts VL vl.
template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::StartTx(int p, int vl) {
  Port& P = port_[p];
  const int64_t now = q_.now();
  Chan& c = Ch(ChanOf(p, vl));
  uint32_t pi;
  if (IsHost(P)) {
    // A switch port gets packets only once OnRouted found it cabled.
    if (P.peer < 0)
      FailWith([&] { return "internal: a packet sent on the uncabled port " + net_.PortName(p); });
    pi = NextHostPacket(P, vl);
  } else {
    pi = c.opkt;
    c.opkt = kNoPkt;
    P.ready &= uint8_t(~(1u << vl));
  }
  Packet& K = pkts_[pi];
  const int64_t dur = LinkTime(K);
  c.ofree = now + dur;
  P.busy_until = now + dur;
  P.rr_vl = uint8_t(vl);
  ++vl_hops_[vl];
  link_sent_[p] += dur;
  if (ToHost(P)) {
    Deliver(pi, P.peer_node, now + p_.fly_ns + dur);
    FreePacket(pi);
    ++counters_.freed_delivered;
  } else {
    c.cred = kHeld;
    c.inpkt = pi;
    K.in_port = P.peer_port;
    K.base = P.peer - P.peer_port;
    K.upch = int32_t(ChanOf(p, vl));
    if (++K.hops > max_hops_)
      FailWith([&] {
        return "routing loop: a packet for LID " + std::to_string(K.dlid) + " has crossed " +
               std::to_string(max_hops_) + " links, now at " + net_.PortName(P.peer);
      });
    // Prefetched on every fabric: skipping it where the tables fit the
    // caches saved 6 instructions per hop but was 5% slower on FT(8,3),
    // best of 12 (docs/benchmarks.md, "Closing part of the gap").
    K.lft = net_.LftSlot(P.peer_node, K.dlid);
    __builtin_prefetch(K.lft);
    PushRouted(pi);
  }
  P.wake_at = kHeld;  // a pending service is superseded: Reschedule asks again
  Reschedule(p, c);
  // The adapter has room again: its oldest waiting arrival enters, now
  // that the link is busy (entering kicks the port, which must not start
  // a second packet).
  if (IsHost(P)) {
    const int h = P.node;
    if (inflight_msgs_[h] < uint32_t(p_.nic_msgs) && backlog_.Waiting(h)) Materialise(h);
  }
}

// --- switches ---

template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::OnRouted(uint32_t pi) {
  Packet& K = pkts_[pi];
  const int in_port = K.in_port;
  // Network::UsableOutPort's checks; Network says what is wrong.
  const uint8_t out = *K.lft;
  if (out == kNoPort || out == 0 || out == in_port)
    FailWith([&] { return net_.RouteProblem(InSwitch(K), K.dlid, in_port); });
  // Cabled: Network::CheckLftPorts refused tables with an entry for an
  // end port's LID that names an uncabled port (7 instructions a hop here).
  const int o = OutPortOf(K, out);
  // With one VL per SL everywhere the packet keeps its VL (no table look-up).
  const int vl = InVl(K);
  const int ovl = vl_fixed_ ? vl : net_.Vl(InSwitch(K), in_port, out, K.sl);
  const int oc = int(ChanOf(o, ovl));
  const int key = (in_port << vsh_) | vl;
  Chan& c = Ch(oc);
  K.want = oc;
  if (c.ofree <= q_.now()) {
    // A free slot has no requesters here: they are granted by the service
    // at the time it frees, which runs before that nanosecond's lookups
    // (OnPort), and requests are only made while the slot is taken.
    if (c.req != 0)
      FailWith([] { return "internal: a lookup found a free output slot with requesters waiting"; });
    Grant(pi, K.upch, oc, key);
    Kick(o, ovl);
  } else {
    c.req |= uint64_t(1) << in_port;
    if (c.ofree != kHeld) EnsureWake(o, c.ofree);
  }
}

// Packet pi (head of the input `key` of oc's switch, fed by channel upch)
// moves into oc's free output slot: its input slot empties as its tail
// leaves, and the credit reaches the sender F later. The caller names upch
// (the packet's own upch) so that the sender's lines are fetched beside
// the packet's, not after it: Arbitrate's winner is seldom in cache.
template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::Grant(uint32_t pi, int upch, int oc, int key) {
  Packet& K = pkts_[pi];
  Chan& u = Ch(size_t(upch));
  u.inpkt = kNoPkt;
  u.cred = q_.now() + LinkTime(K) + p_.fly_ns;
  const int up = upch >> vsh_;
  if (port_[up].ready >> (upch & int(vmask_)) & 1) EnsureWake(up, Later(u.cred, port_[up].busy_until));
  K.want = kNone;
  Chan& c = Ch(oc);
  c.opkt = pi;
  c.ofree = kHeld;
  rr_last_[oc] = uint16_t(key);
  port_[oc >> vsh_].ready |= uint8_t(1u << (oc & int(vmask_)));
}

template <int kV>
int32_t LeanKernel<kV>::Asking(int sw, int in_port, int vl, int oc) const {
  const int up = port_[net_.SwitchPort(sw, in_port)].peer;
  if (up < 0) return kNone;
  const int32_t upch = int32_t(ChanOf(up, vl));
  const uint32_t pi = Ch(upch).inpkt;
  return pi != kNoPkt && pkts_[pi].want == oc ? upch : kNone;
}

// oc's slot is free and requesters wait: the first (input port, VL) after
// the last one granted, in that order, wins.
template <int kV>
void LeanKernel<kV>::Arbitrate(int oc) {
  Chan& c = Ch(oc);
  const int sw = port_[oc >> vsh_].node;
  if (vl_fixed_) {  // every requester is on oc's VL: ports in round-robin order
    const int s = ((rr_last_[oc] >> vsh_) + 1) & 63;
    const uint64_t r = (c.req >> s) | (c.req << ((64 - s) & 63));
    const int port = (__builtin_ctzll(r) + s) & 63;
    const int vl = oc & int(vmask_);
    // The bit says that input holds the requester: no need to read its want.
    const int32_t upch = int32_t(ChanOf(port_[net_.SwitchPort(sw, port)].peer, vl));
    if (Ch(upch).inpkt == kNoPkt) FailWith([] { return "internal: a request bit without a requester"; });
    c.req &= ~(uint64_t(1) << port);
    Grant(Ch(upch).inpkt, upch, oc, (port << vsh_) | vl);
    return;
  }
  const int last_port = rr_last_[oc] >> vsh_, last_vl = rr_last_[oc] & int(vmask_);
  int port = -1, upch = kNone;
  if (c.req >> last_port & 1)  // the last port's later VLs first
    for (int vl = last_vl + 1; vl < V_ && upch == kNone; ++vl)
      if ((upch = Asking(sw, last_port, vl, oc)) != kNone) port = last_port;
  if (upch == kNone) {
    const int s = (last_port + 1) & 63;
    const uint64_t r = (c.req >> s) | (c.req << ((64 - s) & 63));
    port = (__builtin_ctzll(r) + s) & 63;
    for (int vl = 0; vl < V_ && upch == kNone; ++vl) upch = Asking(sw, port, vl, oc);
    if (upch == kNone) FailWith([] { return "internal: a request bit without a requester"; });
  }
  const int vl = upch & int(vmask_);
  bool more = false;  // another VL of the same port still asks
  for (int w = 0; w < V_ && !more; ++w) more = w != vl && Asking(sw, port, w, oc) != kNone;
  if (!more) c.req &= ~(uint64_t(1) << port);
  Grant(Ch(upch).inpkt, upch, oc, (port << vsh_) | vl);
}

// --- hosts ---

template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::Deliver(uint32_t pi, int h, int64_t t) {
  const Packet& K = pkts_[pi];
  Message& m = msgs_[K.msg];
  if (uint32_t(K.dlid - host_base_[h]) >= host_lids_[h])
    FailWith([&] {
      return "misdelivery: a packet for LID " + std::to_string(K.dlid) + " reached end port " +
             net_.fabric().end_ports[h].name;
    });
  if (++m.delivered > m.npackets)
    FailWith([&] {
      return "duplicate: end port " + net_.fabric().end_ports[h].name +
             " received a packet of a message twice (LID " + std::to_string(K.dlid) + ")";
    });
  ++counters_.delivered_pkts;
  ++counters_.delivered_total;
  ++host_pkts_[h];
  if (t >= w0_ && t < w1_) {
    counters_.accepted_bytes += K.bytes;
    host_rx_[h] += K.bytes;
  }
  if (t > m.last_ns) m.last_ns = t;
  if (t > counters_.last_delivery_ns) counters_.last_delivery_ns = t;
  if (--m.remaining == 0) MessageDone(K.msg);
}

template <int kV>
IBU_LEAN_HOT void LeanKernel<kV>::MessageDone(uint32_t mi) {
  Message& m = msgs_[mi];
  free_msgs_.push_back(mi);
  if (m.measured) {
    latencies_.Add(m.last_ns - m.gen_ns);
    --measured_pending_;
  }
  --live_ops_;
  CheckDone();
}

// --- traffic (the classic kernel's rules, unicast only) ---

template <int kV>
IBU_LEAN_HOT bool LeanKernel<kV>::GenerateOp(int src, int dst_hint, uint32_t bytes, int sl_hint, int64_t t,
                                             bool precounted) {
  const int d = dst_hint >= 0 ? dst_hint : wl_.Destination(src, rng_);
  if (d < 0 || d == src) return false;
  const bool measured = Measured(t);
  const Lid dlid = wl_.Dlid(src, d, rng_);
  const int sl = sl_hint >= 0 ? sl_hint & 15 : MessageSl(wl_, p_, src, wl_.PairKey(src, d), dlid, rng_);
  const uint32_t mi = TakeSlot(msgs_, free_msgs_);
  Message& m = msgs_[mi];
  m.gen_ns = t;
  m.last_ns = t;
  m.next = kNone;
  m.bytes = bytes;
  m.sent = 0;
  m.npackets = PacketsOf(bytes);
  m.delivered = 0;
  m.remaining = m.npackets;
  m.dlid = dlid;
  m.sl = uint16_t(sl);
  m.vl = uint16_t(net_.HostVl(src, sl));
  m.measured = measured;
  if (d == hot_ && measured) counters_.hot_offered_bytes += bytes;
  ++live_ops_;
  counters_.expected_total += m.npackets;
  if (measured && !precounted) {
    ++measured_pending_;
    counters_.offered_bytes += bytes;
  }
  ++inflight_msgs_[src];
  const size_t q = size_t(src) * V_ + m.vl;
  const int hp = net_.HostPort(src);
  if (hq_tail_[q] == kNone) {
    hq_head_[q] = int32_t(mi);
    port_[hp].ready |= uint8_t(1u << m.vl);
  } else {
    msgs_[hq_tail_[q]].next = int32_t(mi);
  }
  hq_tail_[q] = int32_t(mi);
  Kick(hp, m.vl);
  return true;
}

// --- deadlock ---

// A cycle of output channels, each holding a packet without a credit
// because the input slot it feeds holds a head that asks for the next.
template <int kV>
bool LeanKernel<kV>::FindCycle(std::vector<int>* cycle) const {
  const int C = int(chan_.size());
  std::vector<int32_t> one(1);
  static const std::vector<int32_t> kNoEdges;
  auto stuck = [&](int oc) {
    const Chan& c = Ch(oc);
    return c.opkt != kNoPkt && c.cred == kHeld && c.inpkt != kNoPkt && pkts_[c.inpkt].want >= 0;
  };
  const auto on_wait = [&](int oc) -> const std::vector<int32_t>& {
    const Chan& c = Ch(oc);
    if (c.inpkt == kNoPkt || pkts_[c.inpkt].want < 0) return kNoEdges;
    one[0] = pkts_[c.inpkt].want;
    return one;
  };
  *cycle = ibu::FindCycle(C, on_wait, [&](int oc) { return !stuck(oc); });
  return !cycle->empty();
}

template <int kV>
void LeanKernel<kV>::ReportDeadlock(bool stalled) {
  std::vector<int> cycle;
  std::vector<BlockedChannel> blocked;
  if (!FindCycle(&cycle))
    for (size_t oc = 0; oc < chan_.size() && blocked.size() < kBlockedShown; ++oc)
      if (Ch(oc).opkt != kNoPkt) blocked.push_back({int(oc), Ch(oc).cred <= q_.now() ? 1 : 0});
  result_.deadlock = true;
  result_.deadlock_report = DeadlockReport(net_, q_.now(), live_pkts_, cycle, vsh_, stalled, blocked);
  stop_ = true;
}

// --- run ---

template <int kV>
template <bool kPrefetch>
void LeanKernel<kV>::EventLoop() {
  int64_t t = 0;
  const uint64_t* evs = nullptr;
  uint32_t n = 0;
  uint64_t events = 0;
  constexpr uint32_t kTickEvery = 1u << 16;  // events between progress ticks
  uint32_t to_tick = kTickEvery;             // counted down: a decrement and a branch per event
  const auto tick = [&] {
    if (--to_tick == 0) [[unlikely]] {
      to_tick = kTickEvery;
      events += kTickEvery;
      if (tick_) tick_(Done());
    }
  };
  // A nanosecond's events at once: every delay here is 1 ns or more, so no
  // handler adds to the nanosecond it runs in (EventQueue::TakeNanosecond).
  // The wheel's events of the nanosecond first, then its lookups.
  while (!stop_ && q_.TakeNanosecond(t, evs, n, NextRouted())) {
    for (uint32_t k = 0; k < n && !stop_; ++k) {
      const uint64_t ev = evs[k];
      tick();
      if constexpr (kPrefetch) {
        if (kAheadFar < n - k - 1) PrefetchPort(evs[k + 1 + kAheadFar]);
      }
      const uint64_t type = TypeOf(ev);
      const uint64_t arg = ArgOf(ev);
      if (type == kPort) {
        OnPort(int(arg));
        --pending_services_;
        continue;
      }
      switch (type) {
        case kGen:
          OnGen(int(arg));
          CheckDone();
          break;
        case kScript:
          OnScript(arg);
          break;
        case kWindowStart:
          NoteBusyBefore(t, &busy_before_w0_);
          // Not a model event: `events` stays what it was (the golden points
          // record it). It may wrap below 0 here; the total is taken modulo
          // 2^64 at the end.
          --events;
          break;
        case kWindowEnd:
          NoteBusyBefore(t, &busy_before_w1_);
          window_over_ = true;
          CheckDone();
          break;
        case kStop:
          stop_ = true;
          hit_limit_ = true;
          break;
        case kDeadlockCheck: {
          std::vector<int> cycle;
          if (live_pkts_ > 0 && FindCycle(&cycle))
            ReportDeadlock(false);
          else
            Push(t + p_.deadlock_check_ns, kDeadlockCheck, 0);
          break;
        }
      }
    }
    // The lookups due at t: those pushed during t - routed_ns_.
    if (due_head_ != due_tail_ && due_[due_head_ & due_mask_].t == t) {
      const uint64_t end = due_[due_head_++ & due_mask_].end;
      while (routed_head_ != end && !stop_) {
        const uint32_t pi = RoutedAt(routed_head_++);
        tick();
        if constexpr (kPrefetch) PrefetchRoutedAhead();
        OnRouted(pi);
      }
    }
    MarkRouted(t);
    // At the end of the nanosecond nothing pending (no port service, no
    // lookup) can move the packets still buffered: deadlock.
    if (pending_services_ == 0 && routed_head_ == routed_tail_ && !stop_ && live_pkts_ > 0)
      ReportDeadlock(true);
  }
  counters_.events += events + (kTickEvery - to_tick);
}

// No message of the run, drawn or scripted, ends in a short packet.
template <int kV>
bool LeanKernel<kV>::EveryPacketFull() const {
  const auto full = [&](uint32_t bytes) { return bytes > 0 && bytes % uint32_t(p_.packet_bytes) == 0; };
  return full(msg_bytes_) &&
         std::all_of(script_.begin(), script_.end(), [&](const ScriptEntry& e) { return full(e.bytes); });
}

template <int kV>
void LeanKernel<kV>::ScheduleRun() {
  const RunWindow w =
      ScheduleRunEvents(mode_, p_, load_, msg_bytes_, wl_.sources(), rng_, script_, &gen_pending_,
                        [this](int64_t t, RunEvent e, uint64_t arg) { Push(t, EventOf(e), arg); });
  w0_ = w.w0;
  w1_ = w.w1;
  gen_end_ = w.gen_end;
  if (w0_ > 0) Push(w0_, kWindowStart, 0);
}

template <int kV>
void LeanKernel<kV>::FillResult(double wall) {
  counters_.hops = 0;
  for (int vl = 0; vl < V_; ++vl) {
    counters_.vl_hops[vl] = vl_hops_[vl];
    counters_.hops += vl_hops_[vl];
  }
  RunEnd e = EndOfRun();
  // A run that ended before w0 or w1 (deadlock, batch or script runs) has
  // sent nothing since: the notes can be taken now.
  NoteBusyBefore(w0_, &busy_before_w0_);
  NoteBusyBefore(w1_, &busy_before_w1_);
  e.link_busy_ns.resize(G_);
  for (int gp = 0; gp < G_; ++gp)
    e.link_busy_ns[gp] = port_[gp].peer < 0 ? -1 : busy_before_w1_[gp] - busy_before_w0_[gp];
  Summarise(counters_, e, latencies_, wall, &result_);
}

template <int kV>
PointResult LeanKernel<kV>::Run() {
  const auto wall0 = std::chrono::steady_clock::now();
  arrivals_.SetUp(p_, load_, msg_bytes_, H_);
  result_ = PointResult{};
  result_.load = mode_ == Mode::kBatch ? std::numeric_limits<double>::quiet_NaN() : load_;
  ScheduleRun();
  full_dur_ = EveryPacketFull() ? Dur(p_.packet_bytes) : 0;
  Push(p_.deadlock_check_ns, kDeadlockCheck, 0);
  CheckDone();
  if (prefetch_ahead_)
    EventLoop<true>();
  else
    EventLoop<false>();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  FillResult(wall);
  return result_;
}

}  // namespace

std::string LeanKernelRefusal(const Network& net, const Workload& wl, const Params& p) {
  const std::string what =
      "supports unicast traffic with in_buf=out_buf=1, 1, 2, 4 or 8 VLs and switches of at most " +
      std::to_string(kMaxLeanPort) + " ports; got ";
  if (wl.is_mcast())
    return what + "multicast traffic (" + (wl.hardware_mcast() ? "hardware" : "unicast copies") + ")";
  if (p.in_buf != 1 || p.out_buf != 1)
    return what + "in_buf=" + std::to_string(p.in_buf) + " out_buf=" + std::to_string(p.out_buf);
  if (const int v = net.vls(); v != 1 && v != 2 && v != 4 && v != 8) return what + "vls=" + std::to_string(v);
  for (const auto& sw : net.fabric().switches)
    if (sw.num_ports > kMaxLeanPort)
      return what + "switch " + sw.name + " with " + std::to_string(sw.num_ports) + " ports";
  // Packet holds its size in 16 bits (the command line's bound fits).
  if (p.packet_bytes > std::numeric_limits<uint16_t>::max())
    return "supports packets of at most 65535 bytes; got packet_bytes=" + std::to_string(p.packet_bytes);
  return "";
}

std::unique_ptr<Simulator::Impl> MakeLeanKernel(const Network& net, const Workload& wl, const Params& p,
                                                double load, uint64_t seed) {
  switch (net.vls()) {
    case 1:
      return std::make_unique<LeanKernel<1>>(net, wl, p, load, seed);
    case 2:
      return std::make_unique<LeanKernel<2>>(net, wl, p, load, seed);
    case 4:
      return std::make_unique<LeanKernel<4>>(net, wl, p, load, seed);
    case 8:
      return std::make_unique<LeanKernel<8>>(net, wl, p, load, seed);
    default:
      throw SimFailure("kernel=lean: " + LeanKernelRefusal(net, wl, p));
  }
}

}  // namespace ibu::sim
