// lean.cc: prototype of a lean exact kernel for ibunion's packet-level
// timing model (sim-harness/timing/README.md "Model"), written in session 40
// to measure what an engine without per-hop link-done and credit events
// achieves on this machine. It is the reference design for rewriting
// `Kernel` in sim-harness/timing/simulator.cc, not a second model: it runs
// only unicast, one-packet input/output buffers, 4 VLs, 32-byte messages of
// one packet, Bernoulli arrivals and uniform destinations on a fat-tree,
// and goes once the rewrite lands. sim-harness/bench/lean_bench.sh builds
// and runs it against `ibunion sim` (same-run ratios, statistical agreement).
//
//   python3 prep.py NET GUID2LID LFT PATHS OUT.fab   (LFT/PATHS from `ibunion route --engine mlid`)
//   g++ -O2 -g -std=c++17 -o lean lean.cc
//   ./lean FABRIC.fab LOAD [SEED] [MEASURE_NS]        (one JSON line, fields as `ibunion sim --json`)
//
// Design:
//  * one event per switch hop (ROUTED: head looked up R after F), plus a
//    per-port "service" event only when the port has something to do at a
//    known later time (requesters waiting for the output slot that frees
//    when the tail leaves, a ready VL waiting for its link or its credit).
//    A tail that leaves with nobody waiting and nothing queued makes no
//    event: the output slot and the link are free from the start of that
//    nanosecond, checked lazily (ofree <= now, busy_until <= now); credits
//    likewise (cred <= now). Same times as the real kernel; the one
//    difference is the order of simultaneous events (a link or slot freed
//    at t is free for every event of t, not from its TxDone's place on).
//  * credits are a time stamp per channel (one-packet buffers): `cred` =
//    when the sender may use the downstream slot again, INF while occupied.
//  * requests for an output are a bit mask over the switch's input ports
//    (a packet's VL never changes on its path, so all requesters of (out,
//    VL) have that VL); round-robin = rotate + count trailing zeros.
//  * calendar wheel of 1024 ns with FIFO buckets (simultaneous events in
//    insertion order: deterministic), far message arrivals in a heap.
//  * channel block of 32 bytes indexed by sending port: its output slot,
//    the credit, the downstream input slot, the request mask; 16-byte port
//    headers; 16-byte packets from a LIFO pool.
//  * large fabrics (state > 4 MB: FT(16,3)'s 10.6 MB of LFTs): look-ahead
//    prefetching over the current nanosecond's bucket (all of it is known
//    before it runs): packets, then LFT entries, then output channels.
//
//  * the LFTs, the DLID table and the channel blocks on transparent huge
//    pages (madvise): the 10.6 MB of FT(16,3)'s LFTs are read at random.
//
// Build flags (ablations, all exact): -DNO_HUGE, -DCHECK (after every ns: no port
// could send and did not, no free slot with requesters, every blocked port
// has its wake-up; slow), -DEAGER_TXDONE (an event at every tail, as the
// real kernel's TxDone), -DNO_AHEAD / -DAHEAD_ALWAYS, -DNO_PREPASS
// (in-loop look-ahead 16/10/5 only), -DPREPASS3, -DSPLIT (one wheel per
// event type: other tie order), -DLFT_PREFETCH_AT_TX, -DFAR_ROUTED_ONLY.
// Tried and dropped (not kept): 64-bit events carrying the lookup's inputs
// (the packing cost what the packet read saved).
#include <time.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <queue>
#include <vector>

using u8 = uint8_t;
using u16 = uint16_t;
using u32 = uint32_t;
using u64 = uint64_t;

#ifndef NVL
#define NVL 4
#endif
constexpr int V = NVL, VSH = V == 1 ? 0 : V == 2 ? 1 : V == 4 ? 2 : 3;
constexpr u32 INF = 0xFFFFFFFFu, NONE = 0xFFFFFFFFu;
// Model parameters (defaults of params.cc).
constexpr u32 FLY = 20, ROUTE = 100, BYTE_NS = 4, PKT = 32, NIC_MSGS = 8;
constexpr u32 DUR = PKT * BYTE_NS;       // 128: packet time
constexpr u32 ROUTED_DLY = FLY + ROUTE;  // head looked up
constexpr u32 CREDIT_DLY = DUR + FLY;    // slot free after transfer start + fly back
constexpr u32 DELIVER_DLY = FLY + DUR;   // last byte at the host
constexpr u32 WARMUP = 50000;
static u32 MEASURE = 200000;
constexpr u32 DRAIN = 1000000;

