#pragma once

// Every annotation and label key headroom reads, in one place (docs/annotations.md).

#include "absl/strings/string_view.h"

namespace headroom {

// Workload or pod: which recommender sizes it: headroom | vpa | crane | static.
inline constexpr absl::string_view kPolicyAnnotation = "headroom.dev/policy";
// Workload or pod: enforce | recommend (compute and show, never apply).
inline constexpr absl::string_view kModeAnnotation = "headroom.dev/mode";
// Workload or pod: "true" leaves the workload entirely alone.
inline constexpr absl::string_view kDisableAnnotation = "headroom.dev/disable";
// Pod: "true" excludes the pod from OOM eviction and resizes.
inline constexpr absl::string_view kExcludeAnnotation = "headroom.dev/exclude";
// Workload or pod: low | medium | high | no-eviction.
inline constexpr absl::string_view kEvictionRankingAnnotation = "headroom.dev/eviction-ranking";
// Pod label: "true" opts in to usage- and allocation-based CPU eviction.
inline constexpr absl::string_view kEvictionEnabledLabel = "headroom.dev/eviction-enabled";
// Workload or pod: the CPU eviction strategies allowed on it, e.g. ["CPUEvict","BECPUEvict"].
inline constexpr absl::string_view kEvictionPolicyAnnotation = "headroom.dev/eviction-policy";
// Pod: "true" lets headroom request less than the pod declares (guard_rails.h); overrides the
// cluster-wide default (--allow-below-declared).
inline constexpr absl::string_view kAllowBelowDeclaredAnnotation =
    "headroom.dev/allow-below-declared";
// Pod: "true" lets headroom evict a pod it otherwise protects (disruption.h): a StatefulSet
// pod, a single-replica workload's pod, the last ready replica, a pod without a controller.
inline constexpr absl::string_view kAllowDisruptionAnnotation = "headroom.dev/allow-disruption";
// Pod: "true": never evicted by headroom. karpenter.sh/do-not-disrupt is honoured as well.
inline constexpr absl::string_view kDoNotDisruptAnnotation = "headroom.dev/do-not-disrupt";
inline constexpr absl::string_view kKarpenterDoNotDisruptAnnotation = "karpenter.sh/do-not-disrupt";
// Pod (written by the admission webhook): each container's declared CPU and memory before
// headroom changed them, so later resizes know the declared floor.
inline constexpr absl::string_view kDeclaredAnnotation = "headroom.dev/declared";
// Pod (written by the admission webhook): the pod's workload key, "namespace/Kind/name", as
// the cluster decides it from the owner references; headroom-nri files the pod's statistics
// under it (shared/workload_key.h).
inline constexpr absl::string_view kWorkloadAnnotation = "headroom.dev/workload";

}  // namespace headroom
