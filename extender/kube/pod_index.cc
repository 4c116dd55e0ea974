#include "extender/kube/pod_index.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "codec/json_lenient.h"
#include "extender/kube/pod_decoder.h"
#include "extender/kube/pod_facts.h"
#include "io/kube_client.h"
#include "shared/annotations.h"
#include "shared/status_macros.h"

namespace headroom::extender {

using ::headroom::codec::ArrayField;
using ::headroom::codec::NestedString;
using ::headroom::codec::ObjectField;
using ::headroom::codec::StringField;
namespace {

using json = nlohmann::json;

}  // namespace

bool IsReadAnnotation(absl::string_view key) {
  return absl::StartsWith(key, kAnnotationPrefix) || key == kKarpenterDoNotDisruptAnnotation;
}

absl::StatusOr<ApiPod> DecodeApiPod(const json& object) {
  const json& metadata = ObjectField(object, "metadata");
  ApiPod pod;
  pod.pod_namespace = StringField(metadata, "namespace");
  pod.name = StringField(metadata, "name");
  pod.uid = StringField(metadata, "uid");
  if (pod.pod_namespace.empty() || pod.name.empty() || pod.uid.empty()) {
    return absl::InvalidArgumentError("pod without metadata.namespace, name or uid");
  }
  pod.node = StringField(ObjectField(object, "spec"), "nodeName");
  pod.key_labels = WorkloadKeyLabels(ObjectField(metadata, "labels"));
  if (std::optional<ControllerRef> owner =
          ControllingOwner(ArrayField(metadata, "ownerReferences"))) {
    pod.owner_kind = std::move(owner->kind);
    pod.owner_name = std::move(owner->name);
  }
  const json& annotations = ObjectField(metadata, "annotations");
  for (const auto& [key, value] : annotations.items()) {
    if (value.is_string() && IsReadAnnotation(key)) pod.annotations[key] = value.get<std::string>();
  }
  pod.mirror = annotations.contains("kubernetes.io/config.mirror");
  pod.terminating =
      metadata.contains("deletionTimestamp") && !metadata.at("deletionTimestamp").is_null();
  HEADROOM_ASSIGN_OR_RETURN(pod.containers, DecodeDeclaredResources(object, "containers"));
  HEADROOM_ASSIGN_OR_RETURN(pod.init_containers, DecodeDeclaredResources(object, "initContainers"));
  HEADROOM_ASSIGN_OR_RETURN(const std::optional<DeclaredResources> pod_level,
                            DecodePodLevelResources(object));
  pod.pod_level = PodLevelOf(pod_level);
  const json& status = ObjectField(object, "status");
  for (const json& condition : ArrayField(status, "conditions")) {
    const std::string type = StringField(condition, "type");
    if (StringField(condition, "status") != "True") continue;
    if (type == "Ready") pod.ready = true;
    if (type == "PodResizePending") {
      pod.resize_pending = StringField(condition, "reason");
      if (pod.resize_pending.empty()) pod.resize_pending = "Pending";
      pod.resize_message = StringField(condition, "message");
    } else if (type == "PodResizeInProgress") {
      pod.resize_in_progress = true;
      if (pod.resize_message.empty()) pod.resize_message = StringField(condition, "message");
    }
  }
  for (const json& container : ArrayField(status, "containerStatuses")) {
    for (const char* state : {"lastState", "state"}) {
      const json& terminated = ObjectField(ObjectField(container, state), "terminated");
      if (StringField(terminated, "reason") != "OOMKilled") continue;
      pod.oom_kills.push_back({StringField(container, "name"),
                               StringField(terminated, "containerID"),
                               io::ParseKubeTime(StringField(terminated, "finishedAt"))
                                   .value_or(absl::InfinitePast())});
    }
  }
  pod.requests = RequestsOfPod(pod);
  return pod;
}

std::string ControllerKey(const ApiPod& pod) {
  if (pod.owner_kind.empty()) return "";
  return absl::StrCat(pod.pod_namespace, "/", pod.owner_kind, "/", pod.owner_name);
}

std::string WorkloadKeyOf(const ApiPod& pod) {
  std::optional<ControllerRef> controller;
  if (!pod.owner_kind.empty()) controller = ControllerRef{pod.owner_kind, pod.owner_name};
  return WorkloadKeyFromController(pod.pod_namespace, pod.name, pod.key_labels, controller);
}

WorkloadCount CountOf(const absl::flat_hash_map<std::string, WorkloadCount>& counts,
                      const ApiPod& pod) {
  const auto it = counts.find(ControllerKey(pod));
  return it == counts.end() ? WorkloadCount{} : it->second;
}

WorkloadPolicy PolicyOf(const ApiPod& pod, const WorkloadCount& count,
                        const PolicyDefaults& defaults, const PolicyLayers& layers) {
  const std::optional<int> replicas =
      pod.owner_kind.empty() ? std::nullopt : std::optional<int>(count.pods);
  return ResolvePodPolicy(pod.annotations, pod.owner_kind, replicas, defaults, pod.pod_namespace,
                          layers.owners ? WorkloadKeyOf(pod) : std::string(), layers);
}

std::optional<std::string> PodIndex::AnnotationOf(const std::string& pod_namespace,
                                                  const std::string& name, const std::string& uid,
                                                  absl::string_view key) const {
  const std::string pod_key = absl::StrCat(pod_namespace, "/", name);
  absl::ReaderMutexLock lock(&mu_);
  const auto it = pods_.find(pod_key);
  if (it == pods_.end() || it->second->uid != uid) return std::nullopt;
  const auto annotation = it->second->annotations.find(key);
  return annotation == it->second->annotations.end() ? std::string() : annotation->second;
}

absl::flat_hash_map<std::string, WorkloadCount> PodIndex::WorkloadCounts() const {
  absl::ReaderMutexLock lock(&mu_);
  return counts_;
}

WorkloadCount PodIndex::CountFor(const ApiPod& pod) const {
  absl::ReaderMutexLock lock(&mu_);
  return CountOf(counts_, pod);
}

void PodIndex::CountLocked(const ApiPod& pod, int sign) {
  if (pod.owner_kind.empty() || pod.terminating) return;
  const std::string key = ControllerKey(pod);
  WorkloadCount& count = counts_[key];
  count.pods += sign;
  if (pod.ready) count.ready += sign;
  if (count.pods <= 0) counts_.erase(key);
}

void PodIndex::Replace(const std::vector<json>& pods) {
  absl::flat_hash_map<std::string, std::shared_ptr<const ApiPod>> fresh;
  for (const json& object : pods) {
    absl::StatusOr<ApiPod> pod = DecodeApiPod(object);
    if (!pod.ok()) continue;
    std::string key = pod->Key();  // (before the pod is moved away)
    fresh[std::move(key)] = std::make_shared<const ApiPod>(*std::move(pod));
  }
  absl::MutexLock lock(&mu_);
  pods_ = std::move(fresh);
  counts_.clear();
  for (const auto& [key, pod] : pods_) CountLocked(*pod, 1);
}

void PodIndex::Apply(const WatchEvent& event) {
  if (event.type == WatchEventType::kDeleted) {
    const std::string key = absl::StrCat(NestedString(event.object, "metadata", "namespace"), "/",
                                         NestedString(event.object, "metadata", "name"));
    absl::MutexLock lock(&mu_);
    if (const auto it = pods_.find(key); it != pods_.end()) {
      CountLocked(*it->second, -1);
      pods_.erase(it);
    }
    return;
  }
  if (event.type != WatchEventType::kAdded && event.type != WatchEventType::kModified) return;
  absl::StatusOr<ApiPod> pod = DecodeApiPod(event.object);
  if (!pod.ok()) return;
  absl::MutexLock lock(&mu_);
  const std::string key = pod->Key();
  if (const auto it = pods_.find(key); it != pods_.end()) CountLocked(*it->second, -1);
  CountLocked(*pod, 1);
  pods_[key] = std::make_shared<const ApiPod>(*std::move(pod));
}

std::shared_ptr<const ApiPod> PodIndex::Get(const std::string& pod_namespace,
                                            const std::string& name) const {
  const std::string key = absl::StrCat(pod_namespace, "/", name);
  absl::ReaderMutexLock lock(&mu_);
  const auto it = pods_.find(key);
  return it != pods_.end() ? it->second : nullptr;
}

std::optional<ApiPod> PodIndex::Find(const std::string& pod_namespace,
                                     const std::string& name) const {
  const std::shared_ptr<const ApiPod> pod = Get(pod_namespace, name);
  if (pod == nullptr) return std::nullopt;
  return *pod;
}

std::vector<std::optional<PodRequests>> PodIndex::RequestsOf(
    const std::vector<ReportedPod>& pods) const {
  std::vector<std::optional<PodRequests>> out;
  out.reserve(pods.size());
  std::string key;
  absl::ReaderMutexLock lock(&mu_);
  for (const ReportedPod& pod : pods) {
    key.clear();
    absl::StrAppend(&key, pod.pod_namespace, "/", pod.name);
    const auto it = pods_.find(key);
    out.push_back(it != pods_.end() ? std::optional<PodRequests>(it->second->requests)
                                    : std::nullopt);
  }
  return out;
}

std::vector<ApiPod> PodIndex::WithOomKills() const {
  std::vector<ApiPod> out;
  absl::ReaderMutexLock lock(&mu_);
  for (const auto& [key, pod] : pods_) {
    if (!pod->oom_kills.empty()) out.push_back(*pod);
  }
  return out;
}

size_t PodIndex::size() const {
  absl::ReaderMutexLock lock(&mu_);
  return pods_.size();
}

}  // namespace headroom::extender
