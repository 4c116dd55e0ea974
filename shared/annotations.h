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

}  // namespace headroom
