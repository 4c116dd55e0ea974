#include "extender/kube/pod_resources.h"

#include "absl/strings/str_cat.h"
#include "codec/json_fields.h"
#include "shared/quantity.h"
#include "shared/status_macros.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

// One quantity of resources.<list>.<name>: nullopt when absent.
absl::StatusOr<std::optional<int64_t>> Quantity(const json& resources, const char* list,
                                                const char* name, const std::string& path) {
  const auto group = resources.find(list);
  if (group == resources.end() || group->is_null()) return std::nullopt;
  if (!group->is_object()) return absl::InvalidArgumentError(path + "." + list + ": not an object");
  const auto value = group->find(name);
  if (value == group->end() || value->is_null()) return std::nullopt;
  const std::string what = absl::StrCat(path, ".", list, ".", name);
  absl::StatusOr<int64_t> amount =
      codec::QuantityFromJson(*value, what,
                              std::string(name) == "cpu" ? codec::QuantityKind::kCpuMillis
                                                         : codec::QuantityKind::kMemoryBytes);
  if (!amount.ok()) return amount.status();
  return std::optional<int64_t>(*amount);
}

// The cpu and memory of a resources object (`resources`, an object) at `path`.
absl::StatusOr<DeclaredResources> DecodeResources(const json& resources, const std::string& path) {
  DeclaredResources declared;
  HEADROOM_ASSIGN_OR_RETURN(declared.cpu_request_millis,
                            Quantity(resources, "requests", "cpu", path));
  HEADROOM_ASSIGN_OR_RETURN(declared.cpu_limit_millis, Quantity(resources, "limits", "cpu", path));
  HEADROOM_ASSIGN_OR_RETURN(declared.memory_request_bytes,
                            Quantity(resources, "requests", "memory", path));
  HEADROOM_ASSIGN_OR_RETURN(declared.memory_limit_bytes,
                            Quantity(resources, "limits", "memory", path));
  return declared;
}

}  // namespace

ResourceAmounts RequestsOf(const std::vector<DeclaredResources>& containers) {
  ResourceAmounts sum;
  for (const DeclaredResources& c : containers) {
    sum =
        SaturatingSum(sum, {c.cpu_request_millis.value_or(0), c.memory_request_bytes.value_or(0)});
  }
  return sum;
}

absl::StatusOr<std::vector<DeclaredResources>> DecodeDeclaredResources(const json& pod,
                                                                       absl::string_view field) {
  std::vector<DeclaredResources> out;
  const auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return out;
  const auto list = spec->find(std::string(field));
  if (list == spec->end() || list->is_null()) return out;
  if (!list->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat("spec.", field, ": expected an array"));
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const json& container = (*list)[i];
    const std::string path = absl::StrCat("spec.", field, "[", i, "].resources");
    if (!container.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("spec.", field, "[", i, "]: not an object"));
    }
    DeclaredResources declared;
    if (const auto name = container.find("name"); name != container.end() && name->is_string()) {
      declared.name = name->get<std::string>();
    }
    const auto resources = container.find("resources");
    if (resources != container.end() && !resources->is_null()) {
      if (!resources->is_object()) return absl::InvalidArgumentError(path + ": not an object");
      std::string name = std::move(declared.name);
      HEADROOM_ASSIGN_OR_RETURN(declared, DecodeResources(*resources, path));
      declared.name = std::move(name);
    }
    out.push_back(std::move(declared));
  }
  return out;
}

void DropCpuLimit(DeclaredResources& resources) {
  if (!resources.cpu_limit_millis.has_value()) return;
  if (!resources.cpu_request_millis.has_value()) {
    resources.cpu_request_millis = resources.cpu_limit_millis;
  }
  resources.cpu_limit_millis.reset();
}

absl::StatusOr<std::optional<DeclaredResources>> DecodePodLevelResources(const json& pod) {
  const auto spec = pod.find("spec");
  if (spec == pod.end() || !spec->is_object()) return std::nullopt;
  const auto resources = spec->find("resources");
  if (resources == spec->end() || resources->is_null()) return std::nullopt;
  if (!resources->is_object()) {
    return absl::InvalidArgumentError("spec.resources: not an object");
  }
  HEADROOM_ASSIGN_OR_RETURN(DeclaredResources declared,
                            DecodeResources(*resources, "spec.resources"));
  if (declared == DeclaredResources{}) return std::nullopt;  // other resources only
  return declared;
}

PodLevelResources PodLevelOf(const std::optional<DeclaredResources>& pod) {
  if (!pod.has_value()) return {};
  return {{pod->cpu_request_millis.value_or(0), pod->memory_request_bytes.value_or(0)},
          {pod->cpu_limit_millis.value_or(0), pod->memory_limit_bytes.value_or(0)}};
}

