#pragma once

// Per-container usage statistics, as seed 000 (CruiseKube) defines them:
// - base (steady state): P75 of CPU over the last 10 minutes, of memory over the last 30;
// - peak: the max observed in the current hour of the day over the last 7 days (the
//   recurring daily peak), and at least the max of the last hour, so a fresh spike counts;
// - memory's 7-day max and the memory at the last OOM kill, for the memory limit;
// - the daily peak of the base: the largest steady state of the last 24 hours, which
//   placement, the per-node optimisation and scale-down judge by (shared/footprint.h), so a
//   node packed off-peak still holds its pods when their correlated daily peak arrives. The
//   steady state here is the P50 over `daily_base_window` (2 h), not the 10- or 30-minute
//   P75 base: over a day, the short window's largest value is a burst or a job, which is
//   headroom's to share, not a base (measured in docs/algorithm.md);
// - how long the workload container has been observed (the guard rails' warm-up,
//   shared/guard_rails.h);
// - the usage profile: the max of each 5-minute slot of the last 48 hours, aligned to the
//   epoch, from which a node measures the shared headroom of its containers together
//   (node_headroom.h), and the container's own spike: the reserve above which its profile's
//   CPU is at most 0.75% of its CPU (windowed_percentile.h's ReserveForShortfall), the max for
//   memory (footprint.h: what the container needs alone above its base).
//
// The caller feeds samples with their timestamps (CPU already PSI-adjusted, see psi.h);
// nothing here reads a clock. Hours of the day are UTC hours.
//
// Memory bound per container: four WindowedPercentile windows (at most max_window_samples
// samples of 24 bytes each), two hourly rings of 7 x 24 + 1 buckets, two hourly rings of 25
// buckets (the daily base), two minute rings of 60 buckets and two profile rings of 577
// slots (16 bytes per bucket), and at most kMaxOomRecords OOM and as many memory-pressure
// records (16 bytes each): about 26.6 KiB of
// rings plus the window samples (6.6 KiB at one sample a minute: 10 + 30 minutes of base and
// 2 x 120 minutes of steady state).

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "shared/bucketed_max.h"
#include "shared/windowed_percentile.h"

namespace headroom {

struct UsageStatsConfig {
  absl::Duration cpu_base_window = absl::Minutes(10);
  absl::Duration memory_base_window = absl::Minutes(30);
  double base_percentile = 0.75;
  // Window and percentile of the steady state whose daily peak is the daily base (P50 over
  // 2 h: a burst or a job shorter than an hour never counts as base).
  absl::Duration daily_base_window = absl::Hours(2);
  double daily_base_percentile = 0.5;
  // Days of hour-of-day history for the recurring peak and the memory max.
  int peak_history_days = 7;
  // A spike within this window always counts towards the peak.
  absl::Duration recent_peak_window = absl::Hours(1);
  // How long the memory at an OOM kill keeps raising the memory limit.
  absl::Duration oom_memory_retention = absl::Hours(7 * 24);
  size_t max_window_samples = WindowedPercentile::kDefaultMaxSamples;
  // The usage profile (node_headroom.h): the max of each `profile_slot` over the last
  // `profile_window`, aligned to the epoch so the profiles of a node's containers add up slot
  // by slot, and the container's spike: the reserve its own profile needs so that the usage
  // above it is at most `*_spike_shortfall` of its usage over the window (windowed_percentile.h's
  // ReserveForShortfall; 0: the max). A node's shared headroom uses the same fractions.
  absl::Duration profile_slot = absl::Minutes(5);
  absl::Duration profile_window = absl::Hours(48);
  double cpu_spike_shortfall = 0.0075;
  double memory_spike_shortfall = 0;

  absl::Status Validate() const;
  // Slots a profile holds: the window's, and the current slot.
  int ProfileSlots() const;
};

struct CpuStats {
  int64_t base_millis = 0;
  int64_t peak_millis = 0;
  int64_t daily_base_millis = 0;  // largest steady state of the last 24 h; 0: unknown
  int64_t daily_peak_millis = 0;  // largest sample of the last 24 h; 0: unknown
  // The reserve its profile (5-minute maxima) needs for at most 0.75% of its CPU above it (the
  // spike shortfall); 0: unknown.
  int64_t spike_millis = 0;
};

struct MemoryStats {
  int64_t base_bytes = 0;
  int64_t peak_bytes = 0;
  int64_t max_7d_bytes = 0;      // max over the peak history (7 days by default)
  int64_t oom_bytes = 0;         // memory at the largest recent OOM kill; 0 if none
  int64_t daily_base_bytes = 0;  // largest steady state of the last 24 h; 0: unknown
  int64_t daily_peak_bytes = 0;  // largest sample of the last 24 h; 0: unknown
  int64_t spike_bytes = 0;       // the max of the profile (the last 48 h); 0: unknown
  // Memory in use during the largest recent sustained memory stall (memory_pressure.h); 0 if
  // none. Kept as long as an OOM record.
  int64_t pressure_bytes = 0;
};

// The slots of a profile in a window ending with the slot of `now`: whole slots (at least
// one), the current one included, so a daily pattern shows the same number of times in a
// window of whole days.
struct ProfileSlotRange {
  int64_t oldest = 0;  // slot numbers, both included
  int64_t newest = 0;

