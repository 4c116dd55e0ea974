#include "extender/kube/pod_placements.h"

#include "codec/json_lenient.h"
#include "extender/kube/pod_decoder.h"
#include "extender/kube/pod_footprint.h"

namespace headroom::extender {

using ::headroom::codec::NestedString;

using nlohmann::json;

ListWatchOptions BoundPodsWatch() {
  ListWatchOptions options;
  options.path = "/api/v1/pods";
  options.field_selector = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed";
  options.fields = BoundPodFields();
  return options;
}

const FieldMask& BoundPodFields() {
  static const FieldMask* const fields = new FieldMask{
      {"metadata",
       {{"namespace"},
        {"name"},
        {"uid"},
        {"resourceVersion"},
        {"labels"},
        {"annotations"},
        {"ownerReferences"},
        {"deletionTimestamp"}}},
      {"spec",
       {{"nodeName"},
        {"resources"},  // pod-level resources (Kubernetes 1.34+)
        {"containers", {{"name"}, {"resources"}}},
        {"initContainers", {{"name"}, {"resources"}}}}},
      {"status", {{"conditions"}, {"containerStatuses", {{"name"}, {"state"}, {"lastState"}}}}},
  };
  return *fields;
}

PodPlacementTracker::PodPlacementTracker(ClusterView& view) : view_(view) {}

void PodPlacementTracker::Replace(const std::vector<json>& pods, absl::Time now) {
  absl::flat_hash_set<std::string> bound;
  struct Unseen {
    std::string uid;
    std::string node;
    const json* pod;
  };
  std::vector<Unseen> unseen;
  std::vector<std::string> gone;
  {
    absl::MutexLock lock(&mu_);
    for (const json& pod : pods) {
      std::string uid = NestedString(pod, "metadata", "uid");
      std::string node = NestedString(pod, "spec", "nodeName");
      if (uid.empty() || node.empty()) continue;
      if (!bound_.contains(uid)) unseen.push_back({uid, std::move(node), &pod});
      bound.insert(std::move(uid));
    }
    for (const std::string& uid : bound_) {
      if (!bound.contains(uid)) gone.push_back(uid);
    }
    bound_ = std::move(bound);
    recorded_ += static_cast<int64_t>(unseen.size());
  }
  for (const std::string& uid : gone) view_.ForgetPlacement(uid);
  for (const Unseen& pod : unseen) {
    absl::StatusOr<PodSpec> spec = DecodePodObject(*pod.pod);
    if (!spec.ok()) continue;
    view_.RecordPlacement(pod.uid, pod.node, CandidateFootprint(*spec, view_), now);
  }
}

void PodPlacementTracker::Apply(const WatchEvent& event, absl::Time now) {
  const std::string uid = NestedString(event.object, "metadata", "uid");
  if (uid.empty()) return;
  if (event.type == WatchEventType::kDeleted) {
    {
      absl::MutexLock lock(&mu_);
      bound_.erase(uid);
    }
    view_.ForgetPlacement(uid);
    return;
  }
  if (event.type != WatchEventType::kAdded && event.type != WatchEventType::kModified) return;
  const std::string node = NestedString(event.object, "spec", "nodeName");
  if (node.empty()) return;
  {
    absl::MutexLock lock(&mu_);
    if (!bound_.insert(uid).second) return;  // seen before: a status update
    ++recorded_;
  }
  absl::StatusOr<PodSpec> pod = DecodePodObject(event.object);
  if (!pod.ok()) return;  // the API server validated it; nothing useful to count
  view_.RecordPlacement(uid, node, CandidateFootprint(*pod, view_), now);
}

size_t PodPlacementTracker::known_pods() const {
  absl::MutexLock lock(&mu_);
  return bound_.size();
}

int64_t PodPlacementTracker::placements_recorded() const {
  absl::MutexLock lock(&mu_);
  return recorded_;
}

}  // namespace headroom::extender
