#include "sim-harness/timing/simulator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>
#include <vector>

#include "plugin/core/find_cycle.h"
#include "sim-harness/timing/event_queue.h"
#include "sim-harness/timing/huge_pages.h"
#include "sim-harness/timing/kernel_common.h"

namespace ibu::sim {

namespace {

// Event word: type in the top byte, argument below.
enum EvType : uint64_t {
  // Network events: while one of these is pending something can still move.
  kRouted = 0,        // arg: packet; its head has been looked up
  kTxDone = 1,        // arg: global port; the tail left, the link is free
  kCredit = 2,        // arg: output channel; a credit its blocked sender waits for arrives
  kInputAdvance = 3,  // arg: input channel; the previous packet's tail left
  kNetTypes = 4,
  kGen = 4,            // arg: host; generate a message, schedule the next
  kScript = 5,         // arg: index into the script
  kWindowEnd = 6,
  kStop = 7,
  kDeadlockCheck = 8,
};
// The per-hop chain (routing, grant, credit, transmit) is inlined into
// the event loop's handlers: calls and register spills were a fifth of the
// instructions per hop.
#define IBU_HOT __attribute__((always_inline)) inline

constexpr int kTypeShift = 56;
constexpr uint64_t kArgMask = (uint64_t(1) << kTypeShift) - 1;
constexpr EvType EventOf(RunEvent e) {
  return e == RunEvent::kGen         ? kGen
         : e == RunEvent::kScript    ? kScript
         : e == RunEvent::kWindowEnd ? kWindowEnd
                                     : kStop;
}
inline uint64_t Ev(EvType t, uint64_t arg) { return (uint64_t(t) << kTypeShift) | arg; }

constexpr uint16_t kFlagRouted = 1;
constexpr uint16_t kFlagMcast = 2;
constexpr int32_t kNone = -1;
constexpr uint32_t kNotACopy = ~uint32_t(0);

// Per-member packet counts of the hardware-multicast ops in flight, so a
// duplicate or a missing copy is named by member. A count never exceeds
// the op's packets, so it is stored as narrow as that allows: a bit per
// member for one-packet messages (the common case), a byte up to
// kByteCountMax packets, 32 bits beyond. Still members x ops in flight,
// which for per-source trees grows as hosts^2 (FT(32,3), mcast:all:all,
// batch=1: 8192 x 8192 bits = 8 MB; 268 MB at 32 bits each).
class MemberCounts {
 public:
  // A zeroed block for `members` counts of up to `npackets`; its offset.
  // Blocks come back through Release and are reused by byte size.
  uint32_t Take(uint32_t members, uint32_t npackets) {
    const uint32_t n = BlockBytes(members, npackets);
    if (free_by_bytes_.size() <= n) free_by_bytes_.resize(n + 1);
    std::vector<uint32_t>& fb = free_by_bytes_[n];
    if (!fb.empty()) {
      const uint32_t off = fb.back();
      fb.pop_back();
      std::fill(bytes_.begin() + off, bytes_.begin() + off + n, uint8_t(0));
      return off;
    }
    if (bytes_.size() + n > std::numeric_limits<uint32_t>::max())
      throw SimFailure("internal: multicast delivery counts beyond 4 GB");
    const uint32_t off = uint32_t(bytes_.size());
    bytes_.resize(bytes_.size() + n, uint8_t(0));
    return off;
  }
  void Release(uint32_t off, uint32_t members, uint32_t npackets) {
    const uint32_t n = BlockBytes(members, npackets);
    if (free_by_bytes_.size() <= n) free_by_bytes_.resize(n + 1);
    free_by_bytes_[n].push_back(off);
  }
  // Counts a packet for member `r`; false when it already had them all.
  bool Count(uint32_t off, uint32_t npackets, uint32_t r) {
    uint8_t* b = &bytes_[off];
    if (npackets == 1) {
      const uint8_t bit = uint8_t(1u << (r & 7));
      if (b[r >> 3] & bit) return false;
      b[r >> 3] |= bit;
      return true;
    }
    if (npackets <= kByteCountMax) {
      if (b[r] >= npackets) return false;
      ++b[r];
      return true;
    }
    uint32_t c;
    std::memcpy(&c, b + size_t(r) * 4, 4);
    if (c >= npackets) return false;
    ++c;
    std::memcpy(b + size_t(r) * 4, &c, 4);
    return true;
  }
  // Packets member `r` has received.
  uint32_t Get(uint32_t off, uint32_t npackets, uint32_t r) const {
    const uint8_t* b = &bytes_[off];
    if (npackets == 1) return (b[r >> 3] >> (r & 7)) & 1u;
    if (npackets <= kByteCountMax) return b[r];
    uint32_t c;
    std::memcpy(&c, b + size_t(r) * 4, 4);
    return c;
  }

 private:
  static constexpr uint32_t kByteCountMax = 255;
  static uint32_t BlockBytes(uint32_t members, uint32_t npackets) {
    if (npackets == 1) return (members + 7) / 8;
    return npackets <= kByteCountMax ? members : members * 4;
  }
  std::vector<uint8_t> bytes_;
  std::vector<std::vector<uint32_t>> free_by_bytes_;
};

// The kernel behind Simulator (its event engine; "Kernel" so that it is not
// taken for a routing engine, ibu::Engine), specialised at compile time for the common
// configurations (1, 2 or 4 VLs with one-packet buffers, the papers'
// defaults) so that channel addressing and ring arithmetic fold into
// constants; Kernel<0, false> takes any VL count and buffer depth.
// kV: VL count, 0 = taken from the network at run time. kOne: input and
// output buffers of one packet.
template <int kV, bool kOne>
class Kernel final : public Simulator::Impl, private MessageSide<Kernel<kV, kOne>> {
 public:
  Kernel(const Network& net, const Workload& wl, const Params& p, double load, uint64_t seed);

  void AddMessage(int64_t t, int src, int dst, uint32_t bytes, int sl) override;
  PointResult Run() override;
  uint64_t DeliveredTo(int h) const override { return host_pkts_.at(h); }

  // --- state types ---
  struct Packet {
    uint32_t msg;
    // Where it arrived, copied from the sender's header at transmission so
    // that routing it reads no port header.
    int32_t in_gp;    // global port it arrived on
    int32_t in_node;  // ... that port's switch
    int32_t up_gp;    // ... and the port that sent it: its input channel is (up_gp, in_vl)
    uint16_t in_port; // port number of in_gp on in_node
    uint16_t dlid;
    uint16_t bytes;
    uint16_t pending;  // multicast: outputs not yet granted
    uint16_t sl;       // 16-bit fields: byte stores would alias everything
    uint16_t in_vl;
    uint16_t hops;
    uint16_t flags;
  };
  struct Message {
    uint32_t op;
    int32_t next;  // host queue link
    int32_t dst;   // end port, -1 multicast
    uint32_t bytes;
    uint32_t sent;
    uint32_t npackets;
    uint32_t delivered;    // unicast: packets received
    uint32_t copy;         // emulated multicast: the member's place after the source, else kNotACopy
    uint64_t remaining;    // deliveries still expected
    uint16_t dlid;
    uint8_t sl;
    uint8_t vl;
    bool live;
  };
  struct Op {
    int64_t gen_ns;
    int64_t last_ns;
    int32_t src;
    int32_t tree;        // hardware multicast tree, -1 otherwise
    uint32_t counters;   // hardware multicast: its block in member_counts_
    uint32_t msgs_left;
    uint32_t npackets;
    bool measured;
  };
  // Per op slot, for ops emulating multicast by unicast copies only (kept
  // apart so that unicast ops do not carry it).
  struct CopyPlan {
    uint32_t first_member;  // the member after the source in host-number order
    int32_t sl;             // a script entry's SL for every copy, else -1
    uint64_t seed;          // the copies' own random draws (CopyDraws)
  };
  // Emulated multicast: one unicast copy of an op, made when the copy
  // ahead of it on the same VL has been sent (NextCopy).
  struct Copy {
    uint32_t k;  // place after the source in host-number order
    int dst;
    Lid dlid;
    int sl;
    int vl;
  };

  // --- event handlers ---
  void OnRouted(uint32_t pi);
  void OnTxDone(int gp);
  void OnCredit(int oc);
  // Credits whose arrival time has come become usable; true if any is.
  bool Absorb(size_t oc);
  // The sender of `oc` waits for a credit: wake it when the next arrives.
  void WaitCredit(size_t oc);
  void OnInputAdvance(int ic);

