#include "shared/histogram.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shared/crane_recommender.h"
#include "shared/vpa_recommender.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'006'400);  // a whole number of hours

TEST(HistogramOptionsTest, LinearBuckets) {
  const HistogramOptions o = *HistogramOptions::Linear(5.0, 0.3, 1e-3);
  EXPECT_EQ(o.num_buckets(), 18);  // ceil(5 / 0.3) + 1
  EXPECT_DOUBLE_EQ(o.BucketStart(0), 0.0);
  EXPECT_DOUBLE_EQ(o.BucketStart(17), 5.1);
  EXPECT_EQ(o.FindBucket(-1.0), 0);
  EXPECT_EQ(o.FindBucket(0.0), 0);
  EXPECT_EQ(o.FindBucket(1.3), 4);
  EXPECT_EQ(o.FindBucket(100.0), 17);
}

TEST(HistogramOptionsTest, ExponentialBuckets) {
  // Bucket n starts at 10 x (2^n - 1): 0, 10, 30, 70, 150.
  const HistogramOptions o = *HistogramOptions::Exponential(100, 10, 2, 1e-3);
  EXPECT_EQ(o.num_buckets(), 5);
  EXPECT_DOUBLE_EQ(o.BucketStart(2), 30);
  EXPECT_DOUBLE_EQ(o.BucketStart(4), 150);
  EXPECT_EQ(o.FindBucket(9.99), 0);
  EXPECT_EQ(o.FindBucket(10), 1);
  EXPECT_EQ(o.FindBucket(29.99), 1);
  EXPECT_EQ(o.FindBucket(30), 2);
  EXPECT_EQ(o.FindBucket(1e9), 4);
}

TEST(HistogramOptionsTest, SeedSchemes) {
  // Seed 001: 176 buckets, first 0.01 cores / 10 MB, each 5% larger.
  EXPECT_EQ(VpaCpuHistogramOptions().num_buckets(), 176);
  EXPECT_EQ(VpaMemoryHistogramOptions().num_buckets(), 176);
  EXPECT_DOUBLE_EQ(VpaCpuHistogramOptions().BucketStart(1), 0.01);
  EXPECT_DOUBLE_EQ(VpaCpuHistogramOptions().BucketStart(2), 0.0205);
  EXPECT_DOUBLE_EQ(VpaMemoryHistogramOptions().BucketStart(1), 1e7);
  // Crane: 0.1 cores and 100 MiB linear buckets.
  EXPECT_DOUBLE_EQ(CraneCpuHistogramOptions().BucketStart(3), 0.30000000000000004);
  EXPECT_EQ(CraneCpuHistogramOptions().FindBucket(1.02), 10);  // the seed's example
  EXPECT_DOUBLE_EQ(CraneMemoryHistogramOptions().BucketStart(1), 104857600);
}

TEST(HistogramOptionsTest, RejectsBadSchemes) {
  EXPECT_THAT(HistogramOptions::Linear(0, 1, 1e-3),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("positive")));
  EXPECT_THAT(HistogramOptions::Exponential(10, 1, 1.0, 1e-3),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("ratio")));
  EXPECT_THAT(HistogramOptions::Linear(1e12, 1, 1e-3),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("buckets")));
}

Histogram OneToFour() {
  // Weights { 1: 1, 2: 2, 3: 3, 4: 4 } on unit buckets.
  Histogram h(*HistogramOptions::Linear(10, 1, 1e-9));
  for (int i = 1; i <= 4; ++i) h.AddSample(i, i);
  return h;
}

struct PercentileCase {
  double percentile;
  double expected;
};

class HistogramPercentileTest : public ::testing::TestWithParam<PercentileCase> {};

TEST_P(HistogramPercentileTest, IsTheEndOfTheBucketReachingTheThreshold) {
  EXPECT_DOUBLE_EQ(OneToFour().Percentile(GetParam().percentile), GetParam().expected);
}

// Total weight 10; cumulative 1, 3, 6, 10 at buckets 1..4.
INSTANTIATE_TEST_SUITE_P(Seed001, HistogramPercentileTest,
                         ::testing::Values(PercentileCase{0.0, 2}, PercentileCase{0.1, 2},
                                           PercentileCase{0.2, 3}, PercentileCase{0.3, 3},
                                           PercentileCase{0.4, 4}, PercentileCase{0.6, 4},
                                           PercentileCase{0.7, 5}, PercentileCase{1.0, 5}));

TEST(HistogramTest, EmptyHistogramIsZero) {
  Histogram h(*HistogramOptions::Linear(10, 1, 1e-9));
  EXPECT_TRUE(h.IsEmpty());
  EXPECT_EQ(h.Percentile(0.5), 0);
  h.AddSample(3, 1e-12);  // below epsilon: still empty
  EXPECT_TRUE(h.IsEmpty());
}

TEST(HistogramTest, TheLastBucketHasNoEnd) {
  Histogram h(*HistogramOptions::Linear(10, 1, 1e-9));
  h.AddSample(1e6, 1);
  EXPECT_DOUBLE_EQ(h.Percentile(0.5), 10);  // start of bucket 10, the last
}

