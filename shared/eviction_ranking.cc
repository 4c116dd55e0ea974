#include "shared/eviction_ranking.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"

namespace headroom {

absl::string_view EvictionRankingName(EvictionRanking ranking) {
  switch (ranking) {
    case EvictionRanking::kLow:
      return "low";
    case EvictionRanking::kMedium:
      return "medium";
    case EvictionRanking::kHigh:
      return "high";
    case EvictionRanking::kNoEviction:
      return "no-eviction";
  }
  return "unknown";
}

absl::StatusOr<EvictionRanking> ParseEvictionRanking(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(text);
  for (EvictionRanking ranking : {EvictionRanking::kLow, EvictionRanking::kMedium,
                                  EvictionRanking::kHigh, EvictionRanking::kNoEviction}) {
    if (lower == EvictionRankingName(ranking)) return ranking;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown eviction ranking \"", absl::CEscape(text),
                                                 "\" (want low, medium, high or no-eviction)"));
}

RankingDecision DecideEvictionRanking(const WorkloadFacts& facts) {
  std::string invalid_note;
  if (facts.ranking_annotation.has_value()) {
    absl::StatusOr<EvictionRanking> parsed = ParseEvictionRanking(*facts.ranking_annotation);
    if (parsed.ok()) {
      return {*parsed,
              {"RankingAnnotation", absl::StrCat("ranking ", EvictionRankingName(*parsed),
                                                 " from annotation ", kEvictionRankingAnnotation)}};
    }
    invalid_note = absl::StrCat("annotation ", kEvictionRankingAnnotation,
                                " ignored: ", parsed.status().message(), "; ");
  }
  const std::string code = invalid_note.empty() ? "" : "InvalidRankingAnnotation";
  if (facts.kind == "StatefulSet") {
    return {EvictionRanking::kMedium,
            {code.empty() ? "StatefulSetDefault" : code,
             absl::StrCat(invalid_note, "ranking medium: StatefulSets default to medium")}};
  }
  if (facts.replicas.has_value() && *facts.replicas == 1) {
    return {EvictionRanking::kMedium,
            {code.empty() ? "SingleReplicaDefault" : code,
             absl::StrCat(invalid_note,
                          "ranking medium: single-replica workloads default to "
                          "medium")}};
  }
  return {EvictionRanking::kLow,
          {code.empty() ? "Default" : code,
           absl::StrCat(invalid_note, "ranking low: the default for replicated workloads")}};
}

}  // namespace headroom
