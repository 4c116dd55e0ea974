// 128-bit helpers (shared/wide_int.h): saturation and the rounded-up square root that
// root-sum-square headrooms use on both sides (placement and the node optimisation).

#include "shared/wide_int.h"

#include <cstdint>
#include <limits>

#include "gtest/gtest.h"

namespace headroom {
namespace {

TEST(CeilSqrt, TheSmallestRootWhoseSquareCoversTheSum) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const struct {
    WideInt squares;
    int64_t root;
  } cases[] = {
      {-5, 0},
      {0, 0},
      {1, 1},
      {2, 2},
      {4, 2},
      {5, 3},
      {25, 5},
      {26, 6},
      // 3-core and 4-core spikes: 5 cores.
      {WideInt{3000} * 3000 + WideInt{4000} * 4000, 5000},
      // Exact where a double is not: (2^53 + 1)^2 and one more.
      {(WideInt{1} << 53 | 1) * (WideInt{1} << 53 | 1), (int64_t{1} << 53) + 1},
      {(WideInt{1} << 53 | 1) * (WideInt{1} << 53 | 1) + 1, (int64_t{1} << 53) + 2},
      {WideInt{1} << 125, 6521908912666391107},
      // Just under 2^126: the root is 2^63, past int64, and saturates.
      {(WideInt{1} << 126) - 1, kMax},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(CeilSqrt(c.squares), c.root) << static_cast<double>(c.squares);
  }
}

TEST(SaturatingAdd, NeverWraps) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(SaturatingAdd(kMax, 1), kMax);
  EXPECT_EQ(SaturatingAdd(kMin, -1), kMin);
  EXPECT_EQ(SaturatingAdd(2, 3), 5);
}

}  // namespace
}  // namespace headroom
