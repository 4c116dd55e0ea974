#pragma once

// The sizing policies the simulator compares, each a thin adapter from the simulator to the
// shared library (no policy logic is re-implemented here):
// - static:   declared requests; memory limit = request x limit ratio;
// - vpa:      VpaContainerModel; at admission the target, and every 5 minutes the target
//             again for a pod whose requests left [lowerBound, upperBound] (VPA's updater);
//             limits keep the declared limit/request ratio (VPA's default);
// - crane:    CraneContainerModel; the recommendation at admission and every hour;
// - headroom: exactly the product's functions: ContainerUsageStats per workload (the union of
//             its replicas), SizeNewContainer at admission (the webhook: peak, through the
//             guard rails), PlanNodeActions on every node every 5 minutes (the actuator: the
//             per-node optimisation, guard rails, the 10% resize threshold, the disruption
//             policy) with the actuator's EvictionBudget, the NRI plugin's memory limit after
//             an OOM kill, and placement through the extender's footprint rule, projected fit
//             and load cordon. Its knobs are the product's flags (HeadroomOptions).
// Pods without history keep their declared requests (and declared limit).

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "shared/disruption.h"
#include "shared/disruption_window.h"
#include "shared/memory_pressure.h"
#include "shared/node_actions.h"
#include "shared/placement.h"
#include "shared/resource.h"
#include "shared/workload_policy.h"
#include "sim/trace_data.h"

namespace headroom::sim {

// The simulator compares the product's sizing policies (shared/workload_policy.h: the same
// names as headroom.dev/policy).
using PolicyKind = ::headroom::SizingPolicy;

// The headroom policy's knobs: the same as headroom-extender's actuation flags.
struct HeadroomOptions {
  ActionConfig actions;         // guard rails, resize threshold, CPU eviction delay
  EvictionBudgetConfig budget;  // eviction budgets
  // Every simulated workload carries headroom.dev/allow-below-declared: "true" (the daemons'
  // default is false: without the opt-in headroom never requests less than declared).
  bool allow_below_declared = true;
  // Every simulated workload carries headroom.dev/allow-disruption: "true" (the daemons'
  // default is false): its pods may be evicted even when it runs a single replica, as VPA's
  // recreate and the autoscaler's drain move them in the simulator. Without it headroom can
  // never move a single-replica pod off an overloaded node.
  bool allow_disruption = true;
  // The statistics headroom-nri keeps (its defaults): the windows, the usage profile and the
  // spike shortfall of the shared headroom (shared/usage_stats.h, shared/node_headroom.h).
  UsageStatsConfig stats;
  // headroom-nri's memory pressure rule (--memory-pressure-threshold, -duration).
  MemoryPressureConfig memory_pressure;
  // Annotations every simulated pod carries (`headroom simulate --pod-annotations`), e.g. the
  // per-workload tuning of shared/guard_rails.h, resolved as the daemons resolve them.
  Annotations pod_annotations;
  // When headroom may evict or shrink a running pod (`headroom simulate --disruption-window`,
  // the extender's flag): outside it pods are still sized when created and grown, never
  // shrunk in place or evicted. Empty: always. A pod annotation headroom.dev/disruption-window
  // (--pod-annotations) overrides it, as in the product.
  std::vector<DisruptionWindow> disruption_windows;
};

struct PodSizing {
  ResourceAmounts requests;
  int64_t memory_limit_bytes = 0;
};

// What a policy may do to the running cluster at its period. Evicted and recreated pods are
// placed again after the policy has acted, so the node lists only shrink meanwhile.
class ClusterActions {
 public:
  virtual ~ClusterActions() = default;
  virtual const std::vector<std::vector<size_t>>& PodsByNode() const = 0;
  virtual ResourceAmounts Allocatable(size_t node) const = 0;
  virtual const PodSizing& Sizing(size_t pod) const = 0;
  // In-place resize; when the node cannot hold the new requests the pod is recreated
  // elsewhere (counted as a resize eviction), as in-place resize falls back to.
  virtual void Resize(size_t pod, const PodSizing& sizing) = 0;
  // Evicts the pod; it is placed again (with its admission sizing) as soon as possible.
  virtual void Evict(size_t pod) = 0;
};

class SizingPolicy {
 public:
  virtual ~SizingPolicy() = default;
  virtual PolicyKind kind() const = 0;
  // Sizing for a pod being placed now.
  virtual PodSizing Admission(size_t pod, absl::Time now) = 0;
  // The pod as the extender judges it; only meaningful when UsesExtender().
  virtual PodFootprint Footprint(size_t pod, const PodSizing& current, absl::Time now);
  virtual bool UsesExtender() const { return false; }
  // Counts `pods` on `footprint` as the extender would from the node's report (its pods'
  // bases and their shared headroom); only meaningful when UsesExtender().
  virtual void CountPods(const std::vector<size_t>& pods, absl::Time now, NodeFootprint& footprint);
  // Whether a resize the node cannot hold re-creates the pod (VPA's InPlaceOrRecreate, Crane)
  // or is left for the kubelet to retry, the pod running on at its current size (headroom's
  // actuator never re-creates a pod to resize it).
  virtual bool RecreatesInfeasibleResizes() const { return true; }
  // Usage of a running pod over the minute ending at `now`: CPU demand, CPU it was granted,
  // its CPU request then, memory in use.
  virtual void Observe(size_t pod, absl::Time now, int64_t cpu_demand, int64_t cpu_granted,
                       int64_t cpu_request, int64_t memory) = 0;
  // The pod's tasks stalled on memory for `stalled_micros` of [from, to] (its memory.pressure
  // "some" total grew by that much). Returns whether the policy recorded a sustained stall.
  virtual bool ObserveMemoryStall(size_t /*pod*/, absl::Time /*from*/, absl::Time /*to*/,
                                  uint64_t /*stalled_micros*/) {
    return false;
  }
  // The memory limit the node plugin would set on the running pod now, at the runtime and
  // without an API resize (headroom-nri after it recorded a memory stall); nullopt: none.
  virtual std::optional<int64_t> RuntimeMemoryLimit(size_t /*pod*/, absl::Time /*now*/,
                                                    const PodSizing& /*current*/) {
    return std::nullopt;
  }
  // The pod was OOM-killed with `memory` in use; returns its sizing for the restart.
  virtual PodSizing AfterOom(size_t pod, absl::Time now, int64_t memory,
                             const PodSizing& current) = 0;
  // How often Act runs (zero: never).
  virtual absl::Duration period() const { return absl::ZeroDuration(); }
  virtual void Act(absl::Time /*now*/, ClusterActions& /*cluster*/) {}
};

std::unique_ptr<SizingPolicy> MakePolicy(PolicyKind kind, const std::vector<PodSpec>& pods,
                                         double memory_limit_ratio,
                                         const HeadroomOptions& headroom = {});

}  // namespace headroom::sim
