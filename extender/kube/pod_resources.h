#pragma once

// A pod's declared CPU and memory per container, as the Kubernetes API stores them. Used by
// the admission webhook (to size a new pod) and by the actuator (a resize must not change the
// QoS class, shared/kubelet_eviction.h's PodQosClass, which the API forbids).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "shared/kubelet_eviction.h"
#include "shared/pod_level_resources.h"
#include "shared/resource.h"

namespace headroom::extender {

struct DeclaredResources {
  std::string name;  // the container's
  std::optional<int64_t> cpu_request_millis;
  std::optional<int64_t> cpu_limit_millis;
  std::optional<int64_t> memory_request_bytes;
  std::optional<int64_t> memory_limit_bytes;

  bool operator==(const DeclaredResources&) const = default;
};

// The containers' requests summed (an unset request counts 0), saturating.
ResourceAmounts RequestsOf(const std::vector<DeclaredResources>& containers);

// spec.<field>[*] of a Pod ("containers" or "initContainers"); an absent list is empty.
// InvalidArgument naming the field for a list that is not one, or a bad quantity.
absl::StatusOr<std::vector<DeclaredResources>> DecodeDeclaredResources(const nlohmann::json& pod,
                                                                       absl::string_view field);

// spec.resources of a v1.Pod (pod-level resources, Kubernetes 1.34+), with an empty name;
// nullopt when the pod declares no pod-level cpu or memory. InvalidArgument naming the field
// for a bad quantity.
absl::StatusOr<std::optional<DeclaredResources>> DecodePodLevelResources(const nlohmann::json& pod);
// The same amounts as shared/pod_level_resources.h has them (unset: 0).
PodLevelResources PodLevelOf(const std::optional<DeclaredResources>& pod);
// The inverse: an amount of 0 is not declared; nullopt when nothing is.
std::optional<DeclaredResources> DeclaredPodLevel(const PodLevelResources& pod);

// The headroom.dev/declared annotation the admission webhook writes and the actuator reads:
// each container's CPU and memory as the pod spec declared them before headroom changed them,
//   [{"name": "app", "resources": {"requests": {"cpu": "1", "memory": "1Gi"},
//                                  "limits": {"memory": "2Gi"}}}]
// (the shape of spec.containers[*], so one decoder reads both). The decoder refuses anything
// else with InvalidArgument; its input is bounded by the API server's annotation size.
std::string EncodeDeclaredAnnotation(const std::vector<DeclaredResources>& containers);
absl::StatusOr<std::vector<DeclaredResources>> DecodeDeclaredAnnotation(absl::string_view text);

// The headroom.dev/declared-pod annotation: a pod's pod-level CPU and memory as declared, in
// the shape of spec.resources ({"requests": {"cpu": "1"}, "limits": {"memory": "2Gi"}});
// nullopt when it declares neither. InvalidArgument for anything else.
std::string EncodeDeclaredPodAnnotation(const DeclaredResources& pod);
absl::StatusOr<std::optional<DeclaredResources>> DecodeDeclaredPodAnnotation(
    absl::string_view text);

// `resources` without a CPU limit, keeping the request the API defaults from it when none is
// declared (the admission webhook's --admission-strip-cpu-limits, for containers and the pod
// level alike).
void DropCpuLimit(DeclaredResources& resources);

// "cpu 350m/limit -, memory 96Mi/limit 200Mi": for annotations, Events and logs.
std::string DescribeResources(const DeclaredResources& resources);

// The amounts alone, for shared/kubelet_eviction.h's PodQosClass.
std::vector<ContainerResourceSpec> ResourceSpecs(const std::vector<DeclaredResources>& containers);

}  // namespace headroom::extender
