#include "shared/usage_stats.h"

#include <algorithm>

#include "absl/strings/str_cat.h"

namespace headroom {
namespace {

constexpr absl::Duration kHour = absl::Hours(1);
constexpr absl::Duration kMinute = absl::Minutes(1);
constexpr int kHoursPerDay = 24;

int64_t FloorMod(int64_t value, int64_t modulus) { return ((value % modulus) + modulus) % modulus; }

}  // namespace

absl::Status UsageStatsConfig::Validate() const {
  if (cpu_base_window <= absl::ZeroDuration() || memory_base_window <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("base windows must be positive");
  }
  if (cpu_base_window > recent_peak_window || memory_base_window > recent_peak_window) {
    // The peak must include every sample the base is computed from, or base may exceed it.
    return absl::InvalidArgumentError(absl::StrCat(
        "base windows (cpu ", absl::FormatDuration(cpu_base_window), ", memory ",
        absl::FormatDuration(memory_base_window), ") must not exceed the recent peak window (",
        absl::FormatDuration(recent_peak_window), ")"));
  }
  if (!(base_percentile > 0 && base_percentile <= 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("base percentile must be in (0, 1], got ", base_percentile));
  }
  if (peak_history_days < 1 || peak_history_days > 28) {
    return absl::InvalidArgumentError(
        absl::StrCat("peak history must be 1..28 days, got ", peak_history_days));
  }
  if (recent_peak_window < kMinute || recent_peak_window > absl::Hours(24)) {
    return absl::InvalidArgumentError("recent peak window must be between 1m and 24h");
  }
  if (oom_memory_retention < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("OOM memory retention must not be negative");
  }
  if (max_window_samples < 1) {
    return absl::InvalidArgumentError("max window samples must be at least 1");
  }
  return absl::OkStatus();
}

ResourceUsage::ResourceUsage(absl::Duration base_window, const UsageStatsConfig& config)
    : percentile_(config.base_percentile),
      history_days_(config.peak_history_days),
      recent_window_(config.recent_peak_window),
      base_(base_window, config.max_window_samples),
      // Today's current hour plus the same hour on each of the previous days.
      hourly_(kHour, config.peak_history_days * kHoursPerDay + 1),
      recent_(kMinute, static_cast<int>(absl::ToInt64Minutes(config.recent_peak_window))) {}

absl::Status ResourceUsage::Add(absl::Time at, int64_t value) {
  if (absl::Status status = base_.Add(at, value); !status.ok()) return status;
  hourly_.Add(at, value);
  recent_.Add(at, value);
  return absl::OkStatus();
}

std::optional<int64_t> ResourceUsage::Base(absl::Time now) const {
  return base_.Percentile(percentile_, now);
}

std::optional<int64_t> ResourceUsage::Peak(absl::Time now) const {
  const int64_t hour_of_day = FloorMod(hourly_.BucketNumber(now), kHoursPerDay);
  std::optional<int64_t> same_hour = hourly_.Max(
      now, history_days_ * kHoursPerDay * kHour + kHour,
      [hour_of_day](int64_t bucket) { return FloorMod(bucket, kHoursPerDay) == hour_of_day; });
  std::optional<int64_t> recent = recent_.Max(now, recent_window_);
  if (!same_hour.has_value()) return recent;
  if (!recent.has_value()) return same_hour;
  return std::max(*same_hour, *recent);
}

std::optional<int64_t> ResourceUsage::HistoryMax(absl::Time now) const {
  return hourly_.Max(now, history_days_ * kHoursPerDay * kHour + kHour);
}

ContainerUsageStats::ContainerUsageStats(const UsageStatsConfig& config)
    : oom_retention_(config.oom_memory_retention),
      cpu_(config.cpu_base_window, config),
      memory_(config.memory_base_window, config) {}

void ContainerUsageStats::RecordOom(absl::Time at, int64_t memory_bytes) {
  ooms_.push_back({at, memory_bytes});
  while (ooms_.size() > kMaxOomRecords) ooms_.pop_front();
}

std::optional<int64_t> ContainerUsageStats::OomMemory(absl::Time now) const {
  std::optional<int64_t> result;
  for (const OomRecord& record : ooms_) {
    if (record.at > now || now - record.at >= oom_retention_) continue;
    result = std::max(result.value_or(0), record.memory_bytes);
  }
  return result;
}

UsageSnapshot ContainerUsageStats::Snapshot(absl::Time now) const {
  UsageSnapshot snapshot;
  std::optional<int64_t> cpu_base = cpu_.Base(now);
  std::optional<int64_t> cpu_peak = cpu_.Peak(now);
  if (cpu_base.has_value() && cpu_peak.has_value()) {
    snapshot.cpu = CpuStats{*cpu_base, std::max(*cpu_base, *cpu_peak)};
  }
  std::optional<int64_t> memory_base = memory_.Base(now);
  std::optional<int64_t> memory_peak = memory_.Peak(now);
  if (memory_base.has_value() && memory_peak.has_value()) {
    MemoryStats memory;
    memory.base_bytes = *memory_base;
    memory.peak_bytes = std::max(*memory_base, *memory_peak);
    memory.max_7d_bytes = std::max(memory.peak_bytes, memory_.HistoryMax(now).value_or(0));
    memory.oom_bytes = OomMemory(now).value_or(0);
    snapshot.memory = memory;
  }
  return snapshot;
}

}  // namespace headroom
