#include "shared/koordinator_eviction.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "shared/quantity.h"
#include "shared/wide_int.h"

namespace headroom {
namespace {

bool Allows(const KoordPod& pod, KoordStrategy strategy) {
  if (!pod.allowed_strategies.has_value()) return true;
  return std::find(pod.allowed_strategies->begin(), pod.allowed_strategies->end(), strategy) !=
         pod.allowed_strategies->end();
}

// Whether `value` is above `percent`% of `total`, exactly (no rounding of the threshold).
bool AbovePercent(int64_t value, int64_t total, int percent) {
  return static_cast<WideInt>(value) * 100 > static_cast<WideInt>(total) * percent;
}

// Lower priority first, then the finer label (a missing label sorts after any value), then
// the larger `amount`, then namespace/name.
template <typename Amount>
std::vector<size_t> EvictionOrder(const KoordNode& node, std::vector<size_t> candidates,
                                  Amount amount) {
  std::sort(candidates.begin(), candidates.end(), [&](size_t a, size_t b) {
    const KoordPod& pa = node.pods[a];
    const KoordPod& pb = node.pods[b];
    if (pa.priority != pb.priority) return pa.priority < pb.priority;
    const int32_t sa = pa.sub_priority.value_or(std::numeric_limits<int32_t>::max());
    const int32_t sb = pb.sub_priority.value_or(std::numeric_limits<int32_t>::max());
    if (sa != sb) return sa < sb;
    if (amount(pa) != amount(pb)) return amount(pa) > amount(pb);
    if (pa.pod_namespace != pb.pod_namespace) return pa.pod_namespace < pb.pod_namespace;
    return pa.name < pb.name;
  });
  return candidates;
}

// Evicts in `order` until `to_release` is freed, counting `amount` per pod.
template <typename Amount>
void EvictInOrder(const KoordNode& node, const std::vector<size_t>& order, KoordStrategy strategy,
                  absl::string_view what, Amount amount, KoordDecision& decision) {
  for (size_t index : order) {
    if (decision.released_millis >= decision.to_release_millis) break;
    const KoordPod& pod = node.pods[index];
    decision.released_millis += amount(pod);
    decision.evictions.push_back(
        {index,
         strategy,
         {absl::StrCat(KoordStrategyName(strategy), "Eviction"),
          absl::StrCat("trigger by ", KoordStrategyName(strategy), " on node ", node.name,
                       ": priority ", pod.priority, ", ", what, " ", FormatCpuMillis(amount(pod)),
                       "; released ", FormatCpuMillis(decision.released_millis), " of ",
                       FormatCpuMillis(decision.to_release_millis))}});
  }
}

absl::Status PercentInRange(absl::string_view name, int value, int low, int high) {
  if (value < low || value > high) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be in [", low, ", ", high, "], got ", value));
  }
  return absl::OkStatus();
}

}  // namespace

absl::string_view KoordStrategyName(KoordStrategy strategy) {
  switch (strategy) {
    case KoordStrategy::kCpuEvict:
      return "CPUEvict";
    case KoordStrategy::kBeCpuEvict:
      return "BECPUEvict";
    case KoordStrategy::kCpuAllocatableEvict:
      return "CPUAllocatableEvict";
  }
  return "Unknown";
}

absl::Status CpuEvictConfig::Validate() const {
  if (absl::Status s = PercentInRange("cpuEvictThresholdPercent", threshold_percent, 0, 100);
      !s.ok()) {
    return s;
  }
  const int lower = lower_percent.value_or(threshold_percent - 2);
  return PercentInRange("cpuEvictLowerPercent", lower, 0, threshold_percent);
}

absl::Status BeCpuEvictConfig::Validate() const {
  if (absl::Status s =
          PercentInRange("cpuEvictBESatisfactionLowerPercent", satisfaction_lower_percent, 0, 60);
      !s.ok()) {
    return s;
  }
  if (absl::Status s = PercentInRange("cpuEvictBESatisfactionUpperPercent",
                                      satisfaction_upper_percent, satisfaction_lower_percent, 100);
      !s.ok()) {
    return s;
  }
  if (satisfaction_upper_percent == 0) {
    return absl::InvalidArgumentError("cpuEvictBESatisfactionUpperPercent must be positive");
  }
  return PercentInRange("cpuEvictBEUsageThresholdPercent", usage_threshold_percent, 0, 100);
}

absl::Status CpuAllocatableEvictConfig::Validate() const {
  if (absl::Status s = PercentInRange("cpuAllocatableEvictLowerPercent", lower_percent, 0, 1000);
      !s.ok()) {
    return s;
  }
  return PercentInRange("cpuAllocatableEvictThresholdPercent", threshold_percent, lower_percent,
                        1000);
}

