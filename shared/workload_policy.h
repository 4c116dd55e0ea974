#pragma once

// Per-workload policy from annotations. Pod annotations override the owning workload's;
// an invalid value is ignored with a warning (a Reason), never an error, so a typo cannot
// stop a workload from running. See docs/annotations.md.
//
//   headroom.dev/policy             headroom | vpa | crane | static   which recommender sizes it
//   headroom.dev/mode               enforce | recommend               recommend: compute, never
//   apply headroom.dev/disable            "true"                            headroom leaves it
//   alone headroom.dev/exclude            "true" (pod)                      no OOM eviction, no
//   resize headroom.dev/eviction-ranking   low | medium | high | no-eviction
//   headroom.dev/eviction-enabled   "true" (pod)                      opt in to CPUEvict-style
//   eviction headroom.dev/eviction-policy    ["CPUEvict","BECPUEvict",...]     strategies allowed
//   on the pod

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/annotations.h"
#include "shared/disruption.h"
#include "shared/eviction_ranking.h"
#include "shared/koordinator_eviction.h"
#include "shared/reason.h"

namespace headroom {

enum class SizingPolicy { kHeadroom, kVpa, kCrane, kStatic };

absl::string_view SizingPolicyName(SizingPolicy policy);
absl::StatusOr<SizingPolicy> ParseSizingPolicy(absl::string_view text);

// Parses kEvictionPolicyAnnotation: a JSON-style list of strategy names.
absl::StatusOr<std::vector<KoordStrategy>> ParseEvictionPolicy(absl::string_view text);

using Annotations = absl::flat_hash_map<std::string, std::string>;

struct PolicyDefaults {
  SizingPolicy policy = SizingPolicy::kHeadroom;
  bool recommend_only = false;        // the global recommend-only switch
  bool allow_below_declared = false;  // the cluster-wide default (--allow-below-declared)
};

struct WorkloadPolicy {
  SizingPolicy policy = SizingPolicy::kHeadroom;
  bool recommend_only = false;
  bool disabled = false;
  bool excluded = false;
  RankingDecision ranking;
  bool eviction_enabled = false;
  std::optional<std::vector<KoordStrategy>> allowed_strategies;
  bool allow_below_declared = false;  // guard_rails.h: requests may go below the declared ones
  bool allow_disruption = false;      // disruption.h: protected pods may be evicted
  bool do_not_disrupt = false;        // never evicted
  std::vector<Reason> warnings;       // ignored annotations and why
};

// `kind` and `replicas` describe the owner, for the default eviction ranking.
WorkloadPolicy ResolveWorkloadPolicy(const Annotations& workload, const Annotations& pod,
                                     absl::string_view kind, std::optional<int> replicas,
                                     const PolicyDefaults& defaults = {});

// The policy's share of the disruption facts (disable, recommend, ranking, do-not-disrupt,
// the opt-in); the caller adds the owner and replica counts.
DisruptionFacts DisruptionFactsOf(const WorkloadPolicy& policy);

// Why headroom must leave the workload's resources as declared ("" when it may size them):
// disabled, excluded, recommend mode or the static policy. The admission webhook and the
// actuator's resizes and optimisation share it.
std::string SizingBlockedBy(const WorkloadPolicy& policy);

}  // namespace headroom
