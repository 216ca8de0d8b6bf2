// The event list of the timing model: a timing wheel of one-nanosecond
// buckets for the near future and a binary heap for the rest (message
// arrivals beyond the wheel, phase marks). The simulator sizes the wheel
// from its longest in-network delay: a bucket's memory is reused every
// turn, so a wheel no longer than needed keeps the buckets in cache (a
// 4096-ns wheel on FT(16,3) cycled ~2 MB of buckets through L2). Events are
// 64-bit words the simulator decodes itself. Order is deterministic: by
// time, then by insertion (bucket FIFO; the heap breaks ties by a sequence
// number), whatever the wheel size. Buckets keep their capacity, so after
// warm-up pushing and popping do not allocate.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <new>
#include <queue>
#include <stdexcept>
#include <vector>

namespace ibu::sim {

class EventQueue {
 public:
  static constexpr int kDefaultWheelBits = 12;
  // Later than any event: TakeNanosecond's `until` when the caller has none.
  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max() / 2;
  static constexpr int kMaxWheelBits = 20;

  // A wheel of 2^wheel_bits nanoseconds (clamped to [1, kMaxWheelBits]).
  explicit EventQueue(int wheel_bits = kDefaultWheelBits)
      : wheel_size_(int64_t(1) << std::clamp(wheel_bits, 1, kMaxWheelBits)),
        mask_(wheel_size_ - 1),
        wheel_(new Bucket[size_t(wheel_size_)]()) {
    cur_ = &wheel_[0];
  }
  ~EventQueue() {
    for (int64_t i = 0; i < wheel_size_; ++i) std::free(wheel_[i].ev);
  }
  // The smallest wheel (in bits) whose reach exceeds `max_delay_ns`.
  static int WheelBitsFor(int64_t max_delay_ns) {
    int bits = 1;
    while (bits < kMaxWheelBits && (int64_t(1) << bits) <= max_delay_ns) ++bits;
    return bits;
  }
  int64_t wheel_size() const { return wheel_size_; }
  EventQueue(const EventQueue&) = delete;
  EventQueue& operator=(const EventQueue&) = delete;

  int64_t now() const { return now_; }
  bool empty() const { return size() == 0; }
  // Events not yet popped. O(wheel size): for tests, not for a loop (the
  // wheel keeps no count, which would cost a store per push).
  size_t size() const {
    size_t n = far_.size() - cursor_;
    for (int64_t i = 0; i < wheel_size_; ++i) n += wheel_[i].n;
    return n;
  }

  // The hot path is a store into a bucket that already has room; a time
  // before now() (a simulator bug) is caught by the unsigned comparison
  // and rejected in PushFar.
  void Push(int64_t t, uint64_t ev) {
    if (uint64_t(t - now_) < uint64_t(wheel_size_)) {
      Bucket& b = wheel_[t & mask_];
      if (b.n == b.cap) [[unlikely]] Grow(b);
      b.ev[b.n++] = ev;
    } else {
      PushFar(t, ev);
    }
  }

  // The event `ahead` places after the next one in the current nanosecond,
  // if there is one: the simulator prefetches what it will touch.
  const uint64_t* Peek(size_t ahead) const {
    return cursor_ + ahead < cur_->n ? cur_->ev + cursor_ + ahead : nullptr;
  }

  // Next event in (time, insertion) order; false when none is left. The
  // common case, another event in the current nanosecond, is a few
  // instructions; the rest is Advance. The bucket is re-read each time
  // because handlers push into the current nanosecond too.
  bool Pop(int64_t& t, uint64_t& ev) {
    if (cursor_ < cur_->n) [[likely]] {
      ev = cur_->ev[cursor_++];
      t = now_;
      return true;
    }
    if (!StepToNextNanosecond(kNever) && !Advance()) return false;
    ev = cur_->ev[cursor_++];
    t = now_;
    return true;
  }

