#pragma once

// The one decoder of Kubernetes v1.Pod and v1.Node objects, as headroom reads them: from the
// scheduler's ExtenderArgs (scheduler/extender_wire.h, straight from simdjson's DOM) and from
// the API's watches and admission reviews (nlohmann documents, cut to the fields read and
// parsed again by the same code). Only what headroom needs is read: a pod's identity, workload
// key, annotations and container resources; a node's name and allocatable.

#include <simdjson.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "shared/resource.h"
#include "shared/workload_key.h"

namespace headroom::extender {

struct ContainerSpec {
  std::string name;
  ResourceAmounts requests;  // unset amounts are 0
  ResourceAmounts limits;    // unset amounts are 0 (no limit)
};

struct PodSpec {
  std::string pod_namespace;
  std::string name;
  std::string uid;
  // The pod's workload key (shared/workload_key.h WorkloadKeyFromController):
  // "shop/Deployment/checkout", "namespace/Pod/name" without an owner.
  std::string workload_key;
  std::map<std::string, std::string> annotations;
  std::vector<ContainerSpec> containers;
};

struct NodeSpec {
  std::string name;
  // From the Node object's status.allocatable (nodeCacheCapable=false only).
  std::optional<ResourceAmounts> allocatable;
  std::optional<int> max_pods;
};

// A v1.Pod element of simdjson's DOM; InvalidArgument naming the field ("Pod.metadata.name").
absl::StatusOr<PodSpec> DecodePodElement(simdjson::dom::element pod);
// A v1.Node element; fields are named "Nodes.items[<index>]...".
absl::StatusOr<NodeSpec> DecodeNodeElement(simdjson::dom::element node, size_t index);

// A v1.Pod object (from the request, or from the Kubernetes API), as headroom reads it.
absl::StatusOr<PodSpec> DecodePodObject(const nlohmann::json& pod);
// A v1.Node object: its name and status.allocatable (cpu, memory, pods) when present.
absl::StatusOr<NodeSpec> DecodeNodeObject(const nlohmann::json& node);

// The controlling owner among a pod's ownerReferences (controller: true, with a kind and a
// name; the API allows one at most); nullopt when there is none.
std::optional<ControllerRef> ControllingOwner(const nlohmann::json& owner_references);

// The labels of a pod's metadata.labels that the workload key reads (shared/workload_key.h).
PodLabels WorkloadKeyLabels(const nlohmann::json& labels);

}  // namespace headroom::extender
