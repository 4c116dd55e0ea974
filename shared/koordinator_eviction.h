#pragma once

// Koordinator's node-level CPU eviction strategies (koordlet; seed 003, second half), as pure
// functions of a node snapshot. The caller averages usage over its own time window.
// - CPUEvict: when node CPU usage exceeds threshold% of capacity, evict eligible pods (lower
//   priority first, then higher CPU usage) until usage would be at or below lower% (default
//   threshold - 2).
// - BECPUEvict: best-effort pods share a suppressed CPU allowance. satisfaction = allowance /
//   BE requests, utilisation = BE usage / allowance. When satisfaction < lower% and
//   utilisation >= usage threshold% (default 90), evict BE pods (lower priority first, then
//   higher usage) until the remaining BE requests would give satisfaction >= upper%.
// - CPUAllocatableEvict: when the pods' CPU requests against the node's (batch) allocatable
//   exceed threshold%, evict eligible pods (lower priority first, then larger request) until
//   requests would be at or below lower%.
// Eligibility: CPUEvict and CPUAllocatableEvict only act on pods that opted in (label) and
// whose priority is at most the strategy's priority threshold; a pod's policy annotation may
// restrict which strategies act on it. Ties on priority go to the finer priority label (lower
// first), then namespace/name.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "shared/annotations.h"
#include "shared/pod_identity.h"
#include "shared/reason.h"

namespace headroom {

enum class KoordStrategy { kCpuEvict, kBeCpuEvict, kCpuAllocatableEvict };

absl::string_view KoordStrategyName(KoordStrategy strategy);  // "CPUEvict", ...

struct KoordPod : PodIdentity {
  int32_t priority = 0;                 // Pod.Spec.Priority
  std::optional<int32_t> sub_priority;  // finer-grained priority label, lower goes first
  bool best_effort = false;             // a BE (batch) pod
  bool eviction_enabled = false;        // kEvictionEnabledLabel
  // Strategies allowed by kEvictionPolicyAnnotation; nullopt means all.
  std::optional<std::vector<KoordStrategy>> allowed_strategies;
  int64_t cpu_usage_millis = 0;
  int64_t cpu_request_millis = 0;  // for BE pods, the batch-cpu request
};

struct CpuEvictConfig {
  int threshold_percent = 0;                     // required: usage above this triggers
  std::optional<int> lower_percent;              // default threshold - 2
  int32_t evict_enabled_priority_threshold = 0;  // required: highest evictable priority
  absl::Status Validate() const;
};

struct BeCpuEvictConfig {
  int satisfaction_lower_percent = 0;  // required, 0..60
  int satisfaction_upper_percent = 0;  // required, lower..100
  int usage_threshold_percent = 90;
  absl::Status Validate() const;
};

struct CpuAllocatableEvictConfig {
  int threshold_percent = 0;  // required
  int lower_percent = 0;      // required
  int32_t priority_threshold = 0;
  absl::Status Validate() const;
};

struct KoordNode {
  std::string name;
  int64_t cpu_capacity_millis = 0;
  int64_t cpu_usage_millis = 0;              // whole node, averaged by the caller
  int64_t be_cpu_allowance_millis = 0;       // CPU the suppression leaves to BE pods
  int64_t batch_cpu_allocatable_millis = 0;  // the allocatable account requests are held to
  std::vector<KoordPod> pods;
};

struct KoordEviction {
  size_t pod = 0;  // index into KoordNode::pods
  KoordStrategy strategy = KoordStrategy::kCpuEvict;
  Reason reason;
};

struct KoordDecision {
  bool triggered = false;
  Reason reason;                         // why it triggered or not, with the numbers
  std::vector<KoordEviction> evictions;  // in order
  int64_t to_release_millis = 0;         // usage (or request) the strategy set out to free
  int64_t released_millis = 0;           // what the evictions free
};

KoordDecision EvaluateCpuEvict(const KoordNode& node, const CpuEvictConfig& config);
KoordDecision EvaluateBeCpuEvict(const KoordNode& node, const BeCpuEvictConfig& config);
KoordDecision EvaluateCpuAllocatableEvict(const KoordNode& node,
                                          const CpuAllocatableEvictConfig& config);

}  // namespace headroom
