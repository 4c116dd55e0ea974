#include "app/guard_rail_flags.h"

#include <string>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "shared/quantity.h"
#include "shared/status_macros.h"

ABSL_FLAG(absl::Duration, min_history, absl::Hours(24),
          "Guard rail: no container value is tightened until its workload has been observed "
          "this long (one daily cycle by default); until then the declared values stay.");
ABSL_FLAG(std::string, min_cpu_request, "25m",
          "Guard rail: the smallest CPU request (and CPU weight) headroom sets.");
ABSL_FLAG(std::string, min_memory_limit, "250Mi",
          "Guard rail: the smallest memory limit headroom sets.");
ABSL_FLAG(bool, allow_memory_limit_below_declared, false,
          "Guard rail: let headroom set a memory limit below the declared one (down to "
          "2 x the observed max and --min-memory-limit). Off: limits are only raised; "
          "placement reads requests, so a lower limit saves no node and only risks an OOM kill.");
ABSL_FLAG(double, max_shrink_step, 0.5,
          "Guard rail: the largest fraction of its current value a running container's "
          "request or limit loses in one step (growth is immediate).");
ABSL_FLAG(absl::Duration, shrink_interval, absl::Hours(1),
          "Guard rail: at most one shrink step per value per this interval.");
ABSL_FLAG(double, resize_min_change, 0.10,
          "Guard rail: a running container is changed only where a request or limit (at the "
          "runtime: a CPU weight or memory limit) moves by at least this fraction, and by "
          "--resize-min-cpu / --resize-min-memory.");
ABSL_FLAG(std::string, resize_min_cpu, "25m",
          "Guard rail: a CPU request or weight is changed only when it moves by at least this "
          "much.");
ABSL_FLAG(std::string, resize_min_memory, "64Mi",
          "Guard rail: a memory request or limit is changed only when it moves by at least this "
          "much (a memory limit that must rise always is).");

namespace headroom::app {

absl::StatusOr<int64_t> CpuMillisFlag(absl::string_view flag, const std::string& value) {
  absl::StatusOr<int64_t> millis = ParseCpuMillis(value);
  if (!millis.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", millis.status().message()));
  }
  return millis;
}

absl::StatusOr<int64_t> MemoryBytesFlag(absl::string_view flag, const std::string& value) {
  absl::StatusOr<int64_t> bytes = ParseMemoryBytes(value);
  if (!bytes.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--", flag, ": ", bytes.status().message()));
  }
  return bytes;
}

absl::StatusOr<GuardRailConfig> GuardRailConfigFromFlags(bool allow_below_declared) {
  GuardRailConfig config;
  config.min_history = absl::GetFlag(FLAGS_min_history);
  config.allow_below_declared = allow_below_declared;
  HEADROOM_ASSIGN_OR_RETURN(config.min_cpu_request_millis,
                            CpuMillisFlag("min-cpu-request", absl::GetFlag(FLAGS_min_cpu_request)));
  HEADROOM_ASSIGN_OR_RETURN(
      config.min_memory_limit_bytes,
      MemoryBytesFlag("min-memory-limit", absl::GetFlag(FLAGS_min_memory_limit)));
  config.allow_memory_limit_below_declared = absl::GetFlag(FLAGS_allow_memory_limit_below_declared);
  config.max_shrink_step = absl::GetFlag(FLAGS_max_shrink_step);
  config.shrink_interval = absl::GetFlag(FLAGS_shrink_interval);
  config.resize_threshold.fraction = absl::GetFlag(FLAGS_resize_min_change);
  HEADROOM_ASSIGN_OR_RETURN(config.resize_threshold.cpu_millis,
                            CpuMillisFlag("resize-min-cpu", absl::GetFlag(FLAGS_resize_min_cpu)));
  HEADROOM_ASSIGN_OR_RETURN(
      config.resize_threshold.memory_bytes,
      MemoryBytesFlag("resize-min-memory", absl::GetFlag(FLAGS_resize_min_memory)));
  if (absl::Status valid = config.Validate(); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("guard rail flags (--min-history, --max-shrink-step, --shrink-interval, "
                     "--resize-min-change, --resize-min-cpu, --resize-min-memory): ",
                     valid.message()));
  }
  return config;
}

}  // namespace headroom::app