  void Request(int ic);
  // Straight through when the output has room and nobody waits for it
  // (arbitration then has nothing to decide), else a request in its queue.
  // `key`: the input's channel numbered by its receiving port, the order
  // arbitration goes round in. A straight grant is a grant all the same:
  // the round-robin pointer moves past it, or the next arbitration would
  // put this input first again, ahead of one that waited.
  IBU_HOT void GrantOrQueue(int ic, int key, int oc) {
    VlState& o = St(oc);
    if (o.out_count < OutCap() && o.nreq == 0) {
      o.rr_last = key;
      Grant(ic, oc);
    } else {
      req_[oc].push_back(key);
      ++o.nreq;
    }
  }
  void Grant(int ic, int oc);
  // The head packet of input `ic` leaves its slot at `tail_gone`: the
  // credit goes back, the next packet may move.
  void ReleaseInput(int ic, int64_t tail_gone);
  // ... when a crossbar transfer of `bytes` starts now.
  IBU_HOT void ReleaseInputAfter(int ic, int bytes) {
    ReleaseInput(ic, q_.now() + int64_t(bytes) * p_.byte_ns);
  }
  // A port starts its next packet if it is idle and has one; the check is
  // inline because most calls find the link busy or nothing to send, and
  // the call's register saves cost more than the check.
  IBU_HOT void TryTransmit(int gp) {
    const PortHdr& g = Hdr(gp);
    // One branch for "idle and something to send" (`&`, not `&&`): the
    // outcome is data dependent, and two branches mispredict twice.
    if ((g.busy == 0) & (g.ready != 0)) TransmitNext(gp);
  }
  void HostTryTransmit(int h) {
    const PortHdr& g = Hdr(net_.HostPort(h));
    if ((g.busy == 0) & (g.ready != 0)) HostTransmitNext(h);
  }
  [[gnu::noinline]] void TransmitNext(int gp);
  void HostTransmitNext(int h);
  void StartTx(int gp, int vl, uint32_t pi);
  void Deliver(uint32_t pi, int h, int64_t t);
  void Arbitrate(int oc);

  // Creates the op (and its messages) generated at `t`; false when the
  // source has nothing to send. `precounted`: offered load and the
  // measured-op count were booked at arrival (Arrive), not here.
  bool GenerateOp(int src, int dst_hint, uint32_t bytes, int sl_hint, int64_t t, bool precounted);
  // A message arrival at host h: booked now, materialised when the host's
  // adapter has room (Materialise), so saturated runs keep only a time
  // stamp per waiting message. The message side is the lean kernel's too
  // (kernel_common.h).
  friend class MessageSide<Kernel>;
  using Side = MessageSide<Kernel>;
  using Side::BackloggedHotBytes;
  using Side::CheckDone;
  using Side::EndOfRun;
  using Side::Materialise;
  using Side::OnGen;
  using Side::OnScript;
  static constexpr EvType kGenEvent = kGen;
  uint64_t Receivers(int h) const { return receivers_[h]; }
  // A message generated at `t` counts: any in batch and script runs, those
  // inside the window in steady state.
  bool Measured(int64_t t) const { return mode_ != Mode::kSteady || (t >= w0_ && t < w1_); }
  uint32_t NewMessage(uint32_t op, int src, int dst, Lid dlid, uint32_t bytes, int sl);
  void Enqueue(int h, uint32_t mi);
  void LinkToQueue(int h, uint32_t mi);
  // Emulated multicast keeps one copy per op and VL in the adapter's
  // queues, not one per member: memory follows the ops in flight, not
  // ops x group size (mcast:all:all on FT(32,3): 104 MB, was 3.5 GB).
  uint32_t QueueFirstCopies(uint32_t oi, uint32_t bytes);
  bool NextCopy(uint32_t oi, uint32_t from, int vl, Copy* c);
  uint32_t NewCopy(uint32_t oi, const Copy& c, uint32_t bytes);
  [[gnu::noinline]] int32_t FollowingCopy(uint32_t mi, int vl, int32_t next, size_t q);
  void MessageDone(uint32_t mi, int64_t t);
  // The arrival process's constants, once per point.
  void SetUpArrivals();

  uint32_t AllocPacket();
  void FreePacket(uint32_t pi) {
    free_pkts_.push_back(pi);
    --live_pkts_;
  }

  // Deadlock search: a cycle of output channels each waiting for a credit
  // from a full input buffer whose head waits for the next one.
  bool FindCycle(std::vector<int>* cycle);
  void ReportDeadlock(bool stalled);
  // Nothing is in flight or queued, yet messages are incomplete: the
  // tables lost deliveries (a multicast tree missing a member, say).
  [[noreturn]] void ReportLost();
  // Not inlined into Run(): GCC inlines it once Run() is small, and the
  // loop then takes 1% more instructions per hop (635 against 628).
  template <bool kPrefetch>
  [[gnu::noinline]] void EventLoop();
  // Run()'s steps around the event loop.
  void ScheduleRun();
  void SettleDrainedRun();
  void FillResult(double wall);
  // One of the network event types (< kNetTypes).
  IBU_HOT void OnNetEvent(uint64_t type, uint64_t arg) {
    switch (type) {
      case kRouted: OnRouted(uint32_t(arg)); break;
      case kTxDone: OnTxDone(int(arg)); break;
      case kCredit: OnCredit(int(arg)); break;
      default: OnInputAdvance(int(arg)); break;
    }
  }
  [[gnu::noinline]] void OnQuiet();

  // Failure messages are built off the hot path: `what` returns the text.
  template <typename F>
  [[noreturn, gnu::cold, gnu::noinline]] void FailWith(const F& what) {
    Fail(what());
  }
  [[noreturn]] void Fail(const std::string& what) {
    std::ostringstream os;
    os << "t=" << q_.now() << " ns: " << what;
    throw SimFailure(os.str());
  }

  // Input/output rings.
  uint32_t InHead(int ic) const { return InRing(ic)[InHeadOf(St(ic))]; }
  void InPush(int ic, uint32_t pi) {
    VlState& s = St(ic);
    if (s.in_count >= InCap())
      FailWith([&] { return "internal: input buffer overflow at " + net_.PortName(Hdr(ic >> Vsh()).peer); });
    int slot = InHeadOf(s) + s.in_count;
    if (slot >= InCap()) slot -= InCap();
    InRing(ic)[slot] = pi;
    ++s.in_count;
  }
  void InPop(int ic) {
    VlState& s = St(ic);
    if constexpr (!kOne) s.in_head = RingNext(s.in_head, InCap());
    --s.in_count;
  }
  uint32_t OutHead(int oc) const { return OutRing(oc)[OutHeadOf(St(oc))]; }
  void OutPush(int oc, uint32_t pi) {
    VlState& s = St(oc);
    int slot = OutHeadOf(s) + s.out_count;
    if (slot >= OutCap()) slot -= OutCap();
    OutRing(oc)[slot] = pi;
    ++s.out_count;
    Hdr(oc >> Vsh()).ready |= 1u << (oc & Vmask());
  }
  void OutPop(int oc) {
    VlState& s = St(oc);
    if constexpr (!kOne) s.out_head = RingNext(s.out_head, OutCap());
    if (--s.out_count == 0) Hdr(oc >> Vsh()).ready &= ~(1u << (oc & Vmask()));
  }

  // Large fabrics are bound by memory latency: the LFTs alone are
  // switches x LIDs bytes (42 MB for FT(16,3) at LMC 5), touched at random.
  // Tens of events share each nanosecond there, so the loop looks a few
  // events ahead in the current one: far ahead it fetches the packet a
  // routing event will read, nearer it reads that packet and fetches its LFT
  // entry and input channel; likewise the port state of link and credit
  // events. Prefetching cannot change what is computed. always_inline: a
  // function holding only prefetches counts as pure to GCC, which then
  // drops the call as having no effect.
  static constexpr size_t kAheadFar = 12, kAheadNear = 5;
  // Only worth it when the state outgrows the caches (about 20% faster on
  // FT(16,3), 5% slower on FT(8,3) where everything is cached).
  static constexpr size_t kPrefetchAboveBytes = size_t(4) << 20;
  bool prefetch_ahead_ = false;
  __attribute__((always_inline)) void PrefetchFar(uint64_t ev) const {
    const uint64_t arg = ev & kArgMask;
    switch (ev >> kTypeShift) {
      case kRouted: __builtin_prefetch(&pkts_[arg]); break;
      case kTxDone: __builtin_prefetch(&hdr_[arg]); break;
      case kCredit: __builtin_prefetch(Chan(arg)); break;
      default: break;
    }
  }
  __attribute__((always_inline)) void PrefetchNear(uint64_t ev) const {
    const uint64_t arg = ev & kArgMask;
    switch (ev >> kTypeShift) {
      case kRouted: {
        const Packet& P = pkts_[arg];
        __builtin_prefetch(Chan((size_t(P.up_gp) << Vsh()) | P.in_vl));
        if (!(P.flags & kFlagMcast)) __builtin_prefetch(net_.LftSlot(P.in_node, P.dlid));
        break;
      }
      case kTxDone: __builtin_prefetch(Chan((arg << Vsh()) | hdr_[arg].rr_vl)); break;
      case kCredit: __builtin_prefetch(&hdr_[arg >> Vsh()]); break;
      default: break;
    }
  }

