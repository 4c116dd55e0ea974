#pragma once

// What the API says about one pod that every area's decisions read: its declared resources,
// and why headroom must not resize or evict it. The actuator acts on these, the status page
// explains them; both read them here.

#include <string>
#include <vector>

#include "extender/kube/pod_index.h"
#include "shared/disruption.h"
#include "shared/workload_policy.h"

namespace headroom::extender {

// Each container's declared values: headroom.dev/declared when readable, else the spec.
std::vector<DeclaredResources> DeclaredOf(const ApiPod& pod);

// Why headroom must not resize `pod` at all ("" when it may); `policy` is PolicyOf(pod, ...).
std::string ResizeBlockedBy(const ApiPod& pod, const WorkloadPolicy& policy);
// The disruption facts of `pod` (shared/disruption.h), with its workload's counts and policy.
DisruptionFacts DisruptionFactsFor(const ApiPod& pod, const WorkloadCount& count,
                                   const WorkloadPolicy& policy);
// Why headroom must not evict `pod` ("" when it may).
std::string EvictionBlockedBy(const ApiPod& pod, const WorkloadCount& count,
                              const WorkloadPolicy& policy);

}  // namespace headroom::extender
