#pragma once

// The guard-rail flags (shared/guard_rails.h), defined once for headroom-nri,
// headroom-extender and `headroom simulate`, so the simulator's knobs are the product's:
//   --min-history, --min-cpu-request, --min-memory-limit, --max-shrink-step, --shrink-interval.
// --allow-below-declared is defined by each binary: off in the daemons (the safe default),
// on in the simulator (which models workloads that opted in).

#include "absl/status/statusor.h"
#include "shared/guard_rails.h"

namespace headroom::app {

// The configuration the flags give, validated; InvalidArgument naming the flag otherwise.
absl::StatusOr<GuardRailConfig> GuardRailConfigFromFlags(bool allow_below_declared);

}  // namespace headroom::app
