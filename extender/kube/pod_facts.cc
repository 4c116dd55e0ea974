#include "extender/kube/pod_facts.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "extender/kube/pod_resources.h"
#include "shared/annotations.h"
#include "shared/pod_level_resources.h"

namespace headroom::extender {

std::vector<DeclaredResources> DeclaredOf(const ApiPod& pod) {
  if (const auto it = pod.annotations.find(kDeclaredAnnotation); it != pod.annotations.end()) {
    absl::StatusOr<std::vector<DeclaredResources>> declared = DecodeDeclaredAnnotation(it->second);
    if (declared.ok()) return *std::move(declared);
  }
  return pod.containers;
}

std::optional<DeclaredResources> DeclaredPodLevelOf(const ApiPod& pod) {
  std::optional<DeclaredResources> now = DeclaredPodLevel(pod.pod_level);
  if (!now.has_value()) return std::nullopt;
  const auto it = pod.annotations.find(kDeclaredPodAnnotation);
  if (it == pod.annotations.end()) return now;
  const absl::StatusOr<std::optional<DeclaredResources>> declared =
      DecodeDeclaredPodAnnotation(it->second);
  if (!declared.ok() || !declared->has_value()) return now;
  // A request the spec has now stays one (a resize never removes it).
  if ((*declared)->cpu_request_millis) now->cpu_request_millis = (*declared)->cpu_request_millis;
  if ((*declared)->memory_request_bytes) {
    now->memory_request_bytes = (*declared)->memory_request_bytes;
  }
  return now;
}

PodRequests RequestsOfPod(const ApiPod& pod) {
  return {EffectivePodRequests(RequestsOf(DeclaredOf(pod)), PodLevelOf(DeclaredPodLevelOf(pod))),
          EffectivePodRequests(RequestsOf(pod.containers), pod.pod_level)};
}

std::string ResizeBlockedBy(const ApiPod& pod, const WorkloadPolicy& policy,
                            bool pod_level_resize) {
  if (std::string why = InPlaceBlockedBy(policy); !why.empty()) return why;
  if (pod.mirror) return "a static pod's mirror cannot be resized";
  if (pod.terminating) return "terminating";
  if (pod.pod_level.Any() && !pod_level_resize) {
    // Its containers share the pod-level amounts, and before 1.36 the API refuses any resize
    // of such a pod ("pods with pod-level resources cannot be resized").
    return "the pod declares pod-level resources (spec.resources), which this cluster does not "
           "resize in place (Kubernetes 1.36+, InPlacePodLevelResourcesVerticalScaling); "
           "headroom sizes them at admission only";
  }
  if (!pod.resize_pending.empty()) {
    return absl::StrCat("a resize is pending (", pod.resize_pending,
                        pod.resize_message.empty() ? "" : ": ", pod.resize_message, ")");
  }
  if (pod.resize_in_progress) return "a resize is in progress";
  return "";
}

DisruptionFacts DisruptionFactsFor(const ApiPod& pod, const WorkloadCount& count, absl::Time now,
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
  facts.outside_window = OutsideDisruptionWindow(policy, now);
  return facts;
}

std::string EvictionBlockedBy(const ApiPod& pod, const WorkloadCount& count, absl::Time now,
                              const WorkloadPolicy& policy) {
  return headroom::EvictionBlockedBy(DisruptionFactsFor(pod, count, now, policy));
}

}  // namespace headroom::extender
