#include "shared/crane_recommender.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;

constexpr int64_t kGi = 1LL << 30;
constexpr int64_t kMi = 1LL << 20;
const absl::Time kT0 = absl::FromUnixSeconds(1'700'006'400);

std::vector<UsageSample> Steady(int minutes, int64_t cpu_millis, int64_t memory_bytes) {
  std::vector<UsageSample> samples;
  for (int m = 0; m < minutes; ++m) {
    samples.push_back({kT0 + absl::Minutes(m), cpu_millis, memory_bytes});
  }
  return samples;
}

TEST(CraneRecommenderTest, PercentileMarginAndTargetUtilisation) {
  const absl::Time now = kT0 + absl::Minutes(1439);
  const CraneRecommendation r = *CraneRecommend(Steady(1440, 500, kGi), {}, now);
  // 0.5 cores is in bucket 5 (0.1-core buckets), ending at 0.6: x 1.15 = 690m.
  EXPECT_EQ(r.request.cpu_millis, 690);
  // 1 GiB is in bucket 10 (100 MiB buckets), ending at 1100 MiB: x 1.15 = 1326448640.
  EXPECT_EQ(r.request.memory_bytes, 1326448640);
  EXPECT_FALSE(r.oom_protected);
  EXPECT_FALSE(r.specification_index.has_value());

  CraneConfig half;
  half.cpu_target_utilization = 0.5;  // divide by 0.5
  EXPECT_EQ(CraneRecommend(Steady(1440, 500, kGi), {}, now, half)->request.cpu_millis, 1380);
}

TEST(CraneRecommenderTest, SamplesWeighByTheirOwnValue) {
  // 99 samples at 0.2 cores and one at 2 cores, all at one moment: by count the P99 would be
  // 0.2 cores, but weights are the values (19.8 vs 2.0), so P99 (threshold 21.58 of 21.8)
  // reaches the 2-core bucket, which ends at 2.1: x 1.15 = 2415m.
  std::vector<UsageSample> samples(99, UsageSample{kT0, 200, kGi});
  samples.push_back({kT0, 2000, kGi});
  EXPECT_EQ(CraneRecommend(samples, {}, kT0)->request.cpu_millis, 2415);
}

TEST(CraneRecommenderTest, OomProtectionRaisesMemory) {
  const absl::Time now = kT0 + absl::Hours(23);
  // OOM at 1.5 GiB: max(1.5 GiB + 100 MiB, 1.5 GiB x 1.2 = 1.8 GiB) = 1932735283.2 -> ...284.
  const CraneRecommendation r =
      *CraneRecommend(Steady(60, 500, kGi), {{kT0 + absl::Hours(1), 3 * kGi / 2}}, now);
  EXPECT_EQ(r.request.memory_bytes, 1932735284);
  EXPECT_TRUE(r.oom_protected);
  // An OOM older than 168 h is ignored.
  const absl::Time later = kT0 + absl::Hours(170);
  std::vector<UsageSample> recent = {{later - absl::Minutes(1), 500, kGi}};
  EXPECT_FALSE(CraneRecommend(recent, {{kT0, 3 * kGi / 2}}, later)->oom_protected);
  // Small OOMs are bumped by at least 100 MiB.
  CraneConfig config;
  const CraneRecommendation small =
      *CraneRecommend({{kT0, 10, 10 * kMi}}, {{kT0, 200 * kMi}}, kT0, config);
  EXPECT_EQ(small.request.memory_bytes, 300 * kMi);
}

TEST(CraneRecommenderTest, NormalisesToTheSmallestSpecificationThatFits) {
  CraneConfig config;
  config.specification = {{1000, 2 * kGi}, {500, kGi}, {2000, 4 * kGi}, {700, 3 * kGi / 2}};
  const CraneRecommendation r =
      *CraneRecommend(Steady(60, 500, kGi), {}, kT0 + absl::Minutes(59), config);
  // 690m / 1326448640 bytes: {500, 1Gi} is too small; {700, 1.5Gi} is the smallest that fits.
  EXPECT_EQ(r.specification_index, 3u);
  EXPECT_EQ(r.request.cpu_millis, 700);
  EXPECT_EQ(r.request.memory_bytes, 3 * kGi / 2);

  config.specification = {{100, kGi}};  // nothing fits: keep the recommendation
  const CraneRecommendation none =
      *CraneRecommend(Steady(60, 500, kGi), {}, kT0 + absl::Minutes(59), config);
  EXPECT_FALSE(none.specification_index.has_value());
  EXPECT_EQ(none.request.cpu_millis, 690);
}

TEST(CraneRecommenderTest, OnlyTheHistoryWindowCounts) {
  std::vector<UsageSample> samples = {{kT0, 9000, 50 * kGi}};  // 8 days before `now`
  const absl::Time now = kT0 + absl::Hours(8 * 24);
  EXPECT_FALSE(CraneRecommend(samples, {}, now).has_value());
  samples.push_back({now - absl::Minutes(1), 350, kGi});
  EXPECT_EQ(CraneRecommend(samples, {}, now)->request.cpu_millis, 460);  // 0.4 x 1.15
}

TEST(CraneRecommenderTest, NeedsBothResources) {
  EXPECT_FALSE(CraneRecommend({{kT0, 100, std::nullopt}}, {}, kT0).has_value());
  EXPECT_FALSE(CraneRecommend({}, {}, kT0).has_value());
}

TEST(CraneContainerModelTest, IncrementalEqualsBatchAsTheWindowSlides) {
  // Ten days of varying usage; the model is asked every 6 hours and must agree with a batch
  // run over the same 168 h window.
  std::vector<UsageSample> samples;
  for (int m = 0; m < 10 * 1440; m += 10) {
    samples.push_back({kT0 + absl::Minutes(m), 100 + (m * 37) % 1900, kGi + (m % 977) * kMi});
  }
  CraneContainerModel model;
  size_t fed = 0;
  for (int hour = 6; hour <= 240; hour += 6) {
    const absl::Time now = kT0 + absl::Hours(hour);
    while (fed < samples.size() && samples[fed].at <= now) model.AddSample(samples[fed++]);
    const auto incremental = model.Recommend(now);
    const auto batch = CraneRecommend(samples, {}, now);
    ASSERT_TRUE(incremental.has_value() && batch.has_value()) << hour;
    EXPECT_EQ(incremental->request, batch->request) << "at hour " << hour;
  }
  EXPECT_FALSE(model.AddSample({kT0, 1, 1}));  // out of order
}

TEST(CraneConfigTest, Validates) {
  EXPECT_THAT(CraneConfig{}.Validate(), IsOk());
  CraneConfig bad;
  bad.cpu_target_utilization = 0;
  EXPECT_THAT(bad.Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("utilisation")));
  bad = {};
  bad.specification = {{-1, 0}};
  EXPECT_THAT(bad.Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("specification")));
}

}  // namespace
}  // namespace headroom
