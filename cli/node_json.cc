#include "cli/node_json.h"

#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "codec/json_fields.h"
#include "shared/quantity.h"
#include "shared/status_macros.h"

namespace headroom::cli {

using ::headroom::codec::FieldPath;
using ::headroom::codec::IndexPath;
using ::headroom::codec::Member;
using ::headroom::codec::OptionalBool;
using ::headroom::codec::OptionalQuantity;
using ::headroom::codec::OptionalString;
using ::headroom::codec::QuantityKind;
using ::headroom::codec::RequiredQuantity;
using ::headroom::codec::RequiredString;
using ::headroom::codec::RequireObject;
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

absl::StatusOr<ResourceAmounts> DecodeAmounts(const json& object, absl::string_view key,
                                              absl::string_view path, bool required) {
  const std::string field = FieldPath(path, key);
  const json* value = Member(object, key);
  if (value == nullptr) {
    if (required) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
    return ResourceAmounts{};
  }
  HEADROOM_RETURN_IF_ERROR(RequireObject(*value, field));
  // A required object needs both amounts; an optional one defaults each to zero.
  const auto amount = [&](const char* name, QuantityKind kind) {
    return required ? RequiredQuantity(*value, name, field, kind)
                    : OptionalQuantity(*value, name, field, kind, 0);
  };
  ResourceAmounts amounts;
  HEADROOM_ASSIGN_OR_RETURN(amounts.cpu_millis, amount("cpu", QuantityKind::kCpuMillis));
  HEADROOM_ASSIGN_OR_RETURN(amounts.memory_bytes, amount("memory", QuantityKind::kMemoryBytes));
  return amounts;
}

absl::StatusOr<ContainerDemand> DecodeContainer(const json& object, absl::string_view path) {
  HEADROOM_RETURN_IF_ERROR(RequireObject(object, path));
  ContainerDemand container;
  HEADROOM_ASSIGN_OR_RETURN(container.name, RequiredString(object, "name", path));
  if (const json* cpu = Member(object, "cpu"); cpu != nullptr) {
    const std::string field = FieldPath(path, "cpu");
    HEADROOM_RETURN_IF_ERROR(RequireObject(*cpu, field));
    CpuStats stats;
    HEADROOM_ASSIGN_OR_RETURN(stats.base_millis,
                              RequiredQuantity(*cpu, "p75", field, QuantityKind::kCpuMillis));
    HEADROOM_ASSIGN_OR_RETURN(stats.peak_millis,
                              RequiredQuantity(*cpu, "max", field, QuantityKind::kCpuMillis));
    container.cpu = stats;
  }
  if (const json* memory = Member(object, "memory"); memory != nullptr) {
    const std::string field = FieldPath(path, "memory");
    HEADROOM_RETURN_IF_ERROR(RequireObject(*memory, field));
    MemoryStats stats;
    HEADROOM_ASSIGN_OR_RETURN(stats.base_bytes,
                              RequiredQuantity(*memory, "p75", field, QuantityKind::kMemoryBytes));
    HEADROOM_ASSIGN_OR_RETURN(stats.peak_bytes,
                              RequiredQuantity(*memory, "max", field, QuantityKind::kMemoryBytes));
    HEADROOM_ASSIGN_OR_RETURN(
        stats.max_7d_bytes,
        OptionalQuantity(*memory, "max7d", field, QuantityKind::kMemoryBytes, stats.peak_bytes));
    HEADROOM_ASSIGN_OR_RETURN(
        stats.oom_bytes, OptionalQuantity(*memory, "oom", field, QuantityKind::kMemoryBytes, 0));
    container.memory = stats;
  }
  // How long the statistics were observed. The file gives them explicitly, so absent means
  // "long enough"; a shorter history keeps the pod at its requests (the warm-up guard rail).
  container.history = absl::InfiniteDuration();
  HEADROOM_ASSIGN_OR_RETURN(std::string history, OptionalString(object, "history", path, ""));
  if (!history.empty() && !absl::ParseDuration(history, &container.history)) {
    return absl::InvalidArgumentError(absl::StrCat(
        FieldPath(path, "history"), ": not a duration such as \"36h\" (got \"", history, "\")"));
  }
  if (container.history < absl::ZeroDuration()) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, "history"), ": must not be negative"));
  }
  return container;
}

absl::StatusOr<PodDemand> DecodePod(const json& object, absl::string_view path) {
  HEADROOM_RETURN_IF_ERROR(RequireObject(object, path));
  PodDemand pod;
  HEADROOM_ASSIGN_OR_RETURN(pod.pod_namespace,
                            OptionalString(object, "namespace", path, "default"));
  if (pod.pod_namespace.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, "namespace"), ": must not be empty"));
  }
  HEADROOM_ASSIGN_OR_RETURN(pod.name, RequiredString(object, "name", path));
  HEADROOM_ASSIGN_OR_RETURN(pod.daemonset, OptionalBool(object, "daemonset", path, false));
  HEADROOM_ASSIGN_OR_RETURN(pod.optimizable, OptionalBool(object, "optimizable", path, true));
  HEADROOM_ASSIGN_OR_RETURN(const std::string ranking,
                            OptionalString(object, "evictionRanking", path, "low"));
  absl::StatusOr<EvictionRanking> parsed = ParseEvictionRanking(ranking);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(FieldPath(path, "evictionRanking"), ": ", parsed.status().message()));
  }
  pod.ranking = *parsed;
  HEADROOM_ASSIGN_OR_RETURN(pod.requests, DecodeAmounts(object, "requests", path, false));
  if (const json* containers = Member(object, "containers"); containers != nullptr) {
    const std::string field = FieldPath(path, "containers");
    if (!containers->is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": expected an array, got ", containers->type_name()));
    }
    pod.containers.reserve(containers->size());
    for (size_t i = 0; i < containers->size(); ++i) {
      HEADROOM_ASSIGN_OR_RETURN(ContainerDemand container,
                                DecodeContainer((*containers)[i], IndexPath(field, i)));
      pod.containers.push_back(std::move(container));
    }
  }
  return pod;
}

