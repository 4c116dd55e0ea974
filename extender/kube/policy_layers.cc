#include "extender/kube/policy_layers.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"
#include "shared/annotations.h"

namespace headroom::extender {
namespace {

// The headroom.dev/ string annotations of an object.
Annotations HeadroomAnnotations(const nlohmann::json& object) {
  Annotations out;
  const nlohmann::json* metadata = codec::Field(object, "metadata");
  const nlohmann::json* annotations =
      metadata != nullptr ? codec::Field(*metadata, "annotations") : nullptr;
  if (annotations == nullptr || !annotations->is_object()) return out;
  for (const auto& [key, value] : annotations->items()) {
    if (absl::StartsWith(key, kAnnotationPrefix) && value.is_string()) {
      out.emplace(key, value.get<std::string>());
    }
  }
  return out;
}

ListWatchOptions MetadataWatch(std::string path) {
  ListWatchOptions options;
  options.path = std::move(path);
  options.fields =
      FieldMask{{"metadata", {{"namespace"}, {"name"}, {"resourceVersion"}, {"annotations"}}}};
  return options;
}

// A layer's annotations; nullopt (not listed yet) becomes `unlisted`'s mode: observe.
const Annotations* LayerOrObserve(const std::optional<Annotations>& layer,
                                  const Annotations& observe, bool& unlisted) {
  if (layer.has_value()) return &*layer;
  unlisted = true;
  return &observe;
}

}  // namespace

ListWatchOptions NamespacesWatch() { return MetadataWatch("/api/v1/namespaces"); }

ListWatchOptions OwnersWatch(const OwnerKind& kind) { return MetadataWatch(kind.path); }

WorkloadPolicy ResolvePodPolicy(const Annotations& pod, absl::string_view kind,
                                std::optional<int> replicas, const PolicyDefaults& defaults,
                                const std::string& pod_namespace, const std::string& workload_key,
                                const PolicyLayers& layers) {
  static const Annotations* const kObserve =
      new Annotations{{std::string(kModeAnnotation), "observe"}};
  static const Annotations* const kNone = new Annotations;
  std::optional<Annotations> owner;
  std::optional<Annotations> ns;
  if (layers.owners && !workload_key.empty()) owner = layers.owners(workload_key);
  if (layers.namespaces) ns = layers.namespaces(pod_namespace);
  bool unlisted = false;
  const Annotations* owner_layer =
      !layers.owners || workload_key.empty() ? kNone : LayerOrObserve(owner, *kObserve, unlisted);
  const Annotations* namespace_layer =
      !layers.namespaces ? kNone : LayerOrObserve(ns, *kObserve, unlisted);
  WorkloadPolicy policy =
      ResolveWorkloadPolicy(*owner_layer, pod, kind, replicas, defaults, *namespace_layer);
  if (unlisted && policy.step_from != "pod" &&
      ((policy.step_from == "owner" && !owner.has_value()) ||
       (policy.step_from == "namespace" && !ns.has_value()))) {
    policy.step_from = "not listed yet";
  }
  return policy;
}

ObjectKey NamespaceKey() {
  return
      [](const nlohmann::json& object) { return codec::NestedString(object, "metadata", "name"); };
}

ObjectKey OwnerKey(absl::string_view kind) {
  return [kind = std::string(kind)](const nlohmann::json& object) {
    const std::string ns = codec::NestedString(object, "metadata", "namespace");
    const std::string name = codec::NestedString(object, "metadata", "name");
    if (ns.empty() || name.empty()) return std::string();
    return absl::StrCat(ns, "/", kind, "/", name);
  };
}

void AnnotationIndex::Replace(const std::vector<nlohmann::json>& objects) {
  absl::flat_hash_map<std::string, Annotations> annotated;
  for (const nlohmann::json& object : objects) {
    Annotations annotations = HeadroomAnnotations(object);
    std::string key = key_of_(object);
    if (annotations.empty() || key.empty()) continue;
    annotated.emplace(std::move(key), std::move(annotations));
  }
  absl::MutexLock lock(&mu_);
  annotated_ = std::move(annotated);
}

void AnnotationIndex::Apply(const WatchEvent& event) {
  const std::string key = key_of_(event.object);
  if (key.empty()) return;
  absl::MutexLock lock(&mu_);
  if (event.type == WatchEventType::kDeleted) {
    annotated_.erase(key);
    return;
  }
  if (event.type != WatchEventType::kAdded && event.type != WatchEventType::kModified) return;
  Annotations annotations = HeadroomAnnotations(event.object);
  if (annotations.empty()) {
    annotated_.erase(key);
  } else {
    annotated_[key] = std::move(annotations);
  }
}

Annotations AnnotationIndex::For(const std::string& key) const {
  absl::MutexLock lock(&mu_);
  const auto it = annotated_.find(key);
  return it == annotated_.end() ? Annotations{} : it->second;
}

size_t AnnotationIndex::annotated() const {
  absl::MutexLock lock(&mu_);
  return annotated_.size();
}

}  // namespace headroom::extender
