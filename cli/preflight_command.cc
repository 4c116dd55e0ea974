#include "cli/preflight_command.h"

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "cli/exit_codes.h"
#include "codec/preflight_checks.h"
#include "io/kube_client.h"
#include "io/kube_config.h"
#include "nlohmann/json.hpp"

namespace headroom::cli {
namespace {

using ::headroom::codec::AccessReviewBody;
using ::headroom::codec::CheckExtenderRbac;
using ::headroom::codec::CheckExtenderReady;
using ::headroom::codec::CheckKubeVersion;
using ::headroom::codec::CheckLevel;
using ::headroom::codec::CheckNodeReports;
using ::headroom::codec::CheckResizeApi;
using ::headroom::codec::CheckResult;
using ::headroom::codec::CheckSchedulerCalls;
using ::headroom::codec::ChecksJson;
using ::headroom::codec::CheckWebhook;
using ::headroom::codec::ExtenderPermissions;
using ::headroom::codec::FormatChecks;
using ::headroom::codec::Permission;
using ::headroom::codec::ReviewAllowed;
using json = nlohmann::json;

constexpr absl::Duration kApiTimeout = absl::Seconds(10);

// The kubeconfig kubectl would use: --kubeconfig, $KUBECONFIG (its first file), ~/.kube/config,
// and in a pod the ServiceAccount.
absl::StatusOr<io::KubeConfig> LoadConfig(const PreflightOptions& options) {
  if (!options.kubeconfig.empty()) {
    return io::LoadKubeconfigFile(options.kubeconfig, options.context);
  }
  if (const char* env = std::getenv("KUBECONFIG"); env != nullptr && *env != '\0') {
    std::string first(env);
    first = first.substr(0, first.find(':'));
    return io::LoadKubeconfigFile(first, options.context);
  }
  if (const char* home = std::getenv("HOME"); home != nullptr) {
    const std::string path = absl::StrCat(home, "/.kube/config");
    if (std::filesystem::exists(path)) return io::LoadKubeconfigFile(path, options.context);
  }
  return io::InClusterConfig();
}

absl::StatusOr<std::string> ExtenderBody(const StatusSource& source, const std::string& path) {
  absl::StatusOr<ExtenderAnswer> answer = GetFromExtender(source, path);
  if (!answer.ok()) return answer.status();
  if (answer->status != 200) {
    return absl::UnavailableError(
        absl::StrCat(source.url, path, " answered HTTP ", answer->status));
  }
  return std::move(answer->body);
}

std::vector<absl::StatusOr<bool>> AskPermissions(io::KubeClient& api,
                                                 const PreflightOptions& options) {
  const std::string& ns = options.extender_namespace;
  const std::string user =
      absl::StrCat("system:serviceaccount:", ns, ":", options.extender_service_account);
  const std::vector<std::string> groups = {"system:serviceaccounts",
                                           absl::StrCat("system:serviceaccounts:", ns),
                                           "system:authenticated"};
  std::vector<absl::StatusOr<bool>> allowed;
  for (const Permission& permission : ExtenderPermissions()) {
    allowed.push_back(
        ReviewAllowed(api.Review("/apis/authorization.k8s.io/v1/subjectaccessreviews",
                                 AccessReviewBody(permission, user, groups, ns), kApiTimeout)));
  }
  return allowed;
}

}  // namespace

int RunPreflight(const PreflightOptions& options, std::ostream& out, std::ostream& err) {
  if (options.output != "table" && options.output != "json") {
    err << "headroom preflight: --output must be table or json, got \"" << options.output << "\"\n";
    return kExitBadInput;
  }
  absl::StatusOr<io::KubeConfig> config = LoadConfig(options);
  if (!config.ok()) {
    err << "headroom preflight: no usable kubeconfig: " << config.status().message() << "\n";
    return kExitBadInput;
  }
  absl::StatusOr<std::unique_ptr<io::KubeClient>> client = io::KubeClient::Create(*config);
  if (!client.ok()) {
    err << "headroom preflight: " << client.status().message() << "\n";
    return kExitBadInput;
  }
  io::KubeClient& api = **client;
  const StatusSource& extender = options.extender;

  std::vector<CheckResult> results;
  results.push_back(CheckKubeVersion(api.Get("/version", kApiTimeout)));
  results.push_back(CheckResizeApi(api.Get("/api/v1", kApiTimeout)));
  results.push_back(CheckExtenderRbac(absl::StrCat("ServiceAccount ", options.extender_namespace,
                                                   "/", options.extender_service_account),
                                      AskPermissions(api, options)));
  results.push_back(CheckWebhook(
      api.Get("/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", kApiTimeout),
      options.extender_service));
  absl::StatusOr<ExtenderAnswer> ready = GetFromExtender(extender, "/readyz");
  results.push_back(CheckExtenderReady(
      ready.ok() ? absl::StatusOr<int>(ready->status) : absl::StatusOr<int>(ready.status()),
      ready.ok() ? ready->body : "", extender.url));
  results.push_back(CheckNodeReports(api.Get("/api/v1/nodes", kApiTimeout),
                                     ExtenderBody(extender, "/api/v1/status")));
  results.push_back(CheckSchedulerCalls(ExtenderBody(extender, "/metrics")));

  if (options.output == "json") {
    out << json{{"checks", ChecksJson(results)}}.dump(2) << "\n";
  } else {
    out << FormatChecks(results);
  }
  for (const CheckResult& r : results) {
    if (r.level == CheckLevel::kFail) return kExitFailure;
  }
  return kExitOk;
}

}  // namespace headroom::cli
