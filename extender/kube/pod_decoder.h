#pragma once

// The one decoder of Kubernetes v1.Pod and v1.Node objects, as headroom reads them: from the
// scheduler's ExtenderArgs (scheduler/extender_wire.h, straight from simdjson's DOM) and from
// the API's watches and admission reviews (nlohmann documents, cut to the fields read and
// parsed again by the same code). Only what headroom needs is read: a pod's identity, workload
// key, annotations, container resources and pod-level resources; a node's name and allocatable.

#include <simdjson.h>

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "shared/pod_identity.h"
#include "shared/pod_level_resources.h"
#include "shared/resource.h"
#include "shared/workload_key.h"

namespace headroom::extender {

struct ContainerSpec {
  std::string name;
  ResourceAmounts requests;  // unset amounts are 0
  ResourceAmounts limits;    // unset amounts are 0 (no limit)
};

struct PodSpec : PodIdentity {
  // The pod's workload key (shared/workload_key.h WorkloadKeyFromController):
  // "shop/Deployment/checkout", "namespace/Pod/name" without an owner.
  std::string workload_key;
  std::map<std::string, std::string> annotations;
  std::vector<ContainerSpec> containers;
  // spec.resources (Kubernetes 1.34+), its requests defaulted as the API does.
  PodLevelResources pod_level;
  // metadata.generateName: a pod being created may have no name yet (the webhook sees it so);
  // its workload key then names it generateName + "*".
  std::string generate_name;
  std::optional<ControllerRef> owner;  // the controlling owner, if any
};

struct NodeSpec {
  std::string name;
  // From the Node object's status.allocatable (nodeCacheCapable=false only).
  std::optional<ResourceAmounts> allocatable;
  std::optional<int> max_pods;
};

// How much of a pod to read: the scheduler and the watches read it whole; the webhook reads the
// pod being created, which may have no name yet, and its containers as declared
// (pod_resources.h).
struct PodDecoding {
  std::string default_namespace = "default";  // for a pod without metadata.namespace
  bool require_name = true;                   // else neither name nor generateName is an error
  bool containers = true;                     // false: metadata only
};

// A v1.Pod element of simdjson's DOM; InvalidArgument naming the field ("Pod.metadata.name":
// a pod needs a name or a generateName unless told otherwise).
absl::StatusOr<PodSpec> DecodePodElement(simdjson::dom::element pod,
                                         const PodDecoding& decoding = {});
// A v1.Node element; fields are named "Nodes.items[<index>]...".
absl::StatusOr<NodeSpec> DecodeNodeElement(simdjson::dom::element node, size_t index);

// A v1.Pod object (from the request, or from the Kubernetes API), as headroom reads it.
absl::StatusOr<PodSpec> DecodePodObject(const nlohmann::json& pod,
                                        const PodDecoding& decoding = {});
// A v1.Node object: its name and status.allocatable (cpu, memory, pods) when present.
absl::StatusOr<NodeSpec> DecodeNodeObject(const nlohmann::json& node);

// The controlling owner among a pod's ownerReferences (controller: true, with a kind and a
// name; the API allows one at most); nullopt when there is none.
std::optional<ControllerRef> ControllingOwner(const nlohmann::json& owner_references);

// The labels of a pod's metadata.labels that the workload key reads (shared/workload_key.h).
PodLabels WorkloadKeyLabels(const nlohmann::json& labels);

}  // namespace headroom::extender
