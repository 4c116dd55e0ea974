#include "shared/placement.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "shared/quantity.h"
#include "shared/wide_int.h"

namespace headroom {
namespace {

// Free share of `allocatable` left after `used`, clamped to [0, 1].
double FreeShare(int64_t allocatable, int64_t used) {
  if (allocatable <= 0) return 0;
  return std::clamp(static_cast<double>(allocatable - used) / static_cast<double>(allocatable), 0.0,
                    1.0);
}

}  // namespace

void NodeFootprint::Add(const PodFootprint& pod) {
  ++pod_count;
  base_total = SaturatingSum(base_total, pod.base);
  max_headroom = {std::max(max_headroom.cpu_millis, pod.headroom.cpu_millis),
                  std::max(max_headroom.memory_bytes, pod.headroom.memory_bytes)};
}

ResourceAmounts ProjectedFootprint(const NodeFootprint& node, const PodFootprint& candidate) {
  const WideInt cpu = static_cast<WideInt>(node.base_total.cpu_millis) + candidate.base.cpu_millis +
                      std::max(node.max_headroom.cpu_millis, candidate.headroom.cpu_millis);
  const WideInt memory = static_cast<WideInt>(node.base_total.memory_bytes) +
                         candidate.base.memory_bytes +
                         std::max(node.max_headroom.memory_bytes, candidate.headroom.memory_bytes);
  return {SaturateToInt64(cpu), SaturateToInt64(memory)};
}

namespace {

// The verdict, given the node's projected footprint with the candidate.
bool FitsWith(const NodeFootprint& node, const ResourceAmounts& projected) {
  return !node.cordoned && node.pod_count + 1 <= node.max_pods &&
         projected.cpu_millis <= node.allocatable.cpu_millis &&
         projected.memory_bytes <= node.allocatable.memory_bytes;
}

}  // namespace

bool FitsProjected(const NodeFootprint& node, const PodFootprint& candidate) {
  return FitsWith(node, ProjectedFootprint(node, candidate));
}

FitDecision ProjectedFit(const NodeFootprint& node, const PodFootprint& candidate) {
  FitDecision decision;
  decision.projected = ProjectedFootprint(node, candidate);
  if (FitsWith(node, decision.projected)) {
    // Judged for every node of every scheduling cycle: no message to build when it fits.
    decision.fits = true;
    decision.reason.code = "Fits";
    return decision;
  }
  if (node.cordoned) {
    decision.reason = {
        "LoadCordoned",
        absl::StrCat("node ", node.name, " is cordoned for load: ", node.cordon_reason.message)};
    return decision;
  }
  if (node.pod_count + 1 > node.max_pods) {
    decision.reason = {"TooManyPods", absl::StrCat("node ", node.name, " already runs ",
                                                   node.pod_count, " of ", node.max_pods, " pods")};
    return decision;
  }
  const auto explain = [&](Resource resource) {
    return absl::StrCat("node ", node.name, ": projected ", ResourceName(resource), " ",
                        FormatAmount(resource, decision.projected.Get(resource)),
                        " (every pod at base + one shared headroom) exceeds allocatable ",
                        FormatAmount(resource, node.allocatable.Get(resource)));
  };
  if (decision.projected.cpu_millis > node.allocatable.cpu_millis) {
    decision.reason = {"InsufficientCpu", explain(Resource::kCpu)};
    return decision;
  }
  decision.reason = {"InsufficientMemory", explain(Resource::kMemory)};
  return decision;
}

absl::Status ScoringConfig::Validate() const {
  if (!(load_penalty_from >= 0) || !(cordon_above > load_penalty_from)) {
    return absl::InvalidArgumentError(
        absl::StrCat("load penalty must start below the cordon threshold (", load_penalty_from,
                     " vs ", cordon_above, ")"));
  }
  if (max_load_penalty < 0 || max_load_penalty > 10) {
    return absl::InvalidArgumentError("max load penalty must be in 0..10");
  }
  return absl::OkStatus();
}

int ScoreNode(const NodeFootprint& node, const PodFootprint& candidate,
              const ScoringConfig& config) {
  const ResourceAmounts projected = ProjectedFootprint(node, candidate);
  const double free = (FreeShare(node.allocatable.cpu_millis, projected.cpu_millis) +
                       FreeShare(node.allocatable.memory_bytes, projected.memory_bytes)) /
                      2;
  const double base = config.strategy == ScoringStrategy::kSpread ? free : 1 - free;
  double score = 10 * base;
  if (node.load > config.load_penalty_from) {
    const double severity = std::min(1.0, (node.load - config.load_penalty_from) /
                                              (config.cordon_above - config.load_penalty_from));
    score -= severity * config.max_load_penalty;
  }
  return static_cast<int>(std::lround(std::clamp(score, 0.0, 10.0)));
}

}  // namespace headroom
