#pragma once

// Per-node optimisation, phase 2 of seed 000 (CruiseKube), steps 1-6:
//   1. available = allocatable - requests of pods that are not optimised;
//   2. per pod: base = sum of its containers' base, headroom = its containers' headrooms
//      (spike - base) combined; the node's shared headroom = the one headroom-nri measured
//      over these pods together (NodeDemand::shared_headroom, node_headroom.h), else the
//      pods' headrooms by root-sum-square (placement.h's CombineHeadroom) -- seed 000 took
//      the largest single headroom, which holds only if spikes never coincide;
//   3. memory: order pods by (DaemonSet last, eviction ranking, memory headroom desc, then
//      namespace/name), and while sum(base) + shared headroom > available, evict the first
//      pod in that order; then, once it fits, keep each victim (last chosen first) whose
//      return still fits (headroom's reprieve: no eviction that does not help);
//   4. CPU, over the survivors, in the same order -- but CPU is compressible, so headroom's
//      guard rail replaces the seed's rule: a pod is evicted for CPU only while the sum of the
//      current bases alone (the 10-minute P75, not the daily peak) exceeds the available CPU
//      -- or, on a node headroom-nri measured, base + the measured shared headroom does (the
//      pods' P99 together: contention that happened) -- and only when the caller has seen
//      that last for
//      a sustained period (OptimizeOptions::evict_for_cpu, disruption.h's
//      SustainedConditions). A short shared CPU headroom never evicts: CPU weights and PSI
//      handle it;
//   5. share the node's shared headroom among all surviving containers in proportion to
//      their own: final = base + sharedHeadroom x own / totalHeadroom (final = base when
//      total headroom is zero);
//   6. CPU request = final CPU, no CPU limit; memory request = final memory, memory limit =
//      2 x max(7-day max, memory at OOM).
// DaemonSet, no-eviction and protected pods are never evicted; if the node still does not fit
// with only those left, the result says so (a shortfall) and evicts nothing protected. Base and
// spike are the planning values of footprint.h (the daily peak of the base); a pod with a container
// not yet observed for `min_history` is not optimised and keeps its declared requests (warm-up).
// The eviction list is a proposal: callers filter it through disruption.h's protections and
// budgets before acting.
//
// Rounding: each container's share is rounded up to the millicore / byte, so the node total
// may exceed sum(base) + sharedHeadroom by at most one unit per container.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "shared/eviction_ranking.h"
#include "shared/footprint.h"
#include "shared/pod_identity.h"
#include "shared/reason.h"
#include "shared/resource.h"
#include "shared/sizing.h"
#include "shared/usage_stats.h"

namespace headroom {

struct OptimizeOptions {
  // Pods with a container observed for less than this keep their declared requests.
  absl::Duration min_history = absl::Hours(24);
  // Step 4 may evict (only while the CPU bases alone exceed the available CPU): set by a
  // caller that has seen them over for a sustained period.
  bool evict_for_cpu = false;
};

struct PodDemand : PodIdentity {
  bool daemonset = false;
  EvictionRanking ranking = EvictionRanking::kLow;
  // Protected by the disruption policy (disruption.h): never chosen for eviction.
  bool protected_from_eviction = false;
  // False: headroom leaves the pod alone and reserves its declared requests.
  bool optimizable = true;
  // Declared requests; only counted for pods that are not optimised.
  ResourceAmounts requests;
  // Its headroom is in NodeDemand::shared_headroom (measured with the node's other such pods).
  bool in_shared_headroom = false;
  std::vector<ContainerDemand> containers;

  std::string Key() const { return pod_namespace + "/" + name; }
};

struct NodeDemand {
  std::string name;
  ResourceAmounts allocatable;
  std::vector<PodDemand> pods;
  // The shared headroom headroom-nri measured over the pods marked in_shared_headroom
  // (node_headroom.h); every other pod's headroom joins it by root-sum-square (all of them
  // when absent). Kept as measured while pods are evicted (a pod leaving can only lower it).
  std::optional<ResourceAmounts> shared_headroom;
};

struct PodEviction {
  size_t pod = 0;  // index into NodeDemand::pods
  Resource resource = Resource::kMemory;
  Reason reason;
};

// A pod the optimisation did not size: counted at its declared requests.
struct SkippedPod {
  size_t pod = 0;
  Reason reason;
};

struct ContainerResult {
  size_t pod = 0;        // index into NodeDemand::pods
  size_t container = 0;  // index into PodDemand::containers
  ContainerSizing sizing;
};

// The node's balance for one resource after the evictions. Amounts saturate at INT64_MAX.
struct ResourceOutcome {
  int64_t allocatable = 0;
  int64_t reserved = 0;         // declared requests of pods not optimised
  int64_t base_total = 0;       // sum of the surviving containers' base
  int64_t shared_headroom = 0;  // the survivors' shared headroom (measured, or combined)
  int64_t total_headroom = 0;   // sum of the surviving containers' headroom
  bool fits = true;             // base_total + shared_headroom <= allocatable - reserved
  // The bases alone fit allocatable - reserved: memory's planning bases; CPU's bases now (the
  // 10-minute P75), and on a measured node also base + the measured shared headroom -- what a
  // sustained CPU overload is judged by.
  bool bases_fit = true;
  // Set when the node does not fit even though nothing more may be evicted.
  std::optional<Reason> shortfall;
};

struct NodeOptimization {
  std::vector<PodEviction> evictions;  // in eviction order
  std::vector<SkippedPod> skipped;
  std::vector<ContainerResult> containers;  // surviving optimised pods, input order
  ResourceOutcome cpu;
  ResourceOutcome memory;
};

// InvalidArgument naming the pod and field for negative amounts, base above peak, peak
// above the 7-day max, duplicate pods or containers, or an optimisable pod with no
// containers. Field paths follow the optimize-node JSON ("pods[2].containers[0].cpu").
absl::Status ValidateNodeDemand(const NodeDemand& node);

// Runs steps 1-6 on one node. Validates first.
absl::StatusOr<NodeOptimization> OptimizeNode(const NodeDemand& node,
                                              const OptimizeOptions& options = {});

}  // namespace headroom
