#pragma once

// The guard-rail flags (shared/guard_rails.h), defined once for headroom-nri,
// headroom-extender and `headroom simulate`, so the simulator's knobs are the product's:
//   --min-history, --min-cpu-request, --min-memory-limit, --allow-memory-limit-below-declared,
//   --max-shrink-step, --shrink-interval, --resize-min-change, --resize-min-cpu,
//   --resize-min-memory.
// --allow-below-declared is defined by each binary: off in the daemons (the safe default),
// on in the simulator (which models workloads that opted in).

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/guard_rails.h"

namespace headroom::app {

// A quantity flag's value ("25m", "64Mi"), or InvalidArgument naming the flag
// ("--min-cpu-request: cpu: invalid quantity ...").
absl::StatusOr<int64_t> CpuMillisFlag(absl::string_view flag, const std::string& value);
absl::StatusOr<int64_t> MemoryBytesFlag(absl::string_view flag, const std::string& value);

// The configuration the flags give, validated; InvalidArgument naming the flag otherwise.
absl::StatusOr<GuardRailConfig> GuardRailConfigFromFlags(bool allow_below_declared);

}  // namespace headroom::app