#define HOT __attribute__((always_inline)) inline

static inline u64 Mix64(u64 x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
struct Rng {  // xoshiro256**
  u64 s[4];
  explicit Rng(u64 seed) {
    for (int i = 0; i < 4; ++i) s[i] = Mix64(seed + 0x1234567ULL * (i + 1));
  }
  static u64 rotl(u64 x, int k) { return (x << k) | (x >> (64 - k)); }
  HOT u64 operator()() {
    const u64 r = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return r;
  }
  HOT u32 below(u32 n) { return u32((u64(u32((*this)() >> 32)) * n) >> 32); }
  HOT double open01() { return (double((*this)() >> 11) + 1.0) * (1.0 / 9007199254740992.0); }
};

// ---------------------------------------------------------------- fabric
struct Fabric {
  u32 NS, R, H, NL, rsh;
  std::vector<int32_t> sw_peer, host_peer;
  std::vector<u16> host_base, host_cnt, dlid;
  std::vector<u8> lft;
};
static Fabric Load(const char* path) {
  Fabric f;
  FILE* fp = std::fopen(path, "rb");
  if (!fp) {
    std::perror(path);
    std::exit(2);
  }
  u32 h[4];
  auto rd = [&](void* p, size_t n) {
    if (std::fread(p, 1, n, fp) != n) {
      std::fprintf(stderr, "short %s\n", path);
      std::exit(2);
    }
  };
  rd(h, 16);
  f.NS = h[0];
  f.R = h[1];
  f.H = h[2];
  f.NL = h[3];
  f.rsh = 0;
  while ((1u << f.rsh) < f.R) ++f.rsh;
  f.sw_peer.resize(size_t(f.NS) * f.R);
  rd(f.sw_peer.data(), f.sw_peer.size() * 4);
  f.host_peer.resize(f.H);
  rd(f.host_peer.data(), f.H * 4);
  f.host_base.resize(f.H);
  rd(f.host_base.data(), f.H * 2);
  f.host_cnt.resize(f.H);
  rd(f.host_cnt.data(), f.H * 2);
  f.lft.resize(size_t(f.NS) * f.NL);
  rd(f.lft.data(), f.lft.size());
  f.dlid.resize(size_t(f.H) * f.H);
  rd(f.dlid.data(), f.dlid.size() * 2);
  std::fclose(fp);
  return f;
}

// ---------------------------------------------------------------- state
struct alignas(16) Port {
  u32 busy_until;  // link free from this ns on
  u32 wake_at;     // pending service event, INF = none
  u32 peer;        // global port at the far end
  u8 ready;        // VLs with a packet waiting to start (switch: output slot; host: queue)
  u8 rr_vl;        // last VL started (the one on the wire while busy)
  u8 to_host, is_host;
  // (no byte fields anywhere in the hot state: a byte store may alias
  // anything and makes the compiler reload every member after it)
};
struct alignas(32) Chan {  // (sending port, VL)
  u32 ofree;               // output slot: free from this ns (0 = free, INF = holds a waiting packet)
  u32 cred;                // downstream input slot usable from this ns (INF = occupied, not yet granted)
  u32 opkt;                // packet waiting in the output slot
  u32 inpkt;               // packet in the downstream input slot (fed by this channel)
  u32 req;                 // output arbitration: bit per input port of this switch requesting
  u32 rr_last;             // last input port granted
  u32 pad[2];
};
struct alignas(16) Pkt {
  u32 gen;   // message arrival time
  u32 q;     // global port it arrived on (switch port)
  u32 upch;  // channel that feeds its input slot
  u16 dlid;
  u16 vh;  // VL in bits 0-2, hops above
};
struct Msg {
  u32 gen;
  u16 dlid, dst;
};
struct Host {
  Msg q[V][NIC_MSGS];
  u32 head[V], cnt[V];
  u32 inflight;
  u32 bl_head;
  u32 next_dst;  // destination of the next message to enter the adapter (drawn ahead, its DLID prefetched)
  std::vector<u32> backlog;
};

// Calendar wheel: W buckets of 1 ns, FIFO inside (insertion order), far
// events (message arrivals beyond the wheel) in a (time, seq) heap.
struct Wheel {
  static constexpr int B = 10;
  static constexpr u32 W = 1u << B, M = W - 1;
  struct Bucket {
    u32* d = nullptr;
    u32 n = 0, cap = 0;
  };
  Bucket b[W];
  struct Far {
    u64 key;
    u32 ev;
    bool operator>(const Far& o) const { return key > o.key; }
  };
  std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far;
  u64 seq = 0;
  u64 pushes = 0;
  [[gnu::noinline]] static void Grow(Bucket& k) {
    k.cap = k.cap ? k.cap * 2 : 64;
    k.d = static_cast<u32*>(std::realloc(k.d, k.cap * 4));
  }
  HOT void Put(u32 t, u32 ev) {
    Bucket& k = b[t & M];
    if (__builtin_expect(k.n == k.cap, 0)) Grow(k);
    k.d[k.n++] = ev;
  }
  HOT void Push(u32 now, u32 t, u32 ev) {
    ++pushes;
    if (__builtin_expect(t - now < W, 1))
      Put(t, ev);
    else
      far.push({(u64(t) << 32) | (seq++ & 0xFFFFFFFF), ev});
  }
  void Migrate(u32 now) {
    while (!far.empty() && u32(far.top().key >> 32) - now < W) {
      Put(u32(far.top().key >> 32), far.top().ev);
      far.pop();
    }
  }
};

enum : u32 { kRouted = 0, kPort = 1, kGen = 2 };
constexpr int TSH = 30;
constexpr u32 ARG = (1u << TSH) - 1;
static inline u32 Ev(u32 type, u32 arg) { return (type << TSH) | arg; }

#ifndef NO_HUGE
#define HUGE_TABLES 1
#define HUGE_CHANNELS 1
#endif
#ifdef HUGE_TABLES
#include <sys/mman.h>
static void* HugeCopy(const void* src, size_t n) {
  const size_t a = size_t(2) << 20, m = (n + a - 1) / a * a;
  void* p = std::aligned_alloc(a, m);
  madvise(p, m, MADV_HUGEPAGE);
  std::memcpy(p, src, n);
  return p;
}
#endif

struct Sim {
  const Fabric& f;
  const u8* lftp;    // the LFTs, switches x LIDs bytes
  const u16* dlidp;  // the engine's DLID per (source, destination)
  double load;
  Rng rng;
  u32 NS, R, H, NL, rsh, HP0;  // HP0: first host port
  std::vector<Port> port;
  Chan* ch;
  std::vector<Chan> ch_store;
  std::vector<Pkt> pk;
  std::vector<u32> free_pk;
  std::vector<Host> host;
  Wheel q;
  u32 now = 0;
  u32 w0 = WARMUP, w1 = WARMUP + MEASURE, gen_end;
  double gap_div;
  // statistics
  u64 hops = 0, injected = 0, delivered = 0, ev_routed = 0, ev_port = 0, ev_port_stale = 0, ev_gen = 0;
  u64 measured_pending = 0, ops_measured = 0, offered_bytes = 0, accepted_bytes = 0;
  u64 vl_hops[V] = {};
  std::vector<u32> lat;
  double lat_sum = 0;
  u32 lat_max = 0;
  u64 live = 0;

  Sim(const Fabric& fab, double ld, u64 seed) : f(fab), load(ld), rng(seed) {
    NS = f.NS;
    R = f.R;
    H = f.H;
    NL = f.NL;
    rsh = f.rsh;
    if (R > 32 || (1u << rsh) != R) {
      std::fprintf(stderr, "radix %u: need a power of two <= 32\n", R);
      std::exit(2);
    }
    HP0 = NS * R;
    const u32 G = HP0 + H;
    port.assign(G, Port{});
    ch_store.assign(size_t(G) * V + 1, Chan{});
    ch = ch_store.data();
    for (u32 g = 0; g < G; ++g) {
      Port& p = port[g];
      p.wake_at = INF;
      p.rr_vl = V - 1;
      const int32_t peer = g >= HP0 ? f.host_peer[g - HP0] : f.sw_peer[g];
      p.peer = peer < 0 ? NONE : u32(peer);
      p.is_host = g >= HP0;
      p.to_host = peer >= 0 && u32(peer) >= HP0;
      for (int v = 0; v < V; ++v) {
        Chan& c = ch[size_t(g) * V + v];
        c.ofree = 0;
        c.cred = 0;
        c.opkt = NONE;
        c.inpkt = NONE;
        c.req = 0;
        c.rr_last = R - 1;
      }
    }
    pk.resize(size_t(G) * V * 2 + 16);
    free_pk.reserve(pk.size());
    for (u32 i = u32(pk.size()); i-- > 0;) free_pk.push_back(i);
    host.resize(H);
    for (auto& h : host) {
      std::memset(h.head, 0, sizeof h.head);
      std::memset(h.cnt, 0, sizeof h.cnt);
      h.inflight = 0;
      h.bl_head = 0;
    }
    for (u32 h = 0; h < H; ++h) host[h].next_dst = DrawDst(h);
    gen_end = w1 + DRAIN;
    gap_div = std::log1p(-std::min(1.0, load));
    lftp = f.lft.data();
    dlidp = f.dlid.data();
#ifdef HUGE_TABLES  // the LFTs and the DLID table on transparent huge pages
    lftp = static_cast<const u8*>(HugeCopy(f.lft.data(), f.lft.size()));
    dlidp = static_cast<const u16*>(HugeCopy(f.dlid.data(), f.dlid.size() * 2));
#ifdef HUGE_CHANNELS
    ch = static_cast<Chan*>(HugeCopy(ch_store.data(), ch_store.size() * sizeof(Chan)));
#endif
#endif
  }

#ifdef SPLIT
  // Ablation: one wheel per event type, a nanosecond's routings first,
  // then port services, then arrivals (another deterministic tie order):
  // the dispatch becomes predictable.
  Wheel qr, qp;
  HOT void Push(u32 t, u32 ev) {
    switch (ev >> TSH) {
      case kRouted:
        qr.Push(now, t, ev);
        break;
      case kPort:
        qp.Push(now, t, ev);
        break;
      default:
        q.Push(now, t, ev);
        break;
    }
  }
#else
  HOT void Push(u32 t, u32 ev) { q.Push(now, t, ev); }
#endif
  HOT void EnsureWake(u32 p, u32 t) {
#ifdef CHECK
    if (t <= now) Die("wake in the past", p, t);
#endif
    if (t < port[p].wake_at) {
      port[p].wake_at = t;
      Push(t, Ev(kPort, p));
    }
  }
  // When the (busy or blocked) port p must look again: the end of its
  // transmission if requesters wait for the slot that frees then, or the
  // first moment a ready VL has both the link and a credit.
  HOT void Reschedule(u32 p) {
    Port& P = port[p];
    const Chan* c = ch + (size_t(p) << VSH);
    u32 need = INF;
    const Chan& last = c[P.rr_vl];
    if (last.req && last.ofree != INF) need = last.ofree;
    for (u32 m = P.ready; m; m &= m - 1) {
      const u32 cr = c[__builtin_ctz(m)].cred;
      if (cr != INF) need = std::min(need, std::max(cr, P.busy_until));
    }
    if (need != INF) EnsureWake(p, need);
  }

  u32 AllocPkt() {
    const u32 pi = free_pk.back();
    free_pk.pop_back();
    ++live;
    return pi;
  }
  HOT void FreePkt(u32 pi) {
    free_pk.push_back(pi);
    --live;
  }

  [[noreturn, gnu::cold, gnu::noinline]] void Die(const char* what, u32 a, u32 b) {
    std::fprintf(stderr, "t=%u: %s (%u, %u)\n", now, what, a, b);
    std::exit(1);
  }

  // ---- traffic
  u32 Gap() {
    const double k = 1 + std::floor(std::log(rng.open01()) / gap_div);
    return k < 1e8 ? u32(k) * DUR : INF;
  }
  HOT u32 DrawDst(u32 h) {
    u32 d = rng.below(H - 1);
    d += d >= h;
    __builtin_prefetch(&dlidp[size_t(h) * H + d]);
    return d;
  }
  // The message that arrived at `t` enters host h's adapter.
  HOT u32 Materialise(u32 h, u32 t) {
    Host& hs = host[h];
    const u32 d = hs.next_dst;
    const u32 vl = u32(Mix64(u64(h) * H + d) & 15) & (V - 1);  // SL = hash of the pair, VL = SL mod V
    hs.next_dst = DrawDst(h);
    Msg& m = hs.q[vl][(hs.head[vl] + hs.cnt[vl]) & (NIC_MSGS - 1)];
    m.gen = t;
    m.dlid = dlidp[size_t(h) * H + d];
    m.dst = u16(d);
    ++hs.cnt[vl];
    ++hs.inflight;
    port[HP0 + h].ready |= u8(1u << vl);
    return vl;
  }
  void OnGen(u32 h) {
    ++ev_gen;
    if (now >= w0 && now < w1) {
      ++measured_pending;
      ++ops_measured;
      offered_bytes += PKT;
    }
    Host& hs = host[h];
    const u32 hp = HP0 + h;
    if (hs.bl_head == hs.backlog.size() && hs.inflight < NIC_MSGS) {
      Kick(hp, Materialise(h, now));
    } else {
      hs.backlog.push_back(now);
    }
    const u32 g = Gap();
    if (g != INF && u64(now) + g < gen_end) Push(now + g, Ev(kGen, h));
  }

  // ---- links
  // Port p (link free now) starts VL v.
  HOT void StartTx(u32 p, u32 v) {
    Port& P = port[p];
    Chan& c = ch[(size_t(p) << VSH) | v];
    u32 pi;
    if (P.is_host) {
      const u32 h = p - HP0;
      Host& hs = host[h];
      const Msg& m = hs.q[v][hs.head[v]];
      pi = AllocPkt();
      Pkt& K = pk[pi];
      K.gen = m.gen;
      K.dlid = m.dlid;
      K.vh = u16(v);
      hs.head[v] = (hs.head[v] + 1) & (NIC_MSGS - 1);
      if (--hs.cnt[v] == 0) P.ready &= u8(~(1u << v));
      --hs.inflight;
      ++injected;
      if (hs.bl_head < hs.backlog.size()) {  // the backlog's oldest arrival enters the adapter
        Materialise(h, hs.backlog[hs.bl_head++]);
        if (hs.bl_head == hs.backlog.size()) {
          hs.backlog.clear();
          hs.bl_head = 0;
        }
      }
    } else {
      pi = c.opkt;
      c.opkt = NONE;
      P.ready &= u8(~(1u << v));
    }
    c.ofree = now + DUR;
    P.busy_until = now + DUR;
    P.rr_vl = u8(v);
    ++hops;
    ++vl_hops[v];
    Pkt& K = pk[pi];
    if (P.to_host) {
      Deliver(pi, P.peer - HP0, now + DELIVER_DLY);
    } else {
      c.cred = INF;
      c.inpkt = pi;
      K.q = P.peer;
      K.upch = (p << VSH) | v;
      K.vh += 8;
      if (__builtin_expect(K.vh >= 65 * 8, 0)) Die("routing loop", K.dlid, P.peer);
#ifdef LFT_PREFETCH_AT_TX
      __builtin_prefetch(&lftp[size_t(P.peer >> rsh) * NL + K.dlid]);
#endif
      Push(now + ROUTED_DLY, Ev(kRouted, pi));
    }
    P.wake_at = INF;  // any pending service is superseded
    Reschedule(p);
#ifdef EAGER_TXDONE  // ablation: an event at every tail's departure, as the real kernel's TxDone
    EnsureWake(p, now + DUR);
#endif
  }
  // Port p, link free now: the slot that freed with the last tail goes to
  // its requesters first (what the tail's departure would do), then the
  // next VL in round-robin order that has a credit starts.
  HOT void TryStart(u32 p) {
    Port& P = port[p];
    Chan* c = ch + (size_t(p) << VSH);
    if (!P.is_host) {
      Chan& last = c[P.rr_vl];
      if (last.req && last.ofree <= now) Arbitrate((p << VSH) | P.rr_vl);
    }
    const u32 s = (P.rr_vl + 1) & (V - 1);
    u32 m = P.ready;
    m = ((m >> s) | (m << (V - s))) & ((1u << V) - 1);
    for (; m; m &= m - 1) {
      const u32 v = (__builtin_ctz(m) + s) & (V - 1);
      if (c[v].cred <= now) {
        StartTx(p, v);
        return;
      }
    }
    Reschedule(p);
  }
  // VL v of port p has just become ready.
  HOT void Kick(u32 p, u32 v) {
    Port& P = port[p];
    if (P.busy_until <= now) {
      TryStart(p);
    } else {
      const u32 cr = ch[(size_t(p) << VSH) | v].cred;
      if (cr != INF) EnsureWake(p, std::max(cr, P.busy_until));
    }
  }

  // ---- switches
  // Input `i` of the output channel oc's switch wins oc's slot.
  HOT void Grant(u32 pi, u32 upch, u32 oc, u32 i) {
    Chan& u = ch[upch];
    u.inpkt = NONE;
    u.cred = now + CREDIT_DLY;
    const u32 up = upch >> VSH, v = upch & (V - 1);
    if (port[up].ready & (1u << v)) EnsureWake(up, std::max(u.cred, port[up].busy_until));
    Chan& c = ch[oc];
    c.opkt = pi;
    c.ofree = INF;
    c.rr_last = i;
    port[oc >> VSH].ready |= u8(1u << v);
  }
  HOT void Arbitrate(u32 oc) {
    Chan& c = ch[oc];
    const u32 s = (c.rr_last + 1) & 31;
    const u32 r = (c.req >> s) | (c.req << ((32 - s) & 31));
    const u32 i = (__builtin_ctz(r) + s) & 31;
    c.req &= ~(1u << i);
    const u32 sw = (oc >> VSH) >> rsh;
    const u32 upch = (port[(sw << rsh) | i].peer << VSH) | (oc & (V - 1));
    Grant(ch[upch].inpkt, upch, oc, i);
  }
  HOT void OnRouted(u32 pi) {
    ++ev_routed;
    const Pkt& K = pk[pi];
    const u32 sw = K.q >> rsh, i = K.q & (R - 1);
    const u32 out = lftp[size_t(sw) * NL + K.dlid];
    if (__builtin_expect(out - 1 >= R || out - 1 == i, 0)) Die("bad LFT entry", sw, K.dlid);
    const u32 o = (sw << rsh) | (out - 1);
    const u32 oc = (o << VSH) | (K.vh & 7);
    Chan& c = ch[oc];
    if (c.ofree <= now) {
      if (c.req == 0)
        Grant(pi, K.upch, oc, i);
      else {
        c.req |= 1u << i;
        Arbitrate(oc);
      }
      Kick(o, (K.vh & 7));
    } else {
      c.req |= 1u << i;
      if (c.ofree != INF) EnsureWake(o, c.ofree);
    }
  }
  [[gnu::noinline]] void OnPort(u32 p) {
    Port& P = port[p];
    if (P.wake_at != now) {
      ++ev_port_stale;
      return;
    }
    ++ev_port;
    P.wake_at = INF;
    if (P.busy_until <= now)
      TryStart(p);
    else
      Reschedule(p);
  }

  // ---- hosts
  HOT void Deliver(u32 pi, u32 h, u32 t) {
    const Pkt& K = pk[pi];
    if (__builtin_expect(u32(K.dlid - f.host_base[h]) >= f.host_cnt[h], 0)) Die("misdelivery", K.dlid, h);
    ++delivered;
    if (t >= w0 && t < w1) accepted_bytes += PKT;
    if (K.gen >= w0 && K.gen < w1) {
      const u32 l = t - K.gen;
      lat.push_back(l);
      lat_sum += l;
      lat_max = std::max(lat_max, l);
      --measured_pending;
    }
    FreePkt(pi);
  }

  // Look-ahead over the current nanosecond's events (large fabrics only:
  // the LFTs and channel state outgrow the caches there): far ahead fetch
  // the packet / port a handler will read, mid-way read the packet and
  // fetch its LFT entry and input channel, near read the LFT entry and
  // fetch the output channel and port the routing will touch. Reads only:
  // cannot change results.
#ifndef AHEAD_FAR
#define AHEAD_FAR 16
#endif
#ifndef AHEAD_MID
#define AHEAD_MID 10
#endif
#ifndef AHEAD_NEAR
#define AHEAD_NEAR 5
#endif
  HOT void PrefetchFar(u32 ev) const {
    const u32 a = ev & ARG;
    switch (ev >> TSH) {
      case kRouted:
        __builtin_prefetch(&pk[a]);
        break;
#ifndef FAR_ROUTED_ONLY
      case kPort:
        __builtin_prefetch(&port[a]);
        __builtin_prefetch(ch + (size_t(a) << VSH));
        break;
      default:
        __builtin_prefetch(&host[a]);
        break;
#else
      default:
        break;
#endif
    }
  }
  HOT void PrefetchMid(u32 ev) const {
    if ((ev >> TSH) != kRouted) return;
    const Pkt& K = pk[ev & ARG];
    __builtin_prefetch(&lftp[size_t(K.q >> rsh) * NL + K.dlid]);
    __builtin_prefetch(ch + K.upch);
  }
  HOT void PrefetchNear(u32 ev) const {
    if ((ev >> TSH) != kRouted) return;
    const Pkt& K = pk[ev & ARG];
    const u32 sw = K.q >> rsh;
    const u32 out = lftp[size_t(sw) * NL + K.dlid];
    const u32 o = (sw << rsh) | ((out - 1) & (R - 1));
    __builtin_prefetch(ch + ((size_t(o) << VSH) | (K.vh & 7)));
    __builtin_prefetch(&port[o]);
  }
  bool ahead = false;
  u64 Run() {
    const u32 phase = u32(std::ceil(double(DUR) / load));
    for (u32 h = 0; h < H; ++h) q.Push(0, rng.below(phase), Ev(kGen, h));
    const size_t state = f.lft.size() + ch_store.size() * sizeof(Chan) + f.dlid.size() * 2;
#ifdef AHEAD_ALWAYS
    ahead = true;
#elif defined(NO_AHEAD)
    ahead = false;
#else
    ahead = state > (size_t(4) << 20);
#endif
    return ahead ? Loop<true>() : Loop<false>();
  }
#if !defined(NO_PREPASS) && !defined(PREPASS)
#define PREPASS 1
#endif
  template <bool A>
  [[gnu::noinline]] u64 Loop() {
    u64 events = 0;
    for (now = 0;; ++now) {
      if (!q.far.empty()) q.Migrate(now);
#ifdef SPLIT
      {
        Wheel::Bucket& b = qr.b[now & Wheel::M];
        for (u32 k = 0; k < b.n; ++k) {
          if constexpr (A) {
            if (k + AHEAD_FAR < b.n) __builtin_prefetch(&pk[b.d[k + AHEAD_FAR] & ARG]);
            if (k + AHEAD_MID < b.n) PrefetchMid(b.d[k + AHEAD_MID]);
            if (k + AHEAD_NEAR < b.n) PrefetchNear(b.d[k + AHEAD_NEAR]);
          }
          OnRouted(b.d[k] & ARG);
        }
        events += b.n;
        b.n = 0;
      }
      {
        Wheel::Bucket& b = qp.b[now & Wheel::M];
        for (u32 k = 0; k < b.n; ++k) {
          if constexpr (A)
            if (k + AHEAD_NEAR < b.n) PrefetchFar(b.d[k + AHEAD_NEAR]);
          OnPort(b.d[k] & ARG);
        }
        events += b.n;
        b.n = 0;
      }
      {
        Wheel::Bucket& b = q.b[now & Wheel::M];
        for (u32 k = 0; k < b.n; ++k) OnGen(b.d[k] & ARG);
        events += b.n;
        b.n = 0;
      }
      if (now >= w1 && measured_pending == 0) break;
      if (now >= gen_end) break;
      continue;
#endif
      Wheel::Bucket& b = q.b[now & Wheel::M];
#ifdef PREPASS
      // Variant: the whole nanosecond's bucket is known before it runs
      // (nothing is ever pushed into it), so fetch in passes over it.
      if constexpr (A) {
        for (u32 k = 0; k < b.n; ++k) PrefetchFar(b.d[k]);
        for (u32 k = 0; k < b.n; ++k) PrefetchMid(b.d[k]);
#ifdef PREPASS3
        for (u32 k = 0; k < b.n; ++k) PrefetchNear(b.d[k]);
#endif
      }
#endif
      for (u32 k = 0; k < b.n; ++k) {
#ifdef PREPASS
#ifndef PREPASS3
        if constexpr (A)
          if (k + AHEAD_NEAR < b.n) PrefetchNear(b.d[k + AHEAD_NEAR]);
#endif
        if constexpr (false) {
#else
        if constexpr (A) {
#endif
          if (k + AHEAD_FAR < b.n) PrefetchFar(b.d[k + AHEAD_FAR]);
          if (k + AHEAD_MID < b.n) PrefetchMid(b.d[k + AHEAD_MID]);
          if (k + AHEAD_NEAR < b.n) PrefetchNear(b.d[k + AHEAD_NEAR]);
        }
        const u32 ev = b.d[k];
        const u32 a = ev & ARG;
        switch (ev >> TSH) {
          case kRouted:
            OnRouted(a);
            break;
          case kPort:
            OnPort(a);
            break;
          default:
            OnGen(a);
            break;
        }
      }
      events += b.n;
      b.n = 0;
#ifdef CHECK
      CheckIdle();
#endif
      if (now >= w1 && measured_pending == 0) break;
      if (now >= gen_end) break;
    }
    return events;
  }

  // CHECK builds, after every nanosecond: no port could start and did not
  // (idle link, a ready VL with its credit back), no output slot is free
  // while requesters wait, every blocked port has its service pending.
  void CheckIdle() {
    for (u32 p = 0; p < port.size(); ++p) {
      const Port& P = port[p];
      const Chan* c = ch + (size_t(p) << VSH);
      for (u32 v = 0; v < V; ++v) {
        if (c[v].req && c[v].ofree <= now) Die("free slot with requesters", p, v);
        if (c[v].req && c[v].ofree != INF && P.wake_at > c[v].ofree) Die("requesters without wake", p, v);
        if (!(P.ready >> v & 1)) continue;
        if (P.busy_until <= now && c[v].cred <= now) Die("idle port could send", p, v);
        if (c[v].cred != INF && P.wake_at > std::max(c[v].cred, P.busy_until))
          Die("ready VL without wake", p, v);
      }
    }
  }
  bool Conserved() const {
    u64 in_slots = 0;
    for (size_t k = 0; k < ch_store.size() - 1; ++k) in_slots += (ch[k].inpkt != NONE) + (ch[k].opkt != NONE);
    return injected == delivered + live && live == in_slots;
  }
};

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: lean FABRIC.fab LOAD [SEED] [MEASURE_NS]\n");
    return 2;
  }
  const Fabric f = Load(argv[1]);
  const double load = std::atof(argv[2]);
  const u64 seed = argc > 3 ? std::strtoull(argv[3], nullptr, 0) : 1;
  if (argc > 4) MEASURE = u32(std::atol(argv[4]));
  Sim s(f, load, seed);
  timespec c0, c1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
  const auto t0 = std::chrono::steady_clock::now();
  const u64 events = s.Run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
  const double cpu = double(c1.tv_sec - c0.tv_sec) + 1e-9 * double(c1.tv_nsec - c0.tv_nsec);
  std::vector<u32> v = s.lat;
  double p99 = 0;
  if (!v.empty()) {
    size_t k = size_t(std::ceil(0.99 * double(v.size())));
    k = k ? k - 1 : 0;
    std::nth_element(v.begin(), v.begin() + long(k), v.end());
    p99 = v[k];
  }
  const double win = double(MEASURE) * s.H;
  std::printf(
      "{\"load\":%g,\"offered\":%.6g,\"accepted\":%.6g,\"latency_avg_ns\":%.6g,\"latency_p99_ns\":%g,"
      "\"latency_max_ns\":%u,\"ops_measured\":%llu,\"packets_delivered\":%llu,\"packet_hops\":%llu,"
      "\"events\":%llu,\"ev_routed\":%llu,\"ev_port\":%llu,\"ev_port_stale\":%llu,\"ev_gen\":%llu,"
      "\"simulated_ns\":%u,\"wall_s\":%.6g,\"cpu_s\":%.6g,\"packet_hops_per_s\":%.6g,\"vl_hops\":[%llu,%llu,%"
      "llu,%llu],"
      "\"conservation\":\"%s\"}\n",
      load, double(s.offered_bytes) / win, double(s.accepted_bytes) / win,
      s.lat.empty() ? 0.0 : s.lat_sum / double(s.lat.size()), p99, s.lat_max,
      (unsigned long long)s.ops_measured, (unsigned long long)s.delivered, (unsigned long long)s.hops,
      (unsigned long long)events, (unsigned long long)s.ev_routed, (unsigned long long)s.ev_port,
      (unsigned long long)s.ev_port_stale, (unsigned long long)s.ev_gen, s.now, wall, cpu,
      double(s.hops) / wall, (unsigned long long)s.vl_hops[0], (unsigned long long)s.vl_hops[1 % V],
      (unsigned long long)s.vl_hops[2 % V], (unsigned long long)s.vl_hops[3 % V],
      s.Conserved() ? "ok" : "violated");
  return 0;
}
