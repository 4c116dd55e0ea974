#pragma once

// The actuation flags (shared/node_actions.h, shared/disruption.h), defined once for
// headroom-extender and `headroom simulate`:
//   --cpu-eviction-after, --evictions-per-minute, --evictions-per-node-per-hour; plus the
//   guard-rail flags (guard_rail_flags.h), the resize threshold among them.

#include "absl/status/statusor.h"
#include "shared/disruption.h"
#include "shared/node_actions.h"

namespace headroom::app {

absl::StatusOr<ActionConfig> ActionConfigFromFlags(bool allow_below_declared);
absl::StatusOr<EvictionBudgetConfig> EvictionBudgetFromFlags();

}  // namespace headroom::app