  bool Holds(int64_t slot) const { return slot >= oldest && slot <= newest; }
  int64_t size() const { return newest - oldest + 1; }
};
ProfileSlotRange ProfileWindow(const BucketedMax& profile, absl::Time now, absl::Duration window);

// What the statistics say at one moment; a resource without samples in its windows has no
// value (no history). `history` is how long the workload container has been observed (since
// its first sample); zero without samples.
struct UsageSnapshot {
  std::optional<CpuStats> cpu;
  std::optional<MemoryStats> memory;
  absl::Duration history = absl::ZeroDuration();
};

// The longest history any source may claim: a year. Longer values (a bug, a clock far off, a
// hostile report) are clamped, so a first-sample time never lands before the epoch.
inline constexpr absl::Duration kMaxHistory = absl::Hours(365 * 24);

// The union of two replicas' (or two sources') statistics: every amount is the larger, the
// history the longer. A resource known to either is known to the result.
UsageSnapshot MergeSnapshots(const UsageSnapshot& a, const UsageSnapshot& b);

// Whether replacing `before` by `after` among the parts whose union is `merged` may lower
// the union: some amount of `before` equals the union's and `after` has less of it (or lacks
// the resource). When false, MergeSnapshots(merged, after) is the new union exactly; when
// true, it must be merged anew from every part. A fleet's workload (a DaemonSet, a large
// Deployment) has a part per node, so this keeps a report's cost independent of the fleet.
bool MayLowerUnion(const UsageSnapshot& merged, const UsageSnapshot& before,
                   const UsageSnapshot& after);

// Base and peak tracking for one resource of one container.
class ResourceUsage {
 public:
  ResourceUsage(absl::Duration base_window, double spike_shortfall, const UsageStatsConfig& config);

  // Adds a sample; InvalidArgument (and nothing recorded) if older than the newest one.
  absl::Status Add(absl::Time at, int64_t value);

  // The base at the configured percentile, or at `percentile` (0..1) when given.
  std::optional<int64_t> Base(absl::Time now,
                              std::optional<double> percentile = std::nullopt) const;
  std::optional<int64_t> Peak(absl::Time now) const;
  // Max over the whole peak history (7 days by default), and over the last 24 hours.
  std::optional<int64_t> HistoryMax(absl::Time now) const;
  std::optional<int64_t> DailyPeak(absl::Time now) const;
  // The largest steady state (P50 over the daily base window) of the last 24 hours, as it
  // stood after each sample.
  std::optional<int64_t> DailyBase(absl::Time now) const;
  // The reserve for the spike shortfall over the profile's slots within the profile window.
  std::optional<int64_t> Spike(absl::Time now) const;

  const WindowedPercentile& base_window() const { return base_; }
  const BucketedMax& hourly() const { return hourly_; }
  const BucketedMax& recent() const { return recent_; }
  const BucketedMax& daily_base() const { return daily_base_; }
  const BucketedMax& profile() const { return profile_; }

 private:
  double percentile_;
  double steady_percentile_;
  int history_days_;
  absl::Duration recent_window_;
  WindowedPercentile base_;
  BucketedMax hourly_;
  BucketedMax recent_;
  WindowedPercentile steady_;  // the steady state: P50 over the daily base window
  BucketedMax daily_base_;     // hourly max of that, over the last day
  double spike_shortfall_;
  absl::Duration profile_window_;
  BucketedMax profile_;  // max per profile slot over the profile window
};

class ContainerUsageStats {
 public:
  static constexpr size_t kMaxOomRecords = 8;

  explicit ContainerUsageStats(const UsageStatsConfig& config = {});

  // CPU in millicores (PSI-adjusted), memory in bytes. Out-of-order samples are refused.
  absl::Status AddCpu(absl::Time at, int64_t millis);
  absl::Status AddMemory(absl::Time at, int64_t bytes);
  // Records the memory in use when the container was OOM-killed.
  void RecordOom(absl::Time at, int64_t memory_bytes);
  // Records the memory in use at the end of a sustained memory stall (memory_pressure.h).
  void RecordPressure(absl::Time at, int64_t memory_bytes);

  // `base_percentile`: the workload's own (headroom.dev/base-percentile) instead of the
  // configured one.
  UsageSnapshot Snapshot(absl::Time now,
                         std::optional<double> base_percentile = std::nullopt) const;

  // When the first sample was taken (nullopt: none yet), and how long ago that was.
  std::optional<absl::Time> first_sample() const { return first_sample_; }
  absl::Duration History(absl::Time now) const;
  // Restores the first sample's time from a checkpoint (the earlier of the two wins).
  void RestoreFirstSample(absl::Time at);

  const ResourceUsage& cpu() const { return cpu_; }
  const ResourceUsage& memory() const { return memory_; }

  struct OomRecord {
    absl::Time at;
    int64_t memory_bytes;
  };
  const std::deque<OomRecord>& oom_records() const { return ooms_; }
  // The same shape: when, and the memory then in use.
  const std::deque<OomRecord>& pressure_records() const { return pressures_; }
  // The largest memory of the pressure records within the retention, with or without samples
  // (what Snapshot's pressure_bytes says when it has memory statistics).
  std::optional<int64_t> RecentPressure(absl::Time now) const {
    return LargestRecent(pressures_, now);
  }

 private:
  std::optional<int64_t> LargestRecent(const std::deque<OomRecord>& records, absl::Time now) const;

  void NoteSample(absl::Time at);

  absl::Duration oom_retention_;
  ResourceUsage cpu_;
  ResourceUsage memory_;
  std::deque<OomRecord> ooms_;
  std::deque<OomRecord> pressures_;
  std::optional<absl::Time> first_sample_;
};

}  // namespace headroom
