#pragma once

// An allocator for a large table that the scheduler's path reads all over on every call:
// ClusterView's node map, where each filter or prioritize call reads one slot per named node.
// In a scheduling burst the scheduler, the API server and etcd run between two calls on the
// same cores, so each call starts with cold caches and TLBs, and in a table of 4 KiB pages a
// node's slot can cost a page walk (measured there: visiting 230 named nodes took 12-13 µs of
// a filter call, against 10 µs with the table in 2 MiB pages). Allocations of kHugePagesFrom bytes
// and more are therefore mapped on their own, in whole 2 MiB pages marked for transparent huge
// pages (MADV_HUGEPAGE; the kernel's default "madvise" mode honours it, and with THP off they are
// ordinary pages). What this costs: up to 2 MiB of address space per such table, resident only as
// far as touched (a table's slots are spread over it, so count on the whole of it).

#include <cstddef>
#include <memory>
#include <new>

namespace headroom::extender {

inline constexpr size_t kHugePageBytes = size_t{2} << 20;
inline constexpr size_t kHugePagesFrom = size_t{256} << 10;

// The bytes mapped for an allocation of `bytes`: 0 below kHugePagesFrom (the heap serves it),
// else `bytes` rounded up to whole huge pages.
constexpr size_t HugePageSpan(size_t bytes) {
  if (bytes < kHugePagesFrom) return 0;
  return (bytes + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
}

// `span` bytes (a multiple of kHugePageBytes) aligned to a huge page and marked for
// transparent huge pages; throws std::bad_alloc when the mapping fails.
void* MapHugePages(size_t span);
void UnmapHugePages(void* at, size_t span);

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  explicit HugePageAllocator(const HugePageAllocator<U>&) {}

  T* allocate(size_t n) {
    if (n > static_cast<size_t>(-1) / sizeof(T)) throw std::bad_array_new_length();
    const size_t span = HugePageSpan(n * sizeof(T));
    if (span == 0) return std::allocator<T>().allocate(n);
    return static_cast<T*>(MapHugePages(span));
  }
  void deallocate(T* at, size_t n) {
    const size_t span = HugePageSpan(n * sizeof(T));
    if (span == 0) return std::allocator<T>().deallocate(at, n);
    UnmapHugePages(at, span);
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>&) const {
    return true;
  }
};

}  // namespace headroom::extender
