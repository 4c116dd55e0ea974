#include "extender/admission.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "extender/extender_wire.h"
#include "extender/json_access.h"
#include "extender/pod_resources.h"
#include "shared/annotations.h"
#include "shared/quantity.h"
#include "shared/sizing.h"
#include "shared/workload_policy.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

inline constexpr absl::string_view kAdmissionAnnotation = "headroom.dev/admission";

std::string Describe(const DeclaredResources& r) {
  auto amount = [](const std::optional<int64_t>& value, bool cpu) {
    if (!value) return std::string("-");
    return cpu ? FormatCpuMillis(*value) : FormatMemoryBytes(*value);
  };
  return absl::StrCat("cpu ", amount(r.cpu_request_millis, true), "/limit ",
                      amount(r.cpu_limit_millis, true), ", memory ",
                      amount(r.memory_request_bytes, false), "/limit ",
                      amount(r.memory_limit_bytes, false));
}

// The container's new resources; `from_history` says whether statistics were used.
DeclaredResources Sized(const DeclaredResources& before,
                        const std::optional<WorkloadContainerStats>& stats,
                        const AdmissionOptions& options, bool& from_history) {
  DeclaredResources after = before;
  from_history = false;
  if (stats && stats->cpu && stats->cpu->peak_millis > 0) {
    after.cpu_request_millis = stats->cpu->peak_millis;
    from_history = true;
  }
  if (stats && stats->memory && stats->memory->peak_bytes > 0) {
    const ContainerSizing sizing =
        SizeForAdmission(stats->cpu.value_or(CpuStats{}), *stats->memory);
    after.memory_request_bytes = sizing.memory_request_bytes;
    after.memory_limit_bytes = sizing.memory_limit_bytes;
    from_history = true;
  }
  if (options.strip_cpu_limits && after.cpu_limit_millis) {
    // The API defaults a missing request to the limit; keep that request once the limit goes.
    if (!after.cpu_request_millis) after.cpu_request_millis = after.cpu_limit_millis;
    after.cpu_limit_millis.reset();
  }
  return after;
}

// The container's resources object (`original`, an object) with CPU and memory replaced (other
// resources, such as GPUs or ephemeral storage, and resource claims are kept as they were).
json ResourcesValue(const json& original, const DeclaredResources& r) {
  json value = original;
  auto set = [&](const char* list, const char* name, const std::optional<int64_t>& amount,
                 bool cpu) {
    json& group = value[list];
    if (!group.is_object()) group = json::object();
    if (amount) {
      group[name] = cpu ? FormatCpuMillis(*amount) : FormatMemoryBytes(*amount);
    } else {
      group.erase(name);
    }
    if (group.empty()) value.erase(list);
  };
  set("requests", "cpu", r.cpu_request_millis, true);
  set("requests", "memory", r.memory_request_bytes, false);
  set("limits", "cpu", r.cpu_limit_millis, true);
  set("limits", "memory", r.memory_limit_bytes, false);
  return value;
}

// JSON Pointer escaping (RFC 6901) of one path segment.
std::string PointerSegment(absl::string_view segment) {
  std::string out;
  for (char c : segment) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

AdmissionDecision Skip(AdmissionDecision decision, std::string why) {
  decision.skipped = std::move(why);
  decision.patch = json::array();
  return decision;
}

}  // namespace

