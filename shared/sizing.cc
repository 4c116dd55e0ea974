#include "shared/sizing.h"

#include <algorithm>
#include <limits>

#include "shared/footprint.h"

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
  // What the container needs alone: its base and its own spike above it (footprint.h); from
  // statistics without a spike (an older headroom-nri), the peak as seed 000 sizes.
  sizing.cpu_request_millis =
      cpu.spike_millis > 0 ? PlanningSpike(cpu) : std::max(cpu.peak_millis, PlanningBase(cpu));
  sizing.memory_request_bytes = memory.spike_bytes > 0
                                    ? PlanningSpike(memory)
                                    : std::max(memory.peak_bytes, PlanningBase(memory));
  sizing.memory_limit_bytes = MemoryLimitBytes(memory, sizing.memory_request_bytes);
  return sizing;
}

}  // namespace headroom
