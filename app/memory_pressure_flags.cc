#include "app/memory_pressure_flags.h"

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"

ABSL_FLAG(double, memory_pressure_threshold, headroom::MemoryPressureConfig{}.stall_share,
          "Share of time a container's tasks may stall on memory (its memory.pressure \"some\" "
          "total) before it counts as memory pressure; 0: pressure is not acted on.");
ABSL_FLAG(absl::Duration, memory_pressure_duration, headroom::MemoryPressureConfig{}.sustained,
          "How long memory pressure must last before headroom records the memory in use then "
          "and raises the container's memory limit a step above it (25%) and its request to it.");

namespace headroom::app {

absl::StatusOr<MemoryPressureConfig> MemoryPressureConfigFromFlags() {
  const MemoryPressureConfig config{absl::GetFlag(FLAGS_memory_pressure_threshold),
                                    absl::GetFlag(FLAGS_memory_pressure_duration)};
  if (absl::Status valid = config.Validate(); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--memory-pressure-threshold/-duration: ", valid.message()));
  }
  return config;
}

}  // namespace headroom::app
