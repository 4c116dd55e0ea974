#pragma once

// What the actuator should do to the Kubernetes API, decided without touching it (pure
// functions, table-tested). The decisions are shared/node_actions.h's, the same the simulator
// makes: the per-node optimisation on a node's report, the guard rails on every sized
// container, the resize threshold and the disruption policy. This file adds what only the API
// knows:
// - which pods exist (a reported pod that the API does not show, or shows with another UID, is
//   counted at its declared requests and never acted on);
// - the declared values (headroom.dev/declared when the webhook wrote it, else the spec), the
//   owner, replica and readiness counts, the annotations;
// - a pod that declares pod-level resources: its pod-level requests follow its containers'
//   (pod_level_sizing.h), and it is resized only where the cluster resizes them (1.36+);
// - resize rules of the API: never for a static pod's mirror, a terminating pod, a pod with a
//   resize pending or in progress, or when the QoS class would change; a CPU limit the pod
//   still declares caps the request; no memory limit is added where none was declared.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/time/time.h"
#include "extender/kube/pod_facts.h"
#include "extender/kube/pod_index.h"
#include "extender/view/cluster_view.h"
#include "shared/disruption.h"
#include "shared/guard_rails.h"
#include "shared/hpa.h"
#include "shared/node_actions.h"
#include "shared/pod_identity.h"

namespace headroom::extender {

struct ContainerResize {
  std::string name;
  DeclaredResources before;
  DeclaredResources after;
  ShrinkTimes last_shrink;  // remembered once the resize is applied
};

struct PlannedResize : PodIdentity {
  std::string node;
  std::vector<ContainerResize> containers;  // only the containers that change
  std::string message;                      // the numbers, for the Event and the log
  // A pod that declares pod-level resources: spec.resources now and as it is to be (set only
  // when it changes; pod_level_sizing.h keeps it valid for the containers after the resize).
  std::optional<DeclaredResources> pod_level_before = std::nullopt;
  std::optional<DeclaredResources> pod_level_after = std::nullopt;
};

struct PlannedEviction : PodIdentity {
  std::string node;
  std::string reason;         // Event reason: NodeOverCommitted | OOMKilled
  std::string message;        // the numbers behind it
  std::string workload = {};  // ControllerKey of the pod ("" for none): its replicas' count drops
  bool ready = false;
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
  // Why the node still does not fit after the evictions the policy allows (empty: it fits).
  std::vector<std::string> shortfalls;
};

// When each container value last shrank, by "<pod uid>/<container>": the guard rails' step
// bound between rounds.
using ShrinkLedger = absl::flat_hash_map<std::string, ShrinkTimes>;
std::string ShrinkKey(absl::string_view uid, absl::string_view container);

// What the API says, for one actuation round.
struct ApiView {
  // The API's pod for a reported one (null: unknown), shared rather than copied: a round
  // looks up every pod of every node.
  std::function<std::shared_ptr<const ApiPod>(const ReportedPod&)> find;
  absl::flat_hash_map<std::string, WorkloadCount> counts;  // by ControllerKey
  const ShrinkLedger* ledger = nullptr;                    // may be null: nothing shrank yet
  PolicyDefaults defaults;
  // The owners' and Namespaces' annotations (the policy's middle layers); null: none.
  PolicyLayers layers;
  // The HPAs of a workload ("namespace/Kind/name") and what to do about them (shared/hpa.h);
  // unset: no HPA is known.
  std::function<std::optional<HpaScaling>(const std::string& workload_key)> hpa_for;
  HpaResourcesMode hpa_mode = HpaResourcesMode::kKeep;
  // The cluster resizes pod-level resources in place (Kubernetes 1.36+): a pod that declares
  // them is resized at both levels; otherwise it is not resized.
  bool pod_level_resize = false;
};

// Runs shared/node_actions.h's plan on `report` and turns it into API actions.
NodePlan PlanNode(const NodeReport& report, const ApiView& api, const ActionConfig& config,
                  SustainedConditions& cpu_over, absl::Time now);

}  // namespace headroom::extender
