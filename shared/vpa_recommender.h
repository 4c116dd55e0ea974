#pragma once

// The Kubernetes Vertical Pod Autoscaler's recommender for one container, as seed 001
// describes it (VPA 0.13; constants checked against upstream's recommender):
// - CPU: a decaying exponential histogram (first bucket 0.01 cores, 5% growth, 176 buckets
//   up to 1000 cores, half-life 24 h); each sample weighs max(CPU request in cores, 0.1), so
//   with no request it weighs the seed's fixed 0.1;
// - memory: one peak per 24 h aggregation interval enters a decaying exponential histogram
//   (first bucket 10 MB, 5% growth, 176 buckets up to 1e12 bytes, weight 1, half-life 24 h);
//   a larger sample within the interval replaces the interval's peak;
// - OOM: max(used x 1.2, used + 100 MiB) enters as a memory peak, where used = max(memory at
//   the OOM, the interval's usage peak);
// - estimators: percentile (target P90, lower bound P50, upper bound P95), margin (+15%),
//   confidence multiplier (1 + multiplier / confidence)^exponent for the bounds (upper 1.0 /
//   1.0, lower 0.001 / -2.0; confidence = min(days between first and last CPU sample, CPU
//   samples / 1440)), minimum resources (25m CPU and 250 MiB per pod, split evenly over its
//   containers), then capping to the container policy's min/max allowed;
// - uncappedTarget is the target before capping.

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "shared/histogram.h"
#include "shared/resource.h"

namespace headroom {

struct VpaConfig {
  double target_cpu_percentile = 0.9;
  double lower_bound_cpu_percentile = 0.5;
  double upper_bound_cpu_percentile = 0.95;
  double target_memory_percentile = 0.9;
  double lower_bound_memory_percentile = 0.5;
  double upper_bound_memory_percentile = 0.95;
  double safety_margin_fraction = 0.15;
  int64_t pod_min_cpu_millis = 25;
  int64_t pod_min_memory_bytes = 250LL << 20;
  absl::Duration cpu_half_life = absl::Hours(24);
  absl::Duration memory_half_life = absl::Hours(24);
  absl::Duration memory_aggregation_interval = absl::Hours(24);
  double oom_bump_up_ratio = 1.2;
  int64_t oom_min_bump_up_bytes = 100LL << 20;
  double upper_bound_multiplier = 1.0;
  double upper_bound_exponent = 1.0;
  double lower_bound_multiplier = 0.001;
  double lower_bound_exponent = -2.0;
  double cpu_min_sample_weight = 0.1;
  double memory_sample_weight = 1.0;

  absl::Status Validate() const;
};

// The container resource policy's bounds (VerticalPodAutoscaler containerPolicies).
struct VpaContainerPolicy {
  std::optional<ResourceAmounts> min_allowed;
  std::optional<ResourceAmounts> max_allowed;
};

struct VpaRecommendation {
  ResourceAmounts target;
  ResourceAmounts lower_bound;
  ResourceAmounts upper_bound;  // INT64_MAX when confidence is zero (a single sample)
  ResourceAmounts uncapped_target;
  double confidence_days = 0;
};

// Everything a VpaContainerModel needs to resume after a restart (VPA keeps the same in its
// VerticalPodAutoscalerCheckpoint objects).
struct VpaCheckpoint {
  HistogramCheckpoint cpu;
  HistogramCheckpoint memory;
  int64_t cpu_samples = 0;
  std::optional<absl::Time> first_cpu_sample;
  std::optional<absl::Time> last_cpu_sample;
  std::optional<absl::Time> window_end;
  std::optional<absl::Time> last_memory_sample;
  int64_t memory_peak_bytes = 0;
  int64_t oom_peak_bytes = 0;
};

class VpaContainerModel {
 public:
  explicit VpaContainerModel(const VpaConfig& config = {});

  // A CPU usage sample over the interval ending at `at`; `request_millis` is the container's
  // CPU request then (0 if none).
  void AddCpuSample(absl::Time at, int64_t usage_millis, int64_t request_millis = 0);
  // A memory usage sample. Returns false (and changes nothing) for a sample older than the
  // previous one, as upstream does.
  bool AddMemorySample(absl::Time at, int64_t usage_bytes);
  // An OOM kill at `at` with `memory_bytes` in use (or the limit it hit). FailedPrecondition
  // when the event is older than the current aggregation interval allows.
  absl::Status RecordOom(absl::Time at, int64_t memory_bytes);

  // nullopt before any CPU or memory sample.
  std::optional<VpaRecommendation> Recommend(int containers_in_pod = 1,
                                             const VpaContainerPolicy& policy = {}) const;

  // The current memory aggregation interval (for checkpoints and explanations).
  struct Peak {
    std::optional<absl::Time> window_end;
    int64_t usage_bytes = 0;
    int64_t oom_bytes = 0;  // the bumped OOM value, when an OOM set the peak
  };
  Peak memory_peak() const { return {window_end_, memory_peak_, oom_peak_}; }

  VpaCheckpoint SaveCheckpoint() const;
  // Restores a fresh model (InvalidArgument for a checkpoint that does not fit the
  // histograms; the model is then left as it was).
  absl::Status LoadCheckpoint(const VpaCheckpoint& checkpoint);

  const DecayingHistogram& cpu_histogram() const { return cpu_; }
  const DecayingHistogram& memory_peaks() const { return memory_; }
  int64_t cpu_samples() const { return cpu_samples_; }

 private:
  bool AddMemoryPeakSample(absl::Time at, int64_t usage_bytes, bool is_oom);
  int64_t MaxMemoryPeak() const { return std::max(memory_peak_, oom_peak_); }
  double Confidence() const;

  VpaConfig config_;
  DecayingHistogram cpu_;
  DecayingHistogram memory_;
  int64_t cpu_samples_ = 0;
  std::optional<absl::Time> first_cpu_sample_;
  std::optional<absl::Time> last_cpu_sample_;
  // Memory peak aggregation: the current interval ends at window_end_.
  std::optional<absl::Time> window_end_;
  std::optional<absl::Time> last_memory_sample_;
  int64_t memory_peak_ = 0;
  int64_t oom_peak_ = 0;
};

// The VPA histogram bucketing schemes (CPU in cores, memory in bytes).
HistogramOptions VpaCpuHistogramOptions();
HistogramOptions VpaMemoryHistogramOptions();

}  // namespace headroom
