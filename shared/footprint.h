#pragma once

// The one footprint rule: what a container needs from a node, as placement (headroom-extender's
// filter and score), the per-node optimisation (node_optimizer.h) and the simulator judge it.
//
// - Trusted statistics (cpu and memory known, observed for at least `min_history`, see
//   guard_rails.h): base = the daily peak of the base (the largest steady state -- P50 over
//   2 hours -- of the last 24 hours), headroom = the spike - that base, at least 0: the spike
//   is what the container's 5-minute maxima over the last 48 hours need so that at most 0.75% of
//   its CPU lies above it, their max for memory (usage_stats.h); statistics without a spike
//   (an older headroom-nri) use max(peak, daily peak), the hour-of-day peak of 7 days.
//   Judging by the daily envelope rather than the short-window values means a node packed
//   off-peak still holds its pods when their correlated daily peak arrives, and a node's
//   requests do not follow usage down every night (which made scale-down drain nodes that the
//   next peak needed; docs/simulate.md measured both).
// - Otherwise, per resource: base = the declared request, headroom = declared limit - request
//   (0 without a limit): a container headroom has not learned yet is judged as it asks; where
//   it already has statistics for the resource, usage seen above the declared amounts counts
//   too (base = the larger base, peak = the larger peak), so warm-up never hides real usage.
//
// A pod's footprint is the sum of its containers' bases and their headrooms combined by
// root-sum-square, sqrt(a^2 + b^2): headrooms are shared, and spikes that are not measured
// together are taken as independent -- more than the largest alone (seed 000's rule, which
// holds only if spikes never coincide), less than their sum (which holds if they always do).
// A node whose containers were measured together uses that instead (node_headroom.h), and
// adds the pods placed since by the same rule (placement.h's CombineHeadroom). Sums saturate at
// INT64_MAX.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "shared/placement.h"
#include "shared/pod_level_resources.h"
#include "shared/resource.h"
#include "shared/usage_stats.h"

namespace headroom {

struct ContainerDemand {
  std::string name;
  // Statistics of the workload container; absent: none yet.
  std::optional<CpuStats> cpu;
  std::optional<MemoryStats> memory;
  // How long the workload container has been observed (the union over its replicas).
  absl::Duration history = absl::ZeroDuration();
  // What the pod spec declares (0: not declared); used where statistics are not trusted.
  ResourceAmounts declared_requests = {};
  ResourceAmounts declared_limits = {};
  // The container's memory in use now (0: unknown): a memory limit is never set below it.
  int64_t memory_in_use_bytes = 0;
};

// Base and peak as placement and the optimisation use them: base = max(base, daily base),
// peak = max(peak, that base).
int64_t PlanningBase(const CpuStats& cpu);
int64_t PlanningBase(const MemoryStats& memory);
int64_t PlanningPeak(const CpuStats& cpu);
int64_t PlanningPeak(const MemoryStats& memory);
// What the container needs alone at the top of its usage: the spike when known, else the
// planning peak; at least the planning base. Admission sizes a new container at this.
int64_t PlanningSpike(const CpuStats& cpu);
int64_t PlanningSpike(const MemoryStats& memory);

// True when the container has cpu and memory statistics observed for at least `min_history`.
bool HasTrustedHistory(const ContainerDemand& container, absl::Duration min_history);

// The container's base and headroom for `resource` under the rule above.
struct ResourceFootprint {
  int64_t base = 0;
  int64_t headroom = 0;
};
ResourceFootprint ContainerFootprint(const ContainerDemand& container, Resource resource,
                                     absl::Duration min_history);

// Sum of the containers' bases, their headrooms combined (placement.h's CombineHeadroom).
// A pod that declares pod-level resources (pod_level_resources.h) is, for each resource it
// declares there, judged at least as it asks until every container is trusted: base >= the
// pod-level request, base + headroom >= the pod-level limit (its containers often declare
// nothing of their own, so the container rule alone would judge such a pod at 0).
PodFootprint PodFootprintOf(const std::vector<ContainerDemand>& containers,
                            absl::Duration min_history, const PodLevelResources& pod_level = {});

}  // namespace headroom
