#include "shared/usage_stats.h"

#include <algorithm>
#include <array>
#include <vector>

#include "absl/strings/str_cat.h"

namespace headroom {
namespace {

constexpr absl::Duration kHour = absl::Hours(1);
constexpr absl::Duration kMinute = absl::Minutes(1);
constexpr int kHoursPerDay = 24;

int64_t FloorMod(int64_t value, int64_t modulus) { return ((value % modulus) + modulus) % modulus; }

}  // namespace

absl::Status UsageStatsConfig::Validate() const {
  if (cpu_base_window <= absl::ZeroDuration() || memory_base_window <= absl::ZeroDuration() ||
      daily_base_window <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("base windows must be positive");
  }
  if (cpu_base_window > recent_peak_window || memory_base_window > recent_peak_window) {
    // The peak must include every sample the base is computed from, or base may exceed it.
    return absl::InvalidArgumentError(absl::StrCat(
        "base windows (cpu ", absl::FormatDuration(cpu_base_window), ", memory ",
        absl::FormatDuration(memory_base_window), ") must not exceed the recent peak window (",
        absl::FormatDuration(recent_peak_window), ")"));
  }
  if (!(base_percentile > 0 && base_percentile <= 1) ||
      !(daily_base_percentile > 0 && daily_base_percentile <= 1)) {
    return absl::InvalidArgumentError(absl::StrCat("base percentiles must be in (0, 1], got ",
                                                   base_percentile, " and ",
                                                   daily_base_percentile));
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
  if (profile_slot < kMinute || profile_window < profile_slot ||
      profile_window > absl::Hours(7 * 24)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "the profile needs a slot of at least 1m and a window from one slot to 7d, "
        "got ",
        absl::FormatDuration(profile_slot), " and ", absl::FormatDuration(profile_window)));
  }
  if (!(cpu_spike_shortfall >= 0 && cpu_spike_shortfall < 1) ||
      !(memory_spike_shortfall >= 0 && memory_spike_shortfall < 1)) {
    return absl::InvalidArgumentError(absl::StrCat("spike shortfalls must be in [0, 1), got ",
                                                   cpu_spike_shortfall, " and ",
                                                   memory_spike_shortfall));
  }
  return absl::OkStatus();
}

ProfileSlotRange ProfileWindow(const BucketedMax& profile, absl::Time now, absl::Duration window) {
  absl::Duration remainder;
  const int64_t slots =
      std::max<int64_t>(1, absl::IDivDuration(window, profile.bucket_width(), &remainder));
  const int64_t newest = profile.BucketNumber(now);
  return {newest - slots + 1, newest};
}

int UsageStatsConfig::ProfileSlots() const {
  absl::Duration remainder;
  const int64_t slots = absl::IDivDuration(profile_window, profile_slot, &remainder);
  return static_cast<int>(std::max<int64_t>(1, slots)) + 1;
}

ResourceUsage::ResourceUsage(absl::Duration base_window, double spike_shortfall,
                             const UsageStatsConfig& config)
    : percentile_(config.base_percentile),
      steady_percentile_(config.daily_base_percentile),
      history_days_(config.peak_history_days),
      recent_window_(config.recent_peak_window),
      base_(base_window, config.max_window_samples),
      // Today's current hour plus the same hour on each of the previous days.
      hourly_(kHour, config.peak_history_days * kHoursPerDay + 1),
      recent_(kMinute, static_cast<int>(absl::ToInt64Minutes(config.recent_peak_window))),
      steady_(config.daily_base_window, config.max_window_samples),
      // The current hour plus the 24 before it: every steady state of the last day.
      daily_base_(kHour, kHoursPerDay + 1),
      spike_shortfall_(spike_shortfall),
      profile_window_(config.profile_window),
      profile_(config.profile_slot, config.ProfileSlots()) {}

