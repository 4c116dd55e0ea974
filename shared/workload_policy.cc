#include "shared/workload_policy.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iterator>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "shared/quantity.h"

namespace headroom {
namespace {

// The keys Lookup reads through the layers.
constexpr absl::string_view kLayeredKeys[] = {
    kMinCpuAnnotation,          kMaxCpuAnnotation,           kMinMemoryAnnotation,
    kMaxMemoryAnnotation,       kCpuMarginAnnotation,        kMemoryMarginAnnotation,
    kBasePercentileAnnotation,  kKeepDeclaredAnnotation,     kPolicyAnnotation,
    kDisableAnnotation,         kEvictionRankingAnnotation,  kAllowBelowDeclaredAnnotation,
    kAllowDisruptionAnnotation, kDisruptionWindowAnnotation, kEvictionPolicyAnnotation};

// Whether any key of `annotations` is one Lookup reads. Most layers have none (a pod carries
// the webhook's records, not policy), and every pod's policy is resolved in every actuation
// round and status build: one pass over the layer instead of a hashed lookup per key.
bool HasLayeredKey(const Annotations& annotations) {
  for (const auto& [key, value] : annotations) {
    if (!absl::StartsWith(key, kAnnotationPrefix)) continue;
    if (std::find(std::begin(kLayeredKeys), std::end(kLayeredKeys), key) !=
        std::end(kLayeredKeys)) {
      return true;
    }
  }
  return false;
}

// The layers a key is looked up in, first match wins (pod > owner > namespace); a layer
// without any key Lookup reads is skipped.
struct Layers {
  Layers(const Annotations& pod_layer, const Annotations& workload_layer,
         const Annotations& namespace_layer)
      : pod(pod_layer), workload(workload_layer), namespace_(namespace_layer) {
    for (const Annotations* layer : {&pod, &workload, &namespace_}) {
      if (HasLayeredKey(*layer)) searched[count++] = layer;
    }
  }
  const Annotations& pod;
  const Annotations& workload;
  const Annotations& namespace_;
  const Annotations* searched[3] = {};
  int count = 0;
};

const std::string* Lookup(const Layers& layers, absl::string_view key) {
  // A key read here must be in kLayeredKeys, or layers holding only it would be skipped.
  assert(std::find(std::begin(kLayeredKeys), std::end(kLayeredKeys), key) !=
         std::end(kLayeredKeys));
  for (int i = 0; i < layers.count; ++i) {
    const Annotations* annotations = layers.searched[i];
    if (auto it = annotations->find(key); it != annotations->end()) return &it->second;
  }
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

// Levenshtein distance, for the nearest known key.
size_t EditDistance(absl::string_view a, absl::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

void Warn(std::vector<Reason>& warnings, absl::string_view key, absl::string_view message) {
  warnings.push_back({"InvalidAnnotation", absl::StrCat(key, ": ", message)});
}

// A quantity annotation into `slot`; a bad value is a warning and leaves it unset.
void ParseBound(const std::string* value, absl::string_view key, bool cpu,
                std::optional<int64_t>& slot, std::vector<Reason>& warnings) {
  if (value == nullptr) return;
  absl::StatusOr<int64_t> parsed =
      cpu ? ParseCpuMillis(*value, key) : ParseMemoryBytes(*value, key);
  if (!parsed.ok()) {
    Warn(warnings, key, absl::StrCat(parsed.status().message(), "; ignored"));
    return;
  }
  slot = *parsed;
}

void ParseMarginInto(const std::string* value, absl::string_view key, double& slot,
                     std::vector<Reason>& warnings) {
  if (value == nullptr) return;
  absl::StatusOr<double> parsed = ParseMargin(*value);
  if (!parsed.ok()) {
    Warn(warnings, key, absl::StrCat(parsed.status().message(), "; ignored"));
    return;
  }
  slot = *parsed;
}

// A min above the max cannot both hold: both are dropped, with a warning.
void DropCrossedBounds(std::optional<int64_t>& min, std::optional<int64_t>& max,
                       absl::string_view min_key, absl::string_view max_key, bool cpu,
                       std::vector<Reason>& warnings) {
  if (!min.has_value() || !max.has_value() || *min <= *max) return;
  auto amount = [cpu](int64_t value) {
    return cpu ? FormatCpuMillis(value) : FormatMemoryBytes(value);
  };
  Warn(warnings, min_key,
       absl::StrCat(amount(*min), " is above ", max_key, " ", amount(*max), "; both ignored"));
  min.reset();
  max.reset();
}

WorkloadTuning ResolveTuning(const Layers& layers, std::vector<Reason>& warnings) {
  WorkloadTuning tuning;
  ParseBound(Lookup(layers, kMinCpuAnnotation), kMinCpuAnnotation, true, tuning.min_cpu_millis,
             warnings);
  ParseBound(Lookup(layers, kMaxCpuAnnotation), kMaxCpuAnnotation, true, tuning.max_cpu_millis,
             warnings);
  ParseBound(Lookup(layers, kMinMemoryAnnotation), kMinMemoryAnnotation, false,
             tuning.min_memory_bytes, warnings);
  ParseBound(Lookup(layers, kMaxMemoryAnnotation), kMaxMemoryAnnotation, false,
             tuning.max_memory_bytes, warnings);
  DropCrossedBounds(tuning.min_cpu_millis, tuning.max_cpu_millis, kMinCpuAnnotation,
                    kMaxCpuAnnotation, true, warnings);
  DropCrossedBounds(tuning.min_memory_bytes, tuning.max_memory_bytes, kMinMemoryAnnotation,
                    kMaxMemoryAnnotation, false, warnings);
  ParseMarginInto(Lookup(layers, kCpuMarginAnnotation), kCpuMarginAnnotation, tuning.cpu_margin,
                  warnings);
  ParseMarginInto(Lookup(layers, kMemoryMarginAnnotation), kMemoryMarginAnnotation,
                  tuning.memory_margin, warnings);
  if (const std::string* value = Lookup(layers, kBasePercentileAnnotation)) {
    absl::StatusOr<double> parsed = ParseBasePercentile(*value);
    if (parsed.ok()) {
      tuning.base_percentile = *parsed;
    } else {
      Warn(warnings, kBasePercentileAnnotation,
           absl::StrCat(parsed.status().message(), "; ignored"));
    }
  }
  if (const std::string* value = Lookup(layers, kKeepDeclaredAnnotation)) {
    WorkloadTuning kept;
    if (absl::Status status = ParseKeepDeclared(*value, kept); status.ok()) {
      tuning.keep_cpu = kept.keep_cpu;
      tuning.keep_memory = kept.keep_memory;
    } else {
      Warn(warnings, kKeepDeclaredAnnotation, absl::StrCat(status.message(), "; ignored"));
    }
  }
  return tuning;
}

// A headroom.dev/ key headroom does not read is most likely a typo of one it does.
void WarnUnknownKeys(const Annotations& annotations, std::vector<Reason>& warnings) {
  std::vector<absl::string_view> unknown;
  for (const auto& [key, value] : annotations) {
    if (!absl::StartsWith(key, kAnnotationPrefix)) continue;
    if (std::find(std::begin(kKnownKeys), std::end(kKnownKeys), key) != std::end(kKnownKeys)) {
      continue;
    }
    unknown.push_back(key);
  }
  std::sort(unknown.begin(), unknown.end());  // map order is not stable; warnings should be
  for (absl::string_view key : unknown) {
    const absl::string_view nearest = NearestKnownKey(key);
    warnings.push_back(
        {"UnknownAnnotation",
         absl::StrCat(absl::CEscape(key), " is not a key headroom reads",
                      nearest.empty() ? "" : absl::StrCat(" (did you mean ", nearest, "?)"),
                      "; ignored")});
  }
}

}  // namespace

absl::StatusOr<double> ParseMargin(absl::string_view text) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  const bool percent = absl::ConsumeSuffix(&body, "%");
  double value = 0;
  if (!absl::SimpleAtod(body, &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", absl::CEscape(text), "\" is not a margin such as 20% or 0.2"));
  }
  if (percent) value /= 100;
  if (value < 0 || value > 10) {
    return absl::InvalidArgumentError(
        absl::StrCat("margin \"", absl::CEscape(text), "\" is outside 0% to 1000%"));
  }
  return value;
}

absl::StatusOr<double> ParseBasePercentile(absl::string_view text) {
  absl::string_view body = absl::StripAsciiWhitespace(text);
  const bool named = absl::ConsumePrefix(&body, "P") || absl::ConsumePrefix(&body, "p");
  const bool percent = absl::ConsumeSuffix(&body, "%");
  double value = 0;
  if (!absl::SimpleAtod(body, &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", absl::CEscape(text), "\" is not a percentile such as 90, P90 or 0.9"));
  }
  // "90", "P90" and "90%" are percents; a bare number up to 1 is a fraction.
  if (named || percent || value > 1) value /= 100;
  if (value < 0.5 || value > 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("percentile \"", absl::CEscape(text), "\" is outside 50 to 100"));
  }
  return value;
}

