// The event list of the timing model: a timing wheel of one-nanosecond
// buckets for the near future (every delay inside the network is a few
// hundred ns) and a binary heap for the rest (message arrivals, phase
// marks). Events are 64-bit words the simulator decodes itself. Order is
// deterministic: by time, then by insertion (bucket FIFO; the heap breaks
// ties by a sequence number). Buckets keep their capacity, so after warm-up
// pushing and popping do not allocate.
#pragma once

#include <cassert>
#include <cstdint>
#include <queue>
#include <vector>

namespace ibu::sim {

class EventQueue {
 public:
  static constexpr int kWheelBits = 12;
  static constexpr int64_t kWheel = int64_t(1) << kWheelBits;
  static constexpr int64_t kMask = kWheel - 1;

  EventQueue() : wheel_(kWheel) {}

  int64_t now() const { return now_; }
  bool empty() const { return in_wheel_ == 0 && far_.empty(); }
  size_t size() const { return in_wheel_ + far_.size(); }

  void Push(int64_t t, uint64_t ev) {
    assert(t >= now_);
    if (t - now_ < kWheel) {
      std::vector<uint64_t>& b = wheel_[t & kMask];
      b.push_back(ev);
      ++in_wheel_;
      if (t == now_) Track(b);  // the bucket being popped grew (or moved)
    } else {
      far_.push(Far{t, seq_++, ev});
    }
  }

  // The event `ahead` places after the next one in the current nanosecond,
  // if there is one: the simulator prefetches what it will touch.
  const uint64_t* Peek(size_t ahead) const {
    return cursor_ + ahead < cur_n_ ? cur_ + cursor_ + ahead : nullptr;
  }

  // Next event in (time, insertion) order; false when none is left. The
  // common case, another event in the current nanosecond, is a few
  // instructions; the rest is Advance.
  bool Pop(int64_t& t, uint64_t& ev) {
    if (cursor_ < cur_n_) {
      ev = cur_[cursor_++];
      --in_wheel_;
      t = now_;
      return true;
    }
    return Advance(t, ev);
  }

 private:
  void Track(const std::vector<uint64_t>& b) {
    cur_ = b.data();
    cur_n_ = b.size();
  }
  bool Advance(int64_t& t, uint64_t& ev) {
    for (;;) {
      std::vector<uint64_t>& b = wheel_[now_ & kMask];
      if (cursor_ < b.size()) {
        Track(b);
        ev = b[cursor_++];
        --in_wheel_;
        t = now_;
        return true;
      }
      if (cursor_ != 0) {
        b.clear();
        cursor_ = 0;
      }
      if (in_wheel_ == 0) {
        if (far_.empty()) return false;
        now_ = far_.top().t;
      } else {
        ++now_;
      }
      while (!far_.empty() && far_.top().t - now_ < kWheel) {
        const Far& f = far_.top();
        wheel_[f.t & kMask].push_back(f.ev);
        ++in_wheel_;
        far_.pop();
      }
      cur_n_ = 0;
    }
  }

  struct Far {
    int64_t t;
    uint64_t seq;
    uint64_t ev;
    bool operator>(const Far& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  std::vector<std::vector<uint64_t>> wheel_;
  std::priority_queue<Far, std::vector<Far>, std::greater<Far>> far_;
  int64_t now_ = 0;
  size_t cursor_ = 0;
  const uint64_t* cur_ = nullptr;  // the bucket of now_, while popping it
  size_t cur_n_ = 0;
  size_t in_wheel_ = 0;
  uint64_t seq_ = 0;
};

}  // namespace ibu::sim
