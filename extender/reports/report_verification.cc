#include "extender/reports/report_verification.h"

#include "absl/strings/str_cat.h"
#include "extender/kube/pod_decoder.h"

namespace headroom::extender {

std::string ApiWorkloadKey(const ApiPod& pod) {
  std::optional<ControllerRef> owner;
  if (!pod.owner_kind.empty()) owner = ControllerRef{pod.owner_kind, pod.owner_name};
  return WorkloadKeyFromController(pod.pod_namespace, pod.name, pod.key_labels, owner);
}

std::string PodMismatch(const ReportedPod& reported, const std::string& node,
                        const std::optional<ApiPod>& api) {
  if (!api.has_value()) return "no such pod in the Kubernetes API";
  if (reported.uid.empty()) return "the report gives no UID";
  if (reported.uid != api->uid) return absl::StrCat("UID ", reported.uid, " is not the pod's");
  if (api->node != node) {
    return api->node.empty() ? "the pod is not bound to a node"
                             : absl::StrCat("the pod is bound to node ", api->node);
  }
  if (!reported.workload_key.empty()) {
    const std::string expected = ApiWorkloadKey(*api);
    if (reported.workload_key != expected) {
      return absl::StrCat("workload key ", reported.workload_key, " is not the pod's (", expected,
                          ")");
    }
  }
  return "";
}

absl::StatusOr<std::vector<UnverifiedPod>> VerifyReport(NodeReport& report, const ApiFacts& api) {
  if (api.node_exists && api.nodes_synced && api.nodes_synced() && !api.node_exists(report.node)) {
    return absl::FailedPreconditionError(
        absl::StrCat("node ", report.node, " is not a node of this cluster"));
  }
  std::vector<UnverifiedPod> unverified;
  if (!api.find_pod || !api.pods_synced) {
    for (ReportedPod& pod : report.pods) pod.verified = true;
    return unverified;
  }
  const bool synced = api.pods_synced();
  for (ReportedPod& pod : report.pods) {
    std::string why = synced
                          ? PodMismatch(pod, report.node, api.find_pod(pod.pod_namespace, pod.name))
                          : "the pod watch has not listed pods yet";
    pod.verified = why.empty();
    if (!pod.verified) {
      unverified.push_back({absl::StrCat(pod.pod_namespace, "/", pod.name), std::move(why)});
    }
  }
  return unverified;
}

}  // namespace headroom::extender
