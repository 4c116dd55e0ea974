#pragma once

// Maximum of samples per fixed time bucket, over a fixed number of recent buckets: a ring
// of (bucket number, max) pairs. Bucket k covers [k x width, (k + 1) x width) since the Unix
// epoch, so hourly buckets line up with UTC hours. Memory is fixed: 16 bytes per bucket.
//
// headroom keeps two per resource per container: hourly buckets over the last 7 days (the
// recurring daily peak and the 7-day max) and minute buckets over the last hour (a fresh
// spike counts at once).

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "absl/time/time.h"

namespace headroom {

class BucketedMax {
 public:
  BucketedMax(absl::Duration bucket_width, int num_buckets);

  // Records a sample. A sample older than the ring's reach is ignored; one in an older
  // bucket that is still kept raises that bucket's max.
  void Add(absl::Time at, int64_t value);

  // Max over buckets that lie within the last `span` before `now` (a bucket counts when it
  // overlaps (now - span, now]) and for which `keep(bucket_number)` holds; nullopt if none.
  std::optional<int64_t> Max(absl::Time now, absl::Duration span,
                             const std::function<bool(int64_t)>& keep = nullptr) const;

  int64_t BucketNumber(absl::Time at) const;
  absl::Duration bucket_width() const { return width_; }

  struct Bucket {
    int64_t number;  // bucket index since the epoch; INT64_MIN when empty
    int64_t max;
  };
  // The ring's slots (for checkpoints); empty slots have number == kEmpty.
  const std::vector<Bucket>& buckets() const { return buckets_; }
  // Restores one bucket (from a checkpoint), as Add would have left it.
  void Restore(const Bucket& bucket);

  static constexpr int64_t kEmpty = INT64_MIN;

 private:
  absl::Duration width_;
  std::vector<Bucket> buckets_;
  int64_t newest_ = kEmpty;  // highest bucket number written
};

}  // namespace headroom
