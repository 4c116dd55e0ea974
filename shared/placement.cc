#include "shared/placement.h"

#include <algorithm>
#include <limits>

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

// TargetLoadPacking's score (Trimaran) of a node whose share `used` would be in use, for a
// target share `target`, both in [0, 1]: from `target` at empty up to 1 at the target, then
// down to 0 at full.
double TargetScore(double used, double target) {
  if (used <= target) return (1 - target) * used / target + target;
  return target * (1 - used) / (1 - target);
}

}  // namespace

int64_t CombineHeadroom(int64_t a, int64_t b) {
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  if (a == 0 || b == 0) return std::max(a, b);
  // Beyond 2^62 (4 EiB, or 4.6e15 cores) an amount means "everything": saturate.
  constexpr int64_t kLarge = int64_t{1} << 62;
  if (a >= kLarge || b >= kLarge) return std::numeric_limits<int64_t>::max();
  return CeilSqrt(static_cast<WideInt>(a) * a + static_cast<WideInt>(b) * b);
}

ResourceAmounts CombineHeadroom(const ResourceAmounts& a, const ResourceAmounts& b) {
  return {CombineHeadroom(a.cpu_millis, b.cpu_millis),
          CombineHeadroom(a.memory_bytes, b.memory_bytes)};
}

void NodeFootprint::Add(const PodFootprint& pod) {
  AddBase(pod);
  ShareHeadroom(pod.headroom);
}

void NodeFootprint::AddBase(const PodFootprint& pod) {
  ++pod_count;
  base_total = SaturatingSum(base_total, pod.base);
}

void NodeFootprint::ShareHeadroom(const ResourceAmounts& more) {
  headroom = CombineHeadroom(headroom, more);
}

ResourceAmounts ProjectedFootprint(const NodeFootprint& node, const PodFootprint& candidate) {
  const WideInt cpu = static_cast<WideInt>(node.base_total.cpu_millis) + candidate.base.cpu_millis +
                      CombineHeadroom(node.headroom.cpu_millis, candidate.headroom.cpu_millis);
  const WideInt memory =
      static_cast<WideInt>(node.base_total.memory_bytes) + candidate.base.memory_bytes +
      CombineHeadroom(node.headroom.memory_bytes, candidate.headroom.memory_bytes);
  return {SaturateToInt64(cpu), SaturateToInt64(memory)};
}

namespace {

// The verdict, given the node's projected footprint with the candidate.
bool FitsWith(const NodeFootprint& node, const ResourceAmounts& projected) {
  return !node.cordoned && node.pod_count + 1 <= node.max_pods &&
         projected.cpu_millis <= node.allocatable.cpu_millis &&
         projected.memory_bytes <= node.allocatable.memory_bytes;
}

// Whether base + base + CombineHeadroom(a, b) <= allocatable, without the square root: the
// room left by the bases must hold the combined headroom, room^2 >= a^2 + b^2 (exactly
// CombineHeadroom's rounding up, as the room is whole).
bool HeadroomFits(int64_t allocatable, int64_t base, int64_t candidate_base, int64_t a, int64_t b) {
  const WideInt room = static_cast<WideInt>(allocatable) - base - candidate_base;
  if (room < 0) return false;
  a = std::max<int64_t>(a, 0);
  b = std::max<int64_t>(b, 0);
  if (a == 0 || b == 0) return room >= std::max(a, b);
  constexpr int64_t kLarge = int64_t{1} << 62;
  if (a >= kLarge || b >= kLarge) return room >= std::numeric_limits<int64_t>::max();
  return room * room >= static_cast<WideInt>(a) * a + static_cast<WideInt>(b) * b;
}

}  // namespace

bool FitsProjected(const NodeFootprint& node, const PodFootprint& candidate) {
  // The scheduler's path, for every node of every call: no square roots.
  return !node.cordoned && node.pod_count + 1 <= node.max_pods &&
         HeadroomFits(node.allocatable.cpu_millis, node.base_total.cpu_millis,
                      candidate.base.cpu_millis, node.headroom.cpu_millis,
                      candidate.headroom.cpu_millis) &&
         HeadroomFits(node.allocatable.memory_bytes, node.base_total.memory_bytes,
                      candidate.base.memory_bytes, node.headroom.memory_bytes,
                      candidate.headroom.memory_bytes);
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

absl::StatusOr<ScoringStrategy> ParseScoringStrategy(std::string_view name) {
  for (ScoringStrategy strategy :
       {ScoringStrategy::kSpread, ScoringStrategy::kPack, ScoringStrategy::kTarget}) {
    if (name == ScoringStrategyName(strategy)) return strategy;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("scoring must be spread, pack or target, not \"", std::string(name), "\""));
}

std::string_view ScoringStrategyName(ScoringStrategy strategy) {
  switch (strategy) {
    case ScoringStrategy::kPack:
      return "pack";
    case ScoringStrategy::kTarget:
      return "target";
    case ScoringStrategy::kSpread:
      break;
  }
  return "spread";
}

absl::StatusOr<ScoringConfig> ScoringFromFlags(std::string_view strategy, double target_share) {
  absl::StatusOr<ScoringStrategy> parsed = ParseScoringStrategy(strategy);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--scoring: ", parsed.status().message()));
  }
  ScoringConfig config;
  config.strategy = *parsed;
  config.target_share = target_share;
  if (absl::Status valid = config.Validate(); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--scoring-target: ", valid.message()));
  }
  return config;
}

absl::Status ScoringConfig::Validate() const {
  if (!(target_share > 0 && target_share < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the scoring target share must be above 0 and below 1, not ", target_share));
  }
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
  const double free_cpu = FreeShare(node.allocatable.cpu_millis, projected.cpu_millis);
  const double free_memory = FreeShare(node.allocatable.memory_bytes, projected.memory_bytes);
  double score = 0;
  if (config.strategy == ScoringStrategy::kTarget) {
    // Pod slots fill a node too: many small pods must not pile onto one node.
    const double pods_share =
        node.max_pods > 0 ? static_cast<double>(node.pod_count + 1) / node.max_pods : 0;
    score = 10 * TargetScore(std::max(1 - std::min(free_cpu, free_memory), pods_share),
                             config.target_share);
  } else {
    const double free = (free_cpu + free_memory) / 2;
    score = 10 * (config.strategy == ScoringStrategy::kSpread ? free : 1 - free);
  }
  if (node.load > config.load_penalty_from) {
    const double severity = std::min(1.0, (node.load - config.load_penalty_from) /
                                              (config.cordon_above - config.load_penalty_from));
    score -= severity * config.max_load_penalty;
  }
  return RoundedScore(score);
}

int RoundedScore(double score) {
  score = std::clamp(score, 0.0, 10.0);  // (a NaN stays NaN, and the comparisons fail)
  if (!(score >= 0)) return 0;
  const int whole = static_cast<int>(score);
  // Exact: the fraction of a double in [0, 10] is itself a double.
  return score - whole >= 0.5 ? whole + 1 : whole;
}

}  // namespace headroom
