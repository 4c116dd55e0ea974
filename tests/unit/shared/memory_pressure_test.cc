// Memory pressure as a signal (shared/memory_pressure.h): when a stretch of memory stall
// counts, and the limit's floor after one.

#include "shared/memory_pressure.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1'795'331'119);

TEST(MemoryPressure, StretchesTable) {
  // Minute-long intervals, each with the microseconds some task stalled on memory; the
  // defaults: 10% for 2 minutes.
  struct Case {
    std::string name;
    std::vector<int64_t> stalled_micros;  // per minute
    std::vector<bool> recorded;           // per minute
  };
  const int64_t kMinute = 60'000'000;
  const std::vector<Case> cases = {
      {"no stall", {0, 0, 0}, {false, false, false}},
      {"9.9% never counts",
       {kMinute / 1000 * 99, kMinute / 1000 * 99, kMinute / 1000 * 99},
       {false, false, false}},
      {"10% for two minutes: recorded at the second", {kMinute / 10, kMinute / 10}, {false, true}},
      {"one calm minute between ends the stretch",
       {kMinute / 2, 0, kMinute / 2, kMinute / 2},
       {false, false, false, true}},
      {"lasting pressure: once per two minutes",
       {kMinute, kMinute, kMinute, kMinute, kMinute},
       {false, true, false, true, false}},
  };
  for (const Case& c : cases) {
    MemoryPressureRun run;
    std::vector<bool> recorded;
    for (size_t i = 0; i < c.stalled_micros.size(); ++i) {
      const absl::Time from = kStart + absl::Minutes(i);
      recorded.push_back(ObserveMemoryPressure(run, from, from + absl::Minutes(1),
                                               c.stalled_micros[i], MemoryPressureConfig{})
                             .sustained);
    }
    EXPECT_EQ(recorded, c.recorded) << c.name;
  }
}

TEST(MemoryPressure, TheShareIsOfTheIntervalAndAnEmptyIntervalIsIgnored) {
  MemoryPressureRun run;
  const MemoryPressureObservation half = ObserveMemoryPressure(
      run, kStart, kStart + absl::Seconds(10), 5'000'000, MemoryPressureConfig{});
  EXPECT_DOUBLE_EQ(half.stall_share, 0.5);
  EXPECT_TRUE(half.pressured);
  EXPECT_EQ(run.since, kStart);
  const MemoryPressureObservation none =
      ObserveMemoryPressure(run, kStart, kStart, 5'000'000, MemoryPressureConfig{});
  EXPECT_FALSE(none.pressured);
  EXPECT_EQ(run.since, kStart);  // untouched
}

TEST(MemoryPressure, AThresholdOfZeroTurnsItOff) {
  MemoryPressureRun run;
  const MemoryPressureConfig off{0, absl::ZeroDuration()};
  EXPECT_FALSE(
      ObserveMemoryPressure(run, kStart, kStart + absl::Minutes(1), 60'000'000, off).sustained);
}

TEST(MemoryPressure, LimitFloor) {
  EXPECT_EQ(PressureLimitFloor(0, 0.25), 0);
  EXPECT_EQ(PressureLimitFloor(400, 0.25), 500);
  EXPECT_EQ(PressureLimitFloor(401, 0.25), 502);  // rounded up
  EXPECT_EQ(PressureLimitFloor(std::numeric_limits<int64_t>::max() - 1, 0.25),
            std::numeric_limits<int64_t>::max());
}

TEST(MemoryPressure, ConfigValidation) {
  EXPECT_TRUE(MemoryPressureConfig{}.Validate().ok());
  EXPECT_FALSE((MemoryPressureConfig{1.0, absl::Minutes(1)}).Validate().ok());
  EXPECT_FALSE((MemoryPressureConfig{-0.1, absl::Minutes(1)}).Validate().ok());
  EXPECT_FALSE((MemoryPressureConfig{0.1, absl::Seconds(-1)}).Validate().ok());
}

}  // namespace
}  // namespace headroom
