#include "shared/vpa_recommender.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace headroom {
namespace {

// VPA's histogram epsilon is 0.001 x the minimum CPU sample weight (0.1).
constexpr double kVpaEpsilon = 1e-4;

// value x (1 + multiplier / confidence)^exponent, with 0 x inf taken as 0.
double ConfidenceScaled(double value, double multiplier, double exponent, double confidence) {
  if (value == 0) return 0;
  return value * std::pow(1 + multiplier / confidence, exponent);
}

struct Amounts {
  double cpu_cores;
  double memory_bytes;
};

ResourceAmounts ToResourceAmounts(const Amounts& amounts) {
  return {RoundUpAmount(amounts.cpu_cores * 1000), RoundUpAmount(amounts.memory_bytes)};
}

ResourceAmounts Cap(ResourceAmounts value, const VpaContainerPolicy& policy) {
  if (policy.min_allowed.has_value()) {
    value.cpu_millis = std::max(value.cpu_millis, policy.min_allowed->cpu_millis);
    value.memory_bytes = std::max(value.memory_bytes, policy.min_allowed->memory_bytes);
  }
  if (policy.max_allowed.has_value()) {
    value.cpu_millis = std::min(value.cpu_millis, policy.max_allowed->cpu_millis);
    value.memory_bytes = std::min(value.memory_bytes, policy.max_allowed->memory_bytes);
  }
  return value;
}

}  // namespace

HistogramOptions VpaCpuHistogramOptions() {
  return *HistogramOptions::Exponential(1000.0, 0.01, 1.05, kVpaEpsilon);
}

HistogramOptions VpaMemoryHistogramOptions() {
  return *HistogramOptions::Exponential(1e12, 1e7, 1.05, kVpaEpsilon);
}

absl::Status VpaConfig::Validate() const {
  for (double p :
       {target_cpu_percentile, lower_bound_cpu_percentile, upper_bound_cpu_percentile,
        target_memory_percentile, lower_bound_memory_percentile, upper_bound_memory_percentile}) {
    if (!(p >= 0 && p <= 1)) {
      return absl::InvalidArgumentError(absl::StrCat("VPA percentile ", p, " is outside [0, 1]"));
    }
  }
  if (!(safety_margin_fraction >= 0)) {
    return absl::InvalidArgumentError("VPA safety margin must not be negative");
  }
  if (pod_min_cpu_millis < 0 || pod_min_memory_bytes < 0 || oom_min_bump_up_bytes < 0) {
    return absl::InvalidArgumentError("VPA minimums must not be negative");
  }
  if (cpu_half_life <= absl::ZeroDuration() || memory_half_life <= absl::ZeroDuration() ||
      memory_aggregation_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("VPA half-lives and aggregation interval must be positive");
  }
  if (!(oom_bump_up_ratio >= 1)) {
    return absl::InvalidArgumentError("VPA OOM bump-up ratio must be at least 1");
  }
  if (!(cpu_min_sample_weight > 0) || !(memory_sample_weight > 0)) {
    return absl::InvalidArgumentError("VPA sample weights must be positive");
  }
  return absl::OkStatus();
}

VpaContainerModel::VpaContainerModel(const VpaConfig& config)
    : config_(config),
      cpu_(VpaCpuHistogramOptions(), config.cpu_half_life),
      memory_(VpaMemoryHistogramOptions(), config.memory_half_life) {}

void VpaContainerModel::AddCpuSample(absl::Time at, int64_t usage_millis, int64_t request_millis) {
  const double weight =
      std::max(static_cast<double>(request_millis) / 1000.0, config_.cpu_min_sample_weight);
  cpu_.AddSample(static_cast<double>(usage_millis) / 1000.0, weight, at);
  if (!first_cpu_sample_.has_value() || at < *first_cpu_sample_) first_cpu_sample_ = at;
  if (!last_cpu_sample_.has_value() || at > *last_cpu_sample_) last_cpu_sample_ = at;
  ++cpu_samples_;
}

bool VpaContainerModel::AddMemorySample(absl::Time at, int64_t usage_bytes) {
  return AddMemoryPeakSample(at, usage_bytes, /*is_oom=*/false);
}

bool VpaContainerModel::AddMemoryPeakSample(absl::Time at, int64_t usage_bytes, bool is_oom) {
  // OOM samples are always taken; plain samples only in time order.
  if (!is_oom && last_memory_sample_.has_value() && at < *last_memory_sample_) return false;
  last_memory_sample_ = at;
  if (!window_end_.has_value()) window_end_ = at;
  bool add_new_peak = false;
  if (at < *window_end_) {
    const int64_t old_peak = MaxMemoryPeak();
    if (old_peak != 0 && usage_bytes > old_peak) {
      memory_.SubtractSample(static_cast<double>(old_peak), config_.memory_sample_weight,
                             *window_end_);
      add_new_peak = true;
    }
  } else {
    // Move to the interval that contains `at`.
    const absl::Duration interval = config_.memory_aggregation_interval;
    *window_end_ += absl::Trunc(at - *window_end_, interval) + interval;
    memory_peak_ = 0;
    oom_peak_ = 0;
    add_new_peak = true;
  }
  if (is_oom) {
    oom_peak_ = std::max(oom_peak_, usage_bytes);
  } else {
    memory_peak_ = std::max(memory_peak_, usage_bytes);
  }
  if (add_new_peak) {
    memory_.AddSample(static_cast<double>(MaxMemoryPeak()), config_.memory_sample_weight,
                      *window_end_);
  }
  return true;
}

