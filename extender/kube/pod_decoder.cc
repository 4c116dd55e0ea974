#include "extender/kube/pod_decoder.h"

#include <string_view>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "codec/json_fields.h"
#include "extender/json/dom_fields.h"
#include "extender/json/json_projection.h"
#include "extender/json/thread_json_parser.h"
#include "shared/status_macros.h"

namespace headroom::extender {
namespace {

using nlohmann::json;

// A quantity from a Kubernetes resource list; absent or null is 0.
absl::StatusOr<int64_t> Amount(simdjson::dom::object list, const char* resource,
                               absl::string_view path, bool cpu) {
  simdjson::dom::element value;
  if (!Present(list, resource, value)) return 0;
  const std::string field = absl::StrCat(path, ".", resource);
  const std::optional<std::string> text = ScalarText(value);
  if (!text.has_value()) return InvalidField(field, "expected a quantity");
  return codec::QuantityFromText(
      *text, field, cpu ? codec::QuantityKind::kCpuMillis : codec::QuantityKind::kMemoryBytes);
}

// The cpu and memory of object[key], a resource list; absent or null is none.
absl::StatusOr<ResourceAmounts> Amounts(simdjson::dom::element object, const char* key,
                                        absl::string_view path) {
  simdjson::dom::element value;
  if (!Present(object, key, value)) return ResourceAmounts{};
  const std::string field = absl::StrCat(path, ".", key);
  simdjson::dom::object list;
  if (value.get(list) != simdjson::SUCCESS) return InvalidField(field, "expected a resource list");
  ResourceAmounts amounts;
  HEADROOM_ASSIGN_OR_RETURN(amounts.cpu_millis, Amount(list, "cpu", field, true));
  HEADROOM_ASSIGN_OR_RETURN(amounts.memory_bytes, Amount(list, "memory", field, false));
  return amounts;
}

std::optional<ControllerRef> ControllingOwnerElement(simdjson::dom::element owner_references) {
  simdjson::dom::array owners;
  if (owner_references.get(owners) != simdjson::SUCCESS) return std::nullopt;
  for (simdjson::dom::element owner : owners) {
    simdjson::dom::element controller;
    bool is_controller = false;
    if (!Present(owner, "controller", controller) ||
        controller.get(is_controller) != simdjson::SUCCESS || !is_controller) {
      continue;
    }
    ControllerRef reference{std::string(StringMember(owner, "kind")),
                            std::string(StringMember(owner, "name"))};
    if (!reference.kind.empty() && !reference.name.empty()) return reference;
  }
  return std::nullopt;
}

// Calls take(key, value) for each string member of metadata[key] (a map of strings such as
// labels or annotations; absent or null: none, other values skipped). InvalidArgument naming
// Pod.metadata.<key> when it is not an object.
template <typename Take>
absl::Status ForEachStringMember(simdjson::dom::element metadata, const char* key, Take&& take) {
  simdjson::dom::element map;
  if (!Present(metadata, key, map)) return absl::OkStatus();
  simdjson::dom::object members;
  if (map.get(members) != simdjson::SUCCESS) {
    return InvalidField(absl::StrCat("Pod.metadata.", key), "expected an object");
  }
  for (const simdjson::dom::key_value_pair member : members) {
    std::string_view value;
    if (member.value.get(value) == simdjson::SUCCESS) take(member.key, value);
  }
  return absl::OkStatus();
}

// `value` (an nlohmann document from the API) parsed again by simdjson, so that one decoder
// reads both the scheduler's requests and the API's objects.
absl::StatusOr<simdjson::dom::element> Reparse(const json& value, absl::string_view what) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  simdjson::dom::element element;
  if (ThreadJsonParser().parse(text).get(element) != simdjson::SUCCESS) {
    return InvalidField(what, "not JSON");
  }
  return element;
}

// An empty object, for a pod being created without metadata (the webhook's test of it).
simdjson::dom::element EmptyObject() {
  static simdjson::dom::parser* const parser = new simdjson::dom::parser();
  static const simdjson::dom::element empty = parser->parse(std::string_view("{}")).value();
  return empty;
}

// The pod's metadata: its identity, annotations, controlling owner and workload key.
absl::Status DecodePodMetadata(simdjson::dom::element metadata, const PodDecoding& decoding,
                               PodSpec& spec) {
  spec.pod_namespace = std::string(StringMember(metadata, "namespace"));
  if (spec.pod_namespace.empty()) spec.pod_namespace = decoding.default_namespace;
  if (spec.pod_namespace.empty()) spec.pod_namespace = "default";
  spec.name = std::string(StringMember(metadata, "name"));
  spec.generate_name = std::string(StringMember(metadata, "generateName"));
  if (spec.name.empty() && spec.generate_name.empty() && decoding.require_name) {
    return InvalidField("Pod.metadata.name", "required");
  }
  spec.uid = std::string(StringMember(metadata, "uid"));
  HEADROOM_RETURN_IF_ERROR(ForEachStringMember(
      metadata, "annotations", [&](std::string_view key, std::string_view value) {
        spec.annotations[std::string(key)] = std::string(value);
      }));
  PodLabels labels;
  HEADROOM_RETURN_IF_ERROR(
      ForEachStringMember(metadata, "labels", [&](std::string_view key, std::string_view value) {
        if (IsWorkloadKeyLabel(absl::string_view(key.data(), key.size()))) {
          labels.emplace_back(std::string(key), std::string(value));
        }
      }));
  if (simdjson::dom::element owners; Present(metadata, "ownerReferences", owners)) {
    spec.owner = ControllingOwnerElement(owners);
  }
  spec.workload_key = WorkloadKeyFromController(
      spec.pod_namespace, spec.name.empty() ? spec.generate_name + "*" : spec.name, labels,
      spec.owner);
  return absl::OkStatus();
}

// spec.containers: each one's name, requests and limits.
absl::StatusOr<std::vector<ContainerSpec>> DecodeContainers(simdjson::dom::element pod) {
  simdjson::dom::element pod_spec;
  simdjson::dom::element containers_element;
  if (!Present(pod, "spec", pod_spec) || !Present(pod_spec, "containers", containers_element)) {
    return std::vector<ContainerSpec>();
  }
  simdjson::dom::array containers;
  if (containers_element.get(containers) != simdjson::SUCCESS) {
    return InvalidField("Pod.spec.containers", "expected an array");
  }
  std::vector<ContainerSpec> out;
  out.reserve(containers.size());
  size_t i = 0;
  for (simdjson::dom::element container : containers) {
    ContainerSpec c;
    c.name = std::string(StringMember(container, "name"));
    if (simdjson::dom::element resources; Present(container, "resources", resources)) {
      const std::string path = absl::StrCat("Pod.spec.containers[", i, "].resources");
      HEADROOM_ASSIGN_OR_RETURN(c.requests, Amounts(resources, "requests", path));
      HEADROOM_ASSIGN_OR_RETURN(c.limits, Amounts(resources, "limits", path));
      // The API server defaults a missing request to the limit.
      if (c.requests.cpu_millis == 0) c.requests.cpu_millis = c.limits.cpu_millis;
      if (c.requests.memory_bytes == 0) c.requests.memory_bytes = c.limits.memory_bytes;
    }
    out.push_back(std::move(c));
    ++i;
  }
  return out;
}

// spec.resources: the pod-level requests and limits, requests defaulted as the API does.
absl::StatusOr<PodLevelResources> DecodePodLevel(simdjson::dom::element pod,
                                                 const std::vector<ContainerSpec>& containers) {
  simdjson::dom::element pod_spec;
  simdjson::dom::element resources;
  if (!Present(pod, "spec", pod_spec) || !Present(pod_spec, "resources", resources)) {
    return PodLevelResources{};
  }
  PodLevelResources level;
  HEADROOM_ASSIGN_OR_RETURN(level.requests, Amounts(resources, "requests", "Pod.spec.resources"));
  HEADROOM_ASSIGN_OR_RETURN(level.limits, Amounts(resources, "limits", "Pod.spec.resources"));
  ResourceAmounts summed;
  for (const ContainerSpec& c : containers) summed = SaturatingSum(summed, c.requests);
  return WithDefaultedRequests(level, summed);
}

}  // namespace

