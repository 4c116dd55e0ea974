#pragma once

// What headroom-nri asks the runtime to set on one container (seed 000, phase 2 at the runtime
// layer): no CPU quota (CPU limits are replaced by PSI-watched sharing), CPU weight from the
// container's sized request, and memory limit = 2 x max(7-day max, memory at OOM) once there is
// history -- never below the memory in use, so applying it cannot itself OOM-kill. Without
// history the declared memory limit and CPU weight stay as they are.

#include <cstdint>
#include <optional>
#include <vector>

#include "shared/reason.h"
#include "shared/usage_stats.h"

namespace headroom::nri {

// What kubelet asked for, as NRI shows it (absent = not set).
struct DeclaredResources {
  std::optional<uint64_t> cpu_shares;
  std::optional<int64_t> cpu_quota;
  std::optional<uint64_t> cpu_period;
  std::optional<int64_t> memory_limit_bytes;
};

struct ContainerPolicyInput {
  DeclaredResources declared;
  // The workload container's memory history (samples and/or OOM kills); absent: none.
  std::optional<MemoryStats> memory;
  // The CPU request the optimisation sized for the container; absent: not sized yet.
  std::optional<int64_t> cpu_request_millis;
  int64_t memory_usage_bytes = 0;  // in use now; 0 for a container being created
  bool enforce = true;             // false: recommend only (headroom.dev/mode, --dry-run)
  bool excluded = false;           // headroom.dev/disable or an excluded namespace
};

struct ResourcePlan {
  std::optional<int64_t> cpu_quota;  // -1: remove the quota
  std::optional<uint64_t> cpu_shares;
  std::optional<int64_t> memory_limit_bytes;
  std::vector<Reason> reasons;  // one per decision, with the numbers

  bool changes_anything() const {
    return cpu_quota.has_value() || cpu_shares.has_value() || memory_limit_bytes.has_value();
  }
};

inline constexpr int64_t kRemoveCpuQuota = -1;

// kubelet's MilliCPUToShares: millis x 1024 / 1000, at least 2, at most 262144.
uint64_t CpuSharesForMillis(int64_t millis);
// The inverse, for declared requests the runtime only shows as shares (1024 shares = 1 core).
int64_t MillisForCpuShares(uint64_t shares);

// The plan. With enforce = false or excluded = true the plan changes nothing but its reasons
// still say what would have been set.
ResourcePlan PlanContainerResources(const ContainerPolicyInput& input);

// The plan minus what `current` already has (for updates of running containers).
ResourcePlan WithoutNoOps(ResourcePlan plan, const DeclaredResources& current);

}  // namespace headroom::nri
