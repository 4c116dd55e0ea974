#pragma once

// Memory pressure as a signal (docs/algorithm.md, "Memory pressure"). A container short of
// memory is not always OOM-killed first: while the kernel reclaims its page cache, refaults
// its working set or throttles it at memory.high (the kubelet's Memory QoS), its tasks stall,
// and the cgroup's memory.pressure "some" total counts that stalled time. A stall share that
// stays high is the OOM kill announced, and the cheaper moment to act: headroom records the
// memory the container had in use then, and the guard rails (guard_rails.h) raise the memory
// limit above it by one step and the memory request to it, as an OOM record raises the limit.
//
// Defaults, and why:
// - stall_share 10%: Senpai (Meta's memory.high tuner) aims at about 0.1% of memory stall
//   and systemd-oomd kills at 60% over 30 s; 10% is two orders above what a healthy
//   container shows and far below the killer's level, so it acts before the kill without
//   acting on a cold start's page-ins;
// - sustained 2 minutes: two of headroom-nri's default 60 s samples in a row, so one
//   burst (a deploy, a backup's read) is not enough;
// - raise step 25% (GuardRailConfig::memory_pressure_step): the next limit is 1.25 x the
//   memory in use under pressure, a bounded step for growth with no kill to size from (an OOM
//   kill gives 2 x).

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace headroom {

struct MemoryPressureConfig {
  double stall_share = 0.10;  // of wall time with some task stalled on memory; 0: off
  absl::Duration sustained = absl::Minutes(2);

  absl::Status Validate() const;
};

// A container's current stretch of pressured intervals.
struct MemoryPressureRun {
  std::optional<absl::Time> since;  // start of the first pressured interval; nullopt: none
};

struct MemoryPressureObservation {
  double stall_share = 0;  // of the interval
  bool pressured = false;  // this interval reached the threshold
  bool sustained = false;  // and the stretch has lasted `sustained`: record it
};

// One sample interval [from, to] in which the cgroup's memory.pressure "some" total grew by
// `stalled_micros`. Updates `run`: a pressured interval starts or extends the stretch, any
// other ends it. A sustained stretch restarts at `to`, so a lasting pressure is recorded
// once per `sustained`, each time at the memory then in use (a bounded step each time).
// An interval that does not advance is ignored.
MemoryPressureObservation ObserveMemoryPressure(MemoryPressureRun& run, absl::Time from,
                                                absl::Time to, uint64_t stalled_micros,
                                                const MemoryPressureConfig& config);

// The memory limit's floor after pressure at `memory_bytes`: (1 + raise_step) x it, rounded
// up to a byte, saturating; 0 for no pressure.
int64_t PressureLimitFloor(int64_t memory_bytes, double raise_step);

}  // namespace headroom
