#include "shared/hpa.h"

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace headroom {

absl::string_view HpaResourcesModeName(HpaResourcesMode mode) {
  switch (mode) {
    case HpaResourcesMode::kKeep:
      return "keep";
    case HpaResourcesMode::kResize:
      return "resize";
  }
  return "unknown";
}

absl::StatusOr<HpaResourcesMode> ParseHpaResourcesMode(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (HpaResourcesMode mode : {HpaResourcesMode::kKeep, HpaResourcesMode::kResize}) {
    if (lower == HpaResourcesModeName(mode)) return mode;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("\"", absl::CEscape(text), "\" is not keep or resize"));
}

HpaScaling MergeHpaScaling(const HpaScaling& a, const HpaScaling& b) {
  HpaScaling merged;
  // The first name in order, so the message does not depend on which HPA came first.
  merged.hpa = a.hpa.empty() ? b.hpa : b.hpa.empty() ? a.hpa : std::min(a.hpa, b.hpa);
  merged.cpu = a.cpu || b.cpu;
  merged.memory = a.memory || b.memory;
  return merged;
}

std::optional<Reason> KeepForHpa(const std::optional<HpaScaling>& hpa, HpaResourcesMode mode,
                                 WorkloadTuning& tuning) {
  if (!hpa.has_value() || mode != HpaResourcesMode::kKeep) return std::nullopt;
  const std::string why =
      absl::StrCat("HPA ", hpa->hpa, " scales the workload on its utilisation of the request ",
                   "(--hpa-scaled-resources=keep)");
  std::vector<std::string> kept;
  if (hpa->cpu && !tuning.keep_cpu) {
    tuning.keep_cpu = true;
    tuning.keep_cpu_why = why;
    kept.push_back("cpu");
  }
  if (hpa->memory && !tuning.keep_memory) {
    tuning.keep_memory = true;
    tuning.keep_memory_why = why;
    kept.push_back("memory");
  }
  if (kept.empty()) return std::nullopt;
  return Reason{"ScaledByHpa",
                absl::StrCat(absl::StrJoin(kept, " and "), " kept as declared: ", why)};
}

}  // namespace headroom
