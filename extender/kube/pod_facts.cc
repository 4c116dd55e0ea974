#include "extender/kube/pod_facts.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "shared/annotations.h"

namespace headroom::extender {

std::vector<DeclaredResources> DeclaredOf(const ApiPod& pod) {
  if (const auto it = pod.annotations.find(kDeclaredAnnotation); it != pod.annotations.end()) {
    absl::StatusOr<std::vector<DeclaredResources>> declared = DecodeDeclaredAnnotation(it->second);
    if (declared.ok()) return *std::move(declared);
  }
  return pod.containers;
}

std::string ResizeBlockedBy(const ApiPod& pod, const WorkloadPolicy& policy) {
  if (std::string why = SizingBlockedBy(policy); !why.empty()) return why;
  if (pod.mirror) return "a static pod's mirror cannot be resized";
  if (pod.terminating) return "terminating";
  if (pod.pod_level.Any()) {
    // Its containers share the pod-level amounts: a container resized alone could break the
    // pod-level bounds (the API refuses it), and pod-level resize is beta only from 1.36.
    return "the pod declares pod-level resources (spec.resources); headroom sizes those at "
           "admission only";
  }
  if (!pod.resize_pending.empty()) {
    return absl::StrCat("a resize is pending (", pod.resize_pending,
                        pod.resize_message.empty() ? "" : ": ", pod.resize_message, ")");
  }
  if (pod.resize_in_progress) return "a resize is in progress";
  return "";
}

DisruptionFacts DisruptionFactsFor(const ApiPod& pod, const WorkloadCount& count,
                                   const WorkloadPolicy& policy) {
  const bool owned = !pod.owner_kind.empty();
  DisruptionFacts facts = DisruptionFactsOf(policy);
  facts.owner_kind = pod.owner_kind;
  facts.workload = ControllerKey(pod);
  facts.workload_pods = owned ? count.pods : 1;
  facts.workload_ready = owned ? count.ready : (pod.ready ? 1 : 0);
  facts.ready = pod.ready;
  facts.mirror = pod.mirror;
  facts.terminating = pod.terminating;
  return facts;
}

std::string EvictionBlockedBy(const ApiPod& pod, const WorkloadCount& count,
                              const WorkloadPolicy& policy) {
  return headroom::EvictionBlockedBy(DisruptionFactsFor(pod, count, policy));
}

}  // namespace headroom::extender
