#include "shared/kubelet_eviction.h"

#include <algorithm>
#include <numeric>

namespace headroom {
namespace {

// Unset and zero are the same to kubelet's QoS computation.
int64_t Amount(const std::optional<int64_t>& value) { return value.value_or(0); }

}  // namespace

absl::string_view QosClassName(QosClass qos) {
  switch (qos) {
    case QosClass::kGuaranteed:
      return "Guaranteed";
    case QosClass::kBurstable:
      return "Burstable";
    case QosClass::kBestEffort:
      return "BestEffort";
  }
  return "Unknown";
}

QosClass PodQosClass(const std::vector<ContainerResourceSpec>& containers) {
  bool any = false;
  bool guaranteed = !containers.empty();
  for (const ContainerResourceSpec& c : containers) {
    const int64_t cpu_limit = Amount(c.cpu_limit_millis);
    const int64_t memory_limit = Amount(c.memory_limit_bytes);
    // A request left unset with a limit present is defaulted to the limit.
    const int64_t cpu_request =
        c.cpu_request_millis.has_value() ? *c.cpu_request_millis : cpu_limit;
    const int64_t memory_request =
        c.memory_request_bytes.has_value() ? *c.memory_request_bytes : memory_limit;
    if (cpu_limit != 0 || memory_limit != 0 || cpu_request != 0 || memory_request != 0) {
      any = true;
    }
    if (cpu_limit == 0 || memory_limit == 0 || cpu_request != cpu_limit ||
        memory_request != memory_limit) {
      guaranteed = false;
    }
  }
  if (!any) return QosClass::kBestEffort;
  return guaranteed ? QosClass::kGuaranteed : QosClass::kBurstable;
}

std::vector<size_t> RankForMemoryPressure(const std::vector<MemoryPressurePod>& pods) {
  std::vector<size_t> order(pods.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const MemoryPressurePod& pa = pods[a];
    const MemoryPressurePod& pb = pods[b];
    const bool exceeds_a = pa.memory_usage_bytes > pa.memory_request_bytes;
    const bool exceeds_b = pb.memory_usage_bytes > pb.memory_request_bytes;
    if (exceeds_a != exceeds_b) return exceeds_a;
    if (pa.priority != pb.priority) return pa.priority < pb.priority;
    const int64_t above_a = pa.memory_usage_bytes - pa.memory_request_bytes;
    const int64_t above_b = pb.memory_usage_bytes - pb.memory_request_bytes;
    if (above_a != above_b) return above_a > above_b;
    if (pa.pod_namespace != pb.pod_namespace) return pa.pod_namespace < pb.pod_namespace;
    return pa.name < pb.name;
  });
  return order;
}

}  // namespace headroom
