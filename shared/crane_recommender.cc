#include "shared/crane_recommender.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace headroom {
namespace {

constexpr double kCraneEpsilon = 1e-10;
constexpr double kMiB = 1 << 20;

}  // namespace

HistogramOptions CraneCpuHistogramOptions() {
  return *HistogramOptions::Linear(100.0, 0.1, kCraneEpsilon);
}

HistogramOptions CraneMemoryHistogramOptions() {
  return *HistogramOptions::Linear(100'000 * kMiB, 100 * kMiB, kCraneEpsilon);
}

absl::Status CraneConfig::Validate() const {
  for (double p : {cpu_percentile, memory_percentile}) {
    if (!(p >= 0 && p <= 1)) {
      return absl::InvalidArgumentError(absl::StrCat("Crane percentile ", p, " is outside [0, 1]"));
    }
  }
  if (!(cpu_margin_fraction >= 0) || !(memory_margin_fraction >= 0)) {
    return absl::InvalidArgumentError("Crane margins must not be negative");
  }
  if (!(cpu_target_utilization > 0 && cpu_target_utilization <= 1) ||
      !(memory_target_utilization > 0 && memory_target_utilization <= 1)) {
    return absl::InvalidArgumentError("Crane target utilisation must be in (0, 1]");
  }
  if (history <= absl::ZeroDuration() || half_life <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("Crane history and half-life must be positive");
  }
  if (!(oom_bump_ratio >= 1) || oom_min_bump_bytes < 0) {
    return absl::InvalidArgumentError("Crane OOM bump must be a ratio >= 1 and a bytes >= 0");
  }
  for (const ResourceAmounts& spec : specification) {
    if (spec.cpu_millis < 0 || spec.memory_bytes < 0) {
      return absl::InvalidArgumentError("Crane specification entries must not be negative");
    }
  }
  return absl::OkStatus();
}

std::optional<CraneRecommendation> CraneRecommend(const std::vector<UsageSample>& samples,
                                                  const std::vector<OomSample>& ooms,
                                                  absl::Time now, const CraneConfig& config) {
  DecayingHistogram cpu(CraneCpuHistogramOptions(), config.half_life);
  DecayingHistogram memory(CraneMemoryHistogramOptions(), config.half_life);
  bool has_cpu = false;
  bool has_memory = false;
  for (const UsageSample& sample : samples) {
    if (sample.at > now || now - sample.at > config.history) continue;
    if (sample.cpu_millis.has_value()) {
      const double cores = static_cast<double>(*sample.cpu_millis) / 1000;
      cpu.AddSample(cores, std::max(config.min_sample_weight, cores), sample.at);
      has_cpu = true;
    }
    if (sample.memory_bytes.has_value()) {
      const double bytes = static_cast<double>(*sample.memory_bytes);
      memory.AddSample(bytes, std::max(config.min_sample_weight, bytes), sample.at);
      has_memory = true;
    }
  }
  if (!has_cpu || !has_memory) return std::nullopt;

  CraneRecommendation result;
  const double cpu_cores = cpu.Percentile(config.cpu_percentile) *
                           (1 + config.cpu_margin_fraction) / config.cpu_target_utilization;
  double memory_bytes = memory.Percentile(config.memory_percentile) *
                        (1 + config.memory_margin_fraction) / config.memory_target_utilization;
  if (config.oom_protection) {
    double oom_memory = 0;
    for (const OomSample& oom : ooms) {
      if (oom.at > now || now - oom.at > config.oom_history) continue;
      oom_memory = std::max(oom_memory, static_cast<double>(oom.memory_bytes));
    }
    if (oom_memory > 0) {
      const double floor = std::max(oom_memory + static_cast<double>(config.oom_min_bump_bytes),
                                    oom_memory * config.oom_bump_ratio);
      if (floor > memory_bytes) {
        memory_bytes = floor;
        result.oom_protected = true;
      }
    }
  }
  result.request = {RoundUpAmount(cpu_cores * 1000), RoundUpAmount(memory_bytes)};

  // Normalisation: the smallest table entry (by CPU, then memory) that holds both amounts.
  std::optional<size_t> best;
  for (size_t i = 0; i < config.specification.size(); ++i) {
    const ResourceAmounts& spec = config.specification[i];
    if (spec.cpu_millis < result.request.cpu_millis ||
        spec.memory_bytes < result.request.memory_bytes) {
      continue;
    }
    if (!best.has_value() || std::make_pair(spec.cpu_millis, spec.memory_bytes) <
                                 std::make_pair(config.specification[*best].cpu_millis,
                                                config.specification[*best].memory_bytes)) {
      best = i;
    }
  }
  if (best.has_value()) {
    result.request = config.specification[*best];
    result.specification_index = best;
  }
  return result;
}

}  // namespace headroom
