#pragma once

// Checks a node's report against the Kubernetes API before the extender believes it. A node
// speaks only for itself (reporter_identity.h checks who is speaking); here each pod it
// reports is matched with the pod watch: same namespace and name, same UID, bound to this
// node, and its workload key the one the pod's owner gives. A pod that does not match is
// kept in its node's footprint (judging the node fuller is the safe side) but is
// "unverified": its statistics never join its workload's and the actuator never acts on it.
// Without a Kubernetes API nothing can be checked and every pod counts as verified.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "extender/kube/pod_index.h"
#include "extender/view/cluster_view.h"

namespace headroom::extender {

// What the Kubernetes API says, as the extender's watches last saw it. A null function: no
// API is configured (nothing is checked).
struct ApiFacts {
  // The pod "namespace/name", or nullopt; only asked while pods_synced() is true.
  std::function<std::optional<ApiPod>(const std::string& pod_namespace, const std::string& name)>
      find_pod;
  std::function<bool()> pods_synced;
  // Whether the node exists; only asked while nodes_synced() is true.
  std::function<bool(const std::string& node)> node_exists;
  std::function<bool()> nodes_synced;
};

struct UnverifiedPod {
  std::string pod;  // "namespace/name"
  std::string why;
};

// The workload key the API's view of `pod` gives (shared/workload_key.h, from its controller).
std::string ApiWorkloadKey(const ApiPod& pod);

// Why `reported` (on `node`) is not the API's pod, or "" when it is.
std::string PodMismatch(const ReportedPod& reported, const std::string& node,
                        const std::optional<ApiPod>& api);

// Marks the report's pods verified or not (ReportedPod::verified) and returns the
// unverified ones with the reason. FailedPrecondition, with nothing marked, for a node the
// API does not know once the node watch has listed.
absl::StatusOr<std::vector<UnverifiedPod>> VerifyReport(NodeReport& report, const ApiFacts& api);

}  // namespace headroom::extender
