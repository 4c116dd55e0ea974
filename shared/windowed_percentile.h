#pragma once

// Percentile of the samples inside a sliding time window, e.g. the P75 of CPU over the last
// 10 minutes that seed 000 uses as a container's base demand.
//
// Percentile method: linear interpolation between closest ranks (rank = q x (n - 1)), the
// method of Prometheus' quantile_over_time, which CruiseKube's Prometheus queries use. The
// result is rounded up to a whole unit.
//
// Memory bound: at most `max_samples` samples are kept (24 bytes each). When samples arrive
// faster than window / max_samples the oldest are dropped first, so the window covers the
// most recent max_samples samples. The default (512) holds a 30-minute window sampled every
// 4 seconds, or a 10-minute window every 1.2 seconds.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace headroom {

class WindowedPercentile {
 public:
  static constexpr size_t kDefaultMaxSamples = 512;

  WindowedPercentile(absl::Duration window, size_t max_samples = kDefaultMaxSamples);

  // Adds a sample. Samples must come in time order: one older than the newest kept sample
  // gets InvalidArgument and is not added.
  absl::Status Add(absl::Time at, int64_t value);

  // The q-quantile (0 <= q <= 1) of the samples in (now - window, now]; nullopt when the
  // window holds no sample.
  std::optional<int64_t> Percentile(double q, absl::Time now) const;

  size_t size() const { return samples_.size(); }
  absl::Duration window() const { return window_; }

  struct Sample {
    absl::Time at;
    int64_t value;
  };
  // The kept samples, oldest first (for checkpoints).
  const std::deque<Sample>& samples() const { return samples_; }

 private:
  absl::Duration window_;
  size_t max_samples_;
  std::deque<Sample> samples_;
};

// The q-quantile of `values` by linear interpolation between closest ranks, rounded up;
// nullopt for no values. Reorders `values`.
std::optional<int64_t> InterpolatedPercentile(std::vector<int64_t>& values, double q);

// The smallest reserve R for which the usage above it, sum(max(0, v - R)), is at most
// `fraction` of the usage, sum(v): with `fraction` 0, the max. Negative values count as 0;
// nullopt for no values. Reorders `values`.
std::optional<int64_t> ReserveForShortfall(std::vector<int64_t>& values, double fraction);

}  // namespace headroom
