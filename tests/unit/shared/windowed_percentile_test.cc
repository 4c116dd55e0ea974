#include "shared/windowed_percentile.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

struct PercentileCase {
  std::vector<int64_t> values;
  double q;
  std::optional<int64_t> expected;
};

class InterpolatedPercentileTest : public ::testing::TestWithParam<PercentileCase> {};

TEST_P(InterpolatedPercentileTest, MatchesPrometheusQuantile) {
  std::vector<int64_t> values = GetParam().values;
  EXPECT_EQ(InterpolatedPercentile(values, GetParam().q), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Table, InterpolatedPercentileTest,
    ::testing::Values(PercentileCase{{}, 0.75, std::nullopt}, PercentileCase{{42}, 0.75, 42},
                      // rank = 0.75 x 3 = 2.25 over 10,20,30,40 -> 30 + 0.25 x 10 = 32.5 -> 33.
                      PercentileCase{{40, 10, 30, 20}, 0.75, 33},
                      // rank = 0.75 x 4 = 3 exactly -> the 4th smallest.
                      PercentileCase{{5, 1, 4, 2, 3}, 0.75, 4}, PercentileCase{{7, 7, 7}, 0.75, 7},
                      PercentileCase{{1, 100}, 0.0, 1}, PercentileCase{{1, 100}, 1.0, 100},
                      PercentileCase{{1, 100}, 0.5, 51},  // 50.5 rounds up
                      PercentileCase{{3, 1, 2}, 2.0, 3}   // q is clamped to 1
                      ));

TEST(WindowedPercentileTest, OnlySamplesInsideTheWindowCount) {
  WindowedPercentile window(absl::Minutes(10));
  // One sample a minute for 20 minutes: values 0..19.
  for (int i = 0; i < 20; ++i) {
    ASSERT_THAT(window.Add(kT0 + absl::Minutes(i), i * 100), IsOk());
  }
  // Window (t-10m, t] at t = 19m holds minutes 10..19: P75 = 10 + 0.75 x 9 = 16.75 -> 1675.
  EXPECT_EQ(window.Percentile(0.75, kT0 + absl::Minutes(19)), 1675);
  // Samples that left the window were dropped from memory too.
  EXPECT_EQ(window.size(), 10u);
  // Asking later than the newest sample narrows the window: at 25m only 16..19 are left.
  EXPECT_EQ(window.Percentile(0.75, kT0 + absl::Minutes(25)), 1825);
  EXPECT_EQ(window.Percentile(0.75, kT0 + absl::Minutes(40)), std::nullopt);
}

TEST(WindowedPercentileTest, RefusesOutOfOrderSamplesAndKeepsState) {
  WindowedPercentile window(absl::Minutes(10));
  ASSERT_THAT(window.Add(kT0 + absl::Minutes(5), 10), IsOk());
  EXPECT_THAT(window.Add(kT0 + absl::Minutes(4), 99),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("older")));
  EXPECT_EQ(window.size(), 1u);
  EXPECT_THAT(window.Add(kT0 + absl::Minutes(5), 20), IsOk());  // same time is fine
}

TEST(WindowedPercentileTest, MemoryIsBoundedByMaxSamples) {
  WindowedPercentile window(absl::Minutes(10), /*max_samples=*/8);
  for (int i = 0; i < 100; ++i) ASSERT_THAT(window.Add(kT0 + absl::Seconds(i), i), IsOk());
  EXPECT_EQ(window.size(), 8u);
  // The newest eight (92..99) remain.
  EXPECT_EQ(window.Percentile(0.0, kT0 + absl::Seconds(99)), 92);
}

}  // namespace
}  // namespace headroom
