#include "shared/bucketed_max.h"

#include <algorithm>

namespace headroom {

BucketedMax::BucketedMax(absl::Duration bucket_width, int num_buckets)
    : width_(bucket_width > absl::ZeroDuration() ? bucket_width : absl::Seconds(1)),
      buckets_(static_cast<size_t>(std::max(1, num_buckets)), Bucket{kEmpty, 0}) {}

int64_t BucketedMax::BucketNumber(absl::Time at) const {
  // Floor division: IDivDuration truncates towards zero.
  absl::Duration remainder;
  int64_t quotient = absl::IDivDuration(at - absl::UnixEpoch(), width_, &remainder);
  if (remainder < absl::ZeroDuration()) --quotient;
  return quotient;
}

void BucketedMax::Add(absl::Time at, int64_t value) {
  const int64_t number = BucketNumber(at);
  const int64_t size = static_cast<int64_t>(buckets_.size());
  if (newest_ != kEmpty && number <= newest_ - size) return;  // fell off the ring
  Bucket& slot = buckets_[static_cast<size_t>(((number % size) + size) % size)];
  if (slot.number != number) {
    if (slot.number != kEmpty && slot.number > number) return;  // a newer bucket owns it
    slot = Bucket{number, value};
  } else {
    slot.max = std::max(slot.max, value);
  }
  newest_ = std::max(newest_, number);
}

void BucketedMax::Restore(const Bucket& bucket) {
  if (bucket.number == kEmpty) return;
  Add(absl::UnixEpoch() + bucket.number * width_, bucket.max);
}

std::optional<int64_t> BucketedMax::Max(absl::Time now, absl::Duration span,
                                        const std::function<bool(int64_t)>& keep) const {
  const int64_t newest_allowed = BucketNumber(now);
  // A bucket overlaps (now - span, now] when its end is after now - span.
  const int64_t oldest_allowed = BucketNumber(now - span + absl::Nanoseconds(1));
  std::optional<int64_t> result;
  for (const Bucket& bucket : buckets_) {
    if (bucket.number == kEmpty) continue;
    if (bucket.number < oldest_allowed || bucket.number > newest_allowed) continue;
    if (keep && !keep(bucket.number)) continue;
    result = result.has_value() ? std::max(*result, bucket.max) : bucket.max;
  }
  return result;
}

}  // namespace headroom
