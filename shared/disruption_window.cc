#include "shared/disruption_window.h"

#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace headroom {
namespace {

constexpr std::array<absl::string_view, 7> kDays = {"mon", "tue", "wed", "thu",
                                                    "fri", "sat", "sun"};
constexpr std::array<absl::string_view, 7> kDayNames = {"Mon", "Tue", "Wed", "Thu",
                                                        "Fri", "Sat", "Sun"};

absl::Status Invalid(absl::string_view part, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("disruption window \"", absl::CEscape(part), "\": ", why));
}

// 0 for Monday ... 6 for Sunday; -1 for anything else.
int DayIndex(absl::string_view text) {
  const std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (size_t i = 0; i < kDays.size(); ++i) {
    if (lower == kDays[i]) return static_cast<int>(i);
  }
  return -1;
}

// "Mon", "Mon-Fri", "Sat,Sun", "Mon-Wed,Fri" as a bit mask; 0 when unreadable.
uint8_t ParseDays(absl::string_view text) {
  uint8_t days = 0;
  for (absl::string_view item : absl::StrSplit(text, ',')) {
    const std::vector<absl::string_view> ends = absl::StrSplit(item, '-');
    if (ends.size() == 1) {
      const int day = DayIndex(ends[0]);
      if (day < 0) return 0;
      days |= static_cast<uint8_t>(1u << day);
    } else if (ends.size() == 2) {
      const int from = DayIndex(ends[0]);
      const int to = DayIndex(ends[1]);
      if (from < 0 || to < 0) return 0;
      for (int day = from;; day = (day + 1) % 7) {  // Fri-Mon wraps over the weekend
        days |= static_cast<uint8_t>(1u << day);
        if (day == to) break;
      }
    } else {
      return 0;
    }
  }
  return days;
}

// "HH:MM" as minutes of the day, 0..1440 (24:00 only as an end); -1 when unreadable.
int ParseClock(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ':');
  int hours = 0;
  int minutes = 0;
  if (parts.size() != 2 || parts[0].empty() || parts[0].size() > 2 || parts[1].size() != 2 ||
      !absl::SimpleAtoi(parts[0], &hours) || !absl::SimpleAtoi(parts[1], &minutes) || hours < 0 ||
      minutes < 0 || minutes > 59 || hours > 24 || (hours == 24 && minutes != 0)) {
    return -1;
  }
  return hours * 60 + minutes;
}

absl::StatusOr<DisruptionWindow> ParseWindow(absl::string_view part) {
  DisruptionWindow window;
  absl::string_view text = absl::StripAsciiWhitespace(part);
  absl::string_view hours = text;
  if (const size_t space = text.find(' '); space != absl::string_view::npos) {
    window.days = ParseDays(text.substr(0, space));
    if (window.days == 0) {
      return Invalid(part, "days must be Mon..Sun, a range (Mon-Fri) or a list (Sat,Sun)");
    }
    hours = absl::StripAsciiWhitespace(text.substr(space + 1));
  }
  const std::vector<absl::string_view> ends = absl::StrSplit(hours, '-');
  if (ends.size() != 2) return Invalid(part, "hours must be HH:MM-HH:MM (UTC)");
  window.start_minute = ParseClock(ends[0]);
  window.end_minute = ParseClock(ends[1]);
  if (window.start_minute < 0 || window.end_minute < 0 || window.start_minute == 1440) {
    return Invalid(part, "hours must be HH:MM-HH:MM between 00:00 and 24:00 (UTC)");
  }
  if (window.start_minute == window.end_minute) {
    return Invalid(part, "the window is empty (start equals end); 00:00-24:00 is a whole day");
  }
  if (window.end_minute == 0) window.end_minute = 1440;  // "22:00-00:00" ends at midnight
  return window;
}

std::string Clock(int minute) { return absl::StrFormat("%02d:%02d", minute / 60, minute % 60); }

}  // namespace

absl::StatusOr<std::vector<DisruptionWindow>> ParseDisruptionWindows(absl::string_view text) {
  std::vector<DisruptionWindow> windows;
  if (absl::StripAsciiWhitespace(text).empty()) return windows;
  for (absl::string_view part : absl::StrSplit(text, ';')) {
    if (absl::StripAsciiWhitespace(part).empty()) continue;
    absl::StatusOr<DisruptionWindow> window = ParseWindow(part);
    if (!window.ok()) return window.status();
    windows.push_back(*window);
  }
  if (windows.empty()) return Invalid(text, "no window");
  return windows;
}

bool InsideDisruptionWindows(const std::vector<DisruptionWindow>& windows, absl::Time at) {
  if (windows.empty()) return true;
  const absl::CivilSecond civil = absl::ToCivilSecond(at, absl::UTCTimeZone());
  const int day = static_cast<int>(absl::GetWeekday(civil));  // absl: Monday is 0
  const int yesterday = (day + 6) % 7;
  const int minute = civil.hour() * 60 + civil.minute();
  for (const DisruptionWindow& w : windows) {
    const bool today = (w.days >> day) & 1;
    if (w.start_minute < w.end_minute) {
      if (today && minute >= w.start_minute && minute < w.end_minute) return true;
    } else {  // crosses midnight
      if (today && minute >= w.start_minute) return true;
      if (((w.days >> yesterday) & 1) && minute < w.end_minute) return true;
    }
  }
  return false;
}

std::string DescribeDisruptionWindows(const std::vector<DisruptionWindow>& windows) {
  if (windows.empty()) return "always";
  std::vector<std::string> parts;
  for (const DisruptionWindow& w : windows) {
    std::vector<absl::string_view> days;
    for (size_t i = 0; i < kDayNames.size(); ++i) {
      if ((w.days >> i) & 1) days.push_back(kDayNames[i]);
    }
    const std::string hours = absl::StrCat(Clock(w.start_minute), "-", Clock(w.end_minute));
    parts.push_back(days.size() == 7 ? hours : absl::StrCat(absl::StrJoin(days, ","), " ", hours));
  }
  return absl::StrCat(absl::StrJoin(parts, "; "), " UTC");
}

}  // namespace headroom
