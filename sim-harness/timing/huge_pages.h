// Storage on transparent huge pages for the timing model's large arrays
// read at random (LFT rows, and the kernels' ports, channels and packets):
// on FT(16,3) a hop touches lines spread over several MB, one 4-KB TLB
// entry each, and the data TLB holds far fewer entries than those arrays
// have pages. Where the kernel allows it (madvise mode, as on Debian), a
// 2-MB page covers 512 of them. Arrays below kHugeFrom stay on the
// ordinary heap: rounding them up to 2 MB would buy nothing.
//
// Large blocks are mapped directly, not taken from malloc: glibc serves a
// large request from a fresh mapping only until one is freed, then raises
// its threshold and recycles heap memory already mapped with small pages
// (a sweep builds a simulator per point). Under AddressSanitizer they come
// from posix_memalign at their exact size instead, so that a write past
// the end is still caught.
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#define IBU_HUGE_PAGES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IBU_HUGE_PAGES_ASAN 1
#endif
#endif

namespace ibu::sim {

constexpr size_t kHugePage = size_t(2) << 20;
constexpr size_t kHugeFrom = size_t(128) << 10;

inline size_t RoundedToHugePages(size_t bytes) { return (bytes + kHugePage - 1) / kHugePage * kHugePage; }

// A 2-MB-aligned block of at least `bytes`, advised onto huge pages;
// FreeHugeBlock(p, bytes) gives it back.
inline void* AllocHugeBlock(size_t bytes) {
#ifdef IBU_HUGE_PAGES_ASAN
  void* p = nullptr;
  if (posix_memalign(&p, kHugePage, bytes) != 0) throw std::bad_alloc();
  return p;
#else
  // Mapped a huge page too long, then trimmed to the aligned part: `head`
  // bytes before it (maybe none), the rest of the extra page after it.
  const size_t rounded = RoundedToHugePages(bytes);
  char* raw = static_cast<char*>(
      mmap(nullptr, rounded + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const size_t head = (kHugePage - uintptr_t(raw) % kHugePage) % kHugePage;
  char* block = raw + head;
  if (head > 0) munmap(raw, head);
  munmap(block + rounded, kHugePage - head);
#ifdef MADV_HUGEPAGE
  // Advice only: where refused, the pages are small.
  madvise(block, rounded, MADV_HUGEPAGE);
#endif
  return block;
#endif
}

inline void FreeHugeBlock(void* p, size_t bytes) {
#ifdef IBU_HUGE_PAGES_ASAN
  (void)bytes;
  std::free(p);
#else
  munmap(p, RoundedToHugePages(bytes));
#endif
}

template <typename T>
struct HugePageAllocator {
  using value_type = T;
  HugePageAllocator() = default;
  template <typename U>
  HugePageAllocator(const HugePageAllocator<U>&) noexcept {}  // NOLINT: rebinding, as std::allocator

  T* allocate(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_array_new_length();
    if (OnHeap(n)) return std::allocator<T>().allocate(n);
    return static_cast<T*>(AllocHugeBlock(n * sizeof(T)));
  }
  void deallocate(T* p, size_t n) {
    if (OnHeap(n))
      std::allocator<T>().deallocate(p, n);
    else
      FreeHugeBlock(p, n * sizeof(T));
  }
  static bool OnHeap(size_t n) { return n * sizeof(T) < kHugeFrom; }
  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
  template <typename U>
  bool operator!=(const HugePageAllocator<U>&) const {
    return false;
  }
};

template <typename T>
using HugeVector = std::vector<T, HugePageAllocator<T>>;

}  // namespace ibu::sim
