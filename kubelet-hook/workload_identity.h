#pragma once

// The workload a pod belongs to, as the node sees it. NRI gives the plugin the pod's name,
// namespace and labels but not its owner references, so the owner is inferred the way its
// controller names pods: a Deployment's pods carry the label pod-template-hash=H and are named
// "<deployment>-H-<suffix>"; StatefulSet pods are "<set>-<ordinal>" with the label
// statefulset.kubernetes.io/pod-name; DaemonSet and Job pods are "<owner>-<suffix>" with
// controller-revision-hash / job-name labels. Keys match the extender's ("ns/Kind/name").

#include <string>
#include <utility>
#include <vector>

#include "absl/strings/string_view.h"
#include "shared/workload_key.h"  // WorkloadContainerKey: statistics are per workload container

namespace headroom::nri {

using LabelList = std::vector<std::pair<std::string, std::string>>;

std::string WorkloadKeyFromPod(absl::string_view pod_namespace, absl::string_view pod_name,
                               const LabelList& labels);

}  // namespace headroom::nri
