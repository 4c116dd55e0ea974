#pragma once

// Weighted histograms as the Kubernetes Vertical Pod Autoscaler's recommender keeps them
// (vertical-pod-autoscaler/pkg/recommender/util), which Crane reuses. Seed 001 describes them:
// - bucketing: linear (fixed-size buckets from 0) or exponential (bucket n has size
//   first x ratio^n, so bucket n starts at first x (ratio^n - 1) / (ratio - 1));
// - a percentile is the END of the first bucket at which the cumulative weight reaches
//   p x total (the start of the last bucket if that is where it is reached);
// - a decaying histogram multiplies each sample's weight by 2^((t - reference) / halfLife),
//   so newer samples count more, and renormalises (shifts the reference time) when the
//   exponent would exceed 100 half-lives;
// - checkpoints store bucket weights scaled so the largest is 10000, plus the total weight.

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace headroom {

class HistogramOptions {
 public:
  // Buckets of `bucket_size` from 0; the last one starts at or beyond `max_value`.
  static absl::StatusOr<HistogramOptions> Linear(double max_value, double bucket_size,
                                                 double epsilon);
  // Exponentially growing buckets; the first covers [0, first_bucket_size).
  static absl::StatusOr<HistogramOptions> Exponential(double max_value, double first_bucket_size,
                                                      double ratio, double epsilon);

  int num_buckets() const { return num_buckets_; }
  // The bucket holding `value`; values below 0 go to the first bucket and values beyond the
  // range to the last.
  int FindBucket(double value) const;
  double BucketStart(int bucket) const;
  // Smallest weight for a bucket to count as non-empty.
  double epsilon() const { return epsilon_; }

 private:
  HistogramOptions(bool exponential, int num_buckets, double size, double ratio, double epsilon)
      : exponential_(exponential),
        num_buckets_(num_buckets),
        size_(size),
        ratio_(ratio),
        epsilon_(epsilon) {}

  bool exponential_;
  int num_buckets_;
  double size_;  // bucket size (linear) or first bucket size (exponential)
  double ratio_;
  double epsilon_;
};

struct HistogramCheckpoint {
  std::optional<absl::Time> reference_time;  // decaying histograms only
  double total_weight = 0;
  std::map<int, uint32_t> bucket_weights;  // scaled so the largest is kMaxCheckpointWeight
};

inline constexpr uint32_t kMaxCheckpointWeight = 10000;

class Histogram {
 public:
  explicit Histogram(const HistogramOptions& options);

  // Adds `weight` (>= 0; negative weights are ignored) at `value`.
  void AddSample(double value, double weight);
  // Removes weight previously added; a bucket never goes below zero.
  void SubtractSample(double value, double weight);
  // Multiplies every weight by `factor` (>= 0).
  void Scale(double factor);

  // 0 for an empty histogram; `percentile` is clamped to [0, 1] in effect.
  double Percentile(double percentile) const;
  bool IsEmpty() const;
  double total_weight() const { return total_weight_; }
  const HistogramOptions& options() const { return options_; }

  HistogramCheckpoint SaveToCheckpoint() const;
  // Adds the checkpoint's weights to this histogram. InvalidArgument for a bucket index
  // outside this histogram's range or a negative total weight; nothing is changed then.
  absl::Status LoadFromCheckpoint(const HistogramCheckpoint& checkpoint);

 private:
  void UpdateMinAndMaxBucket();

  HistogramOptions options_;
  std::vector<double> weights_;
  double total_weight_ = 0;
  int min_bucket_;  // first bucket with weight >= epsilon (num_buckets - 1 when empty)
  int max_bucket_;  // last bucket with weight >= epsilon (0 when empty)
};

class DecayingHistogram {
 public:
  // Once the exponent reaches this many half-lives the reference time is shifted.
  static constexpr int kMaxDecayExponent = 100;

  DecayingHistogram(const HistogramOptions& options, absl::Duration half_life);

  void AddSample(double value, double weight, absl::Time time);
  void SubtractSample(double value, double weight, absl::Time time);
  double Percentile(double percentile) const { return histogram_.Percentile(percentile); }
  bool IsEmpty() const { return histogram_.IsEmpty(); }
  double total_weight() const { return histogram_.total_weight(); }
  std::optional<absl::Time> reference_time() const { return reference_; }

  HistogramCheckpoint SaveToCheckpoint() const;
  absl::Status LoadFromCheckpoint(const HistogramCheckpoint& checkpoint);

 private:
  double DecayFactor(absl::Time time);
  void ShiftReferenceTime(absl::Time time);

  Histogram histogram_;
  absl::Duration half_life_;
  std::optional<absl::Time> reference_;  // set by the first sample
};

}  // namespace headroom
