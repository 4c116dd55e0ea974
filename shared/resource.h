#pragma once

#include <cstdint>
#include <string>

#include "absl/strings/string_view.h"

namespace headroom {

// The two resources headroom sizes. CPU amounts are millicores, memory amounts bytes.
enum class Resource { kCpu, kMemory };

inline absl::string_view ResourceName(Resource resource) {
  return resource == Resource::kCpu ? "cpu" : "memory";
}

// A CPU and memory amount, e.g. a node's allocatable or a pod's declared requests.
struct ResourceAmounts {
  int64_t cpu_millis = 0;
  int64_t memory_bytes = 0;

  int64_t Get(Resource resource) const {
    return resource == Resource::kCpu ? cpu_millis : memory_bytes;
  }

  friend bool operator==(const ResourceAmounts& a, const ResourceAmounts& b) {
    return a.cpu_millis == b.cpu_millis && a.memory_bytes == b.memory_bytes;
  }
};

// a + b per resource, saturating (never wrapping) at int64's range.
ResourceAmounts SaturatingSum(const ResourceAmounts& a, const ResourceAmounts& b);

// Formats an amount of `resource` as Kubernetes quantity text ("1500m", "512Mi").
std::string FormatAmount(Resource resource, int64_t amount);

// Rounds a computed amount (millicores or bytes, as a double) up to a whole unit. A relative
// tolerance of 1e-12 absorbs floating-point noise (1326448640.0000002 bytes is 1326448640);
// NaN and non-positive values give 0; +inf and values beyond int64 saturate at INT64_MAX.
int64_t RoundUpAmount(double amount);

}  // namespace headroom
