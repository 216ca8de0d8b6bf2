// The huge-page storage of the timing model's large arrays
// (sim-harness/timing/huge_pages.h): where a vector's block comes from as
// it crosses kHugeFrom, and that its contents survive growth, copies,
// moves and shrinking.
#include <CUnit/CUnit.h>

#include <cstdint>
#include <utility>

#include "sim-harness/timing/huge_pages.h"

namespace ibu::simtest {

namespace {

using sim::HugeVector;
using sim::kHugeFrom;
using sim::kHugePage;

bool OnHugeBoundary(const void* p) { return reinterpret_cast<uintptr_t>(p) % kHugePage == 0; }

// kHugeFrom bytes and more: a 2-MB-aligned block (one std::allocator
// would not give); one element less: the ordinary heap.
void TestThreshold() {
  HugeVector<uint8_t> at(kHugeFrom, 1);
  CU_ASSERT_TRUE(OnHugeBoundary(at.data()));
  CU_ASSERT_EQUAL(at.back(), 1);
  HugeVector<uint8_t> below;
  below.reserve(kHugeFrom - 1);
  CU_ASSERT_FALSE(OnHugeBoundary(below.data()));
  HugeVector<uint64_t> small(16, 7);
  CU_ASSERT_FALSE(OnHugeBoundary(small.data()));
  CU_ASSERT_EQUAL(small[15], 7u);
}

// Growth from the heap onto huge pages and past a 2-MB page, a copy, a
// move, and a shrink back to the heap: the contents are kept throughout.
void TestContentsKept() {
  const size_t n = 3 * kHugePage / sizeof(uint64_t) + 5;  // over three huge pages
  HugeVector<uint64_t> grown;
  for (size_t i = 0; i < n; ++i) grown.push_back(i * 3);
  CU_ASSERT_TRUE(OnHugeBoundary(grown.data()));
  size_t wrong = 0;
  for (size_t i = 0; i < grown.size(); ++i) wrong += grown[i] != i * 3;
  CU_ASSERT_EQUAL(wrong, 0u);
  HugeVector<uint64_t> copy = grown;
  CU_ASSERT_TRUE(OnHugeBoundary(copy.data()));
  CU_ASSERT_TRUE(copy == grown);
  const uint64_t* block = copy.data();
  HugeVector<uint64_t> moved = std::move(copy);
  CU_ASSERT_PTR_EQUAL(moved.data(), block);  // a move takes the block, no copy
  CU_ASSERT_EQUAL(moved.back(), (n - 1) * 3);
  moved.assign(8, 1);  // fewer elements, the same block
  CU_ASSERT_PTR_EQUAL(moved.data(), block);
  moved.shrink_to_fit();  // a heap block of 8
  CU_ASSERT_EQUAL(moved.capacity(), 8u);
  CU_ASSERT_FALSE(OnHugeBoundary(moved.data()));
  CU_ASSERT_EQUAL(moved[7], 1u);
}

}  // namespace

void RegisterTimingHugePagesSuite() {
  CU_pSuite s = CU_add_suite("timing_huge_pages", nullptr, nullptr);
  CU_add_test(s, "from kHugeFrom bytes on, 2-MB-aligned blocks; below, the heap", TestThreshold);
  CU_add_test(s, "contents kept through growth, copy, move and shrink", TestContentsKept);
}

}  // namespace ibu::simtest
