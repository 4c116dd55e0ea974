#pragma once

// Per-workload policy from annotations. Pod annotations override the owning workload's;
// an invalid value is ignored with a warning (a Reason), never an error, so a typo cannot
// stop a workload from running. Every key and its values: shared/annotations.h and
// docs/annotations.md. A headroom.dev/ key headroom does not know is reported as a warning too,
// with the known key it most resembles.

#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/annotations.h"
#include "shared/disruption.h"
#include "shared/eviction_ranking.h"
#include "shared/guard_rails.h"
#include "shared/koordinator_eviction.h"
#include "shared/reason.h"

namespace headroom {

enum class SizingPolicy { kHeadroom, kVpa, kCrane, kStatic };

absl::string_view SizingPolicyName(SizingPolicy policy);
absl::StatusOr<SizingPolicy> ParseSizingPolicy(absl::string_view text);

// Parses a margin: "20%" or "0.2", at least 0 and at most 10 (1000%).
absl::StatusOr<double> ParseMargin(absl::string_view text);

// Parses a base percentile: "90", "P90", "90%" or "0.9", between 0.5 and 1.
absl::StatusOr<double> ParseBasePercentile(absl::string_view text);

// Parses kKeepDeclaredAnnotation: "cpu", "memory" or both, comma-separated, into `tuning`.
absl::Status ParseKeepDeclared(absl::string_view text, WorkloadTuning& tuning);

// The known headroom.dev/ key nearest to `key` (edit distance at most 3), or "" if none is.
absl::string_view NearestKnownKey(absl::string_view key);

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
  WorkloadTuning tuning;              // guard_rails.h: bounds, margins, resources kept
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
