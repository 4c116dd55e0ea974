#include "extender/kube/api_nodes.h"

#include "extender/kube/pod_decoder.h"

namespace headroom::extender {

ListWatchOptions NodesWatch() {
  ListWatchOptions options;
  options.path = "/api/v1/nodes";
  options.fields = NodeFields();
  return options;
}

const FieldMask& NodeFields() {
  static const FieldMask* const fields = new FieldMask{
      {"metadata", {{"name"}, {"resourceVersion"}}},
      {"spec", {{"taints"}, {"unschedulable"}}},
      {"status", {{"allocatable"}}},
  };
  return *fields;
}

std::optional<std::pair<std::string, ClusterView::ApiNode>> ApiNodeFromObject(
    const nlohmann::json& node) {
  absl::StatusOr<NodeSpec> spec = DecodeNodeObject(node);
  if (!spec.ok() || !spec->allocatable.has_value()) return std::nullopt;
  return std::make_pair(spec->name, ClusterView::ApiNode{*spec->allocatable, spec->max_pods});
}

void ApiNodeTracker::Replace(const std::vector<nlohmann::json>& nodes) {
  absl::flat_hash_map<std::string, ClusterView::ApiNode> known;
  for (const nlohmann::json& node : nodes) {
    if (auto entry = ApiNodeFromObject(node); entry.has_value()) known.insert(std::move(*entry));
  }
  view_.ReplaceApiNodes(std::move(known));
}

void ApiNodeTracker::Apply(const WatchEvent& event) {
  if (event.type == WatchEventType::kDeleted) {
    if (absl::StatusOr<NodeSpec> spec = DecodeNodeObject(event.object); spec.ok()) {
      view_.ForgetApiNode(spec->name);
    }
    return;
  }
  if (event.type != WatchEventType::kAdded && event.type != WatchEventType::kModified) return;
  if (auto entry = ApiNodeFromObject(event.object); entry.has_value()) {
    view_.SetApiNode(entry->first, entry->second);
  }
}

}  // namespace headroom::extender
