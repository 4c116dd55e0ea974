#include "shared/sizing.h"

#include <algorithm>
#include <limits>

namespace headroom {

int64_t MemoryLimitBytes(const MemoryStats& memory, int64_t memory_request_bytes) {
  const int64_t reference = std::max(memory.max_7d_bytes, memory.oom_bytes);
  const int64_t doubled = reference > std::numeric_limits<int64_t>::max() / 2
                              ? std::numeric_limits<int64_t>::max()
                              : reference * 2;
  return std::max(doubled, memory_request_bytes);
}

ContainerSizing SizeForAdmission(const CpuStats& cpu, const MemoryStats& memory) {
  ContainerSizing sizing;
  sizing.cpu_request_millis = cpu.peak_millis;
  sizing.memory_request_bytes = memory.peak_bytes;
  sizing.memory_limit_bytes = MemoryLimitBytes(memory, sizing.memory_request_bytes);
  return sizing;
}

}  // namespace headroom
