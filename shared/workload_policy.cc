#include "shared/workload_policy.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace headroom {
namespace {

const std::string* Lookup(const Annotations& workload, const Annotations& pod,
                          absl::string_view key) {
  if (auto it = pod.find(key); it != pod.end()) return &it->second;
  if (auto it = workload.find(key); it != workload.end()) return &it->second;
  return nullptr;
}

// "true"/"false" (case-insensitive); anything else is a warning and `fallback`.
bool ParseFlag(const std::string* value, absl::string_view key, bool fallback,
               std::vector<Reason>& warnings) {
  if (value == nullptr) return fallback;
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*value));
  if (lower == "true") return true;
  if (lower == "false") return false;
  warnings.push_back({"InvalidAnnotation", absl::StrCat(key, ": \"", absl::CEscape(*value),
                                                        "\" is not true or false; ignored")});
  return fallback;
}

}  // namespace

absl::string_view SizingPolicyName(SizingPolicy policy) {
  switch (policy) {
    case SizingPolicy::kHeadroom:
      return "headroom";
    case SizingPolicy::kVpa:
      return "vpa";
    case SizingPolicy::kCrane:
      return "crane";
    case SizingPolicy::kStatic:
      return "static";
  }
  return "unknown";
}

absl::StatusOr<SizingPolicy> ParseSizingPolicy(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (SizingPolicy policy :
       {SizingPolicy::kHeadroom, SizingPolicy::kVpa, SizingPolicy::kCrane, SizingPolicy::kStatic}) {
    if (lower == SizingPolicyName(policy)) return policy;
  }
  return absl::InvalidArgumentError(absl::StrCat("unknown policy \"", absl::CEscape(text),
                                                 "\" (want headroom, vpa, crane or static)"));
}

absl::StatusOr<std::vector<KoordStrategy>> ParseEvictionPolicy(absl::string_view text) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  if (!absl::ConsumePrefix(&body, "[") || !absl::ConsumeSuffix(&body, "]")) {
    return absl::InvalidArgumentError(
        absl::StrCat("eviction policy \"", absl::CEscape(text),
                     "\" is not a list such as [\"CPUEvict\",\"BECPUEvict\"]"));
  }
  std::vector<KoordStrategy> strategies;
  if (absl::StripAsciiWhitespace(body).empty()) return strategies;
  for (absl::string_view item : absl::StrSplit(body, ',')) {
    item = absl::StripAsciiWhitespace(item);
    if (!absl::ConsumePrefix(&item, "\"") || !absl::ConsumeSuffix(&item, "\"")) {
      return absl::InvalidArgumentError(
          absl::StrCat("eviction policy item ", absl::CEscape(item), " is not a quoted name"));
    }
    bool known = false;
    for (KoordStrategy strategy : {KoordStrategy::kCpuEvict, KoordStrategy::kBeCpuEvict,
                                   KoordStrategy::kCpuAllocatableEvict}) {
      if (item == KoordStrategyName(strategy)) {
        strategies.push_back(strategy);
        known = true;
      }
    }
    if (!known) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown eviction strategy \"", absl::CEscape(item),
                       "\" (want CPUEvict, BECPUEvict or CPUAllocatableEvict)"));
    }
  }
  return strategies;
}