TEST(HistogramTest, SubtractAndScaleKeepMinAndMaxRight) {
  Histogram h = OneToFour();
  h.SubtractSample(4, 4);
  EXPECT_DOUBLE_EQ(h.total_weight(), 6);
  EXPECT_DOUBLE_EQ(h.Percentile(1.0), 4);  // bucket 3 is now the last with weight
  h.SubtractSample(3, 100);                // never below zero
  EXPECT_DOUBLE_EQ(h.total_weight(), 3);
  h.Scale(0.5);
  EXPECT_DOUBLE_EQ(h.total_weight(), 1.5);
  EXPECT_DOUBLE_EQ(h.Percentile(0.0), 2);
  h.Scale(0);
  EXPECT_TRUE(h.IsEmpty());
}

TEST(HistogramTest, CheckpointRoundTripsPercentiles) {
  const Histogram h = OneToFour();
  const HistogramCheckpoint checkpoint = h.SaveToCheckpoint();
  EXPECT_EQ(checkpoint.bucket_weights.at(4), kMaxCheckpointWeight);
  EXPECT_EQ(checkpoint.bucket_weights.at(1), 2500u);
  Histogram restored(*HistogramOptions::Linear(10, 1, 1e-9));
  ASSERT_THAT(restored.LoadFromCheckpoint(checkpoint), IsOk());
  EXPECT_DOUBLE_EQ(restored.total_weight(), 10);
  for (double p : {0.0, 0.1, 0.2, 0.3, 0.4, 0.6, 0.7, 1.0}) {
    EXPECT_DOUBLE_EQ(restored.Percentile(p), h.Percentile(p)) << p;
  }
}

TEST(HistogramTest, BadCheckpointChangesNothing) {
  Histogram h(*HistogramOptions::Linear(10, 1, 1e-9));
  HistogramCheckpoint checkpoint;
  checkpoint.total_weight = 5;
  checkpoint.bucket_weights[3] = 10;
  checkpoint.bucket_weights[99] = 10;
  EXPECT_THAT(h.LoadFromCheckpoint(checkpoint),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("bucket 99")));
  EXPECT_TRUE(h.IsEmpty());
  checkpoint.bucket_weights.erase(99);
  checkpoint.total_weight = -1;
  EXPECT_THAT(h.LoadFromCheckpoint(checkpoint),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("negative")));
}

TEST(DecayingHistogramTest, NewerSamplesWeighMore) {
  // Half-life 1 h: a sample one hour newer counts twice. Weights 1 at value 1, 2 at value 3.
  DecayingHistogram h(*HistogramOptions::Linear(10, 1, 1e-9), absl::Hours(1));
  h.AddSample(1, 1, kT0);
  h.AddSample(3, 1, kT0 + absl::Hours(1));
  EXPECT_DOUBLE_EQ(h.total_weight(), 3);
  // P40: threshold 1.2 passes bucket 1 (weight 1) -> end of bucket 3. Without decay it
  // would be the end of bucket 1.
  EXPECT_DOUBLE_EQ(h.Percentile(0.4), 4);
  EXPECT_DOUBLE_EQ(h.Percentile(0.3), 2);
  EXPECT_EQ(h.reference_time(), kT0);
}

TEST(DecayingHistogramTest, ShiftsTheReferenceAfterAHundredHalfLives) {
  DecayingHistogram h(*HistogramOptions::Linear(10, 1, 1e-9), absl::Hours(1));
  h.AddSample(1, 1, kT0);
  h.AddSample(2, 1, kT0 + absl::Hours(100));  // exactly 100: no shift yet
  EXPECT_EQ(h.reference_time(), kT0);
  h.AddSample(5, 1, kT0 + absl::Hours(101) + absl::Minutes(20));
  // The reference moved to the nearest whole hour; old weights were scaled by 2^-101 and the
  // oldest dropped below epsilon.
  EXPECT_EQ(h.reference_time(), kT0 + absl::Hours(101));
  EXPECT_NEAR(h.total_weight(), 0.5 + std::exp2(1.0 / 3), 1e-9);
  EXPECT_DOUBLE_EQ(h.Percentile(0.0), 3);  // bucket 1 is gone; bucket 2 is first
}

TEST(DecayingHistogramTest, CheckpointKeepsTheReferenceTime) {
  DecayingHistogram h(*HistogramOptions::Linear(10, 1, 1e-9), absl::Hours(24));
  h.AddSample(2, 1, kT0 + absl::Hours(3));
  h.AddSample(6, 1, kT0 + absl::Hours(30));
  const HistogramCheckpoint checkpoint = h.SaveToCheckpoint();
  DecayingHistogram restored(*HistogramOptions::Linear(10, 1, 1e-9), absl::Hours(24));
  ASSERT_THAT(restored.LoadFromCheckpoint(checkpoint), IsOk());
  EXPECT_EQ(restored.reference_time(), h.reference_time());
  EXPECT_DOUBLE_EQ(restored.Percentile(0.5), h.Percentile(0.5));
}

}  // namespace
}  // namespace headroom
