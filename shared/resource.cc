#include "shared/resource.h"

#include <cmath>
#include <limits>
#include <string>

#include "shared/quantity.h"
#include "shared/wide_int.h"

namespace headroom {

ResourceAmounts SaturatingSum(const ResourceAmounts& a, const ResourceAmounts& b) {
  return {SaturatingAdd(a.cpu_millis, b.cpu_millis), SaturatingAdd(a.memory_bytes, b.memory_bytes)};
}

std::string FormatAmount(Resource resource, int64_t amount) {
  return resource == Resource::kCpu ? FormatCpuMillis(amount) : FormatMemoryBytes(amount);
}

int64_t RoundUpAmount(double amount) {
  if (std::isnan(amount) || amount <= 0) return 0;
  // 2^63 as a double; anything at or above it does not fit.
  if (amount >= 9.2233720368547758e18) return std::numeric_limits<int64_t>::max();
  return static_cast<int64_t>(std::ceil(amount - amount * 1e-12));
}

}  // namespace headroom
