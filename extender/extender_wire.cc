#include "extender/extender_wire.h"

#include <simdjson.h>

#include <algorithm>
#include <string_view>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "extender/json_access.h"
#include "shared/quantity.h"
#include "shared/status_macros.h"

namespace headroom::extender {
namespace {

using nlohmann::json;

absl::Status Invalid(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

// A quantity from a Kubernetes resource list; absent is 0.
absl::StatusOr<int64_t> Amount(const json& list, const char* resource, const std::string& path,
                               bool cpu) {
  const json* value = Field(list, resource);
  if (value == nullptr) return 0;
  if (!value->is_string() && !value->is_number()) {
    return Invalid(absl::StrCat(path, ".", resource), "expected a quantity");
  }
  const std::string text = value->is_string() ? value->get<std::string>() : value->dump();
  const std::string field = absl::StrCat(path, ".", resource);
  return cpu ? ParseCpuMillis(text, field) : ParseMemoryBytes(text, field);
}

absl::StatusOr<ResourceAmounts> Amounts(const json& object, const char* key,
                                        const std::string& path) {
  const json* list = Field(object, key);
  if (list == nullptr) return ResourceAmounts{};
  const std::string field = absl::StrCat(path, ".", key);
  if (!list->is_object()) return Invalid(field, "expected a resource list");
  ResourceAmounts amounts;
  HEADROOM_ASSIGN_OR_RETURN(amounts.cpu_millis, Amount(*list, "cpu", field, true));
  HEADROOM_ASSIGN_OR_RETURN(amounts.memory_bytes, Amount(*list, "memory", field, false));
  return amounts;
}

absl::StatusOr<PodSpec> DecodePod(const json& pod) {
  if (!pod.is_object()) return Invalid("Pod", "expected an object");
  const json* metadata = Field(pod, "metadata");
  if (metadata == nullptr || !metadata->is_object()) return Invalid("Pod.metadata", "required");
  PodSpec spec;
  spec.pod_namespace = StringField(*metadata, "namespace");
  if (spec.pod_namespace.empty()) spec.pod_namespace = "default";
  spec.name = StringField(*metadata, "name");
  if (spec.name.empty()) return Invalid("Pod.metadata.name", "required");
  spec.uid = StringField(*metadata, "uid");
  if (const json* annotations = Field(*metadata, "annotations"); annotations != nullptr) {
    if (!annotations->is_object()) return Invalid("Pod.metadata.annotations", "expected an object");
    for (const auto& [key, value] : annotations->items()) {
      if (value.is_string()) spec.annotations[key] = value.get<std::string>();
    }
  }
  const json* owners = Field(*metadata, "ownerReferences");
  spec.workload_key = WorkloadKey(spec.pod_namespace, spec.name, owners ? *owners : json());
  const json* pod_spec = Field(pod, "spec");
  if (pod_spec == nullptr) return spec;
  const json* containers = Field(*pod_spec, "containers");
  if (containers == nullptr) return spec;
  if (!containers->is_array()) return Invalid("Pod.spec.containers", "expected an array");
  for (size_t i = 0; i < containers->size(); ++i) {
    const json& container = (*containers)[i];
    const std::string path = absl::StrCat("Pod.spec.containers[", i, "].resources");
    ContainerSpec c;
    c.name = StringField(container, "name");
    if (const json* resources = Field(container, "resources"); resources != nullptr) {
      HEADROOM_ASSIGN_OR_RETURN(c.requests, Amounts(*resources, "requests", path));
      HEADROOM_ASSIGN_OR_RETURN(c.limits, Amounts(*resources, "limits", path));
      // The API server defaults a missing request to the limit.
      if (c.requests.cpu_millis == 0) c.requests.cpu_millis = c.limits.cpu_millis;
      if (c.requests.memory_bytes == 0) c.requests.memory_bytes = c.limits.memory_bytes;
    }
    spec.containers.push_back(std::move(c));
  }
  return spec;
}

json NullableMap(const std::map<std::string, std::string>& map) {
  if (map.empty()) return json::object();
  return json(map);
}

}  // namespace

absl::StatusOr<PodSpec> DecodePodObject(const json& pod) { return DecodePod(pod); }

std::optional<OwnerReference> ControllingOwner(const json& owner_references) {
  if (!owner_references.is_array()) return std::nullopt;
  for (const json& owner : owner_references) {
    const json* controller = Field(owner, "controller");
    if (controller == nullptr || !controller->is_boolean() || !controller->get<bool>()) continue;
    OwnerReference reference{StringField(owner, "kind"), StringField(owner, "name")};
    if (!reference.kind.empty() && !reference.name.empty()) return reference;
  }
  return std::nullopt;
}

std::string WorkloadKey(absl::string_view pod_namespace, absl::string_view pod_name,
                        const json& owner_references) {
  return WorkloadKey(pod_namespace, pod_name, ControllingOwner(owner_references));
}

std::string WorkloadKey(absl::string_view pod_namespace, absl::string_view pod_name,
                        std::optional<OwnerReference> owner) {
  if (!owner) return absl::StrCat(pod_namespace, "/Pod/", pod_name);
  std::string& kind = owner->kind;
  std::string& name = owner->name;
  // A Deployment's ReplicaSet is "<deployment>-<pod-template-hash>": the hash changes with
  // every rollout, the workload does not.
  if (kind == "ReplicaSet") {
    const size_t dash = name.rfind('-');
    if (dash != std::string::npos && dash + 1 < name.size() &&
        std::all_of(name.begin() + static_cast<std::ptrdiff_t>(dash) + 1, name.end(),
                    [](char c) { return absl::ascii_isalnum(static_cast<unsigned char>(c)); })) {
      kind = "Deployment";
      name.resize(dash);
    }
  }
  return absl::StrCat(pod_namespace, "/", kind, "/", name);
}

namespace {

// Quantities of a Node's status.allocatable, read straight from simdjson's DOM.
absl::StatusOr<int64_t> SimdAmount(simdjson::dom::object list, const char* resource,
                                   const std::string& path, bool cpu) {
  simdjson::dom::element value;
  if (list[resource].get(value) != simdjson::SUCCESS || value.is_null()) return 0;
  std::string text;
  if (value.is_string()) {
    text = std::string(value.get_string().value_unsafe());
  } else if (value.is_number()) {
    text = simdjson::minify(value);
  } else {
    return Invalid(absl::StrCat(path, ".", resource), "expected a quantity");
  }
  const std::string field = absl::StrCat(path, ".", resource);
  return cpu ? ParseCpuMillis(text, field) : ParseMemoryBytes(text, field);
}

absl::StatusOr<NodeSpec> DecodeNodeElement(simdjson::dom::element node, size_t index) {
  const std::string path = absl::StrCat("Nodes.items[", index, "]");
  NodeSpec spec;
  std::string_view name;
  if (node["metadata"]["name"].get(name) != simdjson::SUCCESS || name.empty()) {
    return Invalid(absl::StrCat(path, ".metadata.name"), "required");
  }
  spec.name = std::string(name);
  simdjson::dom::element allocatable_element;
  if (node["status"]["allocatable"].get(allocatable_element) != simdjson::SUCCESS ||
      allocatable_element.is_null()) {
    return spec;
  }
  simdjson::dom::object allocatable;
  if (allocatable_element.get(allocatable) != simdjson::SUCCESS) {
    return Invalid(absl::StrCat(path, ".status.allocatable"), "expected an object");
  }
  const std::string field = absl::StrCat(path, ".status.allocatable");
  ResourceAmounts amounts;
  HEADROOM_ASSIGN_OR_RETURN(amounts.cpu_millis, SimdAmount(allocatable, "cpu", field, true));
  HEADROOM_ASSIGN_OR_RETURN(amounts.memory_bytes, SimdAmount(allocatable, "memory", field, false));
  spec.allocatable = amounts;
  simdjson::dom::element pods;
  if (allocatable["pods"].get(pods) == simdjson::SUCCESS && !pods.is_null()) {
    int64_t count = 0;
    const std::string text =
        pods.is_string() ? std::string(pods.get_string().value_unsafe()) : simdjson::minify(pods);
    if (absl::SimpleAtoi(text, &count) && count >= 0 && count <= 1'000'000) {
      spec.max_pods = static_cast<int>(count);
    }
  }
  return spec;
}

// A member that is present and not null.
bool Present(simdjson::dom::object object, const char* key, simdjson::dom::element& out) {
  return object[key].get(out) == simdjson::SUCCESS && !out.is_null();
}

// One parser per thread: it keeps its buffers between requests. An element it returned is
// valid until its next parse on that thread.
simdjson::dom::parser& ThreadParser() {
  thread_local simdjson::dom::parser parser;
  return parser;
}

}  // namespace

// A Node from the API watch is read by the same code as the request's Node objects.
absl::StatusOr<NodeSpec> DecodeNodeObject(const json& node) {
  const std::string text = node.dump(-1, ' ', false, json::error_handler_t::replace);
  simdjson::dom::element element;
  if (ThreadParser().parse(text).get(element) != simdjson::SUCCESS) {
    return Invalid("Node", "not JSON");
  }
  return DecodeNodeElement(element, 0);
}

absl::StatusOr<ExtenderArgs> DecodeExtenderArgs(absl::string_view body) {
  // The parser grows to the largest document it has read; after a large one it starts over,
  // so each server thread does not keep the memory of the largest body ever sent (the args
  // hold copies, nothing points into the parser).
  struct ReleaseAfterLargeBody {
    size_t size;
    ~ReleaseAfterLargeBody() {
      if (size > (4 << 20)) ThreadParser() = simdjson::dom::parser();
    }
  } release{body.size()};
  simdjson::dom::element document;
  if (const simdjson::error_code error =
          ThreadParser().parse(body.data(), body.size()).get(document);
      error != simdjson::SUCCESS) {
    return absl::InvalidArgumentError(
        absl::StrCat("body is not valid JSON: ", simdjson::error_message(error)));
  }
  simdjson::dom::object top;
  if (document.get(top) != simdjson::SUCCESS) {
    return Invalid("body", "expected an ExtenderArgs object");
  }
  ExtenderArgs args;
  simdjson::dom::element pod;
  if (!Present(top, "Pod", pod)) return Invalid("Pod", "required");
  {
    // Valid JSON already; nlohmann reads the (small) Pod field by field.
    const json pod_json = json::parse(simdjson::minify(pod), nullptr, false);
    HEADROOM_ASSIGN_OR_RETURN(args.pod, DecodePod(pod_json));
  }
  simdjson::dom::element names;
  simdjson::dom::element nodes;
  if (Present(top, "NodeNames", names)) {
    simdjson::dom::array list;
    if (names.get(list) != simdjson::SUCCESS) return Invalid("NodeNames", "expected an array");
    args.node_cache_capable = true;
    args.nodes.reserve(list.size());
    size_t i = 0;
    for (simdjson::dom::element name : list) {
      std::string_view text;
      if (name.get(text) != simdjson::SUCCESS) {
        return Invalid(absl::StrCat("NodeNames[", i, "]"), "expected a string");
      }
      args.nodes.push_back({std::string(text), std::nullopt, std::nullopt});
      ++i;
    }
  } else if (Present(top, "Nodes", nodes)) {
    args.node_cache_capable = false;
    simdjson::dom::element items_element;
    if (nodes.is_object() && Present(nodes.get_object().value_unsafe(), "items", items_element)) {
      simdjson::dom::array items;
      if (items_element.get(items) != simdjson::SUCCESS) {
        return Invalid("Nodes.items", "expected an array");
      }
      args.nodes.reserve(items.size());
      args.node_items.reserve(items.size());
      size_t i = 0;
      for (simdjson::dom::element item : items) {
        HEADROOM_ASSIGN_OR_RETURN(NodeSpec node, DecodeNodeElement(item, i));
        args.nodes.push_back(std::move(node));
        args.node_items.push_back(simdjson::minify(item));
        ++i;
      }
    }
  } else {
    return Invalid("body", "neither NodeNames nor Nodes is set");
  }
  return args;
}

std::string EncodeFilterResult(const ExtenderArgs& args, const FilterResult& result) {
  json out;
  if (args.node_cache_capable) {
    out["Nodes"] = nullptr;
    out["NodeNames"] = result.passed;  // an array even when empty
  } else {
    out["NodeNames"] = nullptr;
  }
  out["FailedNodes"] = NullableMap(result.failed);
  out["FailedAndUnresolvableNodes"] = NullableMap(result.failed_unresolvable);
  out["Error"] = result.error;
  // Replace rather than throw on invalid UTF-8 (reasons may quote names from the request).
  std::string text = out.dump(-1, ' ', false, json::error_handler_t::replace);
  if (args.node_cache_capable) return text;
  // The surviving Node objects, spliced in as the request's own JSON text.
  const absl::flat_hash_set<absl::string_view> passed(result.passed.begin(), result.passed.end());
  std::string nodes = "{\"Nodes\":{\"metadata\":{},\"items\":[";
  size_t size = nodes.size() + text.size();
  for (const std::string& item : args.node_items) size += item.size() + 1;
  nodes.reserve(size + 4);
  bool first = true;
  for (size_t i = 0; i < args.nodes.size() && i < args.node_items.size(); ++i) {
    if (!passed.contains(args.nodes[i].name)) continue;
    if (!first) nodes += ',';
    first = false;
    nodes += args.node_items[i];
  }
  nodes += "]},";
  nodes.append(text, 1, std::string::npos);  // the rest of the object, after its "{"
  return nodes;
}

std::string EncodeHostPriorities(const std::vector<HostPriority>& priorities) {
  // Written directly: one object per node is the request's largest part of the answer.
  std::string out = "[";
  out.reserve(priorities.size() * 32 + 2);
  for (size_t i = 0; i < priorities.size(); ++i) {
    if (i > 0) out += ',';
    out += "{\"Host\":";
    out += json(priorities[i].host).dump(-1, ' ', false, json::error_handler_t::replace);
    out += ",\"Score\":";
    out += std::to_string(priorities[i].score);
    out += '}';
  }
  out += ']';
  return out;
}

}  // namespace headroom::extender
