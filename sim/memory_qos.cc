#include "sim/memory_qos.h"

#include <algorithm>
#include <cmath>

namespace headroom::sim {
namespace {

constexpr int64_t kPageBytes = 4096;

}  // namespace

int64_t MemoryHigh(int64_t request_bytes, int64_t limit_bytes, double throttling_factor) {
  if (throttling_factor <= 0 || limit_bytes <= 0 || request_bytes == limit_bytes) return 0;
  const double high = static_cast<double>(request_bytes) +
                      throttling_factor * static_cast<double>(limit_bytes - request_bytes);
  const int64_t pages = static_cast<int64_t>(std::floor(high / static_cast<double>(kPageBytes)));
  const int64_t rounded = pages * kPageBytes;
  return rounded > request_bytes ? rounded : 0;
}

double MemoryStallShare(int64_t usage_bytes, int64_t high_bytes, int64_t limit_bytes) {
  if (high_bytes <= 0 || usage_bytes <= high_bytes) return 0;
  if (usage_bytes >= limit_bytes || limit_bytes <= high_bytes) return 1;
  const double overage =
      static_cast<double>(usage_bytes - high_bytes) / static_cast<double>(limit_bytes - high_bytes);
  return std::clamp(overage * overage, 0.0, 1.0);
}

}  // namespace headroom::sim
