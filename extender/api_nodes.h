#pragma once

// Feeds the cluster view with each node's allocatable CPU, memory and pod slots as the
// Kubernetes API states them (kubelet's view, after system reservations), from a watch of
// nodes. It overrides the allocatable in node reports, so a node's capacity is right even when
// its headroom-nri runs with a different idea of it.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "extender/cluster_view.h"
#include "extender/list_watcher.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

ListWatchOptions NodesWatch();

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
