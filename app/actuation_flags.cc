#include "app/actuation_flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "app/guard_rail_flags.h"
#include "shared/status_macros.h"

ABSL_FLAG(absl::Duration, cpu_eviction_after, absl::Minutes(15),
          "CPU is compressible: pods are evicted for CPU only once the sum of a node's CPU "
          "bases has stayed above its available CPU this long (a short shared headroom never "
          "evicts).");
ABSL_FLAG(double, evictions_per_minute, 5, "Eviction budget, cluster-wide.");
ABSL_FLAG(double, evictions_per_node_per_hour, 2, "Eviction budget, per node.");

namespace headroom::app {

absl::StatusOr<ActionConfig> ActionConfigFromFlags(bool allow_below_declared) {
  ActionConfig config;
  HEADROOM_ASSIGN_OR_RETURN(config.guard, GuardRailConfigFromFlags(allow_below_declared));
  config.cpu_eviction_after = absl::GetFlag(FLAGS_cpu_eviction_after);
  if (absl::Status valid = config.Validate(); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--cpu-eviction-after: ", valid.message()));
  }
  return config;
}

absl::StatusOr<EvictionBudgetConfig> EvictionBudgetFromFlags() {
  EvictionBudgetConfig config;
  config.cluster_per_minute = absl::GetFlag(FLAGS_evictions_per_minute);
  config.per_node_per_hour = absl::GetFlag(FLAGS_evictions_per_node_per_hour);
  if (absl::Status valid = config.Validate(); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--evictions-per-minute / --evictions-per-node-per-hour: ", valid.message()));
  }
  return config;
}

}  // namespace headroom::app
