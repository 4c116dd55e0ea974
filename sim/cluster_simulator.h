#pragma once

// Replays a cluster minute by minute under each sizing policy, on the same pods and usage,
// and accounts for what each policy costs and risks. Every policy gets its own cluster:
// - placement: kube-scheduler's request fit and the configured score (ScoringConfig: spread,
//   pack or target); the headroom policy also goes through headroom-extender's projected fit
//   and load cordon (shared placement.h, load_cordon.h);
// - autoscaling (default on): a node of the configured shape is added when a pending pod
//   fits nowhere; the Cluster Autoscaler's scale-down with its defaults, every minute: a node
//   whose requests use less than half of its CPU and memory for 10 minutes goes, empty ones
//   at once, non-empty ones one at a time if their pods, recreated at their admission sizing,
//   fit elsewhere; nothing while pods are pending or for 10 minutes after a scale-up; or
//   Karpenter's consolidation (Autoscaler::kKarpenter): any node whose pods fit elsewhere,
//   the fewest pods first;
// - a resize the node cannot hold re-creates the pod, except under headroom, whose actuator
//   never does: the kubelet defers it and the pod runs on at its current requests;
// - each minute: CPU is shared by CFS weights (cpu_share.h) among the pods of a node;
//   a pod whose memory exceeds its limit is OOM-killed (once per minute it stays above);
//   a pod above its memory.high (the kubelet's Memory QoS, memory_qos.h) stalls on memory,
//   which the policy observes as memory.pressure;
//   a node whose pods' memory exceeds its allocatable evicts in kubelet's order
//   (kubelet_eviction.h) and takes no new pods for 5 minutes (kubelet's
//   evictionPressureTransitionPeriod); the policy observes usage and, at its period,
//   resizes or evicts;
// - pods with a later start minute (the cold-start scenario, a usage trace) join the pending
//   queue then; a pod whose trace ends leaves for good;
// - time advances in steps of UsageTraces::step_minutes (1, or a usage trace's resolution,
//   when usage changes only every 5 minutes): each policy still observes one sample a
//   minute, acts at its period, and every account is weighted by the step's minutes.
// Everything is deterministic for given inputs.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "shared/placement.h"
#include "sim/memory_qos.h"
#include "sim/sizing_policies.h"
#include "sim/trace_data.h"
#include "sim/usage_generator.h"

