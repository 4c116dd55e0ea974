#include "shared/bucketed_max.h"

#include "gtest/gtest.h"

namespace headroom {
namespace {

const absl::Time kMidnight = absl::FromUnixSeconds(1'700'006'400);  // 2023-11-15 00:00 UTC

TEST(BucketedMaxTest, KeepsTheMaxPerBucket) {
  BucketedMax ring(absl::Hours(1), 4);
  ring.Add(kMidnight + absl::Minutes(5), 10);
  ring.Add(kMidnight + absl::Minutes(50), 30);
  ring.Add(kMidnight + absl::Minutes(59), 20);
  ring.Add(kMidnight + absl::Minutes(61), 5);
  EXPECT_EQ(ring.Max(kMidnight + absl::Minutes(30), absl::Minutes(10)), 30);
  EXPECT_EQ(ring.Max(kMidnight + absl::Minutes(61), absl::Minutes(1)), 5);
  EXPECT_EQ(ring.Max(kMidnight + absl::Minutes(61), absl::Hours(2)), 30);
}

TEST(BucketedMaxTest, ForgetsBucketsOlderThanTheRing) {
  BucketedMax ring(absl::Hours(1), 3);
  ring.Add(kMidnight, 100);
  ring.Add(kMidnight + absl::Hours(3), 1);  // overwrites hour 0's slot
  EXPECT_EQ(ring.Max(kMidnight + absl::Hours(3), absl::Hours(10)), 1);
  // A late sample for a bucket that fell off is ignored.
  ring.Add(kMidnight, 500);
  EXPECT_EQ(ring.Max(kMidnight + absl::Hours(3), absl::Hours(10)), 1);
  // A late sample for a bucket still kept raises it.
  ring.Add(kMidnight + absl::Hours(2), 50);
  EXPECT_EQ(ring.Max(kMidnight + absl::Hours(3), absl::Hours(10)), 50);
}

TEST(BucketedMaxTest, FiltersByBucketNumber) {
  BucketedMax ring(absl::Hours(1), 48);
  for (int hour = 0; hour < 48; ++hour) ring.Add(kMidnight + absl::Hours(hour), hour);
  const absl::Time now = kMidnight + absl::Hours(47);
  // Hour-of-day 5 on both days: hours 5 and 29.
  EXPECT_EQ(ring.Max(now, absl::Hours(48),
                     [&](int64_t bucket) {
                       return bucket % 24 == ring.BucketNumber(kMidnight + absl::Hours(5)) % 24;
                     }),
            29);
  EXPECT_EQ(ring.Max(now, absl::Hours(48), [](int64_t) { return false; }), std::nullopt);
}

TEST(BucketedMaxTest, BucketNumbersFloorBeforeTheEpoch) {
  BucketedMax ring(absl::Hours(1), 2);
  EXPECT_EQ(ring.BucketNumber(absl::UnixEpoch() - absl::Seconds(1)), -1);
  EXPECT_EQ(ring.BucketNumber(absl::UnixEpoch()), 0);
  EXPECT_EQ(ring.BucketNumber(absl::UnixEpoch() + absl::Minutes(59)), 0);
}

TEST(BucketedMaxTest, RestoreRebuildsTheSameRing) {
  BucketedMax ring(absl::Minutes(1), 60);
  for (int i = 0; i < 90; ++i) ring.Add(kMidnight + absl::Seconds(i * 40), i % 7);
  BucketedMax copy(absl::Minutes(1), 60);
  for (const BucketedMax::Bucket& bucket : ring.buckets()) copy.Restore(bucket);
  const absl::Time now = kMidnight + absl::Seconds(89 * 40);
  for (int minutes = 1; minutes <= 60; ++minutes) {
    EXPECT_EQ(copy.Max(now, absl::Minutes(minutes)), ring.Max(now, absl::Minutes(minutes)));
  }
}

}  // namespace
}  // namespace headroom
