// Disruption windows (shared/disruption_window.h): what parses, what is refused and why, and
// which instants fall inside -- across midnight and the week's end.

#include "shared/disruption_window.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

// 2026-11-23 is a Monday.
absl::Time At(int day_of_november, int hour, int minute) {
  return absl::FromCivil(absl::CivilSecond(2026, 11, day_of_november, hour, minute, 0),
                         absl::UTCTimeZone());
}

TEST(DisruptionWindows, ParseAndDescribe) {
  const struct {
    const char* text;
    const char* described;
  } cases[] = {
      {"02:00-04:00", "02:00-04:00 UTC"},
      {"Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00",
       "Mon,Tue,Wed,Thu,Fri 22:00-06:00; Sat,Sun 00:00-24:00 UTC"},
      {" fri-mon 23:30-00:00 ", "Mon,Fri,Sat,Sun 23:30-24:00 UTC"},
      {"", "always"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<std::vector<DisruptionWindow>> windows = ParseDisruptionWindows(c.text);
    ASSERT_TRUE(windows.ok()) << c.text << ": " << windows.status();
    EXPECT_EQ(DescribeDisruptionWindows(*windows), c.described) << c.text;
  }
}

TEST(DisruptionWindows, RefusesWhatIsNotAWindow) {
  const struct {
    const char* text;
    const char* why;
  } cases[] = {
      {"Funday 02:00-04:00", "days must be"},
      {"02:00", "HH:MM-HH:MM"},
      {"2-4", "between 00:00 and 24:00"},
      {"02:00-25:00", "between 00:00 and 24:00"},
      {"24:00-02:00", "between 00:00 and 24:00"},
      {"02:60-04:00", "between 00:00 and 24:00"},
      {"03:00-03:00", "empty"},
      {";", "no window"},
      {"Mon-Fri-Sat 01:00-02:00", "days must be"},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(ParseDisruptionWindows(c.text),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.why)))
        << c.text;
  }
}

TEST(DisruptionWindows, InsideAcrossMidnightAndTheWeekend) {
  const std::vector<DisruptionWindow> nights =
      *ParseDisruptionWindows("Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00");
  const struct {
    const char* what;
    absl::Time at;
    bool inside;
  } cases[] = {
      {"Monday 21:59", At(23, 21, 59), false},
      {"Monday 22:00", At(23, 22, 0), true},
      {"Tuesday 05:59, Monday's night", At(24, 5, 59), true},
      {"Tuesday 06:00", At(24, 6, 0), false},
      {"Monday 03:00: Sunday's whole day ended at midnight, Monday's night starts at 22:00",
       At(23, 3, 0), false},
      {"Saturday noon", At(28, 12, 0), true},
      {"Saturday 05:00, Friday's night and the weekend", At(28, 5, 0), true},
      {"Wednesday noon", At(25, 12, 0), false},
  };
  for (const auto& c : cases) EXPECT_EQ(InsideDisruptionWindows(nights, c.at), c.inside) << c.what;
  EXPECT_TRUE(InsideDisruptionWindows({}, At(25, 12, 0)));  // no windows: always
}

}  // namespace
}  // namespace headroom
