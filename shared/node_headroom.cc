#include "shared/node_headroom.h"

#include <algorithm>

#include "shared/footprint.h"
#include "shared/wide_int.h"
#include "shared/windowed_percentile.h"

namespace headroom {
namespace {

// Slots recorded in the window ending with the current slot.
int RecordedSlots(const BucketedMax& profile, absl::Time now, absl::Duration window) {
  const ProfileSlotRange range = ProfileWindow(profile, now, window);
  int recorded = 0;
  for (const BucketedMax::Bucket& slot : profile.buckets()) recorded += range.Holds(slot.number);
  return recorded;
}

}  // namespace

std::optional<int64_t> MeasuredSharedHeadroom(const std::vector<ProfiledAmount>& containers,
                                              absl::Time now, absl::Duration window,
                                              double shortfall, int min_slots) {
  if (containers.empty() || containers.front().profile == nullptr) return std::nullopt;
  const ProfileSlotRange range = ProfileWindow(*containers.front().profile, now, window);
  const size_t slots = static_cast<size_t>(range.size());
  std::vector<int64_t> sums(slots, 0);
  std::vector<bool> recorded(slots, false);
  WideInt bases = 0;
  for (const ProfiledAmount& container : containers) {
    if (container.profile == nullptr) return std::nullopt;
    bases += container.base;
    for (const BucketedMax::Bucket& slot : container.profile->buckets()) {
      if (!range.Holds(slot.number)) continue;
      const size_t index = static_cast<size_t>(slot.number - range.oldest);
      sums[index] = SaturatingAdd(sums[index], slot.max);
      recorded[index] = true;
    }
  }
  std::vector<int64_t> values;
  values.reserve(slots);
  for (size_t i = 0; i < slots; ++i) {
    if (recorded[i]) values.push_back(sums[i]);
  }
  if (static_cast<int>(values.size()) < std::max(1, min_slots)) return std::nullopt;
  const std::optional<int64_t> together = ReserveForShortfall(values, shortfall);
  if (!together.has_value()) return std::nullopt;
  return SaturateToInt64(std::max<WideInt>(0, static_cast<WideInt>(*together) - bases));
}

bool ProfileMeasured(const BucketedMax& profile, absl::Time now, absl::Duration min_history,
                     const UsageStatsConfig& config) {
  const absl::Duration needed = std::min(min_history, config.profile_window) / 2;
  absl::Duration remainder;
  const int64_t slots = absl::IDivDuration(needed, config.profile_slot, &remainder);
  return RecordedSlots(profile, now, config.profile_window) >= std::max<int64_t>(1, slots);
}

NodeMeasurement MeasureNode(const std::vector<std::vector<ProfiledContainer>>& pods, absl::Time now,
                            absl::Duration min_history, const UsageStatsConfig& config) {
  NodeMeasurement result;
  result.measured.assign(pods.size(), false);
  std::vector<ProfiledAmount> cpu;
  std::vector<ProfiledAmount> memory;
  for (size_t p = 0; p < pods.size(); ++p) {
    bool measured = !pods[p].empty();
    for (const ProfiledContainer& c : pods[p]) {
      measured = measured && c.stats != nullptr &&
                 ProfileMeasured(c.stats->cpu().profile(), now, min_history, config) &&
                 ProfileMeasured(c.stats->memory().profile(), now, min_history, config);
    }
    if (!measured) continue;
    result.measured[p] = true;
    for (const ProfiledContainer& c : pods[p]) {
      cpu.push_back({&c.stats->cpu().profile(), c.base.cpu_millis});
      memory.push_back({&c.stats->memory().profile(), c.base.memory_bytes});
    }
  }
  if (cpu.empty()) return result;
  const std::optional<int64_t> cpu_headroom =
      MeasuredSharedHeadroom(cpu, now, config.profile_window, config.cpu_spike_shortfall, 1);
  const std::optional<int64_t> memory_headroom =
      MeasuredSharedHeadroom(memory, now, config.profile_window, config.memory_spike_shortfall, 1);
  if (!cpu_headroom.has_value() || !memory_headroom.has_value()) {
    result.measured.assign(pods.size(), false);
    return result;
  }
  result.shared_headroom = ResourceAmounts{*cpu_headroom, *memory_headroom};
  return result;
}

}  // namespace headroom