absl::StatusOr<AdmissionDecision> DecideAdmission(const json& review, const StatsLookup& stats,
                                                  const AdmissionOptions& options) {
  if (!review.is_object()) return absl::InvalidArgumentError("expected an AdmissionReview object");
  if (StringField(review, "kind") != "AdmissionReview") {
    return absl::InvalidArgumentError("kind: expected AdmissionReview");
  }
  const json* request = Field(review, "request");
  if (request == nullptr || !request->is_object()) {
    return absl::InvalidArgumentError("request: required");
  }
  AdmissionDecision decision;
  decision.uid = StringField(*request, "uid");
  if (decision.uid.empty()) return absl::InvalidArgumentError("request.uid: required");
  decision.patch = json::array();

  const std::string operation = StringField(*request, "operation");
  const std::string resource_name = StringField(ObjectField(*request, "resource"), "resource");
  if (operation != "CREATE" || resource_name != "pods" ||
      !StringField(*request, "subResource").empty()) {
    return Skip(std::move(decision),
                absl::StrCat("not a pod creation (", operation, " ", resource_name, ")"));
  }
  const json* object = Field(*request, "object");
  if (object == nullptr || !object->is_object()) {
    return Skip(std::move(decision), "request.object: no pod");
  }
  const json& metadata = ObjectField(*object, "metadata");
  std::string pod_namespace = StringField(metadata, "namespace");
  if (pod_namespace.empty()) pod_namespace = StringField(*request, "namespace");
  if (pod_namespace.empty()) pod_namespace = "default";
  std::string name = StringField(metadata, "name");
  if (name.empty()) name = StringField(metadata, "generateName") + "*";
  decision.pod = absl::StrCat(pod_namespace, "/", name);
  const json* owners = Field(metadata, "ownerReferences");
  decision.workload_key = WorkloadKey(pod_namespace, name, owners != nullptr ? *owners : json());

  if (std::find(options.excluded_namespaces.begin(), options.excluded_namespaces.end(),
                pod_namespace) != options.excluded_namespaces.end()) {
    return Skip(std::move(decision), absl::StrCat("namespace ", pod_namespace, " is excluded"));
  }
  Annotations annotations;
  const json* annotations_json = nullptr;
  if (const json* found = Field(metadata, "annotations"); found != nullptr && found->is_object()) {
    annotations_json = found;
    for (const auto& [key, value] : found->items()) {
      if (value.is_string()) annotations[key] = value.get<std::string>();
    }
  }
  if (std::string why = SizingBlockedBy(ResolveWorkloadPolicy({}, annotations, "", std::nullopt));
      !why.empty()) {
    return Skip(std::move(decision), std::move(why));
  }

  absl::StatusOr<std::vector<DeclaredResources>> containers =
      DecodeDeclaredResources(*object, "containers");
  if (!containers.ok()) {
    return Skip(std::move(decision),
                absl::StrCat("unreadable pod: ", containers.status().message()));
  }
  std::vector<std::string> notes;
  for (size_t i = 0; i < containers->size(); ++i) {
    const DeclaredResources& before = (*containers)[i];
    bool from_history = false;
    const DeclaredResources after =
        Sized(before, stats(decision.workload_key, before.name), options, from_history);
    if (after == before) continue;
    // Decoding succeeded, so spec.containers[i] exists and is an object.
    const json& container = object->at("spec").at("containers").at(i);
    const json& original = ObjectField(container, "resources");
    decision.patch.push_back({{"op", "add"},
                              {"path", absl::StrCat("/spec/containers/", i, "/resources")},
                              {"value", ResourcesValue(original, after)}});
    decision.changes.push_back({before.name, Describe(before), Describe(after), from_history});
    notes.push_back(absl::StrCat(before.name, ": ", Describe(before), " -> ", Describe(after),
                                 from_history ? " (from history)" : " (CPU limit removed)"));
  }
  if (decision.changes.empty()) {
    return Skip(std::move(decision),
                absl::StrCat("no history for ", decision.workload_key, " and no CPU limit"));
  }
  decision.annotation = absl::StrJoin(notes, "; ");
  if (annotations_json == nullptr) {
    decision.patch.push_back(
        {{"op", "add"},
         {"path", "/metadata/annotations"},
         {"value", {{std::string(kAdmissionAnnotation), decision.annotation}}}});
  } else {
    decision.patch.push_back(
        {{"op", "add"},
         {"path", absl::StrCat("/metadata/annotations/", PointerSegment(kAdmissionAnnotation))},
         {"value", decision.annotation}});
  }
  return decision;
}

json AdmissionResponse(const AdmissionDecision& decision, bool apply) {
  json response = {{"uid", decision.uid}, {"allowed", true}};
  if (apply && !decision.patch.empty()) {
    response["patchType"] = "JSONPatch";
    response["patch"] = absl::Base64Escape(decision.patch.dump());
  }
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"response", std::move(response)}};
}

}  // namespace headroom::extender
