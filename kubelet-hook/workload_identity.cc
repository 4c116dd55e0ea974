#include "kubelet-hook/workload_identity.h"

#include "absl/strings/str_cat.h"

namespace headroom::nri {

namespace {

const std::string* Label(const LabelList& labels, absl::string_view key) {
  for (const auto& [k, v] : labels) {
    if (k == key) return &v;
  }
  return nullptr;
}

// "<prefix>-<suffix>" -> prefix, when there is a dash and something on both sides.
absl::string_view StripLastDashPart(absl::string_view name) {
  const size_t dash = name.rfind('-');
  if (dash == absl::string_view::npos || dash == 0 || dash + 1 == name.size()) return {};
  return name.substr(0, dash);
}

}  // namespace

std::string WorkloadKeyFromPod(absl::string_view pod_namespace, absl::string_view pod_name,
                               const LabelList& labels) {
  if (const std::string* hash = Label(labels, "pod-template-hash"); hash && !hash->empty()) {
    const std::string marker = absl::StrCat("-", *hash, "-");
    const size_t at = pod_name.rfind(marker);
    if (at != absl::string_view::npos && at > 0) {
      return absl::StrCat(pod_namespace, "/Deployment/", pod_name.substr(0, at));
    }
  }
  if (Label(labels, "statefulset.kubernetes.io/pod-name") != nullptr) {
    if (absl::string_view set = StripLastDashPart(pod_name); !set.empty()) {
      return absl::StrCat(pod_namespace, "/StatefulSet/", set);
    }
  }
  if (const std::string* job = Label(labels, "job-name"); job && !job->empty()) {
    return absl::StrCat(pod_namespace, "/Job/", *job);
  }
  if (Label(labels, "controller-revision-hash") != nullptr) {
    if (absl::string_view set = StripLastDashPart(pod_name); !set.empty()) {
      return absl::StrCat(pod_namespace, "/DaemonSet/", set);
    }
  }
  return absl::StrCat(pod_namespace, "/Pod/", pod_name);
}

}  // namespace headroom::nri