KoordDecision EvaluateCpuEvict(const KoordNode& node, const CpuEvictConfig& config) {
  KoordDecision decision;
  const int lower_percent = config.lower_percent.value_or(config.threshold_percent - 2);
  const std::string usage_text =
      absl::StrCat("node CPU usage ", FormatCpuMillis(node.cpu_usage_millis), " of ",
                   FormatCpuMillis(node.cpu_capacity_millis));
  if (!AbovePercent(node.cpu_usage_millis, node.cpu_capacity_millis, config.threshold_percent)) {
    decision.reason = {"BelowThreshold",
                       absl::StrCat(usage_text, " is at or below ", config.threshold_percent, "%")};
    return decision;
  }
  decision.triggered = true;
  decision.to_release_millis =
      node.cpu_usage_millis -
      (static_cast<int64_t>(static_cast<long double>(node.cpu_capacity_millis) * lower_percent /
                            100));
  std::vector<size_t> candidates;
  for (size_t i = 0; i < node.pods.size(); ++i) {
    const KoordPod& pod = node.pods[i];
    if (pod.eviction_enabled && pod.priority <= config.evict_enabled_priority_threshold &&
        Allows(pod, KoordStrategy::kCpuEvict)) {
      candidates.push_back(i);
    }
  }
  const auto usage = [](const KoordPod& pod) { return pod.cpu_usage_millis; };
  EvictInOrder(node, EvictionOrder(node, candidates, usage), KoordStrategy::kCpuEvict, "CPU usage",
               usage, decision);
  decision.reason = {
      decision.released_millis >= decision.to_release_millis ? "CpuUsageAboveThreshold"
                                                             : "NotEnoughEvictablePods",
      absl::StrCat(usage_text, " is above ", config.threshold_percent, "%; releasing ",
                   FormatCpuMillis(decision.to_release_millis), " to reach ", lower_percent, "%, ",
                   decision.evictions.size(), " of ", candidates.size(), " eligible pods evicted")};
  return decision;
}

KoordDecision EvaluateBeCpuEvict(const KoordNode& node, const BeCpuEvictConfig& config) {
  KoordDecision decision;
  int64_t be_usage = 0;
  int64_t be_request = 0;
  std::vector<size_t> candidates;
  for (size_t i = 0; i < node.pods.size(); ++i) {
    const KoordPod& pod = node.pods[i];
    if (!pod.best_effort) continue;
    be_usage += pod.cpu_usage_millis;
    be_request += pod.cpu_request_millis;
    if (Allows(pod, KoordStrategy::kBeCpuEvict)) candidates.push_back(i);
  }
  const int64_t allowance = node.be_cpu_allowance_millis;
  if (be_request <= 0 || allowance <= 0) {
    decision.reason = {"NoBestEffortDemand",
                       "no best-effort CPU requests or no best-effort CPU allowance to judge"};
    return decision;
  }
  const double satisfaction = 100.0 * static_cast<double>(allowance) / be_request;
  const double utilization = 100.0 * static_cast<double>(be_usage) / allowance;
  const std::string numbers = absl::StrFormat(
      "BE satisfaction %.1f%% (allowance %s / requests %s), BE utilisation %.1f%%", satisfaction,
      FormatCpuMillis(allowance), FormatCpuMillis(be_request), utilization);
  if (!(satisfaction < config.satisfaction_lower_percent &&
        utilization >= config.usage_threshold_percent)) {
    decision.reason = {
        "BeSatisfactionAcceptable",
        absl::StrFormat("%s: needs satisfaction < %d%% and utilisation >= %d%%", numbers,
                        config.satisfaction_lower_percent, config.usage_threshold_percent)};
    return decision;
  }
  decision.triggered = true;
  // Remaining requests R must satisfy allowance / R >= upper%: R <= allowance x 100 / upper.
  const int64_t keep = allowance * 100 / config.satisfaction_upper_percent;
  decision.to_release_millis = be_request - keep;
  const auto usage = [](const KoordPod& pod) { return pod.cpu_usage_millis; };
  const auto request = [](const KoordPod& pod) { return pod.cpu_request_millis; };
  EvictInOrder(node, EvictionOrder(node, candidates, usage), KoordStrategy::kBeCpuEvict,
               "BE CPU request", request, decision);
  decision.reason = {decision.released_millis >= decision.to_release_millis
                         ? "BeSatisfactionTooLow"
                         : "NotEnoughEvictablePods",
                     absl::StrFormat("%s; releasing %s of BE requests to reach %d%% satisfaction",
                                     numbers, FormatCpuMillis(decision.to_release_millis),
                                     config.satisfaction_upper_percent)};
  return decision;
}

KoordDecision EvaluateCpuAllocatableEvict(const KoordNode& node,
                                          const CpuAllocatableEvictConfig& config) {
  KoordDecision decision;
  int64_t allocated = 0;
  std::vector<size_t> candidates;
  for (size_t i = 0; i < node.pods.size(); ++i) {
    const KoordPod& pod = node.pods[i];
    if (!pod.best_effort) continue;
    allocated += pod.cpu_request_millis;
    if (pod.eviction_enabled && pod.priority <= config.priority_threshold &&
        Allows(pod, KoordStrategy::kCpuAllocatableEvict)) {
      candidates.push_back(i);
    }
  }
  const int64_t allocatable = node.batch_cpu_allocatable_millis;
  const std::string numbers = absl::StrCat("batch CPU requests ", FormatCpuMillis(allocated),
                                           " against allocatable ", FormatCpuMillis(allocatable));
  if (!AbovePercent(allocated, allocatable, config.threshold_percent)) {
    decision.reason = {"BelowThreshold",
                       absl::StrCat(numbers, " are at or below ", config.threshold_percent, "%")};
    return decision;
  }
  decision.triggered = true;
  decision.to_release_millis =
      allocated -
      static_cast<int64_t>(static_cast<long double>(allocatable) * config.lower_percent / 100);
  const auto request = [](const KoordPod& pod) { return pod.cpu_request_millis; };
  EvictInOrder(node, EvictionOrder(node, candidates, request), KoordStrategy::kCpuAllocatableEvict,
               "CPU request", request, decision);
  decision.reason = {decision.released_millis >= decision.to_release_millis
                         ? "AllocatedAboveThreshold"
                         : "NotEnoughEvictablePods",
                     absl::StrCat(numbers, " exceed ", config.threshold_percent, "%; releasing ",
                                  FormatCpuMillis(decision.to_release_millis), " to reach ",
                                  config.lower_percent, "%")};
  return decision;
}

}  // namespace headroom
