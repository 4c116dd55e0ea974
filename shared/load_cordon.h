#pragma once

// Load-based cordon (seed 000, "Node Load Monitoring"): node load = load1 / CPU count; above
// 1.0 the node takes no new pods, and it takes them again once load has dropped. headroom
// adds what the seed leaves open, so the state does not flap and never acts on bad data:
// - hysteresis: cordon when load > cordon_above (1.0), uncordon only when load <
//   uncordon_below (0.9 by default; headroom's choice);
// - minimum cordon duration: once cordoned, stay so at least this long (2 minutes by
//   default: twice load1's one-minute averaging constant);
// - staleness: load data older than stale_after (3 minutes, three missed 60 s reports), or
//   none at all, never cordons a node, and releases one that was cordoned.
// The state machine is a pure function of the previous state, the latest observation and
// the current time.

#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "shared/reason.h"

namespace headroom {

struct LoadCordonConfig {
  double cordon_above = 1.0;
  double uncordon_below = 0.9;
  absl::Duration min_cordon_duration = absl::Minutes(2);
  absl::Duration stale_after = absl::Minutes(3);

  absl::Status Validate() const;
};

struct LoadObservation {
  absl::Time observed_at;
  double load1 = 0;  // /proc/loadavg, first field
  int cpus = 0;      // CPUs the load is shared by
};

struct LoadCordonState {
  bool cordoned = false;
  absl::Time since = absl::InfinitePast();  // when `cordoned` last changed
  double load = 0;                          // last fresh load1 / cpus; 0 if none
  Reason reason = {"NoLoadData", "no load data has been reported"};
};

// The next state given the latest observation (if any) at time `now`.
LoadCordonState NextLoadCordonState(const LoadCordonState& previous,
                                    const std::optional<LoadObservation>& latest, absl::Time now,
                                    const LoadCordonConfig& config);

}  // namespace headroom