ordered_json Quantity(Resource resource, int64_t amount) { return FormatAmount(resource, amount); }

ordered_json EncodeOutcome(Resource resource, const ResourceOutcome& outcome) {
  ordered_json out = {
      {"allocatable", Quantity(resource, outcome.allocatable)},
      {"reserved", Quantity(resource, outcome.reserved)},
      {"base", Quantity(resource, outcome.base_total)},
      {"sharedHeadroom", Quantity(resource, outcome.shared_headroom)},
      {"totalHeadroom", Quantity(resource, outcome.total_headroom)},
      {"fits", outcome.fits},
  };
  return out;
}

}  // namespace

absl::StatusOr<NodeDemand> DecodeNodeDemand(const json& input) {
  HEADROOM_RETURN_IF_ERROR(RequireObject(input, ""));
  NodeDemand node;
  const json* node_object = Member(input, "node");
  if (node_object == nullptr) return absl::InvalidArgumentError("node: required");
  HEADROOM_RETURN_IF_ERROR(RequireObject(*node_object, "node"));
  HEADROOM_ASSIGN_OR_RETURN(node.name, RequiredString(*node_object, "name", "node"));
  HEADROOM_ASSIGN_OR_RETURN(node.allocatable,
                            DecodeAmounts(*node_object, "allocatable", "node", true));
  if (const json* pods = Member(input, "pods"); pods != nullptr) {
    if (!pods->is_array()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pods: expected an array, got ", pods->type_name()));
    }
    node.pods.reserve(pods->size());
    for (size_t i = 0; i < pods->size(); ++i) {
      HEADROOM_ASSIGN_OR_RETURN(PodDemand pod, DecodePod((*pods)[i], IndexPath("pods", i)));
      node.pods.push_back(std::move(pod));
    }
  }
  return node;
}

absl::StatusOr<OptimizeOptions> DecodeOptimizeOptions(const json& input) {
  OptimizeOptions options;
  if (const json* node = Member(input, "node"); node != nullptr) {
    HEADROOM_ASSIGN_OR_RETURN(options.evict_for_cpu,
                              OptionalBool(*node, "cpuOverloadSustained", "node", false));
  }
  return options;
}

ordered_json EncodeNodeOptimization(const NodeDemand& node, const NodeOptimization& result) {
  ordered_json evictions = ordered_json::array();
  for (const PodEviction& eviction : result.evictions) {
    evictions.push_back({{"pod", node.pods[eviction.pod].Key()},
                         {"resource", std::string(ResourceName(eviction.resource))},
                         {"code", eviction.reason.code},
                         {"reason", eviction.reason.message}});
  }
  ordered_json containers = ordered_json::array();
  for (const ContainerResult& container : result.containers) {
    const PodDemand& pod = node.pods[container.pod];
    const ContainerSizing& sizing = container.sizing;
    containers.push_back({
        {"pod", pod.Key()},
        {"container", pod.containers[container.container].name},
        {"cpuRequestMillis", sizing.cpu_request_millis},
        {"cpuLimitMillis", sizing.cpu_limit_millis.has_value()
                               ? ordered_json(*sizing.cpu_limit_millis)
                               : ordered_json(nullptr)},
        {"memoryRequestBytes", sizing.memory_request_bytes},
        {"memoryLimitBytes", sizing.memory_limit_bytes},
    });
  }
  ordered_json skipped = ordered_json::array();
  for (const SkippedPod& pod : result.skipped) {
    skipped.push_back({{"pod", node.pods[pod.pod].Key()},
                       {"code", pod.reason.code},
                       {"reason", pod.reason.message}});
  }
  ordered_json shortfalls = ordered_json::array();
  for (const auto& [resource, outcome] :
       {std::pair{Resource::kMemory, &result.memory}, std::pair{Resource::kCpu, &result.cpu}}) {
    if (!outcome->shortfall.has_value()) continue;
    shortfalls.push_back({{"resource", std::string(ResourceName(resource))},
                          {"code", outcome->shortfall->code},
                          {"reason", outcome->shortfall->message}});
  }
  return {
      {"node", node.name},
      {"evictions", std::move(evictions)},
      {"containers", std::move(containers)},
      {"skipped", std::move(skipped)},
      {"shortfalls", std::move(shortfalls)},
      {"summary",
       {{"cpu", EncodeOutcome(Resource::kCpu, result.cpu)},
        {"memory", EncodeOutcome(Resource::kMemory, result.memory)}}},
  };
}

}  // namespace headroom::cli
