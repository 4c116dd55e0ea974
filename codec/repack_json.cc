#include "codec/repack_json.h"

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "codec/json_fields.h"
#include "shared/quantity.h"
#include "shared/resource.h"
#include "shared/status_macros.h"

namespace headroom::codec {
namespace {

absl::StatusOr<int32_t> OptionalPriority(const nlohmann::json& object, absl::string_view key,
                                         absl::string_view path) {
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return 0;
  if (!value->is_number_integer() || value->get<int64_t>() < std::numeric_limits<int32_t>::min() ||
      value->get<int64_t>() > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, key), ": must be a 32-bit integer"));
  }
  return static_cast<int32_t>(value->get<int64_t>());
}

absl::StatusOr<RepackInstance> DecodeInstance(const nlohmann::json& document) {
  RepackInstance instance;
  const nlohmann::json* nodes = Member(document, "nodes");
  if (nodes == nullptr || !nodes->is_array()) {
    return absl::InvalidArgumentError("nodes: required, an array");
  }
  std::map<std::string, int> node_index;
  for (size_t i = 0; i < nodes->size(); ++i) {
    const std::string path = IndexPath("nodes", i);
    const nlohmann::json& node = (*nodes)[i];
    HEADROOM_RETURN_IF_ERROR(RequireObject(node, path));
    RepackNode out;
    HEADROOM_ASSIGN_OR_RETURN(out.name, RequiredString(node, "name", path));
    HEADROOM_ASSIGN_OR_RETURN(out.cpu_milli,
                              RequiredQuantity(node, "cpu", path, QuantityKind::kCpuMillis));
    HEADROOM_ASSIGN_OR_RETURN(out.memory_bytes,
                              RequiredQuantity(node, "memory", path, QuantityKind::kMemoryBytes));
    node_index.emplace(out.name, static_cast<int>(i));
    instance.nodes.push_back(std::move(out));
  }
  const nlohmann::json* pods = Member(document, "pods");
  if (pods != nullptr && !pods->is_array()) return absl::InvalidArgumentError("pods: an array");
  for (size_t i = 0; pods != nullptr && i < pods->size(); ++i) {
    const std::string path = IndexPath("pods", i);
    const nlohmann::json& pod = (*pods)[i];
    HEADROOM_RETURN_IF_ERROR(RequireObject(pod, path));
    RepackPod out;
    HEADROOM_ASSIGN_OR_RETURN(out.name, RequiredString(pod, "name", path));
    HEADROOM_ASSIGN_OR_RETURN(out.cpu_milli,
                              OptionalQuantity(pod, "cpu", path, QuantityKind::kCpuMillis, 0));
    HEADROOM_ASSIGN_OR_RETURN(out.memory_bytes,
                              OptionalQuantity(pod, "memory", path, QuantityKind::kMemoryBytes, 0));
    HEADROOM_ASSIGN_OR_RETURN(out.priority, OptionalPriority(pod, "priority", path));
    HEADROOM_ASSIGN_OR_RETURN(out.owner, OptionalString(pod, "owner", path, ""));
    HEADROOM_ASSIGN_OR_RETURN(const std::string node, OptionalString(pod, "node", path, ""));
    if (!node.empty()) {
      auto it = node_index.find(node);
      if (it == node_index.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(FieldPath(path, "node"), ": no node named \"", node, "\""));
      }
      out.current_node = it->second;
    }
    instance.pods.push_back(std::move(out));
  }
  return instance;
}

// The cpu and memory of a requests-shaped map at `path` (absent: zero).
absl::StatusOr<ResourceAmounts> AmountsIn(const nlohmann::json* map, const std::string& path) {
  ResourceAmounts amounts;
  if (map == nullptr) return amounts;
  HEADROOM_ASSIGN_OR_RETURN(amounts.cpu_millis,
                            OptionalQuantity(*map, "cpu", path, QuantityKind::kCpuMillis, 0));
  HEADROOM_ASSIGN_OR_RETURN(amounts.memory_bytes,
                            OptionalQuantity(*map, "memory", path, QuantityKind::kMemoryBytes, 0));
  return amounts;
}

