#pragma once

// Guard rails: what headroom may do to a container's resources, whatever the algorithm asks
// for. headroom-nri (CPU weight, memory limit), the admission webhook, the actuator's resizes
// and the simulator all pass their proposal through ApplyGuardRails, so each applies the same
// rules (docs/algorithm.md, "Guard rails"):
//
// 1. Warm-up. Until the workload container has been observed for `min_history` (default 24 h:
//    one daily cycle, so the hour-of-day peak has seen every hour once; VPA likewise counts
//    its confidence in 24-hour periods, seed 001), nothing is tightened: every value stays as
//    declared. Evidence still raises the memory limit: it is at least 2 x the memory at the
//    last OOM kill and at least the memory in use.
// 2. Floors, once warm:
//    - requests never go below the declared requests unless the workload opted in
//      (headroom.dev/allow-below-declared, or the cluster-wide default);
//    - the CPU request, and so the CPU weight, is at least `min_cpu_request_millis` (25m,
//      VPA's podMinCPUMillicores);
//    - the memory limit is never below the declared one, unless
//      `allow_memory_limit_below_declared`;
//    - the memory limit is at least max(2 x the observed max, `min_memory_limit_bytes` (250Mi,
//      VPA's podMinMemoryMb), 2 x the memory at the last OOM kill, the memory in use, the
//      memory request -- where the caller knows it: the runtime shows headroom-nri no memory
//      request, so at the runtime layer the limit follows the other floors).
// 3. The workload's own tuning (WorkloadTuning, from its annotations), once warm: a margin on
//    the proposed requests, then its min and max. The floors of 2. win over its max (a max
//    below the declared request needs allow-below-declared too); the memory limit is never
//    capped by it, only raised to the request. A min also raises a warming-up workload (growth
//    is always allowed). A resource the workload opted out of is left as it is now.
// 4. Bounded shrinking. A running container's value that goes down loses at most
//    `max_shrink_step` of its current amount in one step, and takes at most one step per
//    `shrink_interval`; growth is immediate. A container being created (admission, NRI
//    CreateContainer) starts from the sizing its workload's history gives, without steps.
// 5. Changes worth making. A running container is changed only where a value moves by at least
//    `resize_threshold` (10% of its current amount and 25m / 64Mi), or where its memory limit
//    has to rise at all. ApplyGuardRails does not apply this one: the caller does, at its own
//    granularity -- the actuator per pod (node_actions.h's ResizeWorthMaking: any value moving
//    enough resizes the whole pod), headroom-nri per runtime value (a CPU weight, a memory
//    limit), so a change too small to matter neither churns the runtime nor spends the
//    `shrink_interval` that a later, real step needs.
//
// A value the caller does not manage is absent in the proposal and comes back as it is now.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "shared/reason.h"

namespace headroom {

// When a change to a running container is worth making (rule 5 above).
struct ResizeThreshold {
  double fraction = 0.10;
  // A change smaller than these is not worth making, whatever its fraction: on the Bitbrains
  // trace a quarter of the CPU changes were under 23m and a quarter of the memory changes under
  // 35Mi, half of them undone within hours (docs/actuation.md).
  int64_t cpu_millis = 25;
  int64_t memory_bytes = int64_t{64} << 20;

  bool operator==(const ResizeThreshold&) const = default;
};

struct GuardRailConfig {
  absl::Duration min_history = absl::Hours(24);
  // The cluster-wide default of headroom.dev/allow-below-declared.
  bool allow_below_declared = false;
  // Off: a memory limit is never set below the declared one (placement reads requests, so a
  // lower limit saves no node and only risks an OOM kill); on: it may go down to the floors.
  bool allow_memory_limit_below_declared = false;
  int64_t min_cpu_request_millis = 25;
  int64_t min_memory_limit_bytes = int64_t{250} << 20;
  double max_shrink_step = 0.5;
  absl::Duration shrink_interval = absl::Hours(1);
  // After a sustained memory stall (memory_pressure.h) the limit is at least (1 + this) x the
  // memory then in use.
  double memory_pressure_step = 0.25;
  // --resize-min-change, --resize-min-cpu, --resize-min-memory (rule 5).
  ResizeThreshold resize_threshold;

  absl::Status Validate() const;
};

// A container's three sized values; absent: not set (no request, no limit).
struct SizedValues {
  std::optional<int64_t> cpu_request_millis;
  std::optional<int64_t> memory_request_bytes;
  std::optional<int64_t> memory_limit_bytes;

  bool operator==(const SizedValues&) const = default;
};

// When each value last shrank (for the step bound); nullopt: never.
struct ShrinkTimes {
  std::optional<absl::Time> cpu_request;
  std::optional<absl::Time> memory_request;
  std::optional<absl::Time> memory_limit;

  bool operator==(const ShrinkTimes&) const = default;
};

// Per-workload bounds and overrides (docs/annotations.md); the defaults change nothing.
struct WorkloadTuning {
  std::optional<int64_t> min_cpu_millis;
  std::optional<int64_t> max_cpu_millis;
  std::optional<int64_t> min_memory_bytes;
  std::optional<int64_t> max_memory_bytes;
  double cpu_margin = 0;     // fraction added to the proposed CPU request, e.g. 0.2
  double memory_margin = 0;  // fraction added to the proposed memory request
  bool keep_cpu = false;     // opted out: the CPU request (and weight) stays as it is
  bool keep_memory = false;  // opted out: the memory request and limit stay as they are
  // Why a resource is kept, when not the workload's headroom.dev/keep-declared (e.g. an HPA).
  std::string keep_cpu_why;
  std::string keep_memory_why;
  // The percentile of the short-window base instead of the configured one (P75, seed 000):
  // headroom.dev/base-percentile. Read where samples become statistics (headroom-nri, the
  // simulator), so it reaches placement, the node optimisation and the reports.
  std::optional<double> base_percentile;

  bool operator==(const WorkloadTuning&) const = default;
};

struct GuardInput {
  SizedValues declared;  // the pod spec as written, before headroom
  SizedValues current;   // applied now (for a container being created: the declared values)
  SizedValues proposed;  // what the algorithm asks for
  absl::Duration history = absl::ZeroDuration();  // of the workload container
  int64_t max_memory_bytes = 0;                   // observed max (7 days)
  int64_t oom_memory_bytes = 0;                   // memory at the last OOM kill; 0: none
  // Memory in use during the largest recent sustained memory stall (memory_pressure.h); 0: none.
  int64_t pressure_memory_bytes = 0;
  int64_t memory_in_use_bytes = 0;    // now; 0 for a container being created
  bool allow_below_declared = false;  // resolved: the workload's annotation or the default
  WorkloadTuning tuning;              // resolved from the workload's annotations
  bool running = true;                // false: being created, no shrink steps
  ShrinkTimes last_shrink;
  absl::Time now = absl::InfinitePast();
};

struct GuardResult {
  SizedValues values;
  ShrinkTimes last_shrink;  // `input.last_shrink` with `now` for every value that shrank
  bool warming_up = false;
  std::vector<Reason> reasons;  // every rule that changed the proposal, with the numbers
};

GuardResult ApplyGuardRails(const GuardInput& input, const GuardRailConfig& config);

// "10% or 25m / 64Mi": the threshold as the logs and skip reasons state it.
std::string DescribeThreshold(const ResizeThreshold& threshold);

}  // namespace headroom
