#pragma once

// What headroom-nri asks the runtime to set on one container (seed 000, phase 2 at the runtime
// layer), through the guard rails of shared/guard_rails.h:
// - no CPU quota (CPU limits are replaced by PSI-watched sharing);
// - CPU weight from the container's sized request -- but nothing is tightened while the
//   workload warms up (--min-history), the weight never goes below what the declared request
//   gives (unless the workload opted in) nor below the floor's, and a running container's
//   weight shrinks in bounded steps;
// - memory limit = 2 x max(7-day max, memory at OOM), at least the floor and the memory in
//   use, once the workload is warm; until then the declared limit stays (raised only by an OOM
//   kill: 2 x the memory at OOM).

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "shared/guard_rails.h"
#include "shared/reason.h"
#include "shared/resource.h"
#include "shared/usage_stats.h"
#include "shared/workload_policy.h"

namespace headroom::nri {

// CPU and memory resources as NRI shows them (absent = not set).
struct RuntimeResources {
  std::optional<uint64_t> cpu_shares;
  std::optional<int64_t> cpu_quota;
  std::optional<uint64_t> cpu_period;
  std::optional<int64_t> memory_limit_bytes;
  // cgroup v2's memory.high as the kubelet sets it with Memory QoS (beta and on by default
  // from Kubernetes 1.37): a throttling point below the limit; absent: none ("max").
  std::optional<int64_t> memory_high_bytes;

  bool operator==(const RuntimeResources&) const = default;
};

struct ContainerPolicyInput {
  RuntimeResources declared;  // what kubelet asked for, before headroom
  RuntimeResources current;   // what the runtime has now (== declared for a new container)
  // The workload container's memory history (samples and/or OOM kills); absent: none.
  std::optional<MemoryStats> memory;
  // The CPU request the optimisation sized for the container; absent: not sized yet.
  std::optional<int64_t> cpu_request_millis;
  int64_t memory_usage_bytes = 0;                 // in use now; 0 for a container being created
  absl::Duration history = absl::ZeroDuration();  // how long the workload has been observed
  bool allow_below_declared = false;  // headroom.dev/allow-below-declared or the default
  WorkloadTuning tuning;              // the workload's bounds, margins and resources kept
  bool running = true;                // false: the container is being created
  ShrinkTimes last_shrink;
  absl::Time now = absl::InfinitePast();
  bool enforce = true;    // false: --dry-run
  bool excluded = false;  // headroom.dev/disable or an excluded namespace
  // The pod's adoption step (shared/workload_policy.h): observe sets nothing; admission sets
  // values on a container being created only; in-place on running ones too.
  AdoptionStep step = AdoptionStep::kInPlace;
  GuardRailConfig guard;
};

struct ResourcePlan {
  std::optional<int64_t> cpu_quota;  // -1: remove the quota
  std::optional<uint64_t> cpu_shares;
  std::optional<int64_t> memory_limit_bytes;
  // Set with a memory limit that moves while the container has a memory.high: it moves with
  // the limit (MemoryHighFor), so the kubelet's throttling point never sits above the new limit
  // nor throttles a container at a fraction of the limit headroom just raised.
  std::optional<int64_t> memory_high_bytes;
  ShrinkTimes last_shrink;      // to remember once the plan is applied
  std::vector<Reason> reasons;  // one per decision, with the numbers

  bool changes_anything() const {
    return cpu_quota.has_value() || cpu_shares.has_value() || memory_limit_bytes.has_value() ||
           memory_high_bytes.has_value();
  }
};

// The kubelet's default memoryThrottlingFactor (KEP-2570): memory.high = request + 0.9 x
// (limit - request), rounded down to a 4 KiB page.
inline constexpr double kKubeletMemoryThrottlingFactor = 0.9;
inline constexpr int64_t kMemoryPageBytes = 4096;

// memory.high for a container whose limit moves from `old_limit` (0: none) to `new_limit`, given
// the memory.high it has: at the same fraction of the limit as before; without an old limit
// (the kubelet then sized it from the node's allocatable), at most the kubelet's factor of the
// new limit. Page-aligned, at least one page, below the new limit.
int64_t MemoryHighFor(int64_t memory_high, int64_t old_limit, int64_t new_limit);

inline constexpr int64_t kRemoveCpuQuota = -1;

// kubelet's MilliCPUToShares: millis x 1024 / 1000, at least 2, at most 262144.
uint64_t CpuSharesForMillis(int64_t millis);
// The inverse, for declared requests the runtime only shows as shares (1024 shares = 1 core).
int64_t MillisForCpuShares(uint64_t shares);

// The plan. With enforce = false, excluded = true or a step that does not allow it (observe;
// admission for a running container) the plan changes nothing but its reasons still say what
// would have been set.
ResourcePlan PlanContainerResources(const ContainerPolicyInput& input);

// The requests `resources` stand for, as the runtime shows them: CPU from the shares, memory
// from the limit (the runtime has no memory request); 0 where unset.
ResourceAmounts RuntimeRequests(const RuntimeResources& resources);

// The plan minus what `current` already has (for updates of running containers).
ResourcePlan WithoutNoOps(ResourcePlan plan, const RuntimeResources& current);

// "cpu shares 1024 -> 256, memory limit 1Gi -> 512Mi" for what `plan` changes from `before`.
std::string DescribePlan(const RuntimeResources& before, const ResourcePlan& plan);
// The reasons, joined with "; ".
std::string PlanReasons(const ResourcePlan& plan);

}  // namespace headroom::nri