// The requests the scheduler counts for a pod: the larger of the containers' sum and the
// largest init container, plus the pod overhead.
absl::StatusOr<ResourceAmounts> PodRequests(const nlohmann::json& spec, absl::string_view path) {
  ResourceAmounts sum;
  ResourceAmounts init;
  for (const char* key : {"containers", "initContainers"}) {
    const nlohmann::json* list = Member(spec, key);
    if (list == nullptr || !list->is_array()) continue;
    const bool is_init = absl::string_view(key) == "initContainers";
    for (size_t i = 0; i < list->size(); ++i) {
      const std::string where = IndexPath(FieldPath(path, key), i);
      const nlohmann::json* resources = Member((*list)[i], "resources");
      HEADROOM_ASSIGN_OR_RETURN(
          const ResourceAmounts r,
          AmountsIn(resources == nullptr ? nullptr : Member(*resources, "requests"),
                    FieldPath(FieldPath(where, "resources"), "requests")));
      if (is_init) {
        init.cpu_millis = std::max(init.cpu_millis, r.cpu_millis);
        init.memory_bytes = std::max(init.memory_bytes, r.memory_bytes);
      } else {
        sum.cpu_millis += r.cpu_millis;
        sum.memory_bytes += r.memory_bytes;
      }
    }
  }
  HEADROOM_ASSIGN_OR_RETURN(const ResourceAmounts overhead,
                            AmountsIn(Member(spec, "overhead"), FieldPath(path, "overhead")));
  ResourceAmounts total;
  total.cpu_millis = std::max(sum.cpu_millis, init.cpu_millis) + overhead.cpu_millis;
  total.memory_bytes = std::max(sum.memory_bytes, init.memory_bytes) + overhead.memory_bytes;
  return total;
}

bool Pinned(const nlohmann::json& metadata) {
  if (const nlohmann::json* annotations = Member(metadata, "annotations");
      annotations != nullptr && annotations->is_object() &&
      annotations->contains("kubernetes.io/config.mirror")) {
    return true;
  }
  const nlohmann::json* owners = Member(metadata, "ownerReferences");
  if (owners == nullptr || !owners->is_array()) return false;
  for (const nlohmann::json& owner : *owners) {
    if (owner.is_object() && owner.value("kind", "") == "DaemonSet") return true;
  }
  return false;
}

absl::StatusOr<RepackInstance> DecodeKubectlList(const nlohmann::json& document) {
  const nlohmann::json* items = Member(document, "items");
  if (items == nullptr || !items->is_array()) {
    return absl::InvalidArgumentError("items: required in a List, an array");
  }
  RepackInstance instance;
  std::map<std::string, int> node_index;
  for (size_t i = 0; i < items->size(); ++i) {
    const nlohmann::json& item = (*items)[i];
    const std::string path = IndexPath("items", i);
    HEADROOM_RETURN_IF_ERROR(RequireObject(item, path));
    if (item.value("kind", "") != "Node") continue;
    const nlohmann::json* metadata = Member(item, "metadata");
    const nlohmann::json* status = Member(item, "status");
    const nlohmann::json* allocatable =
        status == nullptr ? nullptr : Member(*status, "allocatable");
    if (metadata == nullptr || allocatable == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(path, ": a Node needs metadata.name and status.allocatable"));
    }
    RepackNode node;
    HEADROOM_ASSIGN_OR_RETURN(node.name,
                              RequiredString(*metadata, "name", FieldPath(path, "metadata")));
    const std::string at = FieldPath(FieldPath(path, "status"), "allocatable");
    HEADROOM_ASSIGN_OR_RETURN(node.cpu_milli,
                              RequiredQuantity(*allocatable, "cpu", at, QuantityKind::kCpuMillis));
    HEADROOM_ASSIGN_OR_RETURN(node.memory_bytes, RequiredQuantity(*allocatable, "memory", at,
                                                                  QuantityKind::kMemoryBytes));
    node_index.emplace(node.name, static_cast<int>(instance.nodes.size()));
    instance.nodes.push_back(std::move(node));
  }
  for (size_t i = 0; i < items->size(); ++i) {
    const nlohmann::json& item = (*items)[i];
    if (item.value("kind", "") != "Pod") continue;
    const std::string path = IndexPath("items", i);
    const nlohmann::json* metadata = Member(item, "metadata");
    const nlohmann::json* spec = Member(item, "spec");
    if (metadata == nullptr || spec == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(path, ": a Pod needs metadata and spec"));
    }
    const nlohmann::json* status = Member(item, "status");
    const std::string phase = status == nullptr ? "" : status->value("phase", "");
    if (phase == "Succeeded" || phase == "Failed") continue;
    RepackPod pod;
    HEADROOM_ASSIGN_OR_RETURN(const std::string name,
                              RequiredString(*metadata, "name", FieldPath(path, "metadata")));
    HEADROOM_ASSIGN_OR_RETURN(
        const std::string ns,
        OptionalString(*metadata, "namespace", FieldPath(path, "metadata"), "default"));
    pod.name = absl::StrCat(ns, "/", name);
    HEADROOM_ASSIGN_OR_RETURN(const ResourceAmounts requests,
                              PodRequests(*spec, FieldPath(path, "spec")));
    pod.cpu_milli = requests.cpu_millis;
    pod.memory_bytes = requests.memory_bytes;
    HEADROOM_ASSIGN_OR_RETURN(pod.priority,
                              OptionalPriority(*spec, "priority", FieldPath(path, "spec")));
    if (const nlohmann::json* owners = Member(*metadata, "ownerReferences");
        owners != nullptr && owners->is_array() && !owners->empty() && (*owners)[0].is_object()) {
      pod.owner = absl::StrCat(ns, "/", (*owners)[0].value("kind", ""), "/",
                               (*owners)[0].value("name", ""));
    }
    const std::string node = spec->value("nodeName", "");
    if (!node.empty()) {
      auto it = node_index.find(node);
      if (it == node_index.end()) continue;  // on a node outside the snapshot: not ours to move
      if (Pinned(*metadata)) {
        RepackNode& host = instance.nodes[it->second];
        host.cpu_milli = std::max<int64_t>(0, host.cpu_milli - pod.cpu_milli);
        host.memory_bytes = std::max<int64_t>(0, host.memory_bytes - pod.memory_bytes);
        continue;
      }
      pod.current_node = it->second;
    }
    instance.pods.push_back(std::move(pod));
  }
  return instance;
}

