#include "extender/status/setup_checks.h"

#include <utility>

#include "absl/strings/str_cat.h"

namespace headroom::extender {
namespace {

using ::headroom::codec::CheckResult;
using json = nlohmann::json;

constexpr char kNoApi[] =
    "no Kubernetes API: nothing to check from here; run headroom preflight against the cluster";
constexpr char kInside[] =
    "asked by headroom-extender itself; headroom preflight also checks the node reports and "
    "the extender from outside";

}  // namespace

SetupChecks::SetupChecks(Sources sources, std::function<absl::Time()> clock)
    : sources_(std::move(sources)), clock_(std::move(clock)) {}

std::vector<CheckResult> SetupChecks::Ask() {
  std::vector<CheckResult> results;
  io::KubeClient& api = *sources_.api;
  const absl::Duration timeout = sources_.call_timeout;
  results.push_back(codec::CheckKubeVersion(api.Get("/version", timeout)));
  if (stopped_) return results;
  results.push_back(codec::CheckResizeApi(api.Get("/api/v1", timeout)));
  std::vector<absl::StatusOr<bool>> allowed;
  for (const codec::Permission& permission : codec::ExtenderPermissions()) {
    if (stopped_) return results;
    allowed.push_back(codec::ReviewAllowed(
        api.Review("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
                   codec::SelfAccessReviewBody(permission, sources_.own_namespace), timeout)));
  }
  results.push_back(codec::CheckExtenderRbac("headroom-extender (itself)", allowed));
  if (stopped_) return results;
  results.push_back(codec::CheckWebhook(
      api.Get("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", timeout),
      sources_.webhook_service));
  if (sources_.metrics_text) {
    results.push_back(codec::CheckSchedulerCalls(sources_.metrics_text()));
  }
  return results;
}

void SetupChecks::Run() {
  if (sources_.api == nullptr || stopped_) return;
  std::vector<CheckResult> results = Ask();
  if (stopped_) return;  // a round cut short is not a verdict
  absl::MutexLock lock(&mu_);
  results_ = std::move(results);
  checked_at_ = clock_();
}

json SetupChecks::Json() const {
  if (sources_.api == nullptr) {
    return {{"checkedAt", nullptr}, {"checks", json::array()}, {"note", kNoApi}};
  }
  absl::MutexLock lock(&mu_);
  if (checked_at_ == absl::InfinitePast()) {
    return {{"checkedAt", nullptr}, {"checks", json::array()}, {"note", "not checked yet"}};
  }
  return {{"checkedAt", absl::FormatTime(absl::RFC3339_sec, checked_at_, absl::UTCTimeZone())},
          {"checks", codec::ChecksJson(results_)},
          {"note", kInside}};
}

}  // namespace headroom::extender
