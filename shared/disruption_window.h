#pragma once

// Disruption windows: the hours of the week in which headroom may disrupt a workload --
// evict its pods, or shrink them in place (CruiseKube #111/#115/#128 asked for this). Outside
// them headroom still sizes new pods, grows running ones and sets nothing that takes
// resources away. Set per pod or Namespace with headroom.dev/disruption-window, or for the
// cluster with the extender's --disruption-window (docs/annotations.md).
//
// Syntax: windows separated by ';', each "[DAYS ]HH:MM-HH:MM", in UTC. DAYS is a day (Mon),
// a range (Mon-Fri, Fri-Mon wraps) or a comma list (Sat,Sun); without it every day. A window
// whose end is before its start crosses midnight and belongs to the day it starts
// ("Fri 22:00-02:00" is Friday 22:00 to Saturday 02:00); "24:00" ends at midnight.
// Examples: "Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00", "02:00-04:00".

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace headroom {

struct DisruptionWindow {
  uint8_t days = 0x7f;   // bit 0 Monday ... bit 6 Sunday
  int start_minute = 0;  // of the day, 0..1439
  int end_minute = 0;    // 1..1440; <= start_minute: crosses midnight

  bool operator==(const DisruptionWindow&) const = default;
};

// The windows of `text`; InvalidArgument, saying which part and why, for anything else. An
// empty text is no window at all (an empty list: always allowed).
absl::StatusOr<std::vector<DisruptionWindow>> ParseDisruptionWindows(absl::string_view text);

// Whether `at` falls in one of `windows`; true for no windows (no restriction).
bool InsideDisruptionWindows(const std::vector<DisruptionWindow>& windows, absl::Time at);

// The windows written back in the syntax above ("always" for none).
std::string DescribeDisruptionWindows(const std::vector<DisruptionWindow>& windows);

}  // namespace headroom
