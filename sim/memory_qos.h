#pragma once

// Memory QoS (KEP-2570; beta and on by default since Kubernetes 1.37, cgroup v2 only), as the
// simulator models it: the kubelet sets each Burstable container's memory.high between its
// memory request and its limit, and a container above memory.high is throttled — the kernel
// reclaims its memory and makes its tasks sleep before they may allocate more — so its tasks
// stall on memory (memory.pressure) before it reaches memory.max and is OOM-killed. That stall
// is the signal headroom acts on (shared/memory_pressure.h); these functions give the
// simulator a stall to observe.

#include <cstdint>

namespace headroom::sim {

// The kubelet's default memoryThrottlingFactor (KubeletConfiguration), 0.9 since 1.27.
inline constexpr double kDefaultMemoryThrottlingFactor = 0.9;

// memory.high as the kubelet sets it for a container with a memory limit:
//   floor((request + factor x (limit - request)) / 4096) x 4096,
// or 0 (not set: memory.high stays "max") when Memory QoS is off (factor 0), the request equals
// the limit (Guaranteed memory), there is no limit (the simulator gives every pod one), or the
// result is not above the request — the kubelet's own conditions.
int64_t MemoryHigh(int64_t request_bytes, int64_t limit_bytes, double throttling_factor);

// The share of wall time a container in use of `usage_bytes` stalls on memory, in [0, 1]:
// 0 at or below memory.high (or without one), growing with the square of the overage across
// the band up to the limit — ((usage - high) / (limit - high))^2 — and 1 at the limit and above
// (where the simulator OOM-kills it). The square follows the kernel's throttling penalty
// (mm/memcontrol.c, calculate_high_delay: "fairly lenient on small overages, and increasingly
// harsh"), which grows with the square of the overage; the scale across the band is the
// simulator's assumption, not a measurement. The trace's usage is taken as it is: the
// reclaim that would hold a throttled container nearer memory.high is not modelled.
double MemoryStallShare(int64_t usage_bytes, int64_t high_bytes, int64_t limit_bytes);

}  // namespace headroom::sim
