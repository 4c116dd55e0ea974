#pragma once

// Admission of a pod that declares pod-level resources (spec.resources, Kubernetes 1.34+):
// its containers, once sized, must still pass the API's validation (shared/pod_level_resources.h:
// the containers' summed requests <= the pod-level request, each container's limit <= the
// pod-level limit, request <= limit), or the pod could not be created at all. And the pod-level
// request is what the scheduler counts, so it is what sizing must set.
//
// Per resource the pod declares at pod level:
// - a pod-level CPU limit goes with the containers' CPU limits (`strip_cpu_limits`), keeping
//   the request it stood for;
// - a container limit above a kept pod-level limit is capped at it (CappedAtPodLimit);
// - the containers' sized requests, summed, become the pod-level request -- never below the
//   declared one unless the pod may go below its declared requests, never 0 for want of
//   statistics; if they would sum above a kept pod-level limit, every container keeps its
//   declared request of that resource (PodLimitBound).

#include <vector>

#include "extender/kube/pod_resources.h"
#include "shared/reason.h"

namespace headroom::extender {

struct PodLevelBounds {
  bool strip_cpu_limits = true;
  bool allow_below_declared = false;
};

// The pod-level resources to write for `declared_pod`; bounds `after` (the containers' sized
// resources, parallel to `before`, their declared ones) in place. Every reason goes to
// `pod_reasons`, and to the reasons of each container it changed (`container_reasons`, parallel
// to `before`).
DeclaredResources SizePodLevel(const DeclaredResources& declared_pod,
                               const std::vector<DeclaredResources>& before,
                               std::vector<DeclaredResources>& after, const PodLevelBounds& bounds,
                               std::vector<std::vector<Reason>>& container_reasons,
                               std::vector<Reason>& pod_reasons);

}  // namespace headroom::extender
