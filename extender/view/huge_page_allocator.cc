#include "extender/view/huge_page_allocator.h"

#include <sys/mman.h>

#include <cstdint>

namespace headroom::extender {

void* MapHugePages(size_t span) {
  // Mapped a huge page larger than asked, then cut to the aligned part: mmap itself only
  // promises 4 KiB alignment.
  const size_t mapped = span + kHugePageBytes;
  void* at = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (at == MAP_FAILED) throw std::bad_alloc();
  const uintptr_t start = reinterpret_cast<uintptr_t>(at);
  const uintptr_t aligned = (start + kHugePageBytes - 1) / kHugePageBytes * kHugePageBytes;
  if (aligned > start) munmap(at, aligned - start);
  const uintptr_t end = start + mapped;
  if (end > aligned + span) munmap(reinterpret_cast<void*>(aligned + span), end - aligned - span);
  // Advice only: without THP (or with it off) the pages are ordinary ones.
  madvise(reinterpret_cast<void*>(aligned), span, MADV_HUGEPAGE);
  return reinterpret_cast<void*>(aligned);
}

void UnmapHugePages(void* at, size_t span) { munmap(at, span); }

}  // namespace headroom::extender
