#pragma once

// The status page's Set-up panel: the checks of `headroom preflight` (codec/preflight_checks.h)
// that headroom-extender can answer from inside, as itself, asked at start and every
// `interval` on a thread of their own, so that a status build never waits on the API:
//   kubernetes-version, in-place-resize  the apiserver's /version and /api/v1;
//   extender-rbac                        a SelfSubjectAccessReview per thing it needs;
//   admission-webhook                    the MutatingWebhookConfigurations;
//   scheduler-profile                    its own /filter counter (has a scheduler called?).
// Each call has a short timeout, and Stop() ends a round between calls, so SIGTERM never waits
// out a slow apiserver. The node reports and the extender's readiness are on the page already
// (the Nodes panel; /readyz). Without a Kubernetes API there is nothing to ask: Json() says so.

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "codec/preflight_checks.h"
#include "io/kube_client.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

class SetupChecks {
 public:
  struct Sources {
    io::KubeClient* api = nullptr;  // null: no Kubernetes API, nothing is asked
    // Where its Lease and state ConfigMap are (the namespaced permissions are asked there).
    std::string own_namespace = "headroom-system";
    std::string webhook_service = "headroom-extender";  // the Service its webhook calls
    std::function<std::string()> metrics_text;          // its own /metrics; null: not checked
    absl::Duration call_timeout = absl::Seconds(3);
  };

  explicit SetupChecks(Sources sources, std::function<absl::Time()> clock = absl::Now);

  // Asks everything now and keeps the verdicts (blocking: on the checks' own thread).
  void Run();
  // Ends a running round before its next call.
  void Stop() { stopped_ = true; }

  // {"checkedAt": RFC 3339 or null, "checks": [{"name", "result", "detail", "fix"}, ...],
  //  "note": what the panel says besides}.
  nlohmann::json Json() const;

 private:
  std::vector<codec::CheckResult> Ask();

  const Sources sources_;
  const std::function<absl::Time()> clock_;
  std::atomic<bool> stopped_{false};
  mutable absl::Mutex mu_;
  std::vector<codec::CheckResult> results_ ABSL_GUARDED_BY(mu_);
  absl::Time checked_at_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
};

}  // namespace headroom::extender
