#include "shared/memory_pressure.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "shared/wide_int.h"

namespace headroom {

absl::Status MemoryPressureConfig::Validate() const {
  if (!(stall_share >= 0 && stall_share < 1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("memory pressure threshold must be in [0, 1), got ", stall_share));
  }
  if (sustained < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("memory pressure duration must not be negative");
  }
  return absl::OkStatus();
}

MemoryPressureObservation ObserveMemoryPressure(MemoryPressureRun& run, absl::Time from,
                                                absl::Time to, uint64_t stalled_micros,
                                                const MemoryPressureConfig& config) {
  MemoryPressureObservation observed;
  const int64_t interval_micros = absl::ToInt64Microseconds(to - from);
  if (interval_micros <= 0) return observed;
  observed.stall_share = static_cast<double>(stalled_micros) / static_cast<double>(interval_micros);
  observed.pressured = config.stall_share > 0 && observed.stall_share >= config.stall_share;
  if (!observed.pressured) {
    run.since.reset();
    return observed;
  }
  if (!run.since.has_value()) run.since = from;
  if (to - *run.since >= config.sustained) {
    observed.sustained = true;
    run.since = to;
  }
  return observed;
}

int64_t PressureLimitFloor(int64_t memory_bytes, double raise_step) {
  if (memory_bytes <= 0) return 0;
  // The same rounding and saturation as a workload's margin (guard_rails.cc, ApplyTuning).
  return SaturateToInt64(static_cast<WideInt>(std::ceil(
      static_cast<long double>(memory_bytes) * (1.0L + static_cast<long double>(raise_step)))));
}

}  // namespace headroom