std::string DescribeResources(const DeclaredResources& r) {
  auto amount = [](const std::optional<int64_t>& value, bool cpu) {
    if (!value) return std::string("-");
    return cpu ? FormatCpuMillis(*value) : FormatMemoryBytes(*value);
  };
  return absl::StrCat("cpu ", amount(r.cpu_request_millis, true), "/limit ",
                      amount(r.cpu_limit_millis, true), ", memory ",
                      amount(r.memory_request_bytes, false), "/limit ",
                      amount(r.memory_limit_bytes, false));
}

std::optional<DeclaredResources> DeclaredPodLevel(const PodLevelResources& pod) {
  if (!pod.Any()) return std::nullopt;
  const auto set = [](int64_t amount) {
    return amount > 0 ? std::optional<int64_t>(amount) : std::nullopt;
  };
  DeclaredResources declared;
  declared.cpu_request_millis = set(pod.requests.cpu_millis);
  declared.cpu_limit_millis = set(pod.limits.cpu_millis);
  declared.memory_request_bytes = set(pod.requests.memory_bytes);
  declared.memory_limit_bytes = set(pod.limits.memory_bytes);
  return declared;
}

namespace {

// {"requests": {...}, "limits": {...}}, each only with what is set.
json ResourcesJson(const DeclaredResources& r) {
  json requests = json::object();
  json limits = json::object();
  if (r.cpu_request_millis) requests["cpu"] = FormatCpuMillis(*r.cpu_request_millis);
  if (r.memory_request_bytes) requests["memory"] = FormatMemoryBytes(*r.memory_request_bytes);
  if (r.cpu_limit_millis) limits["cpu"] = FormatCpuMillis(*r.cpu_limit_millis);
  if (r.memory_limit_bytes) limits["memory"] = FormatMemoryBytes(*r.memory_limit_bytes);
  json resources = json::object();
  if (!requests.empty()) resources["requests"] = std::move(requests);
  if (!limits.empty()) resources["limits"] = std::move(limits);
  return resources;
}

// `text` parsed, with a nesting limit well above the annotations' four levels (a hostile
// annotation cannot recurse); discarded when it is not JSON or nests deeper.
json ParseAnnotation(absl::string_view text) {
  int depth = 0;
  bool too_deep = false;
  json parsed = json::parse(
      text.begin(), text.end(),
      [&](int, json::parse_event_t event, json&) {
        if (event == json::parse_event_t::object_start ||
            event == json::parse_event_t::array_start) {
          too_deep = too_deep || ++depth > 16;
        } else if (event == json::parse_event_t::object_end ||
                   event == json::parse_event_t::array_end) {
          --depth;
        }
        return !too_deep;
      },
      /*allow_exceptions=*/false);
  return too_deep ? json(json::value_t::discarded) : parsed;
}

}  // namespace

std::string EncodeDeclaredAnnotation(const std::vector<DeclaredResources>& containers) {
  json list = json::array();
  for (const DeclaredResources& c : containers) {
    list.push_back({{"name", c.name}, {"resources", ResourcesJson(c)}});
  }
  return list.dump();
}

absl::StatusOr<std::vector<DeclaredResources>> DecodeDeclaredAnnotation(absl::string_view text) {
  json list = ParseAnnotation(text);
  if (list.is_discarded() || !list.is_array()) {
    return absl::InvalidArgumentError("headroom.dev/declared: not a list of containers");
  }
  return DecodeDeclaredResources(json{{"spec", {{"containers", std::move(list)}}}}, "containers");
}

std::string EncodeDeclaredPodAnnotation(const DeclaredResources& pod) {
  return ResourcesJson(pod).dump();
}

absl::StatusOr<std::optional<DeclaredResources>> DecodeDeclaredPodAnnotation(
    absl::string_view text) {
  json resources = ParseAnnotation(text);
  if (resources.is_discarded() || !resources.is_object()) {
    return absl::InvalidArgumentError("headroom.dev/declared-pod: not a resources object");
  }
  absl::StatusOr<std::optional<DeclaredResources>> pod =
      DecodePodLevelResources(json{{"spec", {{"resources", std::move(resources)}}}});
  if (!pod.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("headroom.dev/declared-pod: ", pod.status().message()));
  }
  return pod;
}

std::vector<ContainerResourceSpec> ResourceSpecs(const std::vector<DeclaredResources>& containers) {
  std::vector<ContainerResourceSpec> specs;
  specs.reserve(containers.size());
  for (const DeclaredResources& c : containers) {
    specs.push_back(
        {c.cpu_request_millis, c.cpu_limit_millis, c.memory_request_bytes, c.memory_limit_bytes});
  }
  return specs;
}

}  // namespace headroom::extender
