#pragma once

// PSI-adjusted CPU usage (CruiseKube, seed 000):
//   adjusted = usage x (1 + waiting_rate)
// where usage is cores used and waiting_rate the rate of the cgroup's cpu.pressure "some"
// total (seconds stalled per second). 0.5 cores with 20% waiting is 0.6 cores: under
// contention a container's demand is more than what it managed to use.

#include <cstdint>
#include <optional>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace headroom {

// Cumulative counters read from a cgroup at one moment.
struct CpuCounters {
  absl::Time read_at;
  int64_t usage_usec = 0;  // cpu.stat usage_usec (cgroup v2) or cpuacct.usage / 1000 (v1)
  // cpu.pressure "some" total in microseconds; nullopt when PSI is not available.
  std::optional<int64_t> some_stall_usec;
};

struct CpuRateSample {
  int64_t usage_millis = 0;     // plain usage over the interval, rounded up
  int64_t adjusted_millis = 0;  // PSI-adjusted usage, rounded up
  // Stall time per unit time over the interval (0.2 = 20% waiting); 0 without PSI.
  double waiting_rate = 0;
  bool psi_available = false;  // false: adjusted == usage because PSI was missing
};

// Computes the PSI-adjusted CPU rate between two reads of the same cgroup. Exact integer
// arithmetic, rounded up to the millicore. FailedPrecondition when time did not advance or a
// counter went backwards (the cgroup was recreated): the caller should drop that interval.
absl::StatusOr<CpuRateSample> PsiAdjustedCpu(const CpuCounters& previous,
                                             const CpuCounters& current);

}  // namespace headroom
