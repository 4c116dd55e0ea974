#pragma once

// Kubernetes node-pressure eviction order (seed 004; kubelet pkg/kubelet/eviction):
// - a pod's QoS class from its spec: BestEffort when no container has a CPU or memory
//   request or limit; Guaranteed when every container has CPU and memory limits and every
//   request equals its limit; Burstable otherwise. Zero amounts count as unset, and a missing
//   request with a limit takes the limit (the API server's defaulting);
// - under memory pressure kubelet ranks pods by (1) whether memory usage exceeds the pod's
//   memory requests (those that do go first; a BestEffort pod has no requests so it always
//   does), (2) priority, lower first, (3) memory usage above requests, larger first.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "shared/pod_identity.h"

namespace headroom {

enum class QosClass { kGuaranteed, kBurstable, kBestEffort };

absl::string_view QosClassName(QosClass qos);  // "Guaranteed", "Burstable", "BestEffort"

struct ContainerResourceSpec {
  std::optional<int64_t> cpu_request_millis;
  std::optional<int64_t> cpu_limit_millis;
  std::optional<int64_t> memory_request_bytes;
  std::optional<int64_t> memory_limit_bytes;
};

// The QoS class of a pod with these containers (init containers included).
QosClass PodQosClass(const std::vector<ContainerResourceSpec>& containers);

struct MemoryPressurePod : PodIdentity {
  int32_t priority = 0;
  int64_t memory_usage_bytes = 0;
  int64_t memory_request_bytes = 0;  // sum over the pod's containers
};

// Pod indices in kubelet's eviction order under memory pressure (first = evicted first).
// Pods equal on all three keys keep namespace/name order.
std::vector<size_t> RankForMemoryPressure(const std::vector<MemoryPressurePod>& pods);

}  // namespace headroom
