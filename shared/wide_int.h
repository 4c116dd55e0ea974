#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace headroom {

// 128-bit signed integer for exact intermediate products and sums of 64-bit amounts
// (a GCC/Clang extension; __extension__ keeps -Wpedantic quiet).
__extension__ typedef __int128 WideInt;

// `value` clamped to int64's range: sums and products of amounts saturate, never wrap.
inline int64_t SaturateToInt64(WideInt value) {
  if (value > std::numeric_limits<int64_t>::max()) return std::numeric_limits<int64_t>::max();
  if (value < std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

// a + b, saturating.
inline int64_t SaturatingAdd(int64_t a, int64_t b) {
  return SaturateToInt64(static_cast<WideInt>(a) + b);
}

// The smallest r with r * r >= `squares` (0 for none), saturating: the root-sum-square of
// headrooms whose squares sum to `squares`, rounded up. The floating-point root is corrected
// exactly. `squares` below 2^126, so that (r + 1)^2 stays within 128 bits.
inline int64_t CeilSqrt(WideInt squares) {
  if (squares <= 0) return 0;
  WideInt root = static_cast<WideInt>(std::sqrt(static_cast<long double>(squares)));
  while (root > 0 && (root - 1) * (root - 1) >= squares) --root;
  while (root * root < squares) ++root;
  return SaturateToInt64(root);
}

}  // namespace headroom