  // The longest delay between a network event and one it schedules: a
  // credit's return (packet time + fly) or a head's routing (fly + route).
  static int64_t MaxNetworkDelay(const Params& p) {
    return std::max<int64_t>(int64_t(p.fly_ns) + p.route_ns, int64_t(p.packet_bytes) * p.byte_ns + p.fly_ns);
  }
  // The wheel is twice the smallest power of two above that delay, so that
  // most message arrivals land in it too (measured: the bare minimum, 256
  // ns by default, sends so many to the heap that it is slower).
  static constexpr int kWheelSlackBits = 1;

  void Push(int64_t t, EvType type, uint64_t arg) {
    if (type < kNetTypes) ++pending_net_;
    q_.Push(t, Ev(type, arg));
  }

  // --- configuration ---
  const Network& net_;
  const Workload& wl_;
  Params p_;
  double load_;
  Mt64 rng_;
  int V_, H_, G_;
  int vsh_ = 0;          // channel = global port << vsh_ | VL
  uint32_t vmask_ = 0;
  // The configuration: compile-time constants in the specialised engines.
  static constexpr int kFixedVsh = kV <= 1 ? 0 : kV <= 2 ? 1 : kV <= 4 ? 2 : 3;
  int V() const { return kV > 0 ? kV : V_; }
  int Vsh() const { return kV > 0 ? kFixedVsh : vsh_; }
  uint32_t Vmask() const { return kV > 0 ? (1u << kFixedVsh) - 1 : vmask_; }
  int InCap() const { return kOne ? 1 : in_cap_; }
  int OutCap() const { return kOne ? 1 : out_cap_; }
  std::vector<Lid> host_base_;
  std::vector<uint16_t> host_lids_;
  int in_cap_, out_cap_;
  int max_hops_ = net_.MaxHops();
  ArrivalProcess arrivals_;
  uint32_t msg_packets_ = 1;  // packets per generated message
  uint32_t PacketsOf(uint32_t bytes) const {
    return (bytes + uint32_t(p_.packet_bytes) - 1) / uint32_t(p_.packet_bytes);
  }
  // PacketsOf without the division for the generated messages' size.
  uint32_t Packets(uint32_t bytes) const { return bytes == msg_bytes_ ? msg_packets_ : PacketsOf(bytes); }
  using Mode = RunMode;
  Mode mode_;
  int64_t w0_ = 0, w1_ = 0, gen_end_ = 0;

  // --- simulation state ---
  EventQueue q_;
  // HugeVector here and for the port and channel state: every hop reads them at random.
  HugeVector<Packet> pkts_;
  std::vector<uint32_t> free_pkts_;
  // Per multicast packet in a switch's input buffer: when its tail is all
  // in. A copy consumed there (a branch with no port left) frees its slot
  // then, or at its lookup if that is later. Beside the pool rather than in
  // Packet, which stays 32 bytes (two a cache line) for unicast hops; left
  // uninitialised, so unicast runs never touch its pages.
  std::unique_ptr<int64_t[]> mcast_tail_in_;
  std::vector<Message> msgs_;
  std::vector<uint32_t> free_msgs_;
  std::vector<Op> ops_;
  std::vector<uint32_t> free_ops_;
  MemberCounts member_counts_;

  // Per global port the sending side of its link (PortHdr, a flat array),
  // and per channel (global port << Vsh() | VL) one block holding that
  // link VL's state at both of its ends: VlState (the sender's output
  // buffer and credits, the input buffer at the far end that the sender
  // feeds), then its credit ring and its input and output rings. So the
  // input buffer a packet waits in is channel (sending port, VL): the
  // credit it returns, the sender's wait and the slot it frees are one
  // block. Blocks are padded to a cache line when they fit one, because
  // large fabrics are bound by memory latency. Fields are 16
  // bits or wider: a byte store may alias anything, and the compiler would
  // reload every member after it. Credits are lazy: a credit the receiver returns goes
  // into its sender's pending ring with its arrival time and becomes an
  // event only when the sender is blocked waiting for it (most are not).
  // 32 bytes, aligned: a port's header is one cache-line access.
  struct alignas(32) PortHdr {
    int64_t link_busy;  // ns busy inside the window
    int32_t peer;       // global port at the other end
    int32_t node;       // switch or end-port index of this port
    int32_t peer_node;  // ... and of the peer
    uint16_t peer_port; // the peer's port number on its node
    uint16_t is_host;   // this is an end port
    uint16_t to_host;   // the peer is an end port (no credits towards it)
    uint16_t busy;      // transmitting
    uint16_t rr_vl;     // last VL sent (round-robin), the one on the wire while busy
    uint16_t ready;     // bit per VL with something to send: a switch
                        // output buffer not empty, a host queue not empty
  };
  static_assert(sizeof(PortHdr) == 32, "a port header is half a cache line");
  struct DeepState {
    int32_t credits;  // sender: usable now
    int32_t rr_last;  // output arbitration: last input channel granted
    uint16_t nreq;    // requests waiting in req_ for this output
    uint16_t in_head, in_count, in_wait;
    uint16_t out_head, out_count;
    uint16_t pend_head, pend_count, wake;
  };
  // One-packet buffers need no ring heads (always slot 0) and no input
  // advance flag (the input is empty once its packet left): 16 bytes, so
  // state, pending credit and both slots make a 32-byte block, two
  // channels per cache line. Even FT(8,3)'s channels outgrow L1, and a
  // hop touches three of them.
  struct OneSlotState {
    int32_t rr_last;
    int16_t credits;
    uint16_t nreq, in_count, out_count, pend_count, wake;
  };
  using VlState = std::conditional_t<kOne, OneSlotState, DeepState>;
  static int InHeadOf(const VlState& s) {
    if constexpr (kOne) return 0; else return s.in_head;
  }
  static int OutHeadOf(const VlState& s) {
    if constexpr (kOne) return 0; else return s.out_head;
  }
  static int PendHeadOf(const VlState& s) {
    if constexpr (kOne) return 0; else return s.pend_head;
  }
  static bool InWaitOf(const VlState& s) {
    if constexpr (kOne) return false; else return s.in_wait;
  }
  static constexpr size_t kStateWords = (sizeof(VlState) + 7) / 8;
  static constexpr size_t kOneSlotWords = kStateWords + 2;
  static_assert(!kOne || kOneSlotWords == 4, "one-slot channel blocks are 32 bytes");
  size_t ChanWords() const { return kOne ? kOneSlotWords : chan_words_; }
  HugeVector<PortHdr> hdr_;
  HugeVector<uint64_t> chan_;      // channel blocks: VlState, credit ring, input ring, output ring
  uint64_t* chan_base_ = nullptr;  // first block, 64-byte aligned
  size_t chan_words_ = 0;          // block size in 64-bit words
  PortHdr& Hdr(size_t gp) { return hdr_[gp]; }
  const PortHdr& Hdr(size_t gp) const { return hdr_[gp]; }
  uint64_t* Chan(size_t ch) { return chan_base_ + ch * ChanWords(); }
  const uint64_t* Chan(size_t ch) const { return chan_base_ + ch * ChanWords(); }
  VlState& St(size_t ch) { return *reinterpret_cast<VlState*>(Chan(ch)); }
  const VlState& St(size_t ch) const { return *reinterpret_cast<const VlState*>(Chan(ch)); }
  // Arrival times of the credits on their way back to the sender.
  int64_t* Pend(size_t ch) { return reinterpret_cast<int64_t*>(Chan(ch) + kStateWords); }
  uint32_t* InRing(size_t ch) {
    return reinterpret_cast<uint32_t*>(Chan(ch) + kStateWords + InCap());
  }
  const uint32_t* InRing(size_t ch) const {
    return reinterpret_cast<const uint32_t*>(Chan(ch) + kStateWords + InCap());
  }
  uint32_t* OutRing(size_t ch) { return InRing(ch) + InCap(); }
  const uint32_t* OutRing(size_t ch) const { return InRing(ch) + InCap(); }
  // The same VL on the other end of the link: maps an input buffer's
  // channel (sending port) to its number by receiving port and back.
  int PeerChannel(int ch) const { return (Hdr(ch >> Vsh()).peer << Vsh()) | (ch & int(Vmask())); }
  static uint16_t RingNext(uint16_t i, int cap) { return uint16_t(i + 1 == cap ? 0 : i + 1); }
  // The VLs of `ready` rotated so that bit 0 is the VL after `last`: the
  // round-robin order over the VLs that have something to send.
  uint32_t RoundRobin(uint32_t ready, int last) const {
    const int s = WrapVl(last + 1);
    return ((ready >> s) | (ready << (V() - s))) & ((1u << V()) - 1);
  }
  int RotatedVl(int bit, int last) const { return WrapVl(last + 1 + bit); }
  // vl mod V() for vl < 2 V(): a mask when V() is a power of two (a
  // compare there is a branch the predictor misses).
  int WrapVl(int vl) const {
    if ((V() & (V() - 1)) == 0) return vl & (V() - 1);
    return vl >= V() ? vl - V() : vl;
  }
  std::vector<std::vector<int32_t>> req_;  // per output channel: waiting input channels
  std::vector<int32_t> hq_head_, hq_tail_; // per (host, VL) message queue
  std::vector<CopyPlan> copy_plans_;       // per op slot (emulated multicast)
  std::vector<ScriptEntry> script_;
  ArrivalBacklog backlog_;
  std::vector<uint32_t> inflight_msgs_;  // per host: queued messages not fully sent
  std::vector<uint64_t> receivers_;      // per host: receivers of one of its messages
  // Per host: in the multicast group. A shared tree (mcast_trees below the
  // sources) also spans the sources outside it, which only send: copies
  // reach their ports and are dropped there (counters_.sunk), not delivered.
  std::vector<uint8_t> in_group_;

