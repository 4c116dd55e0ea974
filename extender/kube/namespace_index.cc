#include "extender/kube/namespace_index.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "codec/json_lenient.h"
#include "shared/annotations.h"

namespace headroom::extender {
namespace {

// The headroom.dev/ string annotations of a Namespace object.
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

}  // namespace

ListWatchOptions NamespacesWatch() {
  ListWatchOptions options;
  options.path = "/api/v1/namespaces";
  options.fields = FieldMask{{"metadata", {{"name"}, {"resourceVersion"}, {"annotations"}}}};
  return options;
}

WorkloadPolicy ResolvePodPolicy(const Annotations& owner, const Annotations& pod,
                                absl::string_view kind, std::optional<int> replicas,
                                const PolicyDefaults& defaults, const std::string& pod_namespace,
                                const NamespaceLookup& namespaces) {
  if (!namespaces) return ResolveWorkloadPolicy(owner, pod, kind, replicas, defaults);
  const std::optional<Annotations> layer = namespaces(pod_namespace);
  if (layer.has_value()) {
    return ResolveWorkloadPolicy(owner, pod, kind, replicas, defaults, *layer);
  }
  WorkloadPolicy policy = ResolveWorkloadPolicy(owner, pod, kind, replicas, defaults,
                                                {{std::string(kModeAnnotation), "observe"}});
  if (policy.step_from == "namespace") policy.step_from = "namespaces not listed yet";
  return policy;
}

void NamespaceIndex::Replace(const std::vector<nlohmann::json>& namespaces) {
  absl::flat_hash_map<std::string, Annotations> annotated;
  for (const nlohmann::json& object : namespaces) {
    Annotations annotations = HeadroomAnnotations(object);
    if (annotations.empty()) continue;
    annotated.emplace(codec::NestedString(object, "metadata", "name"), std::move(annotations));
  }
  absl::MutexLock lock(&mu_);
  annotated_ = std::move(annotated);
}

void NamespaceIndex::Apply(const WatchEvent& event) {
  const std::string name = codec::NestedString(event.object, "metadata", "name");
  if (name.empty()) return;
  absl::MutexLock lock(&mu_);
  if (event.type == WatchEventType::kDeleted) {
    annotated_.erase(name);
    return;
  }
  if (event.type != WatchEventType::kAdded && event.type != WatchEventType::kModified) return;
  Annotations annotations = HeadroomAnnotations(event.object);
  if (annotations.empty()) {
    annotated_.erase(name);
  } else {
    annotated_[name] = std::move(annotations);
  }
}

Annotations NamespaceIndex::For(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  const auto it = annotated_.find(name);
  return it == annotated_.end() ? Annotations{} : it->second;
}

std::vector<std::pair<std::string, Annotations>> NamespaceIndex::Annotated() const {
  std::vector<std::pair<std::string, Annotations>> out;
  {
    absl::MutexLock lock(&mu_);
    out.assign(annotated_.begin(), annotated_.end());
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

}  // namespace headroom::extender
