#pragma once

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

}  // namespace headroom
