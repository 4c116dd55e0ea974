#include "shared/vpa_recommender.h"

#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;

constexpr int64_t kGi = 1LL << 30;
constexpr int64_t kMi = 1LL << 20;
const absl::Time kT0 = absl::FromUnixSeconds(1'700'006'400);  // a UTC midnight

// One CPU and one memory sample a minute for `days` days.
VpaContainerModel Steady(int days, int64_t cpu_millis, int64_t memory_bytes) {
  VpaContainerModel model;
  for (int minute = 0; minute < days * 1440; ++minute) {
    const absl::Time t = kT0 + absl::Minutes(minute);
    model.AddCpuSample(t, cpu_millis);
    EXPECT_TRUE(model.AddMemorySample(t, memory_bytes));
  }
  return model;
}

TEST(VpaRecommenderTest, SteadyUsageGivesTheSeedsEstimatorChain) {
  const VpaRecommendation r = *Steady(8, 500, kGi).Recommend();
  // CPU 0.5 cores falls in bucket 25, which ends at 0.01 x (1.05^26 - 1) / 0.05 = 0.51113 cores.
  // target = 0.51113 x 1.15 = 0.58780 -> 588m; confidence = min(7.9993 days, 8 days).
  // lower = 0.58780 x (1 + 0.001/7.9993)^-2 -> 588m; upper = 0.58780 x (1 + 1/7.9993) -> 662m.
  EXPECT_EQ(r.target.cpu_millis, 588);
  EXPECT_EQ(r.lower_bound.cpu_millis, 588);
  EXPECT_EQ(r.upper_bound.cpu_millis, 662);
  EXPECT_NEAR(r.confidence_days, 7.99931, 1e-5);
  // Memory 1 GiB peaks fall in bucket 37, ending at 1077095457.98 bytes; x 1.15 rounds up
  // to 1238659777.
  EXPECT_EQ(r.target.memory_bytes, 1238659777);
  EXPECT_EQ(r.uncapped_target, r.target);
}

TEST(VpaRecommenderTest, MinimumResourcesAreSplitOverThePodsContainers) {
  VpaContainerModel model = Steady(2, 5, 10 * kMi);
  // 5m is in bucket 0, which ends at 0.01 cores: 0.0115 cores -> 12m.
  EXPECT_EQ(model.Recommend(1)->target.cpu_millis, 25);           // pod minimum 25m
  EXPECT_EQ(model.Recommend(3)->target.cpu_millis, 12);           // 25m / 3 = 8.4m < 12m
  EXPECT_EQ(model.Recommend(1)->target.memory_bytes, 250 * kMi);  // pod minimum 250 MiB
  EXPECT_EQ(model.Recommend(3)->target.memory_bytes, 87381334);   // 250 MiB / 3, rounded up
}

TEST(VpaRecommenderTest, OomBumpsTheMemoryPeak) {
  VpaContainerModel model;
  model.AddCpuSample(kT0, 100);
  ASSERT_TRUE(model.AddMemorySample(kT0, kGi));
  ASSERT_THAT(model.RecordOom(kT0 + absl::Minutes(5), kGi), IsOk());
  // used = 1 GiB: max(1 GiB x 1.2, 1 GiB + 100 MiB) = 1288490189 bytes replaces the peak,
  // in bucket 41: target = its end x 1.15 = 1555165138.
  EXPECT_EQ(model.Recommend()->target.memory_bytes, 1555165138);
}

TEST(VpaRecommenderTest, SmallOomsBumpByAtLeastOneHundredMebibytes) {
  VpaContainerModel model;
  ASSERT_TRUE(model.AddMemorySample(kT0, 300 * kMi));
  ASSERT_THAT(model.RecordOom(kT0 + absl::Minutes(1), 100 * kMi), IsOk());
  // used = max(100 MiB at OOM, 300 MiB peak) = 300 MiB; +100 MiB (400) beats x1.2 (360).
  const VpaContainerModel::Peak peak = model.memory_peak();
  EXPECT_EQ(peak.oom_bytes, 400 * kMi);
}

TEST(VpaRecommenderTest, OldOomsAreDiscarded) {
  VpaContainerModel model;
  ASSERT_TRUE(model.AddMemorySample(kT0 + absl::Hours(48), kGi));
  EXPECT_THAT(model.RecordOom(kT0, kGi),
              StatusIs(absl::StatusCode::kFailedPrecondition, ::testing::HasSubstr("discarded")));
}

TEST(VpaRecommenderTest, MemoryKeepsOnePeakPerDay) {
  VpaContainerModel model;
  ASSERT_TRUE(model.AddMemorySample(kT0, 100 * kMi));
  ASSERT_TRUE(model.AddMemorySample(kT0 + absl::Hours(2), 900 * kMi));  // replaces the peak
  ASSERT_TRUE(model.AddMemorySample(kT0 + absl::Hours(3), 200 * kMi));  // below the peak
  // One peak in the histogram, weight 1: it sits at the window end (a day later), which
  // became the histogram's reference time.
  EXPECT_NEAR(model.memory_peaks().total_weight(), 1.0, 1e-9);
  EXPECT_EQ(model.memory_peak().usage_bytes, 900 * kMi);
  EXPECT_FALSE(model.AddMemorySample(kT0 + absl::Hours(1), 5 * kGi));    // out of order
  ASSERT_TRUE(model.AddMemorySample(kT0 + absl::Hours(25), 300 * kMi));  // next day
  // A second peak one half-life after the reference weighs 2.
  EXPECT_NEAR(model.memory_peaks().total_weight(), 1.0 + 2.0, 1e-9);
  EXPECT_EQ(model.memory_peak().window_end, kT0 + absl::Hours(48));
}

TEST(VpaRecommenderTest, CpuSamplesWeighByTheirRequest) {
  // Two samples at one moment: 0.1 cores with a 2-core request, 5 cores with no request
  // (weight 0.1). The request-weighted sample dominates P90.
  VpaContainerModel model;
  model.AddCpuSample(kT0, 100, 2000);
  model.AddCpuSample(kT0, 5000, 0);
  ASSERT_TRUE(model.AddMemorySample(kT0, kGi));
  const VpaRecommendation r = *model.Recommend();
  EXPECT_LT(r.target.cpu_millis, 200);
  // Weighted equally, P90 would land on the 5-core sample.
  VpaContainerModel equal;
  equal.AddCpuSample(kT0, 100);
  equal.AddCpuSample(kT0, 5000);
  ASSERT_TRUE(equal.AddMemorySample(kT0, kGi));
  EXPECT_GT(equal.Recommend()->target.cpu_millis, 5000);
}

TEST(VpaRecommenderTest, NoConfidenceMeansAnUnboundedUpperBound) {
  VpaContainerModel model;
  model.AddCpuSample(kT0, 500);
  ASSERT_TRUE(model.AddMemorySample(kT0, kGi));
  const VpaRecommendation r = *model.Recommend();
  EXPECT_EQ(r.confidence_days, 0);
  EXPECT_EQ(r.upper_bound.cpu_millis, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r.upper_bound.memory_bytes, std::numeric_limits<int64_t>::max());
  EXPECT_EQ(r.lower_bound.cpu_millis, 25);  // (1 + 0.001/0)^-2 = 0, then the minimum
}

TEST(VpaRecommenderTest, CappingBoundsTargetButNotUncappedTarget) {
  VpaContainerModel model = Steady(2, 500, kGi);
  VpaContainerPolicy policy;
  policy.max_allowed = ResourceAmounts{300, 512 * kMi};
  policy.min_allowed = ResourceAmounts{100, 64 * kMi};
  const VpaRecommendation r = *model.Recommend(1, policy);
  EXPECT_EQ(r.target.cpu_millis, 300);
  EXPECT_EQ(r.target.memory_bytes, 512 * kMi);
  EXPECT_EQ(r.upper_bound.cpu_millis, 300);
  EXPECT_EQ(r.uncapped_target.cpu_millis, 588);
}

TEST(VpaRecommenderTest, NoSamplesNoRecommendation) {
  EXPECT_FALSE(VpaContainerModel().Recommend().has_value());
}

TEST(VpaRecommenderTest, HalfLifeDecaysOldUsage) {
  // A week at 2 cores, then a week at 0.2 cores: with a 24 h half-life the old week weighs
  // 2^-7 as much, so P90 follows the recent level.
  VpaContainerModel model;
  for (int minute = 0; minute < 14 * 1440; minute += 5) {
    model.AddCpuSample(kT0 + absl::Minutes(minute), minute < 7 * 1440 ? 2000 : 200);
  }
  ASSERT_TRUE(model.AddMemorySample(kT0, kGi));
  EXPECT_LT(model.Recommend()->target.cpu_millis, 300);
}

TEST(VpaRecommenderTest, CheckpointRestoresTheRecommendation) {
  VpaContainerModel model = Steady(3, 700, 2 * kGi);
  ASSERT_THAT(model.RecordOom(kT0 + absl::Hours(71), 2 * kGi), IsOk());
  const VpaCheckpoint checkpoint = model.SaveCheckpoint();
  VpaContainerModel restored;
  ASSERT_THAT(restored.LoadCheckpoint(checkpoint), IsOk());
  const VpaRecommendation before = *model.Recommend();
  const VpaRecommendation after = *restored.Recommend();
  EXPECT_EQ(after.target, before.target);
  EXPECT_EQ(after.lower_bound, before.lower_bound);
  EXPECT_EQ(after.upper_bound, before.upper_bound);
  EXPECT_DOUBLE_EQ(after.confidence_days, before.confidence_days);
  EXPECT_EQ(restored.memory_peak().oom_bytes, model.memory_peak().oom_bytes);
  // Both go on identically.
  model.AddCpuSample(kT0 + absl::Hours(72), 5000);
  restored.AddCpuSample(kT0 + absl::Hours(72), 5000);
  EXPECT_EQ(model.Recommend()->upper_bound, restored.Recommend()->upper_bound);
}

TEST(VpaRecommenderTest, BadCheckpointLeavesTheModelAlone) {
  VpaContainerModel model = Steady(1, 300, kGi);
  const VpaRecommendation before = *model.Recommend();
  VpaCheckpoint bad = model.SaveCheckpoint();
  bad.cpu.bucket_weights[500] = 1;  // beyond the 176 buckets
  EXPECT_THAT(model.LoadCheckpoint(bad),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("CPU histogram")));
  EXPECT_EQ(model.Recommend()->target, before.target);
}

TEST(VpaConfigTest, Validates) {
  EXPECT_THAT(VpaConfig{}.Validate(), IsOk());
  VpaConfig bad;
  bad.target_cpu_percentile = 1.5;
  EXPECT_THAT(bad.Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("percentile")));
  bad = {};
  bad.oom_bump_up_ratio = 0.5;
  EXPECT_THAT(bad.Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("bump")));
}

}  // namespace
}  // namespace headroom
