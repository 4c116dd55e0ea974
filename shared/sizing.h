#pragma once

// Container sizing rules of seed 000 (CruiseKube):
// - admission (phase 1): requests = the spike (footprint.h's PlanningSpike: what its
//   5-minute maxima of 48 hours need for at most 0.75% of its CPU above, their max for memory;
//   the seed's peak where no spike is known; at least the daily peak of the base), what the
//   container needs alone, so
//   the pod fits where it is placed even before the per-node optimisation shares headroom;
//   no CPU limit;
// - memory limit = 2 x max(7-day max memory, memory at OOM kill), never below the request.
// CPU limits are never set: PSI gives the contention signal that throttling used to.

#include <cstdint>
#include <optional>

#include "shared/usage_stats.h"

namespace headroom {

struct ContainerSizing {
  int64_t cpu_request_millis = 0;
  std::optional<int64_t> cpu_limit_millis;  // always empty: headroom sets no CPU limit
  int64_t memory_request_bytes = 0;
  int64_t memory_limit_bytes = 0;
};

// 2 x max(max_7d, oom), at least `memory_request_bytes`; saturates at INT64_MAX.
int64_t MemoryLimitBytes(const MemoryStats& memory, int64_t memory_request_bytes);

// Phase 1 sizing for a container with history (before the guard rails: callers use
// node_actions.h's SizeNewContainer).
ContainerSizing SizeForAdmission(const CpuStats& cpu, const MemoryStats& memory);

}  // namespace headroom
