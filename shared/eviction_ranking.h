#pragma once

// Eviction ranking (seed 000, CruiseKube): the order in which the per-node optimisation
// gives up pods when a node cannot hold them all. DaemonSet pods are never evicted; then
// Low (the default), Medium (default for single-replica workloads and StatefulSets), High,
// and No-Eviction (never evicted). Overridable per workload by annotation.

#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/annotations.h"
#include "shared/reason.h"

namespace headroom {

// Declared in eviction order: lower values are evicted first.
enum class EvictionRanking { kLow = 0, kMedium = 1, kHigh = 2, kNoEviction = 3 };

absl::string_view EvictionRankingName(EvictionRanking ranking);

// Parses "low", "medium", "high" or "no-eviction" (case-insensitive).
absl::StatusOr<EvictionRanking> ParseEvictionRanking(absl::string_view text);

// What decides a workload's default ranking.
struct WorkloadFacts {
  std::string kind;             // owner kind: "Deployment", "StatefulSet", "DaemonSet", "Job", ...
  std::optional<int> replicas;  // desired replicas, when the owner has them
  std::optional<std::string> ranking_annotation;  // value of kEvictionRankingAnnotation
};

struct RankingDecision {
  EvictionRanking ranking;
  Reason reason;
};

// The ranking for a workload: the annotation when it is valid; otherwise Medium for a
// StatefulSet or a single-replica workload and Low for the rest. An invalid annotation falls
// back to the default and says so in the reason (code "InvalidRankingAnnotation").
RankingDecision DecideEvictionRanking(const WorkloadFacts& facts);

}  // namespace headroom