// A v1.Pod, read straight from simdjson's DOM (the request's Pod and, re-parsed, the API's).
absl::StatusOr<PodSpec> DecodePodElement(simdjson::dom::element pod, const PodDecoding& decoding) {
  if (!pod.is_object()) return InvalidField("Pod", "expected an object");
  simdjson::dom::element metadata;
  if (!Present(pod, "metadata", metadata) || !metadata.is_object()) {
    if (decoding.require_name) return InvalidField("Pod.metadata", "required");
    metadata = EmptyObject();
  }
  PodSpec spec;
  HEADROOM_RETURN_IF_ERROR(DecodePodMetadata(metadata, decoding, spec));
  if (decoding.containers) {
    HEADROOM_ASSIGN_OR_RETURN(spec.containers, DecodeContainers(pod));
    HEADROOM_ASSIGN_OR_RETURN(spec.pod_level, DecodePodLevel(pod, spec.containers));
  }
  return spec;
}

absl::StatusOr<PodSpec> DecodePodObject(const json& pod, const PodDecoding& decoding) {
  // Only what DecodePodElement reads is written out again: an API pod also carries managed
  // fields, status and the rest of its spec, which would triple the text to parse.
  static const FieldMask* const kRead = new FieldMask{
      {"metadata",
       {{"namespace"},
        {"name"},
        {"generateName"},
        {"uid"},
        {"labels"},
        {"annotations"},
        {"ownerReferences"}}},
      {"spec", {{"containers"}, {"resources"}}},
  };
  if (!pod.is_object()) return InvalidField("Pod", "expected an object");
  HEADROOM_ASSIGN_OR_RETURN(const simdjson::dom::element element,
                            Reparse(Project(pod, *kRead), "Pod"));
  return DecodePodElement(element, decoding);
}

