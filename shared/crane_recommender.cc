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

CraneContainerModel::CraneContainerModel(const CraneConfig& config)
    : config_(config),
      cpu_(CraneCpuHistogramOptions(), config.half_life),
      memory_(CraneMemoryHistogramOptions(), config.half_life) {}

bool CraneContainerModel::AddSample(const UsageSample& sample) {
  if (!window_.empty() && sample.at < window_.back().at) return false;
  if (sample.cpu_millis.has_value()) {
    const double cores = static_cast<double>(*sample.cpu_millis) / 1000;
    cpu_.AddSample(cores, std::max(config_.min_sample_weight, cores), sample.at);
    ++cpu_count_;
  }
  if (sample.memory_bytes.has_value()) {
    const double bytes = static_cast<double>(*sample.memory_bytes);
    memory_.AddSample(bytes, std::max(config_.min_sample_weight, bytes), sample.at);
    ++memory_count_;
  }
  window_.push_back(sample);
  return true;
}

void CraneContainerModel::AddOom(const OomSample& oom) { ooms_.push_back(oom); }

void CraneContainerModel::Expire(absl::Time now) {
  while (!window_.empty() && now - window_.front().at > config_.history) {
    const UsageSample& old = window_.front();
    if (old.cpu_millis.has_value()) {
      const double cores = static_cast<double>(*old.cpu_millis) / 1000;
      cpu_.SubtractSample(cores, std::max(config_.min_sample_weight, cores), old.at);
      --cpu_count_;
    }
    if (old.memory_bytes.has_value()) {
      const double bytes = static_cast<double>(*old.memory_bytes);
      memory_.SubtractSample(bytes, std::max(config_.min_sample_weight, bytes), old.at);
      --memory_count_;
    }
    window_.pop_front();
  }
  while (!ooms_.empty() && now - ooms_.front().at > config_.oom_history) ooms_.pop_front();
}

std::optional<CraneRecommendation> CraneContainerModel::Recommend(absl::Time now) {
  Expire(now);
  if (cpu_count_ == 0 || memory_count_ == 0) return std::nullopt;
  CraneRecommendation result;
  const double cpu_cores = cpu_.Percentile(config_.cpu_percentile) *
                           (1 + config_.cpu_margin_fraction) / config_.cpu_target_utilization;
  double memory_bytes = memory_.Percentile(config_.memory_percentile) *
                        (1 + config_.memory_margin_fraction) / config_.memory_target_utilization;
  if (config_.oom_protection) {
    double oom_memory = 0;
    for (const OomSample& oom : ooms_) {
      if (oom.at > now) continue;
      oom_memory = std::max(oom_memory, static_cast<double>(oom.memory_bytes));
    }
    if (oom_memory > 0) {
      const double floor = std::max(oom_memory + static_cast<double>(config_.oom_min_bump_bytes),
                                    oom_memory * config_.oom_bump_ratio);
      if (floor > memory_bytes) {
        memory_bytes = floor;
        result.oom_protected = true;
      }
    }
  }
  result.request = {RoundUpAmount(cpu_cores * 1000), RoundUpAmount(memory_bytes)};

  // Normalisation: the smallest table entry (by CPU, then memory) that holds both amounts.
  std::optional<size_t> best;
  for (size_t i = 0; i < config_.specification.size(); ++i) {
    const ResourceAmounts& spec = config_.specification[i];
    if (spec.cpu_millis < result.request.cpu_millis ||
        spec.memory_bytes < result.request.memory_bytes) {
      continue;
    }
    if (!best.has_value() || std::make_pair(spec.cpu_millis, spec.memory_bytes) <
                                 std::make_pair(config_.specification[*best].cpu_millis,
                                                config_.specification[*best].memory_bytes)) {
      best = i;
    }
  }
  if (best.has_value()) {
    result.request = config_.specification[*best];
    result.specification_index = best;
  }
  return result;
}

std::optional<CraneRecommendation> CraneRecommend(const std::vector<UsageSample>& samples,
                                                  const std::vector<OomSample>& ooms,
                                                  absl::Time now, const CraneConfig& config) {
  // Crane reads its whole window at every run: order the window, then feed the model.
  std::vector<UsageSample> window;
  for (const UsageSample& sample : samples) {
    if (sample.at <= now && now - sample.at <= config.history) window.push_back(sample);
  }
  std::stable_sort(window.begin(), window.end(),
                   [](const UsageSample& a, const UsageSample& b) { return a.at < b.at; });
  std::vector<OomSample> recent_ooms;
  for (const OomSample& oom : ooms) {
    if (oom.at <= now && now - oom.at <= config.oom_history) recent_ooms.push_back(oom);
  }
  std::stable_sort(recent_ooms.begin(), recent_ooms.end(),
                   [](const OomSample& a, const OomSample& b) { return a.at < b.at; });
  CraneContainerModel model(config);
  for (const UsageSample& sample : window) model.AddSample(sample);
  for (const OomSample& oom : recent_ooms) model.AddOom(oom);
  return model.Recommend(now);
}

}  // namespace headroom
