#include "shared/load_cordon.h"

#include <limits>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

// One step of a scripted timeline: at `t` seconds, the latest observation (load1 on 4 CPUs,
// observed `age` seconds earlier; load1 < 0 means no observation), and what must follow.
struct Step {
  int t;
  double load1;
  int age;
  bool cordoned;
  const char* code;
};

void RunTimeline(const std::vector<Step>& steps, const LoadCordonConfig& config = {}) {
  LoadCordonState state;
  for (const Step& step : steps) {
    std::optional<LoadObservation> observation;
    if (step.load1 >= 0) {
      observation = LoadObservation{kT0 + absl::Seconds(step.t - step.age), step.load1, 4};
    }
    state = NextLoadCordonState(state, observation, kT0 + absl::Seconds(step.t), config);
    EXPECT_EQ(state.cordoned, step.cordoned) << "at t=" << step.t << ": " << state.reason.message;
    EXPECT_EQ(state.reason.code, step.code) << "at t=" << step.t << ": " << state.reason.message;
  }
}

TEST(LoadCordonTest, CordonsAboveOneAndRecoversBelowTheLowerThreshold) {
  RunTimeline({
      {0, 3.9, 0, false, "LoadNormal"},       // 0.975
      {10, 4.0, 0, false, "LoadNormal"},      // exactly 1.0 is not above
      {20, 4.4, 0, true, "Overloaded"},       // 1.1
      {200, 3.8, 0, true, "Overloaded"},      // 0.95: between the thresholds (hysteresis)
      {260, 3.0, 0, false, "LoadRecovered"},  // 0.75 after 240 s cordoned
  });
}

TEST(LoadCordonTest, StaysCordonedForTheMinimumDuration) {
  RunTimeline({
      {0, 8.0, 0, true, "Overloaded"},
      {60, 1.0, 0, true, "MinimumCordonDuration"},  // recovered, but only 60 s in
      {119, 1.0, 0, true, "MinimumCordonDuration"},
      {120, 1.0, 0, false, "LoadRecovered"},
      {121, 8.0, 0, true, "Overloaded"},  // re-cordoning on real overload is immediate
  });
}

TEST(LoadCordonTest, StaleOrMissingDataNeverCordons) {
  RunTimeline({
      {0, -1, 0, false, "NoLoadData"},
      {10, 9.0, 181, false, "StaleLoadData"},   // overloaded, but 181 s old
      {20, 9.0, 180, true, "Overloaded"},       // 180 s old is still fresh
      {400, 9.0, 200, false, "StaleLoadData"},  // the reports stopped: release the node
  });
}

TEST(LoadCordonTest, UnusableDataNeverCordons) {
  LoadCordonState state;
  state = NextLoadCordonState(state, LoadObservation{kT0, 50.0, 0}, kT0, {});
  EXPECT_FALSE(state.cordoned);
  EXPECT_EQ(state.reason.code, "InvalidLoadData");
  state = NextLoadCordonState(
      state, LoadObservation{kT0, std::numeric_limits<double>::quiet_NaN(), 4}, kT0, {});
  EXPECT_FALSE(state.cordoned);
  EXPECT_EQ(state.reason.code, "InvalidLoadData");
}

TEST(LoadCordonTest, ReasonsCarryTheNumbers) {
  const LoadCordonState state =
      NextLoadCordonState({}, LoadObservation{kT0, 6.0, 4}, kT0, LoadCordonConfig{});
  EXPECT_THAT(state.reason.message, ::testing::HasSubstr("load1 6.00 on 4 CPUs = 1.50 > 1.00"));
  EXPECT_DOUBLE_EQ(state.load, 1.5);
  EXPECT_EQ(state.since, kT0);
}

TEST(LoadCordonTest, SinceOnlyMovesOnTransitions) {
  LoadCordonState state = NextLoadCordonState({}, LoadObservation{kT0, 8, 4}, kT0, {});
  state = NextLoadCordonState(state, LoadObservation{kT0 + absl::Seconds(30), 8, 4},
                              kT0 + absl::Seconds(30), {});
  EXPECT_EQ(state.since, kT0);
}

TEST(LoadCordonConfigTest, Validates) {
  EXPECT_THAT(LoadCordonConfig{}.Validate(), IsOk());
  LoadCordonConfig inverted;
  inverted.uncordon_below = 1.5;
  EXPECT_THAT(inverted.Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("uncordon")));
  LoadCordonConfig zero;
  zero.cordon_above = 0;
  EXPECT_THAT(zero.Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("positive")));
  LoadCordonConfig stale;
  stale.stale_after = absl::ZeroDuration();
  EXPECT_THAT(stale.Validate(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("staleness")));
}

}  // namespace
}  // namespace headroom