namespace headroom::sim {

// Which autoscaler removes nodes (both add one when a pending pod fits nowhere).
enum class Autoscaler {
  kClusterAutoscaler,  // scale-down of nodes under half requested (its defaults)
  kKarpenter,          // consolidation of any node whose pods fit elsewhere (its defaults)
};

struct SimulationConfig {
  int warmup_minutes = 24 * 60;  // left out of the summary (the recommenders learn)
  NodeShape node_shape;          // every node, including added ones
  int initial_nodes = 0;
  bool autoscale = true;
  Autoscaler autoscaler = Autoscaler::kClusterAutoscaler;
  double memory_limit_ratio = 1.0;  // declared memory limit / request
  // The kubelet's Memory QoS (memory_qos.h): memory.high between request and limit, and the
  // memory stall above it; 0 turns Memory QoS off (no memory.high, no stall before the kill).
  double memory_throttling_factor = kDefaultMemoryThrottlingFactor;
  ScoringConfig scoring;  // every policy's node score (kube-scheduler's, or the extender's)
  int max_pods_per_node = 110;
  int series_every_minutes = 15;
  std::vector<PolicyKind> policies = {PolicyKind::kStatic, PolicyKind::kVpa, PolicyKind::kCrane,
                                      PolicyKind::kHeadroom};
  HeadroomOptions headroom;  // the headroom policy's knobs (the product's flags)
  absl::Time start = absl::FromUnixSeconds(1'700'006'400);  // 2023-11-15 00:00 UTC

  absl::Status Validate(int minutes) const;
};

struct TimePoint {
  int minute = 0;
  int64_t requested_cpu_millis = 0;
  int64_t requested_memory_bytes = 0;
  int64_t used_cpu_millis = 0;  // granted
  int64_t used_memory_bytes = 0;
  int64_t demand_cpu_millis = 0;    // including pending pods
  int64_t demand_memory_bytes = 0;  // including pending pods
  int64_t allocatable_cpu_millis = 0;
  int64_t allocatable_memory_bytes = 0;
  int nodes = 0;
  int pending = 0;
};

// Averages are over the minutes after the warm-up.
struct PolicySummary {
  double requested_cpu_millis = 0;
  double requested_memory_bytes = 0;
  double used_cpu_millis = 0;
  double used_memory_bytes = 0;
  double demand_cpu_millis = 0;
  double allocatable_cpu_millis = 0;
  double allocatable_memory_bytes = 0;
  double cpu_utilisation = 0;     // used / requested
  double memory_utilisation = 0;  // used / requested
  double nodes_average = 0;
  int nodes_max = 0;
  int nodes_final = 0;
  int64_t oom_kills = 0;
  // Time pods' tasks stalled on memory above memory.high (Memory QoS, memory_qos.h), weighted
  // by the stall share: one pod stalled half of every minute for an hour is 0.5 pod-hours.
  double memory_stall_pod_hours = 0;
  int64_t memory_pressure_records = 0;  // sustained stalls the policy recorded (headroom)
  double cpu_shortfall_core_hours = 0;  // demand the pods did not get (contention, pending)
  double cpu_shortfall_fraction = 0;    // of the demand
  int64_t optimizer_evictions = 0;      // by the policy (headroom's node optimisation)
  int64_t pressure_evictions = 0;       // by kubelet under node memory pressure
  int64_t resize_evictions = 0;         // a resize the node could not hold: recreated
  int64_t deferred_resizes = 0;         // one the policy leaves to the kubelet instead
  int64_t consolidation_moves = 0;      // pods moved off a drained node
  int64_t resizes = 0;                  // in-place resizes, of which:
  int64_t resizes_up = 0;               //   only raise requests or the limit
  int64_t resizes_down = 0;             //   only lower them
  int64_t resizes_mixed = 0;            //   raise one, lower another
  int64_t departures = 0;               // pods whose usage trace ended
  double pending_pod_hours = 0;
};

struct PolicyRun {
  PolicyKind kind = PolicyKind::kStatic;
  std::vector<TimePoint> series;  // every `series_every_minutes`
  PolicySummary summary;
};

// The fewest nodes that perfect packing of the actual usage would need, each step:
// max(ceil(CPU used / node CPU), ceil(memory used / node memory), ceil(pods / max pods per
// node)) over every pod that exists (running or pending), whatever policy runs. Over the
// summary window.
struct OracleSummary {
  double nodes_average = 0;
  int nodes_max = 0;
  double pod_days = 0;  // pods existing, summed over the window (for rates per pod-day)
};

struct SimulationResult {
  int pods = 0;
  int minutes = 0;
  OracleSummary oracle;
  std::vector<PolicyRun> runs;
};

OracleSummary OracleNodes(const std::vector<PodSpec>& pods, const UsageTraces& usage,
                          const SimulationConfig& config);

// Runs one policy. `minutes_done` (optional) is advanced as simulated minutes complete.
PolicyRun SimulatePolicy(PolicyKind kind, const std::vector<PodSpec>& pods,
                         const UsageTraces& usage, const SimulationConfig& config,
                         std::function<void()> minute_done = nullptr);

// Runs every configured policy, in parallel threads; `progress` (called on this thread,
// with the completed fraction) may be empty.
SimulationResult Simulate(const std::vector<PodSpec>& pods, const UsageTraces& usage,
                          const SimulationConfig& config,
                          const std::function<void(double)>& progress = nullptr);

}  // namespace headroom::sim
