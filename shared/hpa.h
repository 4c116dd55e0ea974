#pragma once

// Horizontal Pod Autoscalers and requests. An HPA that scales a workload on CPU or memory
// *utilisation* divides the pods' usage by their requests: when headroom lowers a request, the
// same usage reads as a higher utilisation and the HPA adds replicas (raising one removes them).
// Targets by AverageValue, external or object metrics do not read requests and are unaffected.
// An autoscaling/v2 HPA without metrics scales on 80% CPU utilisation (the API's default).
//
// What headroom does about it is the operator's choice (--hpa-scaled-resources):
//   keep   (default) requests of the resource the HPA scales on stay as declared, as if the
//          workload carried headroom.dev/keep-declared for it; the other resource is sized;
//   resize headroom sizes it anyway (the HPA's target then means "percent of headroom's
//          request": set it accordingly).

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/guard_rails.h"
#include "shared/reason.h"

namespace headroom {

// The resources one or more HPAs scale a workload on by utilisation.
struct HpaScaling {
  std::string hpa;  // "namespace/name" of (one of) the HPA(s)
  bool cpu = false;
  bool memory = false;

  bool operator==(const HpaScaling&) const = default;
};

enum class HpaResourcesMode { kKeep, kResize };

absl::string_view HpaResourcesModeName(HpaResourcesMode mode);
absl::StatusOr<HpaResourcesMode> ParseHpaResourcesMode(absl::string_view text);

// Two HPAs on one workload: the resources of either.
HpaScaling MergeHpaScaling(const HpaScaling& a, const HpaScaling& b);

// With kKeep, marks the resources `hpa` scales on as kept in `tuning` and says why (nullopt
// when nothing changes: no HPA, kResize, or no utilisation target).
std::optional<Reason> KeepForHpa(const std::optional<HpaScaling>& hpa, HpaResourcesMode mode,
                                 WorkloadTuning& tuning);

}  // namespace headroom
