#include "shared/psi.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

CpuCounters At(absl::Duration offset, int64_t usage_usec, std::optional<int64_t> stall_usec) {
  return {kT0 + offset, usage_usec, stall_usec};
}

TEST(PsiAdjustedCpuTest, SeedWorkedExample) {
  // Seed 000: 0.5 cores used with 20% CPU waiting is 0.6 cores of demand.
  absl::StatusOr<CpuRateSample> sample =
      PsiAdjustedCpu(At(absl::ZeroDuration(), 0, 0), At(absl::Seconds(10), 5'000'000, 2'000'000));
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->usage_millis, 500);
  EXPECT_EQ(sample->adjusted_millis, 600);
  EXPECT_DOUBLE_EQ(sample->waiting_rate, 0.2);
  EXPECT_TRUE(sample->psi_available);
}

struct Case {
  const char* name;
  int64_t elapsed_usec;
  int64_t usage_usec;
  int64_t stall_usec;
  int64_t usage_millis;
  int64_t adjusted_millis;
};

class PsiTableTest : public ::testing::TestWithParam<Case> {};

TEST_P(PsiTableTest, AdjustsExactlyAndRoundsUp) {
  const Case& c = GetParam();
  absl::StatusOr<CpuRateSample> sample = PsiAdjustedCpu(
      At(absl::ZeroDuration(), 1'000, 7'000),
      At(absl::Microseconds(c.elapsed_usec), 1'000 + c.usage_usec, 7'000 + c.stall_usec));
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->usage_millis, c.usage_millis) << c.name;
  EXPECT_EQ(sample->adjusted_millis, c.adjusted_millis) << c.name;
}

INSTANTIATE_TEST_SUITE_P(
    Rates, PsiTableTest,
    ::testing::Values(Case{"idle", 1'000'000, 0, 0, 0, 0},
                      Case{"no pressure", 60'000'000, 30'000'000, 0, 500, 500},
                      Case{"two cores fully stalled", 1'000'000, 2'000'000, 1'000'000, 2000, 4000},
                      // 1/3 core with 1/3 waiting: 333.33.. -> 334, adjusted 444.44.. -> 445.
                      Case{"thirds round up", 3'000'000, 1'000'000, 1'000'000, 334, 445},
                      Case{"stall without usage", 1'000'000, 0, 500'000, 0, 0}),
    [](const ::testing::TestParamInfo<Case>& param_info) {
      std::string name = param_info.param.name;
      for (char& ch : name) {
        if (ch == ' ') ch = '_';
      }
      return name;
    });

TEST(PsiAdjustedCpuTest, WithoutPsiUsesPlainUsageAndSaysSo) {
  absl::StatusOr<CpuRateSample> sample = PsiAdjustedCpu(
      At(absl::ZeroDuration(), 0, std::nullopt), At(absl::Seconds(1), 250'000, std::nullopt));
  ASSERT_TRUE(sample.ok());
  EXPECT_EQ(sample->adjusted_millis, 250);
  EXPECT_FALSE(sample->psi_available);
  EXPECT_EQ(sample->waiting_rate, 0);
}

TEST(PsiAdjustedCpuTest, RefusesIntervalsThatCannotBeTrusted) {
  EXPECT_THAT(PsiAdjustedCpu(At(absl::Seconds(5), 0, 0), At(absl::Seconds(5), 10, 0)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("increasing times")));
  EXPECT_THAT(PsiAdjustedCpu(At(absl::ZeroDuration(), 500, 0), At(absl::Seconds(1), 100, 0)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("went backwards")));
  EXPECT_THAT(PsiAdjustedCpu(At(absl::ZeroDuration(), 0, 900), At(absl::Seconds(1), 100, 10)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("pressure")));
}

TEST(PsiAdjustedCpuTest, HugeRatesAreAnErrorNotAnOverflow) {
  EXPECT_THAT(PsiAdjustedCpu(At(absl::ZeroDuration(), 0, 0),
                             At(absl::Microseconds(1), std::numeric_limits<int64_t>::max(),
                                std::numeric_limits<int64_t>::max())),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("does not fit")));
}

}  // namespace
}  // namespace headroom
