#pragma once

// What headroom does to the running pods of one node in an actuation round -- the one code
// path of headroom-extender's actuator and of the simulator:
//   1. the per-node optimisation (node_optimizer.h) on the node's pods, evicting for CPU only
//      once the CPU bases alone have stayed above the available CPU for
//      `cpu_eviction_after` (SustainedConditions, keyed by node);
//   2. every optimised container's sizing through the guard rails (guard_rails.h): warm-up,
//      floors, bounded shrinking;
//   3. a resize only where a value moves by at least `guard.resize_threshold` of its current amount
//      (default 10%) and by at least an absolute step (25m of CPU, 64Mi of memory) -- or where
//      the memory limit has to rise at all -- for a pod that may be resized at all;
//   4. the optimisation's evictions, minus the pods disruption.h protects -- counting the
//      replicas this plan already evicts, so two replicas of one workload never leave it
//      without a ready one.
// Terminating pods are on their way out: not counted on the node, never sized or evicted
// (otherwise a pod still shutting down would make the node look short and cost another pod).
// Budgets (disruption.h's EvictionBudget) are spent by whoever carries the evictions out.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "shared/disruption.h"
#include "shared/guard_rails.h"
#include "shared/node_optimizer.h"
#include "shared/reason.h"

namespace headroom {

struct ActionConfig {
  GuardRailConfig guard;  // its resize_threshold is step 3's
  absl::Duration cpu_eviction_after = absl::Minutes(15);

  absl::Status Validate() const;
};

// A running container as actuation sees it; parallel to PodDemand::containers.
struct ContainerState {
  SizedValues declared;  // the spec as written before headroom changed it
  SizedValues current;   // the spec now
  ShrinkTimes last_shrink;
  int64_t memory_in_use_bytes = 0;  // 0: unknown
  // Whether headroom may set a memory limit (the API path adds none where none was declared).
  bool manage_memory_limit = true;
};

struct PodState {
  PodDemand demand;  // for the optimisation: containers with statistics and history
  std::vector<ContainerState> containers;
  bool allow_below_declared = false;
  WorkloadTuning tuning;          // the workload's bounds, margins and resources kept
  std::string resize_blocked_by;  // "" when the pod may be resized
  // Why the pod may grow but not shrink now (outside its disruption window); "": it may. The
  // plan then keeps every value that would go down as it is (its shrink step unspent), and
  // skips the pod with "no shrink: <why>" when nothing else moves.
  std::string shrink_blocked_by;
  DisruptionFacts disruption;
};

struct ContainerChange {
  size_t container = 0;
  SizedValues before;
  SizedValues after;
  ShrinkTimes last_shrink;      // to remember once the change is applied
  std::vector<Reason> reasons;  // guard rails that shaped it
};

struct PlannedPodResize {
  size_t pod = 0;
  std::vector<ContainerChange> containers;  // only those that change
  std::string message;                      // before -> after with the numbers
};

struct PlannedPodEviction {
  size_t pod = 0;
  Reason reason;
};

struct SkippedPodAction {
  size_t pod = 0;
  std::string action;  // resize | evict
  std::string why;
};

struct NodeActions {
  std::vector<PlannedPodResize> resizes;
  std::vector<PlannedPodEviction> evictions;
  std::vector<SkippedPodAction> skipped;
  // The optimisation of the pods counted (its pod indices skip the terminating ones); for its
  // node totals and shortfalls.
  NodeOptimization optimization;
};

// True when `after` moves from `before` by at least `fraction` of `before` and by at least
// `at_least` (setting or removing a value counts as a move).
bool MovedEnough(const std::optional<int64_t>& before, const std::optional<int64_t>& after,
                 double fraction, int64_t at_least = 0);

// The resize threshold (--resize-min-change, --resize-min-cpu, --resize-min-memory), for every
// caller that turns a plan into a resize (the plan itself, the actuator's pods/resize after
// capping by a declared CPU limit, the simulator): worth making when a request or limit moves
// by at least the threshold's fraction and its absolute step, or when the memory limit goes
// up at all (a floor the container needs: 2 x its max, 2 x its memory at an OOM kill, what it
// uses).
bool ResizeWorthMaking(const SizedValues& before, const SizedValues& after,
                       const ResizeThreshold& threshold);

// "cpu request 1 -> 500m, memory request 1Gi -> 512Mi, memory limit 2Gi -> 1Gi".
std::string DescribeChange(const SizedValues& before, const SizedValues& after);

// Plans one node. `pods[i].demand` is the optimisation's view of pod i; its eviction
// protection is set here from `pods[i].disruption`. `cpu_over` remembers, per node, since
// when the CPU bases have exceeded the available CPU. `shared_headroom`: the node's, as
// headroom-nri measured it (NodeDemand::shared_headroom). Indices in the result are into
// `pods`.
absl::StatusOr<NodeActions> PlanNodeActions(const std::string& node, ResourceAmounts allocatable,
                                            const std::vector<PodState>& pods, absl::Time now,
                                            const ActionConfig& config,
                                            SustainedConditions& cpu_over,
                                            std::optional<ResourceAmounts> shared_headroom = {});

// What headroom-nri sets at the runtime layer, through the guard rails: `input` carries the
// CPU request the CPU weight stands for (proposed by the optimisation; absent: not sized yet,
// left alone) and the rest of the container's facts; once the workload has memory history,
// the memory limit 2 x max(7-day max, memory at OOM) is proposed too. The simulator's restart
// after an OOM kill runs the same function.
GuardResult SizeAtRuntime(GuardInput input, const std::optional<MemoryStats>& memory,
                          const GuardRailConfig& config);

// Phase 1 through the guard rails: what a container being created gets from its workload's
// statistics (requests = the spike, what it needs alone: footprint.h's PlanningSpike; memory
// limit = 2 x max(7-day max, memory at OOM)), or its declared values while the workload warms
// up.
GuardResult SizeNewContainer(const UsageSnapshot& stats, const SizedValues& declared,
                             bool allow_below_declared, const WorkloadTuning& tuning,
                             const GuardRailConfig& config);

}  // namespace headroom
