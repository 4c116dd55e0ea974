#pragma once

// Pod-level resources (KEP-2837: spec.resources on the pod; beta and on by default since
// Kubernetes 1.34): cpu and memory declared for the pod as a whole, which its containers share.
// Kubernetes' rules, as headroom applies them (facts from k8s.io/component-helpers/resource
// and pkg/apis/core, v1.34):
// - the scheduler counts, per resource, the pod-level request where one is set and the
//   containers' summed requests otherwise (PodRequests);
// - when the pod declares any pod-level limit, the API defaults each unset pod-level request to
//   the containers' summed request where they declare one, else to the pod-level limit of that
//   resource (defaultPodRequests);
// - validation: the containers' summed requests <= the pod-level request, each container's
//   limit <= the pod-level limit, and the pod-level request <= the pod-level limit.

#include "shared/resource.h"

namespace headroom {

struct PodLevelResources {
  ResourceAmounts requests;  // 0: none at pod level for that resource
  ResourceAmounts limits;    // 0: no pod-level limit

  // Whether the pod declares either amount of `resource` at pod level.
  bool Declares(Resource resource) const {
    return requests.Get(resource) > 0 || limits.Get(resource) > 0;
  }
  bool Any() const { return Declares(Resource::kCpu) || Declares(Resource::kMemory); }
  friend bool operator==(const PodLevelResources&, const PodLevelResources&) = default;
};

// What the scheduler counts for a pod whose containers request `containers` in sum.
ResourceAmounts EffectivePodRequests(const ResourceAmounts& containers,
                                     const PodLevelResources& pod);

// `pod` with the API's defaulting of unset pod-level requests applied (see above).
PodLevelResources WithDefaultedRequests(PodLevelResources pod, const ResourceAmounts& containers);

}  // namespace headroom
