#pragma once

// What the API says about one pod that every area's decisions read: its declared resources,
// and why headroom must not resize or evict it. The actuator acts on these, the status page
// explains them; both read them here.

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "extender/kube/pod_index.h"
#include "shared/disruption.h"
#include "shared/workload_policy.h"

namespace headroom::extender {

// Each container's declared values: headroom.dev/declared when readable, else the spec.
std::vector<DeclaredResources> DeclaredOf(const ApiPod& pod);
// The pod-level values as declared: each request headroom.dev/declared-pod records when
// readable (the webhook may have changed them), else the spec's; the limits the spec has now
// (the API never lets a resize remove one). nullopt: the pod declares no pod-level
// resources.
std::optional<DeclaredResources> DeclaredPodLevelOf(const ApiPod& pod);
// The pod's requests as the scheduler counts them (shared/pod_level_resources.h), as declared
// (DeclaredOf, DeclaredPodLevelOf) and now (the spec).
PodRequests RequestsOfPod(const ApiPod& pod);

// Why headroom must not resize `pod` at all ("" when it may); `policy` is PolicyOf(pod, ...).
// `pod_level_resize`: the cluster resizes pod-level resources in place (Kubernetes 1.36+,
// InPlacePodLevelResourcesVerticalScaling); without it a pod that declares them is not resized.
std::string ResizeBlockedBy(const ApiPod& pod, const WorkloadPolicy& policy, bool pod_level_resize);
// The disruption facts of `pod` (shared/disruption.h), with its workload's counts and policy.
DisruptionFacts DisruptionFactsFor(const ApiPod& pod, const WorkloadCount& count, absl::Time now,
                                   const WorkloadPolicy& policy);
// Why headroom must not evict `pod` ("" when it may).
std::string EvictionBlockedBy(const ApiPod& pod, const WorkloadCount& count, absl::Time now,
                              const WorkloadPolicy& policy);

}  // namespace headroom::extender
