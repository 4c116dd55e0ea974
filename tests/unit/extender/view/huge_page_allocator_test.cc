#include "extender/view/huge_page_allocator.h"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "gtest/gtest.h"

namespace headroom::extender {
namespace {

TEST(HugePageSpanTest, SmallAllocationsStayOnTheHeapLargeOnesTakeWholeHugePages) {
  struct Case {
    size_t bytes;
    size_t span;
  };
  const std::vector<Case> cases = {
      {0, 0},
      {1, 0},
      {kHugePagesFrom - 1, 0},
      {kHugePagesFrom, kHugePageBytes},
      {kHugePageBytes - 1, kHugePageBytes},
      {kHugePageBytes, kHugePageBytes},
      {kHugePageBytes + 1, 2 * kHugePageBytes},
      {7 * kHugePageBytes + 4096, 8 * kHugePageBytes},
  };
  for (const Case& c : cases) EXPECT_EQ(HugePageSpan(c.bytes), c.span) << c.bytes;
}

TEST(HugePageAllocatorTest, LargeBlocksAreAlignedToHugePagesAndWholeWritable) {
  HugePageAllocator<uint64_t> allocator;
  for (const size_t count : {kHugePagesFrom / 8, kHugePageBytes / 8 + 3, 3 * kHugePageBytes / 8}) {
    uint64_t* block = allocator.allocate(count);
    ASSERT_NE(block, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(block) % kHugePageBytes, 0u) << count;
    for (size_t i = 0; i < count; ++i) block[i] = i * 7;
    for (size_t i = 0; i < count; i += 4099) ASSERT_EQ(block[i], i * 7) << count;
    EXPECT_EQ(block[count - 1], (count - 1) * 7);
    allocator.deallocate(block, count);
  }
  // Small blocks come from the heap, as std::allocator's do.
  uint64_t* small = allocator.allocate(16);
  std::memset(small, 0xab, 16 * sizeof(uint64_t));
  allocator.deallocate(small, 16);
}

// The node map's use: a table that grows past the threshold (and is rehashed into huge
// pages), shrinks and is read back.
TEST(HugePageAllocatorTest, AHashMapGrowsAndShrinksAcrossTheThreshold) {
  struct Slot {
    int64_t values[12];
  };
  absl::flat_hash_map<std::string, Slot, absl::Hash<std::string>, std::equal_to<>,
                      HugePageAllocator<std::pair<const std::string, Slot>>>
      map;
  constexpr int kNodes = 20000;  // about 2.5 MB of slots
  for (int i = 0; i < kNodes; ++i) map["node-" + std::to_string(i)].values[11] = i;
  ASSERT_EQ(map.size(), static_cast<size_t>(kNodes));
  for (int i = 0; i < kNodes; i += 2) map.erase("node-" + std::to_string(i));
  map.rehash(0);
  for (int i = 0; i < kNodes; ++i) {
    const auto it = map.find("node-" + std::to_string(i));
    if (i % 2 == 0) {
      EXPECT_EQ(it, map.end()) << i;
    } else {
      ASSERT_NE(it, map.end()) << i;
      EXPECT_EQ(it->second.values[11], i);
    }
  }
}

}  // namespace
}  // namespace headroom::extender
