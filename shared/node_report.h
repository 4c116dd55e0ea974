#pragma once

// The node report as a value: what headroom-nri tells headroom-extender about its node (the
// wire form is proto/headroom/v1/report.proto, mapped in codec/report_codec.h), and the
// footprint rule the extender judges a reported pod by.

#include <optional>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "shared/eviction_ranking.h"
#include "shared/footprint.h"
#include "shared/node_optimizer.h"
#include "shared/pod_identity.h"
#include "shared/resource.h"

namespace headroom {

struct ReportedPod : PodIdentity {
  std::string workload_key;
  bool daemonset = false;
  EvictionRanking ranking = EvictionRanking::kLow;
  ResourceAmounts requests;                 // declared; used when a container lacks statistics
  std::vector<ContainerDemand> containers;  // with statistics when known
  // Measured with the node's other such pods: its headroom is in NodeReport::shared_headroom.
  bool in_shared_headroom = false;
  // Matched with the Kubernetes API's pod (extender/reports/report_verification.h). An unverified
  // pod counts on its node but its statistics join no workload's and nothing acts on it.
  bool verified = true;
};

struct NodeReport {
  std::string node;
  absl::Time reported_at;
  ResourceAmounts allocatable;
  int max_pods = 110;
  std::optional<double> load1;
  int cpus = 0;
  std::vector<ReportedPod> pods;
  // What the pods marked in_shared_headroom need above their bases together (node_headroom.h);
  // absent: not measured.
  std::optional<ResourceAmounts> shared_headroom;
};

// The node as placement judges it: every pod's base; the measured shared headroom for the
// pods in it, and the headroom of every other pod added by root-sum-square.
NodeFootprint NodeFootprintOf(const NodeReport& report, absl::Duration min_history);

// A pod as the extender judges it: shared/footprint.h's rule over its containers (the daily
// peak of the base + headroom once warm, the declared amounts before), never below the pod's
// declared requests while a container is still warming up.
PodFootprint FootprintOf(const ReportedPod& pod, absl::Duration min_history);

}  // namespace headroom
