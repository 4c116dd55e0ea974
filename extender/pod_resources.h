#pragma once

// A pod's declared CPU and memory per container, as the Kubernetes API stores them, and the
// QoS class they give it. Used by the admission webhook (to size a new pod) and by the
// actuator (a resize must not change the QoS class, which the API forbids).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

struct DeclaredResources {
  std::string name;  // the container's
  std::optional<int64_t> cpu_request_millis;
  std::optional<int64_t> cpu_limit_millis;
  std::optional<int64_t> memory_request_bytes;
  std::optional<int64_t> memory_limit_bytes;

  bool operator==(const DeclaredResources&) const = default;
};

// spec.<field>[*] of a Pod ("containers" or "initContainers"); an absent list is empty.
// InvalidArgument naming the field for a list that is not one, or a bad quantity.
absl::StatusOr<std::vector<DeclaredResources>> DecodeDeclaredResources(const nlohmann::json& pod,
                                                                       absl::string_view field);

enum class QosClass { kBestEffort, kBurstable, kGuaranteed };
absl::string_view QosClassName(QosClass qos);

// Kubernetes' rule (CPU and memory): BestEffort when no container sets a request or a limit;
// Guaranteed when every container has CPU and memory limits and its requests (defaulting to
// the limits) equal them; Burstable otherwise. Pass init and regular containers together.
QosClass QosOf(const std::vector<DeclaredResources>& containers);

}  // namespace headroom::extender