const char* KindName(RepackChange::Kind kind) {
  switch (kind) {
    case RepackChange::Kind::kMove:
      return "move";
    case RepackChange::Kind::kPlace:
      return "place";
    case RepackChange::Kind::kEvict:
      return "evict";
  }
  return "?";
}

}  // namespace

absl::StatusOr<RepackInstance> DecodeRepackInput(const nlohmann::json& document) {
  HEADROOM_RETURN_IF_ERROR(RequireObject(document, "(document)"));
  HEADROOM_ASSIGN_OR_RETURN(RepackInstance instance, document.value("kind", "") == "List"
                                                         ? DecodeKubectlList(document)
                                                         : DecodeInstance(document));
  HEADROOM_RETURN_IF_ERROR(ValidateRepackInstance(instance));
  return instance;
}

absl::StatusOr<RepackInstance> DecodeRepackInputText(absl::string_view text) {
  HEADROOM_ASSIGN_OR_RETURN(const nlohmann::json document, ParseJson(text));
  return DecodeRepackInput(document);
}

nlohmann::json EncodeRepackInstance(const RepackInstance& instance) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const RepackNode& node : instance.nodes) {
    nodes.push_back({{"name", node.name},
                     {"cpu", FormatCpuMillis(node.cpu_milli)},
                     {"memory", FormatMemoryBytes(node.memory_bytes)}});
  }
  nlohmann::json pods = nlohmann::json::array();
  for (const RepackPod& pod : instance.pods) {
    nlohmann::json out = {{"name", pod.name},
                          {"cpu", FormatCpuMillis(pod.cpu_milli)},
                          {"memory", FormatMemoryBytes(pod.memory_bytes)},
                          {"priority", pod.priority}};
    if (pod.current_node >= 0) out["node"] = instance.nodes[pod.current_node].name;
    if (!pod.owner.empty()) out["owner"] = pod.owner;
    pods.push_back(std::move(out));
  }
  return {{"nodes", std::move(nodes)}, {"pods", std::move(pods)}};
}

nlohmann::json EncodeRepackPlan(const RepackInstance& instance, const RepackPlan& plan) {
  nlohmann::json tiers = nlohmann::json::array();
  for (const RepackTierResult& tier : plan.tiers) {
    tiers.push_back({{"priority", tier.priority},
                     {"pods", tier.pods},
                     {"placedBefore", tier.placed_before},
                     {"placedAfter", tier.placed_after},
                     {"placementBound", tier.placement_bound},
                     {"placementOptimal", tier.placement_optimal},
                     {"running", tier.running},
                     {"kept", tier.kept},
                     {"moved", tier.moved},
                     {"evicted", tier.evicted},
                     {"movesOptimal", tier.moves_optimal},
                     {"seconds", absl::ToDoubleSeconds(tier.elapsed)}});
  }
  auto node_name = [&](int node) -> nlohmann::json {
    if (node < 0) return nullptr;
    return instance.nodes[node].name;
  };
  nlohmann::json changes = nlohmann::json::array();
  for (const RepackChange& change : RepackChanges(instance, plan)) {
    changes.push_back({{"action", KindName(change.kind)},
                       {"pod", instance.pods[change.pod].name},
                       {"from", node_name(change.from)},
                       {"to", node_name(change.to)}});
  }
  nlohmann::json assignment = nlohmann::json::object();
  for (size_t i = 0; i < instance.pods.size(); ++i) {
    assignment[instance.pods[i].name] = node_name(plan.assignment[i]);
  }
  return {{"optimal", plan.optimal},
          {"tiers", std::move(tiers)},
          {"changes", std::move(changes)},
          {"assignment", std::move(assignment)}};
}

}  // namespace headroom::codec
