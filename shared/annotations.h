#pragma once

// Every annotation and label key headroom reads, in one place (docs/annotations.md).

#include "absl/strings/string_view.h"

namespace headroom {

// Workload or pod: which recommender sizes it: headroom | vpa | crane | static.
inline constexpr absl::string_view kPolicyAnnotation = "headroom.dev/policy";
// Pod, owner or Namespace: the adoption step (shared/workload_policy.h's AdoptionStep):
// observe | admission | in-place (and the older recommend = observe, enforce = in-place).
inline constexpr absl::string_view kModeAnnotation = "headroom.dev/mode";
// Pod or Namespace: when headroom may evict the pod or shrink it in place
// (shared/disruption_window.h), e.g. "Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00" (UTC).
inline constexpr absl::string_view kDisruptionWindowAnnotation = "headroom.dev/disruption-window";
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
// Pod (written by the admission webhook): the pod-level resources (spec.resources) as declared
// before headroom changed them, for a pod that declares some; the floor of later pod-level resizes.
inline constexpr absl::string_view kDeclaredPodAnnotation = "headroom.dev/declared-pod";
// Pod (written by the admission webhook): the pod's workload key, "namespace/Kind/name", as
// the cluster decides it from the owner references; headroom-nri files the pod's statistics
// under it (shared/workload_key.h).
inline constexpr absl::string_view kWorkloadAnnotation = "headroom.dev/workload";
// Pod (written by the admission webhook): the pod's adoption step as resolved when it was
// created (pod > owner > namespace > cluster), for headroom-nri, which sees only the pod: it
// decides what the runtime may set on the pod's new containers. Running containers follow the
// step the extender resolves afresh (ReportReply.pod_modes).
inline constexpr absl::string_view kAdmittedModeAnnotation = "headroom.dev/admitted-mode";
// Pod (written by the admission webhook): each container's resources before -> after and why.
inline constexpr absl::string_view kAdmissionAnnotation = "headroom.dev/admission";
// Pod label "disabled": the API server does not call the webhook for the pod (deploy/webhook's
// objectSelector).
inline constexpr absl::string_view kWebhookLabel = "headroom.dev/webhook";

// Per-workload tuning (guard_rails.h's WorkloadTuning), on the pod template:
// the least and the most headroom may request, as Kubernetes quantities ("100m", "2Gi");
inline constexpr absl::string_view kMinCpuAnnotation = "headroom.dev/min-cpu";
inline constexpr absl::string_view kMaxCpuAnnotation = "headroom.dev/max-cpu";
inline constexpr absl::string_view kMinMemoryAnnotation = "headroom.dev/min-memory";
inline constexpr absl::string_view kMaxMemoryAnnotation = "headroom.dev/max-memory";
// a margin added to what headroom would request: "20%" or "0.2";
inline constexpr absl::string_view kCpuMarginAnnotation = "headroom.dev/cpu-margin";
inline constexpr absl::string_view kMemoryMarginAnnotation = "headroom.dev/memory-margin";
// the resources headroom leaves as declared: "cpu", "memory" or "cpu,memory";
inline constexpr absl::string_view kKeepDeclaredAnnotation = "headroom.dev/keep-declared";
// the percentile of the base instead of P75: "90", "P90" or "0.9" (50 to 100).
inline constexpr absl::string_view kBasePercentileAnnotation = "headroom.dev/base-percentile";

// Node taint (NoSchedule) headroom-extender puts on a load-cordoned node with --cordon-taint, so
// every scheduler keeps off it; the value marks the taint as headroom's own.
inline constexpr absl::string_view kLoadCordonTaintKey = "headroom.dev/load-cordon";
inline constexpr absl::string_view kLoadCordonTaintValue = "load";

// Every headroom.dev/ annotation and label key above, so a key outside it is reported as a typo.
inline constexpr absl::string_view kKnownKeys[] = {
    kPolicyAnnotation,           kModeAnnotation,
    kDisableAnnotation,          kExcludeAnnotation,
    kEvictionRankingAnnotation,  kEvictionEnabledLabel,
    kEvictionPolicyAnnotation,   kAllowBelowDeclaredAnnotation,
    kAllowDisruptionAnnotation,  kDoNotDisruptAnnotation,
    kDisruptionWindowAnnotation, kDeclaredAnnotation,
    kDeclaredPodAnnotation,      kAdmittedModeAnnotation,
    kWorkloadAnnotation,         kMinCpuAnnotation,
    kMaxCpuAnnotation,           kMinMemoryAnnotation,
    kMaxMemoryAnnotation,        kCpuMarginAnnotation,
    kMemoryMarginAnnotation,     kKeepDeclaredAnnotation,
    kBasePercentileAnnotation,   kWebhookLabel,
    kAdmissionAnnotation,
};
inline constexpr absl::string_view kAnnotationPrefix = "headroom.dev/";

}  // namespace headroom
