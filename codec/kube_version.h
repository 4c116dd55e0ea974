#pragma once

// The Kubernetes releases headroom supports, and the verdict on a cluster (its apiserver's
// GET /version): headroom-extender judges the cluster it talks to at start, and
// `headroom preflight` the one a user points it at -- one rule for both.
//
// - Oldest supported: 1.33, the first release that serves the pods/resize subresource with
//   in-place resize on by default (beta); the actuator resizes through it and nothing else.
//   On an older cluster the actuator stays off and says why; the scheduler extender and the
//   webhook work on any release (their wire formats have not changed).
// - Newest tested: 1.37 (CI's suites run 1.34.3; scripts/test-matrix.sh runs the scheduler,
//   actuation and system suites on 1.37.2, docs/install.md). A newer cluster is used, with a
//   warning.

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace headroom::codec {

// A release line, major.minor.
struct KubeMinor {
  int major = 0;
  int minor = 0;
};
inline constexpr KubeMinor kOldestSupportedKube{1, 33};
inline constexpr KubeMinor kNewestTestedKube{1, 37};

struct KubeVersion {
  KubeMinor line;
  std::string git_version;  // as the apiserver states it, e.g. "v1.34.3" or "v1.33.5-gke.100"
};

// The body of GET /version ({"major":"1","minor":"34","gitVersion":"v1.34.3",...}). Managed
// clusters write the minor with a suffix ("34+"); its leading digits count. Where major or
// minor is missing or not a number, gitVersion's "vMAJOR.MINOR" is read instead.
// InvalidArgument, naming what was wrong, when neither gives a version.
absl::StatusOr<KubeVersion> ParseKubeVersion(std::string_view version_json);

enum class KubeVersionFit { kSupported, kNewerThanTested, kTooOld };

struct KubeVersionVerdict {
  KubeVersionFit fit = KubeVersionFit::kSupported;
  std::string message;  // one line for the log, naming the release and the supported range
};

KubeVersionVerdict JudgeKubeVersion(const KubeVersion& version);

// What the release line turns on by default that headroom acts on, one phrase each with what
// headroom does about it (release notes and feature gates of each line; a cluster can change
// its gates, so these are the release's defaults, logged at start):
// in-place resize (beta 1.33, GA 1.35), a resize beyond the node's capacity refused by the API
// (1.36+) instead of marked Infeasible, pod-level resources (beta and on from 1.34), Memory QoS
// (beta and on from 1.37, cgroup v2 nodes).
std::string ReleaseDefaults(KubeMinor line);

// Whether the release line resizes pod-level resources in place by default
// (InPlacePodLevelResourcesVerticalScaling: alpha in 1.35, beta and on from 1.36). Before it
// the API refuses every resize of a pod that declares them.
bool PodLevelResizeByDefault(KubeMinor line);

}  // namespace headroom::codec
