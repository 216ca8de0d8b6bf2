// The timing model's event list: order by time, then by insertion, across
// the wheel, its wrap-around and the far heap; events pushed into the
// nanosecond being popped; a time in the past rejected; a nanosecond taken
// at once (the lean kernel's loop) in the same order as popped, and stopped
// at the caller's own next event (its ring of lookups). And the backlog of
// arrivals waiting for room in an adapter, re-entered as the kernels do.
#include <CUnit/CUnit.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "sim-harness/timing/event_queue.h"
#include "sim-harness/timing/kernel_common.h"
#include "tests/unit/test_util.h"

namespace ibu::simtest {

namespace {

using sim::EventQueue;

std::vector<std::pair<int64_t, uint64_t>> Drain(EventQueue& q) {
  std::vector<std::pair<int64_t, uint64_t>> out;
  int64_t t;
  uint64_t ev;
  while (q.Pop(t, ev)) out.push_back({t, ev});
  return out;
}

void TestOrderByTimeThenInsertion() {
  EventQueue q;
  q.Push(5, 1);
  q.Push(3, 2);
  q.Push(5, 3);
  q.Push(0, 4);
  q.Push(3, 5);
  CU_ASSERT_EQUAL(q.size(), 5u);
  const std::vector<std::pair<int64_t, uint64_t>> want = {{0, 4}, {3, 2}, {3, 5}, {5, 1}, {5, 3}};
  CU_ASSERT(Drain(q) == want);
  CU_ASSERT(q.empty());
}

void CheckFarEventsAndWrapAround(EventQueue& q) {
  // Beyond the wheel's reach events wait in the heap; ties there keep
  // insertion order, and they interleave with wheel events of their time.
  const int64_t wheel = q.wheel_size();
  const int64_t far = 3 * wheel + 7;
  q.Push(far, 10);
  q.Push(far, 11);
  q.Push(wheel - 1, 12);
  q.Push(far + 1, 13);
  int64_t t;
  uint64_t ev;
  CU_ASSERT(q.Pop(t, ev) && t == wheel - 1 && ev == 12);
  q.Push(far, 14);  // still beyond the wheel: after the heap's ties
  CU_ASSERT(q.Pop(t, ev) && t == far && ev == 10);
  q.Push(far, 15);  // into the nanosecond being popped: after those queued
  std::vector<uint64_t> rest;
  while (q.Pop(t, ev)) rest.push_back(ev);
  CU_ASSERT((rest == std::vector<uint64_t>{11, 14, 15, 13}));
}

void TestFarEventsAndWrapAround() {
  EventQueue q;
  CU_ASSERT_EQUAL(q.wheel_size(), int64_t(1) << EventQueue::kDefaultWheelBits);
  CheckFarEventsAndWrapAround(q);
  EventQueue small(3);
  CU_ASSERT_EQUAL(small.wheel_size(), 8);
  CheckFarEventsAndWrapAround(small);
}

void TestWheelSizeFollowsTheLongestDelay() {
  // The wheel must reach past the longest delay: 148 ns (a credit's return
  // with 32-byte packets) needs 256, exactly 256 needs 512.
  CU_ASSERT_EQUAL(EventQueue::WheelBitsFor(148), 8);
  CU_ASSERT_EQUAL(EventQueue::WheelBitsFor(255), 8);
  CU_ASSERT_EQUAL(EventQueue::WheelBitsFor(256), 9);
  CU_ASSERT_EQUAL(EventQueue::WheelBitsFor(0), 1);
  CU_ASSERT_EQUAL(EventQueue::WheelBitsFor(int64_t(1) << 40), EventQueue::kMaxWheelBits);
}

void TestSameOrderWhateverTheWheelSize() {
  // The simulator picks the wheel from its parameters; results must not
  // depend on it. A pseudo-random schedule, events pushing follow-ups up to
  // 300 ns ahead, gives the same (time, event) sequence on wheels of 8 ns
  // to 4096 ns.
  auto run = [](int bits) {
    EventQueue q(bits);
    uint64_t x = 12345;
    for (uint64_t i = 0; i < 50; ++i) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      q.Push(int64_t(x >> 54), i);
    }
    std::vector<std::pair<int64_t, uint64_t>> out;
    int64_t t;
    uint64_t ev;
    while (q.Pop(t, ev) && out.size() < 5000) {
      out.push_back({t, ev});
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      if (out.size() < 4000) q.Push(t + int64_t((x >> 33) % 300), ev + 1000);
    }
    return out;
  };
  const auto ref = run(12);
  CU_ASSERT_EQUAL(ref.size(), 4049u);
  for (int bits : {3, 6, 8, 9}) CU_ASSERT(run(bits) == ref);
}

// A schedule whose events push follow-ups 1 to 299 ns ahead, with quiet
// stretches longer than the wheel in between (the heap's events jumped
// to): TakeNanosecond hands out the (time, event) sequence Pop does, on
// wheels of 8 to 4096 ns.
std::vector<std::pair<int64_t, uint64_t>> FutureOnlySchedule(int bits, bool take) {
  EventQueue q(bits);
  uint64_t x = 777;
  auto draw = [&x] { return x = x * 6364136223846793005ULL + 1442695040888963407ULL; };
  for (uint64_t i = 0; i < 40; ++i) q.Push(int64_t(draw() >> 50), i);  // up to 16383 ns
  std::vector<std::pair<int64_t, uint64_t>> out;
  auto follow = [&](int64_t t, uint64_t ev) {
    out.push_back({t, ev});
    if (out.size() < 3000 && ev % 5 != 4) q.Push(t + 1 + int64_t((draw() >> 33) % 299), ev + 1000);
  };
  int64_t t;
  if (take) {
    const uint64_t* evs;
    uint32_t n;
    while (q.TakeNanosecond(t, evs, n))
      for (uint32_t k = 0; k < n; ++k) follow(t, evs[k]);
  } else {
    uint64_t ev;
    while (q.Pop(t, ev)) follow(t, ev);
  }
  return out;
}

void TestTakenNanosecondsKeepTheOrder() {
  const auto ref = FutureOnlySchedule(12, false);
  CU_ASSERT(ref.size() > 100u);
  CU_ASSERT(ref.back().first > 16383 / 2);  // the heap's late events were reached
  for (int bits : {3, 6, 9, 12}) CU_ASSERT(FutureOnlySchedule(bits, true) == ref);
}

// The lean kernel keeps its fixed-delay events (lookups, all D after they
// are pushed) in a ring of its own and asks TakeNanosecond to stop at the
// ring's next time (`until`). Events whose follow-up comes D later go to
// such a ring, the rest to the queue, across quiet stretches longer than
// the wheel (some with only the ring's events pending): every event must
// come out at the time the queue alone gives it, on wheels of 8 to 4096 ns.
// Within a nanosecond the queue's events come before the ring's, so the
// comparison is per nanosecond, as sets.
using Timeline = std::map<int64_t, std::multiset<uint64_t>>;
Timeline FixedDelayRingSchedule(int bits, bool ring) {
  constexpr int64_t kD = 150;
  EventQueue q(bits);
  std::deque<std::pair<int64_t, uint64_t>> side;  // (time, event), times never decrease
  const auto delay_of = [](uint64_t ev) {
    const uint64_t h = ev * 0x9E3779B97F4A7C15ULL;
    return ev % 3 == 0 ? kD : 1 + int64_t((h >> 40) % 299);
  };
  for (uint64_t i = 0; i < 40; ++i) q.Push(int64_t((i * 0x9E3779B97F4A7C15ULL) >> 50), i);  // up to 16383 ns
  Timeline out;
  int64_t last = -1;
  bool ordered = true;
  const auto follow = [&](int64_t t, uint64_t ev) {
    out[t].insert(ev);
    if (ev >= 12000 || ev % 5 == 4) return;  // chains end
    const uint64_t next = ev + 1000;
    const int64_t d = delay_of(next);
    if (ring && d == kD)
      side.push_back({t + d, next});
    else
      q.Push(t + d, next);
  };
  int64_t t;
  if (ring) {
    const uint64_t* evs;
    uint32_t n;
    while (q.TakeNanosecond(t, evs, n, side.empty() ? EventQueue::kNever : side.front().first)) {
      ordered = ordered && t > last && (side.empty() || t <= side.front().first);
      last = t;
      for (uint32_t k = 0; k < n; ++k) follow(t, evs[k]);
      while (!side.empty() && side.front().first == t) {
        const uint64_t ev = side.front().second;
        side.pop_front();
        follow(t, ev);
      }
    }
    CU_ASSERT(side.empty());
  } else {
    uint64_t ev;
    while (q.Pop(t, ev)) follow(t, ev);
  }
  CU_ASSERT(ordered);
  return out;
}

void TestUntilStopsForTheCallersRing() {
  const Timeline ref = FixedDelayRingSchedule(12, false);
  size_t events = 0;
  for (const auto& [t, evs] : ref) events += evs.size();
  CU_ASSERT(events > 200u);
  CU_ASSERT(ref.rbegin()->first > 16383 / 2);  // the heap's late events were reached
  for (int bits : {3, 6, 9, 12}) CU_ASSERT(FixedDelayRingSchedule(bits, true) == ref);
  // Nothing in the queue, one event in the caller's ring: time stops there.
  EventQueue q(4);
  int64_t t;
  const uint64_t* evs;
  uint32_t n = 7;
  CU_ASSERT(q.TakeNanosecond(t, evs, n, 1000) && t == 1000 && n == 0);
  CU_ASSERT_FALSE(q.TakeNanosecond(t, evs, n));
  // An event of the queue before `until` comes first, at its own time.
  EventQueue r(4);
  r.Push(1003, 5);
  CU_ASSERT(r.TakeNanosecond(t, evs, n, 1010) && t == 1003 && n == 1 && evs[0] == 5);
  CU_ASSERT(r.TakeNanosecond(t, evs, n, 1010) && t == 1010 && n == 0);
}

// A push into the nanosecond being taken would land behind the events
// handed out (never seen) or move their array (Grow): refused both ways.
void TestPushIntoTakenNanosecondRefused() {
  const std::string kWhy = "pushed into the nanosecond being taken";
  EventQueue q;
  for (uint64_t i = 0; i < 3; ++i) q.Push(4, i);
  int64_t t;
  const uint64_t* evs;
  uint32_t n;
  CU_ASSERT(q.TakeNanosecond(t, evs, n) && t == 4 && n == 3);
  q.Push(4, 9);  // room in the bucket: found by the next call
  CU_ASSERT(test::Contains(test::ErrorOf([&] { q.TakeNanosecond(t, evs, n); }), kWhy));
  EventQueue full;
  for (uint64_t i = 0; i < 16; ++i) full.Push(2, i);  // a bucket's first capacity
  CU_ASSERT(full.TakeNanosecond(t, evs, n) && n == 16);
  CU_ASSERT(test::Contains(test::ErrorOf([&] { full.Push(2, 99); }), kWhy));
  // Later nanoseconds are fine, and pushes at t=0 before the first take.
  EventQueue ok;
  ok.Push(0, 1);
  CU_ASSERT(ok.TakeNanosecond(t, evs, n) && t == 0 && n == 1 && evs[0] == 1);
  ok.Push(1, 2);
  CU_ASSERT(ok.TakeNanosecond(t, evs, n) && t == 1 && n == 1 && evs[0] == 2);
  CU_ASSERT_FALSE(ok.TakeNanosecond(t, evs, n));
}

void TestManyEventsInOneNanosecond() {
  // A bucket grows past its first capacity while it is being popped.
  EventQueue q;
  for (uint64_t i = 0; i < 100; ++i) q.Push(2, i);
  int64_t t;
  uint64_t ev, next = 0;
  bool in_order = true;
  while (q.Pop(t, ev)) {
    in_order = in_order && t == 2 && ev == next;
    if (next % 10 == 0) q.Push(2, 100 + next / 10);
    ++next;
  }
  CU_ASSERT(in_order);
  // N popped = 100 + the multiples of 10 below N: N = 112.
  CU_ASSERT_EQUAL(next, 112u);
}

void TestPastTimeRejected() {
  EventQueue q;
  q.Push(10, 1);
  int64_t t;
  uint64_t ev;
  CU_ASSERT(q.Pop(t, ev));
  CU_ASSERT(test::Contains(test::ErrorOf([&] { q.Push(9, 2); }), "in the past"));
}

// Both kernels re-enter ArrivalBacklog::Release: an arrival taken starts
// its first packet, and the link it starts lets the adapter take the next
// one, a Release for the same host inside the outer one's loop. Every
// arrival must still be taken once, oldest first, across the amortised
// trim (over 1024 taken) and with arrivals added while releasing.
void TestBacklogReleaseReentered() {
  sim::ArrivalBacklog backlog(2);
  constexpr int kQueued = 3000;
  for (int i = 0; i < kQueued; ++i) backlog.Add(1, i);
  std::vector<int64_t> taken;
  int depth = 0, added = 0;
  std::function<void(int64_t)> take;
  // One Release with room for `limit` arrivals: an inner one stops before
  // the outer one does, which then goes on from where the inner left off.
  auto release = [&](int limit) {
    int asked = 0;
    backlog.Release(
        1, [&] { return asked++ < limit; }, take);
  };
  take = [&](int64_t t) {
    taken.push_back(t);
    if (t % 7 == 0) {  // arrives now, after everything queued
      backlog.Add(1, kQueued + t);
      ++added;
    }
    if (depth < 3 && t % 3 == 0) {
      ++depth;
      release(2);
      --depth;
    }
  };
  for (int round = 0; backlog.Waiting(1) && round < 10 * kQueued; ++round) release(1 + round % 17);
  CU_ASSERT_FALSE(backlog.Waiting(1));
  CU_ASSERT_FALSE(backlog.Waiting(0));
  CU_ASSERT_EQUAL(backlog.total(), 0u);
  CU_ASSERT_EQUAL(taken.size(), size_t(kQueued + added));
  CU_ASSERT_TRUE(added > 400);
  size_t out_of_order = 0;
  for (size_t i = 1; i < taken.size(); ++i) out_of_order += taken[i] <= taken[i - 1];
  CU_ASSERT_EQUAL(out_of_order, 0u);
}

}  // namespace