absl::Status VpaContainerModel::RecordOom(absl::Time at, int64_t memory_bytes) {
  if (window_end_.has_value() && at < *window_end_ - config_.memory_aggregation_interval) {
    return absl::FailedPreconditionError(absl::StrCat("OOM at ", absl::FormatTime(at),
                                                      " is older than the memory aggregation "
                                                      "interval ending ",
                                                      absl::FormatTime(*window_end_),
                                                      "; discarded"));
  }
  // The usage peak, not an earlier OOM peak, so repeated OOMs do not compound.
  const double used = static_cast<double>(std::max(memory_bytes, memory_peak_));
  const double needed = std::max(used + static_cast<double>(config_.oom_min_bump_up_bytes),
                                 used * config_.oom_bump_up_ratio);
  AddMemoryPeakSample(at, RoundUpAmount(needed), /*is_oom=*/true);
  return absl::OkStatus();
}

VpaCheckpoint VpaContainerModel::SaveCheckpoint() const {
  VpaCheckpoint checkpoint;
  checkpoint.cpu = cpu_.SaveToCheckpoint();
  checkpoint.memory = memory_.SaveToCheckpoint();
  checkpoint.cpu_samples = cpu_samples_;
  checkpoint.first_cpu_sample = first_cpu_sample_;
  checkpoint.last_cpu_sample = last_cpu_sample_;
  checkpoint.window_end = window_end_;
  checkpoint.last_memory_sample = last_memory_sample_;
  checkpoint.memory_peak_bytes = memory_peak_;
  checkpoint.oom_peak_bytes = oom_peak_;
  return checkpoint;
}

absl::Status VpaContainerModel::LoadCheckpoint(const VpaCheckpoint& checkpoint) {
  if (checkpoint.cpu_samples < 0 || checkpoint.memory_peak_bytes < 0 ||
      checkpoint.oom_peak_bytes < 0) {
    return absl::InvalidArgumentError("VPA checkpoint has negative counts or peaks");
  }
  // Load into fresh histograms first so a bad checkpoint leaves this model untouched.
  DecayingHistogram cpu(VpaCpuHistogramOptions(), config_.cpu_half_life);
  DecayingHistogram memory(VpaMemoryHistogramOptions(), config_.memory_half_life);
  if (absl::Status status = cpu.LoadFromCheckpoint(checkpoint.cpu); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("VPA CPU histogram: ", status.message()));
  }
  if (absl::Status status = memory.LoadFromCheckpoint(checkpoint.memory); !status.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("VPA memory histogram: ", status.message()));
  }
  cpu_ = std::move(cpu);
  memory_ = std::move(memory);
  cpu_samples_ = checkpoint.cpu_samples;
  first_cpu_sample_ = checkpoint.first_cpu_sample;
  last_cpu_sample_ = checkpoint.last_cpu_sample;
  window_end_ = checkpoint.window_end;
  last_memory_sample_ = checkpoint.last_memory_sample;
  memory_peak_ = checkpoint.memory_peak_bytes;
  oom_peak_ = checkpoint.oom_peak_bytes;
  return absl::OkStatus();
}

double VpaContainerModel::Confidence() const {
  if (cpu_samples_ == 0) return 0;
  const double lifespan_days =
      absl::FDivDuration(*last_cpu_sample_ - *first_cpu_sample_, absl::Hours(24));
  const double samples_days = static_cast<double>(cpu_samples_) / (60 * 24);
  return std::min(lifespan_days, samples_days);
}

std::optional<VpaRecommendation> VpaContainerModel::Recommend(
    int containers_in_pod, const VpaContainerPolicy& policy) const {
  if (cpu_samples_ == 0 && !window_end_.has_value()) return std::nullopt;
  const double confidence = Confidence();
  const double margin = 1 + config_.safety_margin_fraction;
  const Amounts target = {cpu_.Percentile(config_.target_cpu_percentile) * margin,
                          memory_.Percentile(config_.target_memory_percentile) * margin};
  const Amounts lower = {
      ConfidenceScaled(cpu_.Percentile(config_.lower_bound_cpu_percentile) * margin,
                       config_.lower_bound_multiplier, config_.lower_bound_exponent, confidence),
      ConfidenceScaled(memory_.Percentile(config_.lower_bound_memory_percentile) * margin,
                       config_.lower_bound_multiplier, config_.lower_bound_exponent, confidence)};
  const Amounts upper = {
      ConfidenceScaled(cpu_.Percentile(config_.upper_bound_cpu_percentile) * margin,
                       config_.upper_bound_multiplier, config_.upper_bound_exponent, confidence),
      ConfidenceScaled(memory_.Percentile(config_.upper_bound_memory_percentile) * margin,
                       config_.upper_bound_multiplier, config_.upper_bound_exponent, confidence)};
  // The pod minimum is split evenly over the pod's containers.
  const double fraction = 1.0 / std::max(1, containers_in_pod);
  const Amounts minimum = {static_cast<double>(config_.pod_min_cpu_millis) / 1000 * fraction,
                           static_cast<double>(config_.pod_min_memory_bytes) * fraction};
  const auto at_least_minimum = [&minimum](const Amounts& value) {
    return ToResourceAmounts({std::max(value.cpu_cores, minimum.cpu_cores),
                              std::max(value.memory_bytes, minimum.memory_bytes)});
  };
  VpaRecommendation recommendation;
  recommendation.uncapped_target = at_least_minimum(target);
  recommendation.target = Cap(recommendation.uncapped_target, policy);
  recommendation.lower_bound = Cap(at_least_minimum(lower), policy);
  recommendation.upper_bound = Cap(at_least_minimum(upper), policy);
  recommendation.confidence_days = confidence;
  return recommendation;
}

}  // namespace headroom