std::optional<ControllerRef> ControllingOwner(const json& owner_references) {
  if (!owner_references.is_array()) return std::nullopt;
  absl::StatusOr<simdjson::dom::element> element = Reparse(owner_references, "ownerReferences");
  return element.ok() ? ControllingOwnerElement(*element) : std::nullopt;
}

PodLabels WorkloadKeyLabels(const json& labels) {
  PodLabels out;
  if (!labels.is_object()) return out;
  for (const auto& [key, value] : labels.items()) {
    if (value.is_string() && IsWorkloadKeyLabel(key))
      out.emplace_back(key, value.get<std::string>());
  }
  return out;
}

absl::StatusOr<NodeSpec> DecodeNodeElement(simdjson::dom::element node, size_t index) {
  const std::string path = absl::StrCat("Nodes.items[", index, "]");
  NodeSpec spec;
  std::string_view name;
  if (node["metadata"]["name"].get(name) != simdjson::SUCCESS || name.empty()) {
    return InvalidField(absl::StrCat(path, ".metadata.name"), "required");
  }
  spec.name = std::string(name);
  simdjson::dom::element allocatable_element;
  if (node["status"]["allocatable"].get(allocatable_element) != simdjson::SUCCESS ||
      allocatable_element.is_null()) {
    return spec;
  }
  simdjson::dom::object allocatable;
  if (allocatable_element.get(allocatable) != simdjson::SUCCESS) {
    return InvalidField(absl::StrCat(path, ".status.allocatable"), "expected an object");
  }
  const std::string field = absl::StrCat(path, ".status.allocatable");
  ResourceAmounts amounts;
  HEADROOM_ASSIGN_OR_RETURN(amounts.cpu_millis, Amount(allocatable, "cpu", field, true));
  HEADROOM_ASSIGN_OR_RETURN(amounts.memory_bytes, Amount(allocatable, "memory", field, false));
  spec.allocatable = amounts;
  simdjson::dom::element pods;
  if (Present(allocatable, "pods", pods)) {
    int64_t count = 0;
    const std::optional<std::string> text = ScalarText(pods);
    if (text.has_value() && absl::SimpleAtoi(*text, &count) && count >= 0 && count <= 1'000'000) {
      spec.max_pods = static_cast<int>(count);
    }
  }
  return spec;
}

// A Node from the API watch is read by the same code as the request's Node objects.
absl::StatusOr<NodeSpec> DecodeNodeObject(const json& node) {
  HEADROOM_ASSIGN_OR_RETURN(const simdjson::dom::element element, Reparse(node, "Node"));
  return DecodeNodeElement(element, 0);
}

}  // namespace headroom::extender
