#include "shared/histogram.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace headroom {
namespace {

// More buckets than this is a configuration mistake, not a histogram.
constexpr int kMaxBuckets = 1'000'000;

}  // namespace

absl::StatusOr<HistogramOptions> HistogramOptions::Linear(double max_value, double bucket_size,
                                                          double epsilon) {
  if (!(max_value > 0) || !(bucket_size > 0) || !(epsilon > 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("linear histogram needs positive max value, bucket size and epsilon (got ",
                     max_value, ", ", bucket_size, ", ", epsilon, ")"));
  }
  const double buckets = std::ceil(max_value / bucket_size) + 1;
  if (buckets > kMaxBuckets) {
    return absl::InvalidArgumentError(absl::StrCat("linear histogram would need ", buckets,
                                                   " buckets (at most ", kMaxBuckets, ")"));
  }
  return HistogramOptions(false, static_cast<int>(buckets), bucket_size, 1, epsilon);
}

absl::StatusOr<HistogramOptions> HistogramOptions::Exponential(double max_value,
                                                               double first_bucket_size,
                                                               double ratio, double epsilon) {
  if (!(max_value > 0) || !(first_bucket_size > 0) || !(ratio > 1) || !(epsilon > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "exponential histogram needs positive max value, first bucket size and epsilon and a "
        "ratio above 1 (got ",
        max_value, ", ", first_bucket_size, ", ", ratio, ", ", epsilon, ")"));
  }
  const double buckets =
      std::ceil(std::log(max_value * (ratio - 1) / first_bucket_size + 1) / std::log(ratio)) + 1;
  if (buckets > kMaxBuckets) {
    return absl::InvalidArgumentError(absl::StrCat("exponential histogram would need ", buckets,
                                                   " buckets (at most ", kMaxBuckets, ")"));
  }
  return HistogramOptions(true, static_cast<int>(buckets), first_bucket_size, ratio, epsilon);
}

int HistogramOptions::FindBucket(double value) const {
  int bucket = 0;
  if (exponential_) {
    if (!(value >= size_)) return 0;  // also catches NaN
    bucket = static_cast<int>(std::min<double>(
        std::log(value * (ratio_ - 1) / size_ + 1) / std::log(ratio_), num_buckets_));
  } else {
    if (!(value > 0)) return 0;
    bucket = static_cast<int>(std::min<double>(value / size_, num_buckets_));
  }
  return std::clamp(bucket, 0, num_buckets_ - 1);
}

double HistogramOptions::BucketStart(int bucket) const {
  if (exponential_) return size_ * (std::pow(ratio_, bucket) - 1) / (ratio_ - 1);
  return bucket * size_;
}

Histogram::Histogram(const HistogramOptions& options)
    : options_(options),
      weights_(static_cast<size_t>(options.num_buckets()), 0.0),
      min_bucket_(options.num_buckets() - 1),
      max_bucket_(0) {}

void Histogram::AddSample(double value, double weight) {
  if (!(weight >= 0)) return;
  const int bucket = options_.FindBucket(value);
  weights_[static_cast<size_t>(bucket)] += weight;
  total_weight_ += weight;
  if (weights_[static_cast<size_t>(bucket)] >= options_.epsilon()) {
    min_bucket_ = std::min(min_bucket_, bucket);
    max_bucket_ = std::max(max_bucket_, bucket);
  }
}

void Histogram::SubtractSample(double value, double weight) {
  if (!(weight >= 0)) return;
  const int bucket = options_.FindBucket(value);
  double& slot = weights_[static_cast<size_t>(bucket)];
  const double removed = std::min(slot, weight);
  slot -= removed;
  total_weight_ = std::max(0.0, total_weight_ - removed);
  if (slot < options_.epsilon() && (bucket == min_bucket_ || bucket == max_bucket_)) {
    UpdateMinAndMaxBucket();
  }
}

void Histogram::Scale(double factor) {
  if (!(factor >= 0)) return;
  for (int bucket = min_bucket_; bucket <= max_bucket_; ++bucket) {
    weights_[static_cast<size_t>(bucket)] *= factor;
  }
  total_weight_ *= factor;
  UpdateMinAndMaxBucket();
}

void Histogram::UpdateMinAndMaxBucket() {
  const int last = options_.num_buckets() - 1;
  while (weights_[static_cast<size_t>(min_bucket_)] < options_.epsilon() && min_bucket_ < last) {
    ++min_bucket_;
  }
  while (weights_[static_cast<size_t>(max_bucket_)] < options_.epsilon() && max_bucket_ > 0) {
    --max_bucket_;
  }
}

bool Histogram::IsEmpty() const {
  return weights_[static_cast<size_t>(min_bucket_)] < options_.epsilon();
}

