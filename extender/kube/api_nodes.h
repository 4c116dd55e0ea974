#pragma once

// Feeds the cluster view with each node's allocatable CPU, memory and pod slots as the
// Kubernetes API states them (kubelet's view, after system reservations), from a watch of
// nodes. It overrides the allocatable in node reports, so a node's capacity is right even when
// its headroom-nri runs with a different idea of it.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "extender/kube/list_watcher.h"
#include "extender/view/cluster_view.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

// The watch of nodes the tracker and the cordon taints (cordon_taint.h) share, cut to
// NodeFields().
ListWatchOptions NodesWatch();

// The members of a Node that the tracker (DecodeNodeObject: name, status.allocatable) and
// the taint index (NodeTaintsFromObject: name, resourceVersion, spec.taints whole,
// spec.unschedulable) read; a node's images, conditions and the rest are not parsed into a
// tree (json_projection.h). NodeFieldsTest checks both see the same node either way.
const FieldMask& NodeFields();

// The node's name and allocatable; nullopt for an object without a name or allocatable.
std::optional<std::pair<std::string, ClusterView::ApiNode>> ApiNodeFromObject(
    const nlohmann::json& node);

class ApiNodeTracker {
 public:
  explicit ApiNodeTracker(ClusterView& view) : view_(view) {}
  void Replace(const std::vector<nlohmann::json>& nodes);
  void Apply(const WatchEvent& event);

 private:
  ClusterView& view_;
};

}  // namespace headroom::extender
