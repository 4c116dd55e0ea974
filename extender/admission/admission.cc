#include "extender/admission/admission.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codec/json_lenient.h"
#include "extender/kube/pod_decoder.h"
#include "extender/kube/pod_level_sizing.h"
#include "extender/kube/pod_resources.h"
#include "shared/annotations.h"
#include "shared/node_actions.h"
#include "shared/quantity.h"
#include "shared/sizing.h"
#include "shared/workload_policy.h"

namespace headroom::extender {

using ::headroom::codec::Field;
using ::headroom::codec::ObjectField;
using ::headroom::codec::StringField;
namespace {

using json = nlohmann::json;

// The container's new resources; `from_history` says whether statistics were used, `reasons`
// which guard rails shaped them.
DeclaredResources Sized(const DeclaredResources& before,
                        const std::optional<WorkloadContainerStats>& stats,
                        const WorkloadPolicy& policy, const AdmissionOptions& options,
                        bool& from_history, std::vector<Reason>& reasons) {
  DeclaredResources after = before;
  from_history = false;
  if (stats.has_value()) {
    const SizedValues declared{before.cpu_request_millis, before.memory_request_bytes,
                               before.memory_limit_bytes};
    GuardResult sized = SizeNewContainer(*stats, declared, policy.allow_below_declared,
                                         policy.tuning, options.guard);
    reasons = std::move(sized.reasons);
    // While warming up these are the declared values (a memory limit raised by an OOM kill).
    after.cpu_request_millis = sized.values.cpu_request_millis;
    after.memory_request_bytes = sized.values.memory_request_bytes;
    after.memory_limit_bytes = sized.values.memory_limit_bytes;
    from_history = !sized.warming_up && stats->cpu.has_value() && stats->memory.has_value();
  }
  if (options.strip_cpu_limits) DropCpuLimit(after);
  if (after.cpu_limit_millis && after.cpu_request_millis &&
      *after.cpu_request_millis > *after.cpu_limit_millis) {
    // A kept CPU limit bounds the request: the API refuses a request above its limit.
    reasons.push_back({"CappedAtCpuLimit", absl::StrCat("cpu request capped at the declared limit ",
                                                        FormatCpuMillis(*after.cpu_limit_millis))});
    after.cpu_request_millis = after.cpu_limit_millis;
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

using AnnotationWrites = std::vector<std::pair<absl::string_view, std::string>>;

// Where the pod's annotations stand: a JSONPatch "add" needs the parent of its path.
enum class AnnotationsAt { kAnnotations, kMetadataOnly, kNothing };

AnnotationsAt WhereAnnotations(const json& pod) {
  const json* metadata = Field(pod, "metadata");
  if (metadata == nullptr || !metadata->is_object()) return AnnotationsAt::kNothing;
  const json* annotations = Field(*metadata, "annotations");
  return annotations != nullptr && annotations->is_object() ? AnnotationsAt::kAnnotations
                                                            : AnnotationsAt::kMetadataOnly;
}

// JSONPatch operations that write `writes` into the pod's annotations: one key at a time into
// an annotations object already there, else one object with all of them (inside a metadata
// object added too when the pod has none, so the patch always applies).
void AppendAnnotationWrites(json& patch, AnnotationsAt at, const AnnotationWrites& writes) {
  if (writes.empty()) return;
  if (at != AnnotationsAt::kAnnotations) {
    json value = json::object();
    for (const auto& [key, text] : writes) value[std::string(key)] = text;
    if (at == AnnotationsAt::kNothing) {
      patch.push_back(
          {{"op", "add"}, {"path", "/metadata"}, {"value", {{"annotations", std::move(value)}}}});
    } else {
      patch.push_back(
          {{"op", "add"}, {"path", "/metadata/annotations"}, {"value", std::move(value)}});
    }
    return;
  }
  for (const auto& [key, text] : writes) {
    patch.push_back({{"op", "add"},
                     {"path", absl::StrCat("/metadata/annotations/", PointerSegment(key))},
                     {"value", text}});
  }
}

// The review's request, after the checks every review must pass; sets the decision's
// apiVersion, uid and an empty patch.
absl::StatusOr<const json*> CheckReview(const json& review, AdmissionDecision& decision) {
  if (!review.is_object()) return absl::InvalidArgumentError("expected an AdmissionReview object");
  if (StringField(review, "kind") != "AdmissionReview") {
    return absl::InvalidArgumentError("kind: expected AdmissionReview");
  }
  const std::string api_version = StringField(review, "apiVersion");
  if (api_version != "admission.k8s.io/v1" && api_version != "admission.k8s.io/v1beta1") {
    return absl::InvalidArgumentError(
        absl::StrCat("apiVersion: \"", api_version,
                     "\" is not admission.k8s.io/v1 (or v1beta1); list v1 in the webhook's "
                     "admissionReviewVersions"));
  }
  const json* request = Field(review, "request");
  if (request == nullptr || !request->is_object()) {
    return absl::InvalidArgumentError("request: required");
  }
  decision.api_version = api_version;
  decision.uid = StringField(*request, "uid");
  if (decision.uid.empty()) return absl::InvalidArgumentError("request.uid: required");
  decision.patch = json::array();
  return request;
}

// The pod being created, by the one v1.Pod decoder: its namespace (the request's when the
// object has none), its name (or generateName before it has one), owner and annotations. Its
// containers are read as declared (DecodeDeclaredResources), to write them back. Sets the
// decision's pod and workload key.
absl::StatusOr<PodSpec> DecodeAdmittedPod(const json& request, const json& object,
                                          AdmissionDecision& decision) {
  absl::StatusOr<PodSpec> pod =
      DecodePodObject(object, {.default_namespace = StringField(request, "namespace"),
                               .require_name = false,
                               .containers = false});
  if (!pod.ok()) return pod.status();
  decision.pod = absl::StrCat(pod->pod_namespace, "/",
                              pod->name.empty() ? pod->generate_name + "*" : pod->name);
  decision.workload_key = pod->workload_key;
  return pod;
}

// Sizes each container from its workload's history, and the pod level of a pod that declares
// pod-level resources (pod_level_sizing.h): a patch operation and a note for each that changes.
// Returns why a container kept its declared values while warming up ("": none).
std::string SizeContainers(const json& object, const std::vector<DeclaredResources>& containers,
                           const std::optional<DeclaredResources>& pod_level,
                           const StatsLookup& stats, const WorkloadPolicy& policy,
                           const AdmissionOptions& options, AdmissionDecision& decision,
                           std::vector<std::string>& notes) {
  std::string warming;
  std::vector<DeclaredResources> sized(containers.size());
  std::vector<bool> from_history(containers.size(), false);
  std::vector<std::vector<Reason>> reasons(containers.size());
  for (size_t i = 0; i < containers.size(); ++i) {
    bool history = false;
    sized[i] = Sized(containers[i], stats(decision.workload_key, containers[i].name), policy,
                     options, history, reasons[i]);
    from_history[i] = history;
    for (const Reason& reason : reasons[i]) {
      if (reason.code == "WarmingUp") {
        warming = absl::StrCat(containers[i].name, ": ", reason.message);
      }
    }
  }
  std::optional<DeclaredResources> pod_after;
  std::vector<Reason> pod_reasons;
  if (pod_level.has_value()) {
    pod_after =
        SizePodLevel(*pod_level, containers, sized,
                     {options.strip_cpu_limits, policy.allow_below_declared}, reasons, pod_reasons);
  }
  for (size_t i = 0; i < containers.size(); ++i) {
    const DeclaredResources& before = containers[i];
    const DeclaredResources& after = sized[i];
    if (after == before) continue;
    // Decoding succeeded, so spec.containers[i] exists and is an object.
    const json& container = object.at("spec").at("containers").at(i);
    const json& original = ObjectField(container, "resources");
    decision.patch.push_back({{"op", "add"},
                              {"path", absl::StrCat("/spec/containers/", i, "/resources")},
                              {"value", ResourcesValue(original, after)}});
    std::string guard_notes;
    for (const Reason& reason : reasons[i]) {
      absl::StrAppend(&guard_notes, " [", reason.message, "]");
    }
    notes.push_back(
        absl::StrCat(before.name, ": ", DescribeResources(before), " -> ", DescribeResources(after),
                     from_history[i] ? " (from history)" : " (CPU limit removed)", guard_notes));
    decision.changes.push_back({before.name, DescribeResources(before), DescribeResources(after),
                                from_history[i], std::move(reasons[i])});
  }
  if (pod_after.has_value() && *pod_after != *pod_level) {
    const json& original = ObjectField(object.at("spec"), "resources");
    decision.patch.push_back({{"op", "add"},
                              {"path", "/spec/resources"},
                              {"value", ResourcesValue(original, *pod_after)}});
    notes.push_back(absl::StrCat("pod level: ", DescribeResources(*pod_level), " -> ",
                                 DescribeResources(*pod_after)));
    decision.changes.push_back(
        {"(pod level)", DescribeResources(*pod_level), DescribeResources(*pod_after),
         std::any_of(from_history.begin(), from_history.end(), [](bool b) { return b; }),
         std::move(pod_reasons)});
  }
  return warming;
}

}  // namespace

absl::StatusOr<AdmissionDecision> DecideAdmission(const json& review, const StatsLookup& stats,
                                                  const AdmissionOptions& options) {
  AdmissionDecision decision;
  absl::StatusOr<const json*> request = CheckReview(review, decision);
  if (!request.ok()) return request.status();
  const std::string operation = StringField(**request, "operation");
  const std::string resource_name = StringField(ObjectField(**request, "resource"), "resource");
  if (operation != "CREATE" || resource_name != "pods" ||
      !StringField(**request, "subResource").empty()) {
    return Skip(std::move(decision),
                absl::StrCat("not a pod creation (", operation, " ", resource_name, ")"));
  }
  const json* object = Field(**request, "object");
  if (object == nullptr || !object->is_object()) {
    return Skip(std::move(decision), "request.object: no pod");
  }
  absl::StatusOr<PodSpec> pod = DecodeAdmittedPod(**request, *object, decision);
  if (!pod.ok()) {
    return Skip(std::move(decision), absl::StrCat("unreadable pod: ", pod.status().message()));
  }
  const Annotations annotations(pod->annotations.begin(), pod->annotations.end());
  if (std::find(options.excluded_namespaces.begin(), options.excluded_namespaces.end(),
                pod->pod_namespace) != options.excluded_namespaces.end()) {
    return Skip(std::move(decision),
                absl::StrCat("namespace ", pod->pod_namespace, " is excluded"));
  }
  PolicyDefaults defaults;
  defaults.allow_below_declared = options.guard.allow_below_declared;
  defaults.step = options.default_step;
  WorkloadPolicy policy =
      ResolvePodPolicy(annotations, pod->owner.has_value() ? pod->owner->kind : "", std::nullopt,
                       defaults, pod->pod_namespace, decision.workload_key, options.layers);
  for (const Reason& warning : policy.warnings) decision.warnings.push_back(warning.message);
  // A resource an HPA scales on by utilisation is kept (its reason reaches the guard rails').
  if (options.hpa_for) {
    (void)KeepForHpa(options.hpa_for(decision.workload_key), options.hpa_mode, policy.tuning);
  }
  // The pod's workload key, decided here from its owner, goes on the pod for headroom-nri
  // (shared/workload_key.h), replacing any value the pod came with. A pod without an owner
  // and without a name yet (generateName) is left to the node, which names it as we would;
  // a pod annotated headroom.dev/disable is left entirely alone.
  AnnotationWrites writes;
  if (const auto it = annotations.find(kWorkloadAnnotation);
      !policy.disabled && (pod->owner.has_value() || !pod->name.empty()) &&
      (it == annotations.end() || it->second != decision.workload_key)) {
    writes.emplace_back(kWorkloadAnnotation, decision.workload_key);
  }
  // The step as resolved now, for headroom-nri, which sees the pod's annotations only.
  if (const std::string step(AdoptionStepName(policy.step));
      !policy.disabled && (!annotations.contains(kAdmittedModeAnnotation) ||
                           annotations.at(kAdmittedModeAnnotation) != step)) {
    writes.emplace_back(kAdmittedModeAnnotation, step);
  }
  const auto skip = [&](std::string why) {
    AdmissionDecision skipped = Skip(std::move(decision), std::move(why));
    AppendAnnotationWrites(skipped.patch, WhereAnnotations(*object), writes);
    return skipped;
  };
  if (std::string why = SizingBlockedBy(policy); !why.empty()) return skip(std::move(why));
  absl::StatusOr<std::vector<DeclaredResources>> containers =
      DecodeDeclaredResources(*object, "containers");
  if (!containers.ok()) {
    return skip(absl::StrCat("unreadable pod: ", containers.status().message()));
  }
  absl::StatusOr<std::optional<DeclaredResources>> pod_level = DecodePodLevelResources(*object);
  if (!pod_level.ok()) {
    return skip(absl::StrCat("unreadable pod: ", pod_level.status().message()));
  }
  std::vector<std::string> notes;
  const std::string warming =
      SizeContainers(*object, *containers, *pod_level, stats, policy, options, decision, notes);
  if (decision.changes.empty()) {
    return skip(warming.empty()
                    ? absl::StrCat("no history for ", decision.workload_key, " and no CPU limit")
                    : absl::StrCat("warming up, declared values kept (", warming, ")"));
  }
  decision.annotation = absl::StrJoin(notes, "; ");
  decision.declared = EncodeDeclaredAnnotation(*containers);
  writes.emplace_back(kAdmissionAnnotation, decision.annotation);
  // A declared annotation already there (a pod re-created from a headroom-sized spec) holds
  // the original values: keep it.
  if (!annotations.contains(kDeclaredAnnotation)) {
    writes.emplace_back(kDeclaredAnnotation, decision.declared);
  }
  if (pod_level->has_value() && !annotations.contains(kDeclaredPodAnnotation)) {
    writes.emplace_back(kDeclaredPodAnnotation, EncodeDeclaredPodAnnotation(**pod_level));
  }
  AppendAnnotationWrites(decision.patch, WhereAnnotations(*object), writes);
  return decision;
}

json AdmissionResponse(const AdmissionDecision& decision, bool apply) {
  json response = {{"uid", decision.uid}, {"allowed", true}};
  if (apply && !decision.patch.empty()) {
    response["patchType"] = "JSONPatch";
    response["patch"] = absl::Base64Escape(decision.patch.dump());
  }
  if (!decision.warnings.empty()) response["warnings"] = decision.warnings;
  return {{"apiVersion", decision.api_version},
          {"kind", "AdmissionReview"},
          {"response", std::move(response)}};
}

}  // namespace headroom::extender