absl::Status ResourceUsage::Add(absl::Time at, int64_t value) {
  if (absl::Status status = base_.Add(at, value); !status.ok()) return status;
  hourly_.Add(at, value);
  recent_.Add(at, value);
  profile_.Add(at, value);
  if (steady_.Add(at, value).ok()) {
    // The window holds the sample just added, so the percentile exists.
    daily_base_.Add(at, steady_.Percentile(steady_percentile_, at).value_or(value));
  }
  return absl::OkStatus();
}

std::optional<int64_t> ResourceUsage::DailyPeak(absl::Time now) const {
  return hourly_.Max(now, kHoursPerDay * kHour);
}

std::optional<int64_t> ResourceUsage::Spike(absl::Time now) const {
  const ProfileSlotRange window = ProfileWindow(profile_, now, profile_window_);
  std::vector<int64_t> values;
  values.reserve(profile_.buckets().size());
  for (const BucketedMax::Bucket& slot : profile_.buckets()) {
    if (window.Holds(slot.number)) values.push_back(slot.max);
  }
  return ReserveForShortfall(values, spike_shortfall_);
}

std::optional<int64_t> ResourceUsage::DailyBase(absl::Time now) const {
  return daily_base_.Max(now, kHoursPerDay * kHour);
}

std::optional<int64_t> ResourceUsage::Base(absl::Time now, std::optional<double> percentile) const {
  return base_.Percentile(percentile.value_or(percentile_), now);
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
      cpu_(config.cpu_base_window, config.cpu_spike_shortfall, config),
      memory_(config.memory_base_window, config.memory_spike_shortfall, config) {}

void ContainerUsageStats::NoteSample(absl::Time at) {
  if (!first_sample_.has_value() || at < *first_sample_) first_sample_ = at;
}

absl::Status ContainerUsageStats::AddCpu(absl::Time at, int64_t millis) {
  absl::Status added = cpu_.Add(at, millis);
  if (added.ok()) NoteSample(at);
  return added;
}

absl::Status ContainerUsageStats::AddMemory(absl::Time at, int64_t bytes) {
  absl::Status added = memory_.Add(at, bytes);
  if (added.ok()) NoteSample(at);
  return added;
}

absl::Duration ContainerUsageStats::History(absl::Time now) const {
  if (!first_sample_.has_value() || now <= *first_sample_) return absl::ZeroDuration();
  return now - *first_sample_;
}

void ContainerUsageStats::RestoreFirstSample(absl::Time at) { NoteSample(at); }

void ContainerUsageStats::RecordOom(absl::Time at, int64_t memory_bytes) {
  ooms_.push_back({at, memory_bytes});
  while (ooms_.size() > kMaxOomRecords) ooms_.pop_front();
}

void ContainerUsageStats::RecordPressure(absl::Time at, int64_t memory_bytes) {
  pressures_.push_back({at, memory_bytes});
  while (pressures_.size() > kMaxOomRecords) pressures_.pop_front();
}

std::optional<int64_t> ContainerUsageStats::LargestRecent(const std::deque<OomRecord>& records,
                                                          absl::Time now) const {
  std::optional<int64_t> result;
  for (const OomRecord& record : records) {
    if (record.at > now || now - record.at >= oom_retention_) continue;
    result = std::max(result.value_or(0), record.memory_bytes);
  }
  return result;
}

UsageSnapshot ContainerUsageStats::Snapshot(absl::Time now,
                                            std::optional<double> base_percentile) const {
  UsageSnapshot snapshot;
  std::optional<int64_t> cpu_base = cpu_.Base(now, base_percentile);
  std::optional<int64_t> cpu_peak = cpu_.Peak(now);
  if (cpu_base.has_value() && cpu_peak.has_value()) {
    // The daily base is the steady state's daily peak: a short-window base above it is a spike.
    const int64_t daily_base = cpu_.DailyBase(now).value_or(*cpu_base);
    snapshot.cpu = CpuStats{*cpu_base, std::max(*cpu_base, *cpu_peak), daily_base,
                            std::max(daily_base, cpu_.DailyPeak(now).value_or(0)),
                            cpu_.Spike(now).value_or(0)};
  }
  std::optional<int64_t> memory_base = memory_.Base(now, base_percentile);
  std::optional<int64_t> memory_peak = memory_.Peak(now);
  if (memory_base.has_value() && memory_peak.has_value()) {
    MemoryStats memory;
    memory.base_bytes = *memory_base;
    memory.peak_bytes = std::max(*memory_base, *memory_peak);
    memory.max_7d_bytes = std::max(memory.peak_bytes, memory_.HistoryMax(now).value_or(0));
    memory.oom_bytes = LargestRecent(ooms_, now).value_or(0);
    memory.pressure_bytes = LargestRecent(pressures_, now).value_or(0);
    memory.daily_base_bytes = memory_.DailyBase(now).value_or(*memory_base);
    memory.daily_peak_bytes = std::max(memory.daily_base_bytes, memory_.DailyPeak(now).value_or(0));
    memory.spike_bytes = memory_.Spike(now).value_or(0);
    snapshot.memory = memory;
  }
  snapshot.history = History(now);
  return snapshot;
}

namespace {

// The amounts of each resource's statistics, for the field-wise union and what may lower it:
// one list, so a field added to CpuStats or MemoryStats is merged and watched alike.
constexpr std::array kCpuAmounts = {&CpuStats::base_millis, &CpuStats::peak_millis,
                                    &CpuStats::daily_base_millis, &CpuStats::daily_peak_millis,
                                    &CpuStats::spike_millis};
constexpr std::array kMemoryAmounts = {
    &MemoryStats::base_bytes,  &MemoryStats::peak_bytes,       &MemoryStats::max_7d_bytes,
    &MemoryStats::oom_bytes,   &MemoryStats::daily_base_bytes, &MemoryStats::daily_peak_bytes,
    &MemoryStats::spike_bytes, &MemoryStats::pressure_bytes};

// Each amount the larger of the two.
template <typename Stats, size_t N>
Stats LargerOfEach(const Stats& a, const Stats& b, const std::array<int64_t Stats::*, N>& amounts) {
  Stats merged;
  for (int64_t Stats::*amount : amounts) merged.*amount = std::max(a.*amount, b.*amount);
  return merged;
}

// The union of one resource's statistics: known to either, known to the result.
template <typename Stats, size_t N>
std::optional<Stats> UnionOf(const std::optional<Stats>& a, const std::optional<Stats>& b,
                             const std::array<int64_t Stats::*, N>& amounts) {
  if (a.has_value() && b.has_value()) return LargerOfEach(*a, *b, amounts);
  return a.has_value() ? a : b;
}

// Whether `before` held the union's `amount` and `after` has less.
template <typename T>
bool Lowers(T merged, T before, T after) {
  return before == merged && after < before;
}

// MayLowerUnion for one resource.
template <typename Stats, size_t N>
bool MayLower(const std::optional<Stats>& merged, const std::optional<Stats>& before,
              const std::optional<Stats>& after, const std::array<int64_t Stats::*, N>& amounts) {
  if (!before.has_value()) return false;
  if (!after.has_value() || !merged.has_value()) return true;
  for (int64_t Stats::*amount : amounts) {
    if (Lowers((*merged).*amount, (*before).*amount, (*after).*amount)) return true;
  }
  return false;
}

}  // namespace

UsageSnapshot MergeSnapshots(const UsageSnapshot& a, const UsageSnapshot& b) {
  UsageSnapshot merged;
  merged.history = std::max(a.history, b.history);
  merged.cpu = UnionOf(a.cpu, b.cpu, kCpuAmounts);
  merged.memory = UnionOf(a.memory, b.memory, kMemoryAmounts);
  return merged;
}

bool MayLowerUnion(const UsageSnapshot& merged, const UsageSnapshot& before,
                   const UsageSnapshot& after) {
  return Lowers(merged.history, before.history, after.history) ||
         MayLower(merged.cpu, before.cpu, after.cpu, kCpuAmounts) ||
         MayLower(merged.memory, before.memory, after.memory, kMemoryAmounts);
}

}  // namespace headroom
