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
#include "shared/disruption_window.h"
#include "shared/eviction_ranking.h"
#include "shared/guard_rails.h"
#include "shared/koordinator_eviction.h"
#include "shared/reason.h"

namespace headroom {

enum class SizingPolicy { kHeadroom, kVpa, kCrane, kStatic };

// The adoption ladder (docs/ladder.md): how far headroom may act on a workload, set by
// headroom.dev/mode on the pod, its owner or its Namespace, or the cluster's default.
// - observe: nothing is changed; recommendations and their savings are only shown and logged;
// - admission: new pods are sized when they are created (the webhook, and the runtime when
//   their containers start); running pods are never resized nor evicted by headroom;
// - in-place: also resized in place while they run, and evicted where the policy allows.
enum class AdoptionStep { kObserve, kAdmission, kInPlace };

// "observe", "admission", "in-place".
absl::string_view AdoptionStepName(AdoptionStep step);
// Those names, and the older values: "recommend" is observe, "enforce" is in-place;
// "admission-only" and "inplace" are accepted too. Case and surrounding spaces are ignored.
absl::StatusOr<AdoptionStep> ParseAdoptionStep(absl::string_view text);
// The step above `step` (in-place stays in-place).
AdoptionStep NextAdoptionStep(AdoptionStep step);

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
  bool recommend_only = false;                 // the global recommend-only switch
  AdoptionStep step = AdoptionStep::kInPlace;  // the cluster's step (--default-mode)
  // When disruption is allowed (--disruption-window); empty: always.
  std::vector<DisruptionWindow> disruption_windows;
  bool allow_below_declared = false;  // the cluster-wide default (--allow-below-declared)
};

struct WorkloadPolicy {
  SizingPolicy policy = SizingPolicy::kHeadroom;
  bool recommend_only = false;  // step observe, or the global switch
  AdoptionStep step = AdoptionStep::kInPlace;
  std::string step_from = "cluster default";  // "pod", "owner", "namespace" or the default
  bool disabled = false;
  bool excluded = false;
  RankingDecision ranking;
  bool eviction_enabled = false;
  std::optional<std::vector<KoordStrategy>> allowed_strategies;
  bool allow_below_declared = false;  // guard_rails.h: requests may go below the declared ones
  bool allow_disruption = false;      // disruption.h: protected pods may be evicted
  bool do_not_disrupt = false;        // never evicted
  // When headroom may evict or shrink the pod (headroom.dev/disruption-window, pod >
  // namespace > cluster); empty: always. An unreadable annotation: never (`windows_unreadable`).
  std::vector<DisruptionWindow> disruption_windows;
  bool windows_unreadable = false;
  WorkloadTuning tuning;         // guard_rails.h: bounds, margins, resources kept
  std::vector<Reason> warnings;  // ignored annotations and why
};

// Every key is read from the first of the pod's annotations, its owner's (`workload`) and its
// Namespace's (`namespace_annotations`) that has it, else the default: pod > owner >
// namespace > cluster. headroom.dev/exclude and the eviction-enabled label are the pod's own.
// `kind` and `replicas` describe the owner, for the default eviction ranking.
WorkloadPolicy ResolveWorkloadPolicy(const Annotations& workload, const Annotations& pod,
                                     absl::string_view kind, std::optional<int> replicas,
                                     const PolicyDefaults& defaults = {},
                                     const Annotations& namespace_annotations = {});

// The policy's share of the disruption facts (disable, recommend, ranking, do-not-disrupt,
// the opt-in); the caller adds the owner and replica counts.
DisruptionFacts DisruptionFactsOf(const WorkloadPolicy& policy);

// Why headroom must leave the workload's resources as declared ("" when it may size them):
// disabled, excluded, recommend mode or the static policy. The admission webhook and the
// actuator's resizes and optimisation share it.
std::string SizingBlockedBy(const WorkloadPolicy& policy);

// Why headroom must not disrupt the workload now -- evict its pods or shrink them in place --
// because of its disruption windows ("" when it may).
std::string OutsideDisruptionWindow(const WorkloadPolicy& policy, absl::Time now);

// Why headroom must not change the workload's running pods ("" when it may resize them in
// place): SizingBlockedBy's reasons, or the admission step.
std::string InPlaceBlockedBy(const WorkloadPolicy& policy);

// True when the only thing that keeps headroom from sizing the workload is its step
// (observe): its recommendation is still worth showing, with what it would save.
bool OnlyObserving(const WorkloadPolicy& policy);

}  // namespace headroom
