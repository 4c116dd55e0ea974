#pragma once

// OOM handling (seed 000, "OOM Handling"): when a container is OOM-killed, record the memory
// it had for its workload (the memory limit becomes 2 x max(7-day max, memory at OOM)) and,
// unless something forbids it, evict the pod so it comes back with the higher limit. The
// cooldown is tracked per (container ID, pod name): repeated OOMs of one pod instance within
// the cooldown are ignored, and a recreated pod (new name) starts afresh.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/hash/hash.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "shared/annotations.h"
#include "shared/reason.h"

namespace headroom {

struct OomPolicyConfig {
  // headroom's choice (the seed gives none): kubelet's crash-loop back-off tops out at 5 min.
  absl::Duration cooldown = absl::Minutes(5);

  absl::Status Validate() const;
};

struct OomEvent {
  std::string container_id;
  std::string pod_name;
  absl::Time at;
  int64_t memory_bytes = 0;  // memory in use when the kernel killed the container
};

// What else forbids acting on an OOM (from configuration and the pod's annotations).
struct OomGuards {
  bool memory_application_disabled = false;  // memory sizing is switched off globally
  bool pod_excluded = false;                 // kExcludeAnnotation on the pod
  bool workload_disabled = false;            // the workload's override disables headroom
};

struct OomDecision {
  bool record = false;  // store memory_bytes as the workload's memory at OOM
  bool evict = false;   // evict the pod so it restarts with the raised limit
  Reason reason;
};

class OomCooldownTracker {
 public:
  explicit OomCooldownTracker(const OomPolicyConfig& config = {}) : config_(config) {}

  // Decides what to do with `event`, following seed 000's flow: cooldown active -> skip
  // everything; otherwise record, then evict unless a guard forbids it.
  OomDecision Evaluate(const OomEvent& event, const OomGuards& guards);

  // Pod instances currently in cooldown (entries older than the cooldown are dropped on
  // every Evaluate, so this is bounded by the OOM rate times the cooldown).
  size_t tracked() const { return last_oom_.size(); }

 private:
  OomPolicyConfig config_;
  absl::flat_hash_map<std::pair<std::string, std::string>, absl::Time> last_oom_;
};

}  // namespace headroom