  uint64_t pending_net_ = 0;
  uint64_t live_pkts_ = 0;
  uint64_t live_ops_ = 0;
  uint64_t gen_pending_ = 0;
  uint64_t measured_pending_ = 0;
  bool window_over_ = false;
  bool stop_ = false;
  bool hit_limit_ = false;

  // --- statistics: raw tallies (stats.h says what they mean) ---
  RunCounters counters_;
  std::vector<uint64_t> host_pkts_;
  // Centric traffic: the hot host (its measured messages' bytes are
  // counted when the destination is drawn, counters_.hot_offered_bytes).
  int hot_ = -1;
  // Measured messages still waiting in their sources' backlogs at the end
  // never had a destination drawn: their expected bytes for the hot host.
  // Without them a saturated run offered the hot host ever less as the load
  // rose (0.08 bytes/ns at load 8 on FT(4,2), centric:0.5, against 8), and
  // the hot-host rule called such a sweep unsaturated (MessageSide).
  std::vector<uint64_t> host_rx_;
  LatencySamples latencies_;  // of the measured ops
  PointResult result_;
  double Done() const {
    if (mode_ == Mode::kSteady) return std::min(0.99, double(q_.now()) / double(std::max<int64_t>(1, w1_)));
    return counters_.expected_total
               ? std::min(0.99, double(counters_.delivered_total) / double(counters_.expected_total))
               : 0.0;
  }
};

template <int kV, bool kOne>
Kernel<kV, kOne>::Kernel(const Network& net, const Workload& wl, const Params& p, double load, uint64_t seed)
    : net_(net),
      wl_(wl),
      p_(p),
      load_(load),
      rng_(seed),
      V_(net.vls()),
      H_(net.num_hosts()),
      G_(net.num_global_ports()),
      in_cap_(p.in_buf),
      out_cap_(p.out_buf),
      q_(EventQueue::WheelBitsFor(MaxNetworkDelay(p)) + kWheelSlackBits) {
  ValidateParams(p_);
  if (V_ != p_.vls) throw SimFailure("internal: network built for a different VL count");
  if (p_.sl == SlPolicy::kEngine && !wl_.UsesPathSl())
    throw SimFailure("sl=engine: the workload has no engine path SLs (Workload::SetPathSlFn)");
  mode_ = p_.batch > 0 ? Mode::kBatch : (load_ > 0 ? Mode::kSteady : Mode::kScript);
  if (wl_.spec().pattern == Pattern::kCentric) hot_ = wl_.hot();
  while ((1 << vsh_) < V_) ++vsh_;
  vmask_ = (1u << vsh_) - 1;
  if ((kV > 0 && kV != V_) || (kOne && (in_cap_ != 1 || out_cap_ != 1)))
    throw SimFailure("internal: engine specialised for another configuration");
  const size_t C = size_t(G_) << Vsh();
  hdr_.assign(G_, PortHdr{});
  chan_words_ = kStateWords + size_t(in_cap_) + (size_t(in_cap_) + size_t(out_cap_) + 1) / 2;
  if (!kOne && chan_words_ <= 8) chan_words_ = 8;  // one 64-byte line per channel
  if (chan_words_ != ChanWords()) throw SimFailure("internal: channel block size");
  chan_.assign(C * ChanWords() + 8, 0);
  chan_base_ = chan_.data();
  prefetch_ahead_ = net_.LftBytes() + chan_.size() * 8 > kPrefetchAboveBytes;
  while (reinterpret_cast<uintptr_t>(chan_base_) % 64) ++chan_base_;
  for (int gp = 0; gp < G_; ++gp) {
    PortHdr& h = Hdr(gp);
    const GlobalPort& g = net_.port(gp);
    h.peer = g.peer;
    h.node = g.node;
    h.is_host = g.is_host;
    h.peer_node = g.peer >= 0 ? net_.port(g.peer).node : -1;
    h.peer_port = g.peer >= 0 ? uint16_t(net_.port(g.peer).port) : 0;
    h.to_host = h.peer >= 0 && net_.port(h.peer).is_host;
    h.rr_vl = uint16_t(V() - 1);
    for (int vl = 0; vl < V(); ++vl) {
      VlState& st = St((size_t(gp) << Vsh()) | vl);
      st.credits = p_.in_buf;
      st.rr_last = -1;
    }
  }
  host_base_.resize(H_);
  host_lids_.resize(H_);
  for (int h = 0; h < H_; ++h) {
    host_base_[h] = net_.fabric().end_ports[h].base_lid;
    host_lids_[h] = uint16_t(net_.fabric().end_ports[h].lid_count());
  }
  req_.resize(C);
  backlog_ = ArrivalBacklog(H_);
  inflight_msgs_.assign(H_, 0);
  receivers_.assign(H_, 1);
  if (wl_.is_mcast()) {
    const std::vector<int>& g = wl_.group();
    in_group_.assign(H_, 0);
    for (int h : g) in_group_[h] = 1;
    for (int h = 0; h < H_; ++h) {
      const bool sends = !wl_.hardware_mcast() || wl_.TreeOf(h) >= 0;
      receivers_[h] = sends ? g.size() - in_group_[h] : 0;
    }
  }
  hq_head_.assign(size_t(H_) * V(), kNone);
  hq_tail_.assign(size_t(H_) * V(), kNone);
  host_rx_.assign(H_, 0);
  counters_.vl_hops.assign(V(), 0);
  host_pkts_.assign(H_, 0);
  // Every live packet sits in one input or output buffer slot, so the pool
  // never grows past the slots: no reallocation, stable references.
  pkts_.reserve(C * (InCap() + OutCap()) + 16);
  mcast_tail_in_.reset(new int64_t[pkts_.capacity()]);
}

template <int kV, bool kOne>
uint32_t Kernel<kV, kOne>::AllocPacket() {
  ++live_pkts_;
  if (!free_pkts_.empty()) {
    const uint32_t pi = free_pkts_.back();
    free_pkts_.pop_back();
    return pi;
  }
  if (pkts_.size() == pkts_.capacity()) Fail("internal: more packets alive than buffer slots");
  pkts_.emplace_back();
  return uint32_t(pkts_.size() - 1);
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::AddMessage(int64_t t, int src, int dst, uint32_t bytes, int sl) {
  if (src < 0 || src >= H_ || dst >= H_) throw SimFailure("AddMessage: host index out of range");
  if (dst < 0 && !wl_.hardware_mcast() && !wl_.is_mcast())
    throw SimFailure("AddMessage: multicast message without a multicast workload");
  script_.push_back({t, src, dst, sl, bytes ? bytes : msg_bytes_});
}

// --- traffic generation ---

template <int kV, bool kOne>
void Kernel<kV, kOne>::SetUpArrivals() {
  arrivals_.SetUp(p_, load_, msg_bytes_, H_);
  msg_packets_ = PacketsOf(msg_bytes_);
}

template <int kV, bool kOne>
uint32_t Kernel<kV, kOne>::NewMessage(uint32_t op, int src, int dst, Lid dlid, uint32_t bytes, int sl) {
  const uint32_t mi = TakeSlot(msgs_, free_msgs_);
  Message& m = msgs_[mi];
  m.op = op;
  m.next = kNone;
  m.dst = dst;
  m.bytes = bytes;
  m.sent = 0;
  m.npackets = Packets(bytes);
  m.delivered = 0;
  m.copy = kNotACopy;
  m.remaining = 0;
  m.dlid = dlid;
  m.sl = uint8_t(sl);
  m.vl = uint8_t(net_.HostVl(src, sl));
  m.live = true;
  return mi;
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::Enqueue(int h, uint32_t mi) {
  ++inflight_msgs_[h];
  LinkToQueue(h, mi);
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::LinkToQueue(int h, uint32_t mi) {
  const size_t q = size_t(h) * V() + msgs_[mi].vl;
  if (hq_tail_[q] == kNone) {
    hq_head_[q] = int32_t(mi);
    Hdr(net_.HostPort(h)).ready |= 1u << msgs_[mi].vl;
  }
  else msgs_[hq_tail_[q]].next = int32_t(mi);
  hq_tail_[q] = int32_t(mi);
}

// A copy's random draws (dlid=random, sl=random) come from a stream of its
// own, keyed by the op's seed and the member, so that they do not depend
// on when the copy is made.
class CopyDraws {
 public:
  CopyDraws(uint64_t seed, uint32_t k) : state_(seed ^ (uint64_t(k) * 0xd1b54a32d192ed03ULL)) {}
  uint64_t operator()() { return Mix64(state_ += 0x9e3779b97f4a7c15ULL); }

 private:
  uint64_t state_;
};

// The first copy of op `oi` at place `from` or later that goes out on VL
// `vl`. Cost: the places skipped, so an op's copies cost O(group x VLs)
// time over its life (each VL's search passes every member once), against
// O(group) memory had they all been made at once.
template <int kV, bool kOne>
bool Kernel<kV, kOne>::NextCopy(uint32_t oi, uint32_t from, int vl, Copy* c) {
  const int src = ops_[oi].src;
  const CopyPlan& plan = copy_plans_[oi];
  const std::vector<int>& g = wl_.group_by_number();
  const bool random_dlid = wl_.RandomDlid();
  for (uint32_t k = from; k < g.size(); ++k) {
    const int d = g[(plan.first_member + k) % g.size()];
    if (d == src) continue;
    CopyDraws draws(plan.seed, k);
    const Lid dlid = random_dlid
                         ? wl_.DlidDraw(src, d, int(UniformBelow(draws, uint64_t(wl_.DlidDraws(d)))), rng_)
                         : wl_.Dlid(src, d, rng_);
    const int sl = plan.sl >= 0 ? plan.sl : MessageSl(wl_, p_, src, wl_.PairKey(src, d), dlid, draws);
    const int copy_vl = net_.HostVl(src, sl);
    if (vl >= 0 && copy_vl != vl) continue;
    *c = Copy{k, d, dlid, sl, copy_vl};
    return true;
  }
  return false;
}

template <int kV, bool kOne>
uint32_t Kernel<kV, kOne>::NewCopy(uint32_t oi, const Copy& c, uint32_t bytes) {
  const uint32_t mi = NewMessage(oi, ops_[oi].src, c.dst, c.dlid, bytes, c.sl);
  msgs_[mi].copy = c.k;
  msgs_[mi].remaining = msgs_[mi].npackets;
  return mi;
}

// Queues the first copy on each VL the op's copies use; returns how many
// copies the op makes in all (its receivers).
template <int kV, bool kOne>
uint32_t Kernel<kV, kOne>::QueueFirstCopies(uint32_t oi, uint32_t bytes) {
  const int src = ops_[oi].src;
  const uint32_t receivers = uint32_t(wl_.group_by_number().size()) - in_group_[src];
  // The VLs the copies can take: one under a fixed SL, else those some SL
  // maps to from this source (a superset under the engine's path SLs).
  const CopyPlan& plan = copy_plans_[oi];
  const int fixed_sl = plan.sl >= 0                                     ? plan.sl
                       : !wl_.UsesPathSl() && p_.sl == SlPolicy::kFixed ? p_.sl_value
                                                                        : -1;
  uint32_t vls_possible = 0;
  for (int sl = 0; sl < 16; ++sl)
    if (fixed_sl < 0 || sl == fixed_sl) vls_possible |= 1u << net_.HostVl(src, sl);
  uint32_t from = 0;
  uint32_t vls_seen = 0;
  Copy c;
  // One pass over the members for all VLs: it stops at the last VL's
  // first copy, or at the end when a VL has none.
  while (vls_seen != vls_possible && NextCopy(oi, from, -1, &c)) {
    from = c.k + 1;
    if (vls_seen & (1u << c.vl)) continue;
    vls_seen |= 1u << c.vl;
    LinkToQueue(src, NewCopy(oi, c, bytes));
  }
  return receivers;
}

// The message to follow `mi` in host queue `q` (VL `vl`) once `mi` is
// sent: the op's next copy on that VL in its place, else `next`.
template <int kV, bool kOne>
int32_t Kernel<kV, kOne>::FollowingCopy(uint32_t mi, int vl, int32_t next, size_t q) {
  const uint32_t oi = msgs_[mi].op;
  Copy c;
  if (!NextCopy(oi, msgs_[mi].copy + 1, vl, &c)) return next;
  const uint32_t mc = NewCopy(oi, c, msgs_[mi].bytes);
  msgs_[mc].next = next;
  if (hq_tail_[q] == int32_t(mi)) hq_tail_[q] = int32_t(mc);
  return int32_t(mc);
}

template <int kV, bool kOne>
bool Kernel<kV, kOne>::GenerateOp(int src, int dst_hint, uint32_t bytes, int sl_hint, int64_t t,
                                  bool precounted) {
  const bool measured = Measured(t);
  // A script entry's SL, else the workload's (MessageSl).
  auto pick_sl = [&](uint64_t key, Lid dlid) -> int {
    return sl_hint >= 0 ? sl_hint & 15 : MessageSl(wl_, p_, src, key, dlid, rng_);
  };
  const uint32_t oi = TakeSlot(ops_, free_ops_);
  Op& op = ops_[oi];
  op.gen_ns = t;
  op.last_ns = t;
  op.src = src;
  op.tree = -1;
  op.counters = 0;
  op.msgs_left = 0;
  op.npackets = Packets(bytes);
  op.measured = measured;
  uint64_t receivers = 0;
  uint64_t copies = 0;  // per packet: end ports it reaches, receivers or not
  if (wl_.is_mcast() && dst_hint < 0) {
    if (wl_.hardware_mcast()) {
      const int tr = wl_.TreeOf(src);
      if (tr < 0) throw SimFailure("host " + std::to_string(src) + " is not a multicast source");
      const McastTree& tree = wl_.trees()[tr];
      const uint32_t members = uint32_t(wl_.MemberCount(tr));
      receivers = receivers_[src];
      if (receivers == 0) {
        free_ops_.push_back(oi);
        return false;
      }
      // The message lives until its last copy has landed, dropped or not.
      copies = members - (wl_.Rank(tr, src) >= 0 ? 1 : 0);
      op.tree = tr;
      op.counters = member_counts_.Take(members, op.npackets);
      const int sl = pick_sl((uint64_t(wl_.Number(src)) << 20) ^ tree.mlid, tree.mlid);
      const uint32_t mi = NewMessage(oi, src, -1, tree.mlid, bytes, sl);
      ops_[oi].msgs_left = 1;
      msgs_[mi].remaining = uint64_t(msgs_[mi].npackets) * copies;
      Enqueue(src, mi);
    } else {
      // Unicast emulation: one copy per member, starting after the source
      // in host-number order so the sources do not all start on one member.
      // The op enters the adapter whole: its copies count against nic_msgs
      // but are not held back by it.
      const std::vector<int>& g = wl_.group_by_number();
      const int n = wl_.Number(src);
      if (copy_plans_.size() < ops_.size()) copy_plans_.resize(ops_.size());
      CopyPlan& plan = copy_plans_[oi];
      plan.first_member = uint32_t(
          std::upper_bound(g.begin(), g.end(), n, [this](int a, int ep) { return a < wl_.Number(ep); }) -
          g.begin());
      plan.sl = sl_hint >= 0 ? sl_hint & 15 : -1;
      plan.seed = wl_.RandomDlid() || SlDraws(wl_, p_) > 1 ? rng_() : 0;
      receivers = QueueFirstCopies(oi, bytes);
      if (receivers == 0) {
        free_ops_.push_back(oi);
        return false;
      }
      ops_[oi].msgs_left = uint32_t(receivers);
      inflight_msgs_[src] += uint32_t(receivers);
    }
  } else {
    const int d = dst_hint >= 0 ? dst_hint : wl_.Destination(src, rng_);
    if (d < 0 || d == src) {
      free_ops_.push_back(oi);
      return false;
    }
    const Lid dlid = wl_.Dlid(src, d, rng_);
    const uint32_t mi =
        NewMessage(oi, src, d, dlid, bytes, pick_sl(wl_.PairKey(src, d), dlid));
    msgs_[mi].remaining = msgs_[mi].npackets;
    ops_[oi].msgs_left = 1;
    if (d == hot_ && measured) counters_.hot_offered_bytes += bytes;
    receivers = 1;
    Enqueue(src, mi);
  }
  ++live_ops_;
  counters_.expected_total += uint64_t(ops_[oi].npackets) * std::max(copies, receivers);
  if (measured && !precounted) {
    ++measured_pending_;
    counters_.offered_bytes += uint64_t(bytes) * receivers;
  }
  HostTryTransmit(src);
  return true;
}

// --- hosts ---

template <int kV, bool kOne>
void Kernel<kV, kOne>::HostTransmitNext(int h) {
  const int gp = net_.HostPort(h);
  const int last_vl = Hdr(gp).rr_vl;
  for (uint32_t order = RoundRobin(Hdr(gp).ready, last_vl); order; order &= order - 1) {
    const int vl = RotatedVl(__builtin_ctz(order), last_vl);
    const size_t q = size_t(h) * V() + vl;
    const int32_t mi = hq_head_[q];
    const size_t oc = (size_t(gp) << Vsh()) | vl;
    if (St(oc).credits <= 0 && !Absorb(oc)) {
      WaitCredit(oc);
      continue;
    }
    Message& m = msgs_[mi];
    const uint32_t bytes = std::min<uint32_t>(uint32_t(p_.packet_bytes), m.bytes - m.sent);
    m.sent += bytes;
    const Lid dlid = m.dlid;
    const uint8_t sl = m.sl;
    const bool last = m.sent == m.bytes;
    if (last) {
      const int32_t next =
          __builtin_expect(m.copy == kNotACopy, 1) ? m.next : FollowingCopy(uint32_t(mi), vl, m.next, q);
      hq_head_[q] = next;
      if (next == kNone) {
        hq_tail_[q] = kNone;
        Hdr(gp).ready &= ~(1u << vl);
      }
      --inflight_msgs_[h];
    }
    const uint32_t pi = AllocPacket();
    Packet& P = pkts_[pi];
    P.msg = uint32_t(mi);
    P.in_gp = gp;
    P.dlid = dlid;
    P.bytes = uint16_t(bytes);
    P.pending = 0;
    P.sl = sl;
    P.in_vl = uint16_t(vl);
    P.hops = 0;
    P.flags = dlid >= kMulticastLidBase ? kFlagMcast : 0;
    ++counters_.injected;
    StartTx(gp, vl, pi);
    if (last && backlog_.Waiting(h)) Materialise(h);
    return;
  }
}

// --- links ---

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::StartTx(int gp, int vl, uint32_t pi) {
  const int64_t t = q_.now();
  Packet& P = pkts_[pi];
  const int64_t dur = int64_t(P.bytes) * p_.byte_ns;
  Hdr(gp).busy = 1;
  Hdr(gp).rr_vl = uint16_t(vl);
  Push(t + dur, kTxDone, uint64_t(gp));
  ++counters_.hops;
  ++counters_.vl_hops[vl];
  const int64_t a = std::max(t, w0_), b = std::min(t + dur, w1_);
  if (b > a) Hdr(gp).link_busy += b - a;
  const int peer = Hdr(gp).peer;
  if (Hdr(gp).to_host) {
    Deliver(pi, Hdr(gp).peer_node, t + p_.fly_ns + dur);
    return;
  }
  const int ic = (gp << Vsh()) | vl;  // the output channel feeds the peer's input here
  --St(ic).credits;
  InPush(ic, pi);
  P.in_gp = peer;
  P.in_node = Hdr(gp).peer_node;
  P.in_port = Hdr(gp).peer_port;
  P.up_gp = gp;
  if (!(P.flags & kFlagMcast)) {
    __builtin_prefetch(net_.LftSlot(P.in_node, P.dlid));
  } else {
    mcast_tail_in_[pi] = t + p_.fly_ns + dur;
  }
  P.in_vl = uint16_t(vl);
  P.flags &= uint16_t(~kFlagRouted);
  if (++P.hops > max_hops_)
    FailWith([&] {
      return "routing loop: a packet for LID " + std::to_string(P.dlid) + " has crossed " +
             std::to_string(max_hops_) + " links, now at " + net_.PortName(peer);
    });
  Push(t + p_.fly_ns + p_.route_ns, kRouted, pi);
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::TransmitNext(int gp) {
  const bool to_host = Hdr(gp).to_host;
  const int last_vl = Hdr(gp).rr_vl;
  for (uint32_t order = RoundRobin(Hdr(gp).ready, last_vl); order; order &= order - 1) {
    const int vl = RotatedVl(__builtin_ctz(order), last_vl);
    const int oc = (gp << Vsh()) | vl;
    if (!to_host && St(oc).credits <= 0 && !Absorb(size_t(oc))) {
      WaitCredit(size_t(oc));
      continue;
    }
    StartTx(gp, vl, OutHead(oc));
    return;
  }
}

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::OnTxDone(int gp) {
  PortHdr& g = Hdr(gp);
  g.busy = 0;
  if (g.is_host) {
    HostTryTransmit(g.node);
    return;
  }
  const int oc = (gp << Vsh()) | Hdr(gp).rr_vl;
  const uint32_t pi = OutHead(oc);
  OutPop(oc);
  if (Hdr(gp).to_host) {
    FreePacket(pi);
    ++counters_.freed_delivered;
  }
  if (St(oc).nreq) Arbitrate(oc);  // most outputs have nobody waiting
  TryTransmit(gp);
}

template <int kV, bool kOne>
IBU_HOT bool Kernel<kV, kOne>::Absorb(size_t oc) {
  const int64_t now = q_.now();
  bool got = false;
  while (St(oc).pend_count && Pend(oc)[PendHeadOf(St(oc))] <= now) {
    ++St(oc).credits;
    if constexpr (!kOne) St(oc).pend_head = RingNext(St(oc).pend_head, InCap());
    --St(oc).pend_count;
    got = true;
  }
  return got;
}

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::WaitCredit(size_t oc) {
  if (St(oc).wake || !St(oc).pend_count) return;
  St(oc).wake = 1;
  Push(std::max(q_.now(), Pend(oc)[PendHeadOf(St(oc))]), kCredit, oc);
}

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::OnCredit(int oc) {
  St(oc).wake = 0;
  Absorb(size_t(oc));
  const int sender = oc >> Vsh();
  const PortHdr& s = Hdr(sender);
  if (s.is_host) HostTryTransmit(s.node);
  else TryTransmit(sender);
}

// --- switches ---

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::OnRouted(uint32_t pi) {
  Packet& P = pkts_[pi];
  P.flags |= kFlagRouted;
  const int ic = (P.up_gp << Vsh()) | P.in_vl;
  if (InWaitOf(St(ic)) || InHead(ic) != pi) return;
  Request(ic);
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::OnInputAdvance(int ic) {
  if constexpr (!kOne) St(ic).in_wait = 0;
  if (St(ic).in_count == 0) return;
  if (pkts_[InHead(ic)].flags & kFlagRouted) Request(ic);
}

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::Request(int ic) {
  const uint32_t pi = InHead(ic);
  Packet& P = pkts_[pi];
  const int sw = P.in_node;
  const int in_port = P.in_port;
  const int key = (P.in_gp << Vsh()) | P.in_vl;
  if (!(P.flags & kFlagMcast)) {
    // Network::UsableOutPort's checks, on the port state this loop reads
    // anyway; Network says what is wrong.
    const uint8_t out = net_.Lft(sw, P.dlid);
    if (out == kNoPort) FailWith([&] { return net_.RouteProblem(sw, P.dlid, in_port); });
    if (out == 0) FailWith([&] { return net_.RouteProblem(sw, P.dlid, in_port); });
    if (out == in_port) FailWith([&] { return net_.RouteProblem(sw, P.dlid, in_port); });
    const int ogp = net_.SwitchPort(sw, out);
    if (Hdr(ogp).peer < 0) FailWith([&] { return net_.RouteProblem(sw, P.dlid, in_port); });
    GrantOrQueue(ic, key, (ogp << Vsh()) | net_.Vl(sw, in_port, out, P.sl));
    return;
  }
  int n = 0;
  const uint8_t* ports = net_.Mft(sw, P.dlid, &n);
  if (!ports)
    FailWith([&] {
      return "no route: " + net_.fabric().SwitchLabel(sw) + " has no MFT entry for MLID " + HexLid(P.dlid) +
             " (packet arrived on port " + std::to_string(in_port) + ")";
    });
  int pending = 0;
  for (int k = 0; k < n; ++k) pending += ports[k] != in_port;
  if (pending == 0) {  // a branch with nowhere further to go: consumed
    // Nothing crosses the crossbar: the slot is free once the tail is in.
    const int64_t tail_gone = std::max(q_.now(), mcast_tail_in_[pi]);
    InPop(ic);
    FreePacket(pi);
    ++counters_.dropped;
    ReleaseInput(ic, tail_gone);
    return;
  }
  P.pending = uint16_t(pending);
  const uint8_t sl = P.sl;
  for (int k = 0; k < n; ++k) {
    const int out = ports[k];
    if (out == in_port) continue;
    GrantOrQueue(ic, key, (net_.SwitchPort(sw, out) << Vsh()) | net_.Vl(sw, in_port, out, sl));
  }
}

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::Grant(int ic, int oc) {
  const uint32_t pi = InHead(ic);
  uint32_t qi = pi;
  if (pkts_[pi].flags & kFlagMcast) {
    qi = AllocPacket();
    pkts_[qi] = pkts_[pi];
    ++counters_.copies;
    if (--pkts_[pi].pending == 0) {
      const int bytes = pkts_[pi].bytes;
      InPop(ic);
      FreePacket(pi);
      ++counters_.consumed;
      ReleaseInputAfter(ic, bytes);
    }
  } else {
    InPop(ic);
    ReleaseInputAfter(ic, pkts_[pi].bytes);
  }
  OutPush(oc, qi);
  TryTransmit(oc >> Vsh());
}

template <int kV, bool kOne>
IBU_HOT void Kernel<kV, kOne>::ReleaseInput(int ic, int64_t tail_gone) {
  const int sender = ic >> Vsh();
  const size_t oc = size_t(ic);  // the input's credits live in its sender's channel
  int slot = PendHeadOf(St(oc)) + St(oc).pend_count;
  if (slot >= InCap()) slot -= InCap();
  Pend(oc)[slot] = tail_gone + p_.fly_ns;
  ++St(oc).pend_count;
  // A sender already blocked on this VL learns of it when it arrives.
  if (St(oc).credits <= 0 && !St(oc).wake) {
    // `ready` has the VL's bit while the host's queue or the switch's
    // output buffer holds a packet for it.
    if (Hdr(sender).ready & (1u << (ic & Vmask()))) WaitCredit(oc);
  }
  if constexpr (!kOne) {  // a one-packet input is empty now
    if (St(ic).in_count > 0) {
      St(ic).in_wait = 1;
      Push(tail_gone, kInputAdvance, uint64_t(ic));
    }
  }
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::Arbitrate(int oc) {
  std::vector<int32_t>& r = req_[oc];
  while (St(oc).out_count < OutCap() && !r.empty()) {
    // Cost: linear in the waiting requesters, at most ports x VLs of the
    // switch (a hot spot's output); a grant without contention skips this.
    // Round-robin over (input port, VL): the first requester after the
    // last one granted, in channel order.
    const uint32_t last = uint32_t(St(oc).rr_last);
    size_t best = 0;
    uint32_t best_key = uint32_t(r[0]) - last - 1;
    for (size_t i = 1; i < r.size(); ++i) {
      const uint32_t key = uint32_t(r[i]) - last - 1;
      if (key < best_key) {
        best_key = key;
        best = i;
      }
    }
    const int key = r[best];
    r[best] = r.back();
    r.pop_back();
    --St(oc).nreq;
    St(oc).rr_last = key;
    Grant(PeerChannel(key), oc);
  }
}

// --- delivery and bookkeeping ---

template <int kV, bool kOne>
void Kernel<kV, kOne>::Deliver(uint32_t pi, int h, int64_t t) {
  const Packet& P = pkts_[pi];
  const uint32_t mi = P.msg;
  Message& m = msgs_[mi];
  Op& op = ops_[m.op];
  if (!(P.flags & kFlagMcast)) {
    if (uint32_t(P.dlid - host_base_[h]) >= host_lids_[h])
      FailWith([&] {
        return "misdelivery: a packet for LID " + std::to_string(P.dlid) + " reached end port " +
               net_.fabric().end_ports[h].name;
      });
    if (++m.delivered > m.npackets)
      FailWith([&] {
        return "duplicate: end port " + net_.fabric().end_ports[h].name +
               " received a packet of a message twice (LID " + std::to_string(P.dlid) + ")";
      });
  } else {
    const int r = wl_.Rank(op.tree, h);
    if (r < 0 || h == op.src)
      FailWith([&] {
        return "stray multicast: MLID " + HexLid(P.dlid) + " from end port " +
               net_.fabric().end_ports[op.src].name + " reached " +
               (h == op.src ? "its own source " : "non-member ") + net_.fabric().end_ports[h].name;
      });
    if (!member_counts_.Count(op.counters, op.npackets, uint32_t(r)))
      FailWith([&] {
        return "duplicate: end port " + net_.fabric().end_ports[h].name +
               " received a multicast packet of MLID " + HexLid(P.dlid) + " twice";
      });
    if (!in_group_[h]) {  // a sending-only source on a shared tree: dropped
      ++counters_.sunk;
      ++counters_.delivered_total;
      if (--m.remaining == 0) MessageDone(mi, t);
      return;
    }
  }
  ++counters_.delivered_pkts;
  ++counters_.delivered_total;
  ++host_pkts_[h];
  if (t >= w0_ && t < w1_) {
    counters_.accepted_bytes += P.bytes;
    host_rx_[h] += P.bytes;
  }
  if (t > op.last_ns) op.last_ns = t;
  if (t > counters_.last_delivery_ns) counters_.last_delivery_ns = t;
  if (--m.remaining == 0) MessageDone(mi, t);
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::MessageDone(uint32_t mi, int64_t) {
  const uint32_t oi = msgs_[mi].op;
  msgs_[mi].live = false;
  free_msgs_.push_back(mi);
  Op& op = ops_[oi];
  if (--op.msgs_left) return;
  if (op.tree >= 0) {
    member_counts_.Release(op.counters, uint32_t(wl_.MemberCount(op.tree)), op.npackets);
  }
  if (op.measured) {
    latencies_.Add(op.last_ns - op.gen_ns);
    --measured_pending_;
  }
  --live_ops_;
  free_ops_.push_back(oi);
  CheckDone();
}

// --- deadlock ---

// Cost: O(channels + waiting requests) with a fresh wait-for graph, every
// deadlock_check_ns of simulated time while packets are in flight: on
// FT(16,3) with 4 VLs about 90k channels, negligible next to the events of
// 100 us, but it grows with the fabric, not with the traffic.
template <int kV, bool kOne>
bool Kernel<kV, kOne>::FindCycle(std::vector<int>* cycle) {
  const size_t C = size_t(G_) << Vsh();
  // Input buffer (numbered by its receiving port, as in req_) -> output
  // channels its head is waiting for.
  std::vector<std::vector<int32_t>> waits(C);
  for (size_t oc = 0; oc < C; ++oc)
    for (int32_t ic : req_[oc]) waits[ic].push_back(int32_t(oc));
  // An output channel is stuck when its head has no credit and the input
  // buffer at the far end is full (no credit on its way back either). A
  // head on the wire is not: it took its credit and its place in the far
  // buffer when it started, and its link-done event frees the output.
  auto stuck = [&](size_t oc) {
    if ((oc & Vmask()) >= size_t(V()) || St(oc).out_count == 0 || St(oc).credits > 0) return false;
    const PortHdr& g = Hdr(oc >> Vsh());
    if (g.peer < 0 || g.to_host) return false;
    if (g.busy && g.rr_vl == (oc & Vmask())) return false;
    return St(oc).in_count == InCap();  // oc feeds that buffer
  };
  // What a stuck channel waits for: the outputs the head of the input
  // buffer it feeds asked for.
  const auto on_wait = [&](int oc) -> const std::vector<int32_t>& {
    return waits[(size_t(Hdr(oc >> Vsh()).peer) << Vsh()) | (oc & Vmask())];
  };
  *cycle = ibu::FindCycle(int(C), on_wait, [&](int oc) { return !stuck(size_t(oc)); });
  return !cycle->empty();
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::ReportDeadlock(bool stalled) {
  std::vector<int> cycle;
  std::vector<BlockedChannel> blocked;
  if (!FindCycle(&cycle))
    for (size_t oc = 0; oc < (size_t(G_) << Vsh()) && blocked.size() < kBlockedShown; ++oc)
      if ((oc & Vmask()) < size_t(V()) && St(oc).out_count) blocked.push_back({int(oc), int(St(oc).credits)});
  result_.deadlock = true;
  result_.deadlock_report = DeadlockReport(net_, q_.now(), live_pkts_, cycle, Vsh(), stalled, blocked);
  stop_ = true;
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::ReportLost() {
  uint64_t n = 0;
  std::string first;
  const Fabric& f = net_.fabric();
  for (size_t mi = 0; mi < msgs_.size(); ++mi) {
    const Message& m = msgs_[mi];
    if (!m.live) continue;
    if (n++) continue;
    const Op& op = ops_[m.op];
    std::ostringstream os;
    if (op.tree < 0) {
      os << "from " << f.end_ports[op.src].name << " to " << f.end_ports[m.dst].name << " (LID " << m.dlid
         << "): " << m.delivered << " of " << m.npackets << " packets arrived";
    } else {
      const std::vector<int> mem = wl_.Members(op.tree);
      os << "MLID " << HexLid(m.dlid) << " from " << f.end_ports[op.src].name << ":";
      int shown = 0;
      for (size_t r = 0; r < mem.size() && shown < 5; ++r) {
        const uint32_t got = member_counts_.Get(op.counters, op.npackets, uint32_t(r));
        if (mem[r] != op.src && in_group_[mem[r]] && got < m.npackets) {
          os << " member " << f.end_ports[mem[r]].name << " got " << got << " of " << m.npackets
             << " packets;";
          ++shown;
        }
      }
    }
    first = os.str();
  }
  Fail("lost deliveries: nothing is in flight or queued, yet " + std::to_string(n) +
       " message(s) are incomplete; first " + first);
}

// The loop proper. After a network event the count of those pending is
// kept (the others cannot move a packet).
template <int kV, bool kOne>
template <bool kPrefetch>
void Kernel<kV, kOne>::EventLoop() {
  int64_t t = 0;
  uint64_t ev = 0;
  uint64_t events = 0;  // a local: the handlers' stores cannot clobber it
  while (!stop_ && q_.Pop(t, ev)) {
    if ((++events & 0xFFFF) == 0 && tick_) tick_(Done());
    if constexpr (kPrefetch) {
      if (const uint64_t* e = q_.Peek(kAheadFar)) PrefetchFar(*e);
      if (const uint64_t* e = q_.Peek(kAheadNear)) PrefetchNear(*e);
    }
    const uint64_t type = ev >> kTypeShift;
    const uint64_t arg = ev & kArgMask;
    if (type < kNetTypes) {
      OnNetEvent(type, arg);
      if (--pending_net_ == 0 && !stop_) OnQuiet();
      continue;
    }
    switch (type) {
      case kGen: OnGen(int(arg)); CheckDone(); break;
      case kScript:
        OnScript(arg);
        break;
      case kWindowEnd: window_over_ = true; CheckDone(); break;
      case kStop: stop_ = true; hit_limit_ = true; break;
      case kDeadlockCheck: {
        std::vector<int> cycle;
        if (live_pkts_ > 0 && FindCycle(&cycle)) ReportDeadlock(false);
        else Push(t + p_.deadlock_check_ns, kDeadlockCheck, 0);
        break;
      }
    }
  }
  counters_.events += events;
}

// No network event is pending: packets still buffered are deadlocked;
// with none, incomplete messages that nobody will send lost deliveries.
template <int kV, bool kOne>
void Kernel<kV, kOne>::OnQuiet() {
  if (live_pkts_ > 0) {
    ReportDeadlock(true);
  } else if (live_ops_ > 0 && backlog_.total() == 0 &&
             std::all_of(hq_head_.begin(), hq_head_.end(), [](int32_t m) { return m == kNone; })) {
    ReportLost();
  }
}

// --- run ---

template <int kV, bool kOne>
PointResult Kernel<kV, kOne>::Run() {
  const auto wall0 = std::chrono::steady_clock::now();
  SetUpArrivals();
  result_ = PointResult{};
  result_.load = mode_ == Mode::kBatch ? std::numeric_limits<double>::quiet_NaN() : load_;
  ScheduleRun();
  Push(p_.deadlock_check_ns, kDeadlockCheck, 0);
  CheckDone();

  if (prefetch_ahead_)
    EventLoop<true>();
  else
    EventLoop<false>();
  SettleDrainedRun();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  FillResult(wall);
  return result_;
}

template <int kV, bool kOne>
void Kernel<kV, kOne>::ScheduleRun() {
  const RunWindow w =
      ScheduleRunEvents(mode_, p_, load_, msg_bytes_, wl_.sources(), rng_, script_, &gen_pending_,
                        [this](int64_t t, RunEvent e, uint64_t arg) { Push(t, EventOf(e), arg); });
  w0_ = w.w0;
  w1_ = w.w1;
  gen_end_ = w.gen_end;
}

// A drained run lets the last tails and credits settle, so the buffers
// are empty and FillResult's conservation check is exact.
template <int kV, bool kOne>
void Kernel<kV, kOne>::SettleDrainedRun() {
  int64_t t = 0;
  uint64_t ev = 0;
  if (mode_ != Mode::kSteady && !result_.deadlock && !hit_limit_) {
    while (pending_net_ > 0 && q_.Pop(t, ev)) {
      const uint64_t type = ev >> kTypeShift;
      const uint64_t arg = ev & kArgMask;
      if (type >= kNetTypes) continue;
      --pending_net_;
      OnNetEvent(type, arg);
    }
  }
}

// The run's end state for the statistics (Summarise); `wall` seconds of it.
template <int kV, bool kOne>
void Kernel<kV, kOne>::FillResult(double wall) {
  RunEnd e = EndOfRun();
  e.link_busy_ns.resize(G_);
  for (int gp = 0; gp < G_; ++gp) e.link_busy_ns[gp] = net_.port(gp).peer < 0 ? -1 : Hdr(gp).link_busy;
  Summarise(counters_, e, latencies_, wall, &result_);
}

// The specialised engines cover the papers' configurations; anything else
// runs on the general one.
std::unique_ptr<Simulator::Impl> MakeKernel(const Network& net, const Workload& wl, const Params& p,
                                            double load, uint64_t seed) {
  if (p.kernel == KernelKind::kLean) return MakeLeanKernel(net, wl, p, load, seed);
  if (p.in_buf == 1 && p.out_buf == 1 && p.vls == net.vls()) {
    switch (net.vls()) {
      case 1:
        return std::make_unique<Kernel<1, true>>(net, wl, p, load, seed);
      case 2:
        return std::make_unique<Kernel<2, true>>(net, wl, p, load, seed);
      case 4:
        return std::make_unique<Kernel<4, true>>(net, wl, p, load, seed);
      default: break;
    }
  }
  return std::make_unique<Kernel<0, false>>(net, wl, p, load, seed);
}

}  // namespace

std::string DeadlockReport(const Network& net, int64_t now, uint64_t live, const std::vector<int>& cycle,
                           int vl_shift, bool stalled, const std::vector<BlockedChannel>& blocked) {
  const int vl_mask = (1 << vl_shift) - 1;
  std::ostringstream os;
  os << "deadlock at t=" << now << " ns with " << live << " packets in the network";
  if (!cycle.empty()) {
    os << ": credit loop of " << cycle.size() << " channels: ";
    for (size_t i = 0; i < cycle.size(); ++i)
      os << (i ? " => " : "") << "[" << net.LinkName(cycle[i] >> vl_shift) << " VL " << (cycle[i] & vl_mask)
         << "]";
    return os.str();
  }
  os << (stalled ? ": no event can move them, but no credit loop was found (blocked outputs:"
                 : ": (no loop)");
  for (const BlockedChannel& b : blocked)
    os << " [" << net.LinkName(b.channel >> vl_shift) << " VL " << (b.channel & vl_mask) << " credits "
       << b.credits << "]";
  if (stalled) os << ")";
  return os.str();
}

// --- public wrapper ---

Simulator::Simulator(const Network& net, const Workload& wl, const Params& p, double load, uint64_t seed)
    : impl_(MakeKernel(net, wl, p, load, seed)) {}
Simulator::~Simulator() = default;
void Simulator::AddMessage(int64_t t, int src, int dst, uint32_t bytes, int sl) {
  impl_->AddMessage(t, src, dst, bytes, sl);
}
void Simulator::SetTick(std::function<void(double)> tick) { impl_->tick_ = std::move(tick); }
void Simulator::SetMessageBytes(uint32_t bytes) { impl_->msg_bytes_ = std::max<uint32_t>(1, bytes); }
PointResult Simulator::Run() { return impl_->Run(); }
uint64_t Simulator::DeliveredTo(int h) const { return impl_->DeliveredTo(h); }

}  // namespace ibu::sim