double Histogram::Percentile(double percentile) const {
  if (IsEmpty()) return 0;
  const double threshold = percentile * total_weight_;
  double partial = 0;
  int bucket = min_bucket_;
  for (; bucket < max_bucket_; ++bucket) {
    partial += weights_[static_cast<size_t>(bucket)];
    if (partial >= threshold) break;
  }
  // The end of the bucket, except for the last bucket, which has no end.
  if (bucket < options_.num_buckets() - 1) return options_.BucketStart(bucket + 1);
  return options_.BucketStart(bucket);
}

HistogramCheckpoint Histogram::SaveToCheckpoint() const {
  HistogramCheckpoint checkpoint;
  checkpoint.total_weight = total_weight_;
  double largest = 0;
  for (int bucket = min_bucket_; bucket <= max_bucket_; ++bucket) {
    largest = std::max(largest, weights_[static_cast<size_t>(bucket)]);
  }
  if (largest <= 0) return checkpoint;
  const double ratio = kMaxCheckpointWeight / largest;
  for (int bucket = min_bucket_; bucket <= max_bucket_; ++bucket) {
    const auto scaled =
        static_cast<uint32_t>(std::lround(weights_[static_cast<size_t>(bucket)] * ratio));
    if (scaled > 0) checkpoint.bucket_weights[bucket] = scaled;
  }
  return checkpoint;
}

absl::Status Histogram::LoadFromCheckpoint(const HistogramCheckpoint& checkpoint) {
  if (!(checkpoint.total_weight >= 0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("checkpoint has a negative total weight (", checkpoint.total_weight, ")"));
  }
  uint64_t sum = 0;
  for (const auto& [bucket, weight] : checkpoint.bucket_weights) {
    if (bucket < 0 || bucket >= options_.num_buckets()) {
      return absl::InvalidArgumentError(absl::StrCat("checkpoint bucket ", bucket,
                                                     " is outside the histogram's 0..",
                                                     options_.num_buckets() - 1));
    }
    sum += weight;
  }
  if (sum == 0) return absl::OkStatus();
  const double ratio = checkpoint.total_weight / static_cast<double>(sum);
  for (const auto& [bucket, weight] : checkpoint.bucket_weights) {
    weights_[static_cast<size_t>(bucket)] += weight * ratio;
  }
  total_weight_ += checkpoint.total_weight;
  min_bucket_ = 0;
  max_bucket_ = options_.num_buckets() - 1;
  UpdateMinAndMaxBucket();
  return absl::OkStatus();
}

DecayingHistogram::DecayingHistogram(const HistogramOptions& options, absl::Duration half_life)
    : histogram_(options),
      half_life_(half_life > absl::ZeroDuration() ? half_life : absl::Hours(24)) {}

void DecayingHistogram::AddSample(double value, double weight, absl::Time time) {
  histogram_.AddSample(value, weight * DecayFactor(time));
}

void DecayingHistogram::SubtractSample(double value, double weight, absl::Time time) {
  histogram_.SubtractSample(value, weight * DecayFactor(time));
}

double DecayingHistogram::DecayFactor(absl::Time time) {
  if (!reference_.has_value() || time > *reference_ + kMaxDecayExponent * half_life_) {
    ShiftReferenceTime(time);
  }
  return std::exp2(absl::FDivDuration(time - *reference_, half_life_));
}

void DecayingHistogram::ShiftReferenceTime(absl::Time time) {
  // The new reference is a whole number of half-lives from the Unix epoch (upstream rounds
  // from Go's zero time; the two agree whenever the half-life divides 24 hours).
  absl::Duration remainder;
  const absl::Duration since_epoch = time - absl::UnixEpoch();
  int64_t halves = absl::IDivDuration(since_epoch, half_life_, &remainder);
  if (remainder * 2 >= half_life_) ++halves;  // round half away from zero, as Go does
  if (remainder * 2 <= -half_life_) --halves;
  const absl::Time rounded = absl::UnixEpoch() + halves * half_life_;
  if (reference_.has_value()) {
    const double exponent = std::round(absl::FDivDuration(*reference_ - rounded, half_life_));
    histogram_.Scale(std::ldexp(1.0, static_cast<int>(exponent)));
  }
  reference_ = rounded;
}

HistogramCheckpoint DecayingHistogram::SaveToCheckpoint() const {
  HistogramCheckpoint checkpoint = histogram_.SaveToCheckpoint();
  checkpoint.reference_time = reference_;
  return checkpoint;
}

absl::Status DecayingHistogram::LoadFromCheckpoint(const HistogramCheckpoint& checkpoint) {
  if (absl::Status status = histogram_.LoadFromCheckpoint(checkpoint); !status.ok()) {
    return status;
  }
  reference_ = checkpoint.reference_time;
  return absl::OkStatus();
}

}  // namespace headroom
