#pragma once

// The set-up checks' verdicts: each check judges what the cluster (its apiserver) and a
// running headroom-extender answered, and says what to do when it is not right. Pure functions
// of those answers, table-tested. `headroom preflight` (cli/preflight_command.h) fetches the
// answers from outside with the user's kubeconfig; headroom-extender asks the ones it can from
// inside, as itself, for its status page (extender/status/setup_checks.h).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace headroom::codec {

enum class CheckLevel { kOk, kWarn, kFail };
absl::string_view CheckLevelName(CheckLevel level);  // "ok", "warn", "fail"

struct CheckResult {
  std::string name;  // e.g. "kubernetes-version"
  CheckLevel level = CheckLevel::kOk;
  std::string detail;  // what was found, with the numbers
  std::string fix;     // what to do ("" when ok)
};

// GET /version: inside the supported range (codec/kube_version.h) ok, newer than tested warn,
// older fail.
CheckResult CheckKubeVersion(const absl::StatusOr<std::string>& version_body);

// GET /api/v1 (the core group's discovery): the pods/resize subresource the actuator resizes
// through (Kubernetes 1.33+).
CheckResult CheckResizeApi(const absl::StatusOr<std::string>& core_discovery_body);

// One permission headroom-extender's ServiceAccount needs (deploy/extender/rbac.yaml), and what
// for. `namespace_scoped` ones are asked in the extender's namespace; `name` narrows to one
// object ("" any).
struct Permission {
  std::string verb;
  std::string group;  // "" core
  std::string resource;
  std::string subresource;
  bool namespace_scoped = false;
  std::string name;
  std::string why;
};
const std::vector<Permission>& ExtenderPermissions();

// A SubjectAccessReview body asking whether `user` (with `groups`) may do `permission`.
std::string AccessReviewBody(const Permission& permission, absl::string_view user,
                             const std::vector<std::string>& groups, absl::string_view ns);

// A SelfSubjectAccessReview body asking whether the caller may do `permission` (what the
// extender asks about itself; every authenticated user may ask).
std::string SelfAccessReviewBody(const Permission& permission, absl::string_view ns);

// What a (Self)SubjectAccessReview answered: its status.allowed (false when absent), or the
// error that kept it from being asked or read (an answer that is not a JSON object).
absl::StatusOr<bool> ReviewAllowed(const absl::StatusOr<nlohmann::json>& review);

// The SubjectAccessReviews' answers (status.allowed), parallel to ExtenderPermissions(); an
// error for one that could not be asked.
CheckResult CheckExtenderRbac(absl::string_view service_account,
                              const std::vector<absl::StatusOr<bool>>& allowed);

// GET /apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations: a webhook calling
// headroom-extender's /admission/pods (by Service `service_name` or by URL), failurePolicy
// Ignore (a pod is never refused for headroom), a timeout within 10 s.
CheckResult CheckWebhook(const absl::StatusOr<std::string>& configurations_body,
                         absl::string_view service_name);

// GET <extender>/readyz: 200 once its watches have listed and the nodes have reported
// (extender/status/readiness.h); otherwise its body says what it waits for.
CheckResult CheckExtenderReady(const absl::StatusOr<int>& readyz_status,
                               absl::string_view readyz_body, absl::string_view extender_url);

// GET /api/v1/nodes against the extender's GET /api/v1/status: every schedulable node has a
// fresh report from headroom-nri.
CheckResult CheckNodeReports(const absl::StatusOr<std::string>& nodes_body,
                             const absl::StatusOr<std::string>& status_body);

// GET <extender>/metrics: kube-scheduler has called /filter (a profile names the extender).
CheckResult CheckSchedulerCalls(const absl::StatusOr<std::string>& metrics_text);

// [{"name", "result" (ok, warn, fail), "detail", "fix"}, ...]: `headroom preflight --output
// json`'s "checks" and the status document's "setup.checks".
nlohmann::json ChecksJson(const std::vector<CheckResult>& results);

// One line per check: "ok    name: detail" and, when not ok, "      fix: ...".
std::string FormatChecks(const std::vector<CheckResult>& results);

}  // namespace headroom::codec