  // Pop for a simulator whose handlers never push into the nanosecond they
  // run in (the lean kernel: every delay is 1 ns or more): the next
  // nanosecond's events all at once, `n` of them from `ev`, in order, all
  // counted as popped; false when none is left. The loop over them keeps
  // its index in a register, where Pop re-reads the bucket per event. A
  // push into the nanosecond taken breaks that promise: it is refused by
  // Grow before it could move the array, else by the next call.
  // `until` (> now()) is when the caller has an event of its own, kept
  // apart: the queue stops there even with nothing to hand out (n = 0), so
  // that time never runs past it.
  bool TakeNanosecond(int64_t& t, const uint64_t*& ev, uint32_t& n, int64_t until = kNever) {
    if (taking_ && cur_->n != taken_end_) [[unlikely]]
      throw std::logic_error("EventQueue: an event was pushed into the nanosecond being taken");
    if (cursor_ == cur_->n && !StepToNextNanosecond(until) && !Advance(until)) return false;
    ev = cur_->ev + cursor_;
    n = cur_->n - cursor_;
    cursor_ = taken_end_ = cur_->n;
    taking_ = cur_;
    t = now_;
    return true;
  }

 private:
  struct Bucket {
    uint64_t* ev;
    uint32_t n, cap;
  };

  // Advance's most common first step, inline for Pop and TakeNanosecond:
  // the current bucket is used up and the next nanosecond is due (it has
  // events, or it is `until`) with no heap event coming within reach;
  // false, changing nothing, otherwise.
  bool StepToNextNanosecond(int64_t until) {
    Bucket* next = &wheel_[(now_ + 1) & mask_];
    if (!((next->n || now_ + 1 == until) && far_min_ - now_ - 1 >= wheel_size_)) return false;
    ClearCurrentBucket();
    ++now_;
    cur_ = next;
    return true;
  }

  // The current nanosecond is over: its bucket is emptied for the wheel's
  // next turn and nothing of it stays taken.
  void ClearCurrentBucket() {
    cur_->n = 0;
    cursor_ = 0;
    taking_ = nullptr;
  }

  [[gnu::noinline]] void Grow(Bucket& b) {
    if (&b == taking_)  // the taken events' array would move under the caller
      throw std::logic_error("EventQueue: an event was pushed into the nanosecond being taken");
    const uint32_t cap = b.cap ? b.cap * 2 : 16;
    void* p = std::realloc(b.ev, size_t(cap) * sizeof(uint64_t));
    if (!p) throw std::bad_alloc();
    b.ev = static_cast<uint64_t*>(p);
    b.cap = cap;
  }
  [[gnu::noinline]] void PushFar(int64_t t, uint64_t ev) {
    if (t < now_) throw std::logic_error("EventQueue: event scheduled in the past");
    far_.push(Far{t, seq_++, ev});
    far_min_ = far_.top().t;
  }

  // The current bucket is used up: clear it, step to the next nanosecond
  // that has events, and move heap events that came within the wheel's
  // reach into it; false when no event is left. A whole turn of empty
  // buckets with nothing moved in is an empty wheel: it jumps to the
  // heap's first event (a run's quiet stretches cost one turn). It takes
  // no references: Pop's callers keep the time and the event in registers
  // instead of storing them for it. It stops at `until` (> now_) with an
  // empty bucket if nothing comes before.
  [[gnu::noinline]] bool Advance(int64_t until = kNever) {
    int64_t empty = 0;  // buckets found empty in a row since the last move
    for (;;) {
      ClearCurrentBucket();
      if (empty >= wheel_size_) {
        if (far_.empty() && until == kNever) return false;
        now_ = std::min(far_min_, until);
        empty = 0;
      } else {
        ++now_;
      }
      while (far_min_ - now_ < wheel_size_) {
        const Far& f = far_.top();
        Bucket& b = wheel_[f.t & mask_];
        if (b.n == b.cap) Grow(b);
        b.ev[b.n++] = f.ev;
        empty = 0;
        far_.pop();
        far_min_ = far_.empty() ? kNever : far_.top().t;
      }
      cur_ = &wheel_[now_ & mask_];
      if (cur_->n || now_ == until) return true;
      ++empty;
    }
  }

  struct Far {
    int64_t t;
    uint64_t seq;
    uint64_t ev;
    bool operator>(const Far& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  const int64_t wheel_size_;
  const int64_t mask_;
  std::unique_ptr<Bucket[]> wheel_;
  std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far_;
  int64_t far_min_ = kNever;  // time of far_.top(), kNever when empty
  int64_t now_ = 0;
  Bucket* cur_;          // the bucket of now_
  uint32_t cursor_ = 0;  // events of cur_ already popped
  // TakeNanosecond: the bucket it took, until the queue moves on, and its
  // size then, which no push may change.
  const Bucket* taking_ = nullptr;
  uint32_t taken_end_ = 0;
  uint64_t seq_ = 0;
};

}  // namespace ibu::sim
