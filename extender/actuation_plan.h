#pragma once

// What the actuator should do to the Kubernetes API, decided without touching it (pure
// functions, table-tested):
// - resizes: the per-node optimisation (shared/node_optimizer.h) run on a node's report
//   gives each optimised container its request; a pod is resized through pods/resize when a
//   request moves by at least `min_change`, unless the pod is excluded, disabled, in
//   recommend mode, a static pod's mirror, terminating, has a resize still pending or in
//   progress, or the new resources would change its QoS class (the API forbids that);
// - evictions: the pods the optimisation gives up (the node does not fit), and pods whose
//   container was OOM-killed (seed 000's flow: cooldown, exclusion annotation, per-workload
//   disable), never a DaemonSet pod, a mirror pod, a no-eviction pod or one annotated
//   do-not-disrupt.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "extender/cluster_view.h"
#include "extender/pod_index.h"
#include "shared/sizing.h"

namespace headroom::extender {

// karpenter.sh/do-not-disrupt is the ecosystem's; headroom honours it as well as its own.
inline constexpr absl::string_view kDoNotDisruptAnnotation = "headroom.dev/do-not-disrupt";
inline constexpr absl::string_view kKarpenterDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";

struct PlanOptions {
  // A resize is made only when a CPU or memory request moves by at least this fraction.
  double min_change = 0.10;
};

struct ContainerResize {
  std::string name;
  DeclaredResources before;
  DeclaredResources after;
};

struct PlannedResize {
  std::string pod_namespace;
  std::string name;
  std::string uid;
  std::string node;
  std::vector<ContainerResize> containers;  // only the containers that change
  std::string message;                      // the numbers, for the Event and the log
};

struct PlannedEviction {
  std::string pod_namespace;
  std::string name;
  std::string uid;
  std::string node;
  std::string reason;   // Event reason: NodeOverCommitted | OOMKilled
  std::string message;  // the numbers behind it
};

struct SkippedAction {
  std::string pod;     // "namespace/name"
  std::string action;  // resize | evict
  std::string why;
};

struct NodePlan {
  std::vector<PlannedResize> resizes;
  std::vector<PlannedEviction> evictions;
  std::vector<SkippedAction> skipped;
};

// Why headroom must not resize `pod` at all ("" when it may).
std::string ResizeBlockedBy(const ApiPod& pod);
// Why headroom must not evict `pod` ("" when it may).
std::string EvictionBlockedBy(const ApiPod& pod);

// The resize that brings `pod` to `targets` (container name -> sizing), or nullopt with
// `why` set when none is due or allowed.
std::optional<PlannedResize> PlanResize(
    const ApiPod& pod, const std::vector<std::pair<std::string, ContainerSizing>>& targets,
    const PlanOptions& options, std::string& why);

// Runs the per-node optimisation on `report` and plans its resizes and evictions. Pods the
// API does not show (`find` returns nullopt) are counted at their declared requests and never
// acted on.
NodePlan PlanNode(const NodeReport& report,
                  const std::function<std::optional<ApiPod>(const ReportedPod&)>& find,
                  const PlanOptions& options);

}  // namespace headroom::extender
