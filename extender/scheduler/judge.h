#pragma once

// headroom-extender's decisions for one scheduling request, from the cluster view:
// - filter: a node with a fresh report passes when the pod fits its projected footprint
//   (every pod at base + the node's shared headroom, the candidate's joined to it) and
//   the node is not load-cordoned; FailedNodes carries the reason. A node without a fresh
//   report passes: kube-scheduler has already checked its requests, and headroom never
//   rejects a node for lack of data.
// - prioritize: ScoreNode (spread or pack, load penalty) for reported nodes; 5, neutral, for
//   nodes without data.
// The candidate is judged by its footprint (kube/pod_footprint.h).

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "extender/scheduler/extender_wire.h"
#include "extender/view/cluster_view.h"
#include "shared/placement.h"

namespace headroom::extender {

inline constexpr int kUnknownNodeScore = 5;

struct FilterOutcome {
  FilterResult result;
  std::vector<std::string> rejection_codes;  // one per rejected node, for metrics
  int unknown_nodes = 0;                     // passed without data
};

// The outcome's passed names and the priorities' hosts are views of `args`' node names: keep
// the args alive as long as the result (a temporary's result may be read within its own
// full expression only).
FilterOutcome FilterNodes(const ExtenderArgs& args, ClusterView& view, absl::Time now);

std::vector<HostPriority> PrioritizeNodes(const ExtenderArgs& args, ClusterView& view,
                                          absl::Time now, const ScoringConfig& scoring);

}  // namespace headroom::extender
