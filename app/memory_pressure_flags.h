#pragma once

// headroom-nri's memory pressure flags (shared/memory_pressure.h), defined once for
// headroom-nri and `headroom simulate`, so the simulator's rule is the node plugin's:
//   --memory-pressure-threshold, --memory-pressure-duration.

#include "absl/status/statusor.h"
#include "shared/memory_pressure.h"

namespace headroom::app {

// The configuration the flags give, validated; InvalidArgument naming the flags otherwise.
absl::StatusOr<MemoryPressureConfig> MemoryPressureConfigFromFlags();

}  // namespace headroom::app