void RegisterTimingQueueSuite() {
  CU_pSuite s = CU_add_suite("timing_queue", nullptr, nullptr);
  CU_add_test(s, "order by time, then insertion", TestOrderByTimeThenInsertion);
  CU_add_test(s, "far heap, wrap-around, pushes into the current nanosecond", TestFarEventsAndWrapAround);
  CU_add_test(s, "wheel size from the longest delay", TestWheelSizeFollowsTheLongestDelay);
  CU_add_test(s, "same order whatever the wheel size", TestSameOrderWhateverTheWheelSize);
  CU_add_test(s, "a bucket grows while it is popped", TestManyEventsInOneNanosecond);
  CU_add_test(s, "a nanosecond taken at once: Pop's order, any wheel size", TestTakenNanosecondsKeepTheOrder);
  CU_add_test(s, "a push into the nanosecond taken is refused", TestPushIntoTakenNanosecondRefused);
  CU_add_test(s, "TakeNanosecond stops at the caller's own next event", TestUntilStopsForTheCallersRing);
  CU_add_test(s, "a time in the past is rejected", TestPastTimeRejected);
  CU_add_test(s, "arrival backlog: re-entered release takes each arrival once, in order",
              TestBacklogReleaseReentered);
}

}  // namespace ibu::simtest