WorkloadPolicy ResolveWorkloadPolicy(const Annotations& workload, const Annotations& pod,
                                     absl::string_view kind, std::optional<int> replicas,
                                     const PolicyDefaults& defaults) {
  WorkloadPolicy result;
  result.policy = defaults.policy;
  if (const std::string* value = Lookup(workload, pod, kPolicyAnnotation)) {
    absl::StatusOr<SizingPolicy> parsed = ParseSizingPolicy(*value);
    if (parsed.ok()) {
      result.policy = *parsed;
    } else {
      result.warnings.push_back(
          {"InvalidAnnotation", absl::StrCat(kPolicyAnnotation, ": ", parsed.status().message(),
                                             "; using ", SizingPolicyName(defaults.policy))});
    }
  }
  result.recommend_only = defaults.recommend_only;
  if (const std::string* value = Lookup(workload, pod, kModeAnnotation)) {
    const std::string mode = absl::AsciiStrToLower(absl::StripAsciiWhitespace(*value));
    if (mode == "recommend") {
      result.recommend_only = true;
    } else if (mode == "enforce") {
      // The global recommend-only switch wins: it is the operator's safety catch.
      result.recommend_only = defaults.recommend_only;
    } else {
      result.warnings.push_back(
          {"InvalidAnnotation", absl::StrCat(kModeAnnotation, ": \"", absl::CEscape(*value),
                                             "\" is not enforce or recommend; ignored")});
    }
  }
  result.disabled = ParseFlag(Lookup(workload, pod, kDisableAnnotation), kDisableAnnotation, false,
                              result.warnings);
  // Exclusion is a property of the pod instance only.
  result.excluded =
      ParseFlag(pod.contains(kExcludeAnnotation) ? &pod.find(kExcludeAnnotation)->second : nullptr,
                kExcludeAnnotation, false, result.warnings);
  WorkloadFacts facts;
  facts.kind = std::string(kind);
  facts.replicas = replicas;
  if (const std::string* value = Lookup(workload, pod, kEvictionRankingAnnotation)) {
    facts.ranking_annotation = *value;
  }
  result.ranking = DecideEvictionRanking(facts);
  if (result.ranking.reason.code == "InvalidRankingAnnotation") {
    result.warnings.push_back({"InvalidAnnotation", result.ranking.reason.message});
  }
  result.eviction_enabled = ParseFlag(
      pod.contains(kEvictionEnabledLabel) ? &pod.find(kEvictionEnabledLabel)->second : nullptr,
      kEvictionEnabledLabel, false, result.warnings);
  result.allow_below_declared =
      ParseFlag(Lookup(workload, pod, kAllowBelowDeclaredAnnotation), kAllowBelowDeclaredAnnotation,
                defaults.allow_below_declared, result.warnings);
  result.allow_disruption = ParseFlag(Lookup(workload, pod, kAllowDisruptionAnnotation),
                                      kAllowDisruptionAnnotation, false, result.warnings);
  // Only "true" protects; anything else (karpenter's own convention) does not.
  for (absl::string_view key : {kDoNotDisruptAnnotation, kKarpenterDoNotDisruptAnnotation}) {
    if (const auto it = pod.find(key); it != pod.end() && it->second == "true") {
      result.do_not_disrupt = true;
    }
  }
  if (const std::string* value = Lookup(workload, pod, kEvictionPolicyAnnotation)) {
    absl::StatusOr<std::vector<KoordStrategy>> parsed = ParseEvictionPolicy(*value);
    if (parsed.ok()) {
      result.allowed_strategies = *parsed;
    } else {
      // Fail safe: an unreadable restriction allows no strategy rather than all of them.
      result.allowed_strategies = std::vector<KoordStrategy>{};
      result.warnings.push_back(
          {"InvalidAnnotation",
           absl::StrCat(kEvictionPolicyAnnotation, ": ", parsed.status().message(),
                        "; no eviction strategy may act on the pod")});
    }
  }
  return result;
}

DisruptionFacts DisruptionFactsOf(const WorkloadPolicy& policy) {
  DisruptionFacts facts;
  facts.disabled = policy.disabled;
  facts.recommend_only = policy.recommend_only;
  facts.ranking = policy.ranking.ranking;
  facts.do_not_disrupt = policy.do_not_disrupt;
  facts.allow_disruption = policy.allow_disruption;
  return facts;
}

std::string SizingBlockedBy(const WorkloadPolicy& policy) {
  if (policy.disabled) return absl::StrCat("annotated ", kDisableAnnotation);
  if (policy.excluded) return absl::StrCat("annotated ", kExcludeAnnotation);
  if (policy.recommend_only) return "mode recommend";
  if (policy.policy == SizingPolicy::kStatic) return "policy static";
  return "";
}

}  // namespace headroom