absl::Status ParseKeepDeclared(absl::string_view text, WorkloadTuning& tuning) {
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    const std::string name = absl::AsciiStrToLower(absl::StripAsciiWhitespace(item));
    if (name == "cpu") {
      tuning.keep_cpu = true;
    } else if (name == "memory") {
      tuning.keep_memory = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "\"", absl::CEscape(item), "\" is not a resource (want cpu, memory or cpu,memory)"));
    }
  }
  return absl::OkStatus();
}

absl::string_view NearestKnownKey(absl::string_view key) {
  absl::string_view nearest;
  size_t best = 4;  // at most 3 edits away
  for (absl::string_view known : kKnownKeys) {
    const size_t distance = EditDistance(key, known);
    if (distance < best) {
      best = distance;
      nearest = known;
    }
  }
  return nearest;
}

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
                                     const PolicyDefaults& defaults,
                                     const Annotations& namespace_annotations) {
  const Layers layers{pod, workload, namespace_annotations};
  WorkloadPolicy result;
  result.policy = defaults.policy;
  if (const std::string* value = Lookup(layers, kPolicyAnnotation)) {
    absl::StatusOr<SizingPolicy> parsed = ParseSizingPolicy(*value);
    if (parsed.ok() && (*parsed == SizingPolicy::kVpa || *parsed == SizingPolicy::kCrane)) {
      // The VPA and Crane recommenders need their own histories, which only the simulator and
      // `headroom recommend` keep; no running component can size a pod with them.
      result.warnings.push_back(
          {"InvalidAnnotation",
           absl::StrCat(kPolicyAnnotation, ": ", SizingPolicyName(*parsed),
                        " is compared in `headroom simulate` and `headroom recommend` only; "
                        "the running components use ",
                        SizingPolicyName(defaults.policy))});
    } else if (parsed.ok()) {
      result.policy = *parsed;
    } else {
      result.warnings.push_back(
          {"InvalidAnnotation", absl::StrCat(kPolicyAnnotation, ": ", parsed.status().message(),
                                             "; using ", SizingPolicyName(defaults.policy))});
    }
  }
  result.step = defaults.step;
  // A layer's unreadable mode falls through to the next layer, never to a higher step than
  // the operator set for the namespace.
  const std::pair<const Annotations*, absl::string_view> mode_layers[] = {
      {&pod, "pod"}, {&workload, "owner"}, {&namespace_annotations, "namespace"}};
  for (const auto& [annotations, from] : mode_layers) {
    const auto it = annotations->find(kModeAnnotation);
    if (it == annotations->end()) continue;
    absl::StatusOr<AdoptionStep> parsed = ParseAdoptionStep(it->second);
    if (parsed.ok()) {
      result.step = *parsed;
      result.step_from = std::string(from);
      break;
    }
    result.warnings.push_back(
        {"InvalidAnnotation", absl::StrCat(kModeAnnotation, " on the ", from, ": ",
                                           parsed.status().message(), "; ignored")});
  }
  // The global recommend-only switch wins: it is the operator's safety catch.
  result.recommend_only = defaults.recommend_only || result.step == AdoptionStep::kObserve;
  result.disabled =
      ParseFlag(Lookup(layers, kDisableAnnotation), kDisableAnnotation, false, result.warnings);
  // Exclusion is a property of the pod instance only.
  result.excluded =
      ParseFlag(pod.contains(kExcludeAnnotation) ? &pod.find(kExcludeAnnotation)->second : nullptr,
                kExcludeAnnotation, false, result.warnings);
  WorkloadFacts facts;
  facts.kind = std::string(kind);
  facts.replicas = replicas;
  if (const std::string* value = Lookup(layers, kEvictionRankingAnnotation)) {
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
      ParseFlag(Lookup(layers, kAllowBelowDeclaredAnnotation), kAllowBelowDeclaredAnnotation,
                defaults.allow_below_declared, result.warnings);
  result.allow_disruption = ParseFlag(Lookup(layers, kAllowDisruptionAnnotation),
                                      kAllowDisruptionAnnotation, false, result.warnings);
  // Only "true" protects; anything else (karpenter's own convention) does not.
  for (absl::string_view key : {kDoNotDisruptAnnotation, kKarpenterDoNotDisruptAnnotation}) {
    if (const auto it = pod.find(key); it != pod.end() && it->second == "true") {
      result.do_not_disrupt = true;
    }
  }
  result.tuning = ResolveTuning(layers, result.warnings);
  result.disruption_windows = defaults.disruption_windows;
  if (const std::string* value = Lookup(layers, kDisruptionWindowAnnotation)) {
    absl::StatusOr<std::vector<DisruptionWindow>> parsed = ParseDisruptionWindows(*value);
    if (parsed.ok()) {
      result.disruption_windows = *std::move(parsed);
    } else {
      // Fail safe: an unreadable window allows no disruption rather than any at any time.
      result.windows_unreadable = true;
      result.warnings.push_back(
          {"InvalidAnnotation",
           absl::StrCat(kDisruptionWindowAnnotation, ": ", parsed.status().message(),
                        "; no eviction or shrink until it is fixed")});
    }
  }
  WarnUnknownKeys(workload, result.warnings);
  WarnUnknownKeys(pod, result.warnings);
  WarnUnknownKeys(namespace_annotations, result.warnings);
  if (const std::string* value = Lookup(layers, kEvictionPolicyAnnotation)) {
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
  facts.recommend_only = policy.recommend_only || policy.step != AdoptionStep::kInPlace;
  facts.ranking = policy.ranking.ranking;
  facts.do_not_disrupt = policy.do_not_disrupt;
  facts.allow_disruption = policy.allow_disruption;
  return facts;
}

std::string SizingBlockedBy(const WorkloadPolicy& policy) {
  if (policy.disabled) return absl::StrCat("annotated ", kDisableAnnotation);
  if (policy.excluded) return absl::StrCat("annotated ", kExcludeAnnotation);
  if (policy.step == AdoptionStep::kObserve) {
    return absl::StrCat("mode observe (", policy.step_from, ")");
  }
  if (policy.recommend_only) return "recommend-only";
  if (policy.policy == SizingPolicy::kStatic) return "policy static";
  return "";
}

std::string OutsideDisruptionWindow(const WorkloadPolicy& policy, absl::Time now) {
  if (policy.windows_unreadable) {
    return absl::StrCat("its ", kDisruptionWindowAnnotation, " is unreadable");
  }
  if (InsideDisruptionWindows(policy.disruption_windows, now)) return "";
  return absl::StrCat("outside its disruption window (",
                      DescribeDisruptionWindows(policy.disruption_windows), ")");
}

std::string InPlaceBlockedBy(const WorkloadPolicy& policy) {
  if (std::string why = SizingBlockedBy(policy); !why.empty()) return why;
  if (policy.step == AdoptionStep::kAdmission) {
    return absl::StrCat("mode admission (", policy.step_from,
                        "): sized when created, never resized in place");
  }
  return "";
}

bool OnlyObserving(const WorkloadPolicy& policy) {
  return policy.step == AdoptionStep::kObserve && !policy.disabled && !policy.excluded &&
         policy.policy != SizingPolicy::kStatic;
}

absl::string_view AdoptionStepName(AdoptionStep step) {
  switch (step) {
    case AdoptionStep::kObserve:
      return "observe";
    case AdoptionStep::kAdmission:
      return "admission";
    case AdoptionStep::kInPlace:
      return "in-place";
  }
  return "unknown";
}

absl::StatusOr<AdoptionStep> ParseAdoptionStep(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  if (lower == "observe" || lower == "recommend") return AdoptionStep::kObserve;
  if (lower == "admission" || lower == "admission-only") return AdoptionStep::kAdmission;
  if (lower == "in-place" || lower == "inplace" || lower == "enforce") {
    return AdoptionStep::kInPlace;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "\"", absl::CEscape(text), "\" is not a mode (want observe, admission or in-place)"));
}

AdoptionStep NextAdoptionStep(AdoptionStep step) {
  return step == AdoptionStep::kObserve ? AdoptionStep::kAdmission : AdoptionStep::kInPlace;
}

}  // namespace headroom
