#pragma once

// Crane's resource recommender (gocrane/crane v0.9, seed 001), for one container:
//   CPU:    percentile -> margin -> target utilisation -> normalisation
//   memory: percentile -> margin -> target utilisation -> OOM protection -> normalisation
// - percentiles come from VPA's decaying histogram (half-life 24 h) with linear buckets of
//   0.1 cores (up to 100 cores) and 100 MiB (up to 100,000 MiB); a sample weighs
//   max(1e-5, its own value), so heavier usage counts more;
// - P99 for both, margin 15%, target utilisation 1.0 (divide by it);
// - OOM protection: max(oomMemory + 100 MiB, oomMemory x 1.2) for the largest OOM in the last
//   168 h;
// - normalisation (optional): the smallest entry of a size table that holds the
//   recommendation in both resources.
// Crane queries its history (168 h) from a metrics store at every run, so the recommender
// takes the samples as a batch; samples outside the history window are ignored.

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "shared/histogram.h"
#include "shared/resource.h"

namespace headroom {

struct CraneConfig {
  double cpu_percentile = 0.99;
  double memory_percentile = 0.99;
  double cpu_margin_fraction = 0.15;
  double memory_margin_fraction = 0.15;
  double cpu_target_utilization = 1.0;
  double memory_target_utilization = 1.0;
  absl::Duration history = absl::Hours(168);
  absl::Duration half_life = absl::Hours(24);
  double min_sample_weight = 1e-5;
  bool oom_protection = true;
  absl::Duration oom_history = absl::Hours(168);
  double oom_bump_ratio = 1.2;
  int64_t oom_min_bump_bytes = 100LL << 20;
  // Size table for normalisation; empty means no normalisation.
  std::vector<ResourceAmounts> specification;

  absl::Status Validate() const;
};

struct UsageSample {
  absl::Time at;
  std::optional<int64_t> cpu_millis;
  std::optional<int64_t> memory_bytes;
};

struct OomSample {
  absl::Time at;
  int64_t memory_bytes = 0;
};

struct CraneRecommendation {
  ResourceAmounts request;
  bool oom_protected = false;  // the OOM floor raised the memory recommendation
  // Index into CraneConfig::specification when normalised; nullopt when there is no table or
  // no entry is large enough (then `request` is the un-normalised value).
  std::optional<size_t> specification_index;
};

// Crane's recommender kept up to date sample by sample (for continuous use); samples that
// leave the history window are subtracted again, so the result equals CraneRecommend over
// the same window. Memory: the samples in the window (32 bytes each).
class CraneContainerModel {
 public:
  explicit CraneContainerModel(const CraneConfig& config = {});

  // Samples must come in time order; an older one is ignored (returns false).
  bool AddSample(const UsageSample& sample);
  void AddOom(const OomSample& oom);
  // nullopt when the window before `now` has no CPU or no memory sample.
  std::optional<CraneRecommendation> Recommend(absl::Time now);

 private:
  void Expire(absl::Time now);

  CraneConfig config_;
  DecayingHistogram cpu_;
  DecayingHistogram memory_;
  std::deque<UsageSample> window_;
  std::deque<OomSample> ooms_;
  int64_t cpu_count_ = 0;
  int64_t memory_count_ = 0;
};

// nullopt when no CPU or no memory sample lies within the history window before `now`.
std::optional<CraneRecommendation> CraneRecommend(const std::vector<UsageSample>& samples,
                                                  const std::vector<OomSample>& ooms,
                                                  absl::Time now, const CraneConfig& config = {});

HistogramOptions CraneCpuHistogramOptions();
HistogramOptions CraneMemoryHistogramOptions();

}  // namespace headroom
