#include "codec/preflight_checks.h"

#include <set>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "codec/json_fields.h"
#include "codec/json_lenient.h"
#include "codec/kube_version.h"
#include "nlohmann/json.hpp"

namespace headroom::codec {
namespace {

using json = nlohmann::json;

// `body` parsed as a JSON object; an error naming `what` otherwise.
absl::StatusOr<json> ParseObject(const absl::StatusOr<std::string>& body, absl::string_view what) {
  if (!body.ok()) return body.status();
  absl::StatusOr<json> parsed = ParseJson(*body);
  if (!parsed.ok() || !parsed->is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not a JSON object"));
  }
  return parsed;
}

CheckResult Unreadable(std::string name, const absl::Status& status, std::string fix) {
  return {std::move(name), CheckLevel::kFail, absl::StrCat("could not read: ", status.message()),
          std::move(fix)};
}

constexpr char kApiFix[] =
    "check the kubeconfig (--kubeconfig, --context) and that this user may read the cluster";

}  // namespace

absl::string_view CheckLevelName(CheckLevel level) {
  switch (level) {
    case CheckLevel::kOk:
      return "ok";
    case CheckLevel::kWarn:
      return "warn";
    case CheckLevel::kFail:
      return "fail";
  }
  return "?";
}

CheckResult CheckKubeVersion(const absl::StatusOr<std::string>& version_body) {
  const std::string name = "kubernetes-version";
  if (!version_body.ok()) return Unreadable(name, version_body.status(), kApiFix);
  const absl::StatusOr<codec::KubeVersion> version = codec::ParseKubeVersion(*version_body);
  if (!version.ok()) return Unreadable(name, version.status(), kApiFix);
  const codec::KubeVersionVerdict verdict = codec::JudgeKubeVersion(*version);
  switch (verdict.fit) {
    case codec::KubeVersionFit::kSupported:
      return {name, CheckLevel::kOk, verdict.message, ""};
    case codec::KubeVersionFit::kNewerThanTested:
      return {name, CheckLevel::kWarn, verdict.message,
              "headroom has not been tested on this release: watch the extender's log and "
              "start with --dry-run"};
    case codec::KubeVersionFit::kTooOld:
      break;
  }
  return {name, CheckLevel::kFail, verdict.message,
          "upgrade the cluster to 1.33 or later; until then only the scheduler extender and the "
          "webhook work (the actuator stays off)"};
}

CheckResult CheckResizeApi(const absl::StatusOr<std::string>& core_discovery_body) {
  const std::string name = "in-place-resize";
  const absl::StatusOr<json> discovery = ParseObject(core_discovery_body, "/api/v1");
  if (!discovery.ok()) return Unreadable(name, discovery.status(), kApiFix);
  for (const json& resource : ArrayField(*discovery, "resources")) {
    if (StringField(resource, "name") == "pods/resize") {
      return {name, CheckLevel::kOk, "the API serves pods/resize", ""};
    }
  }
  return {name, CheckLevel::kFail,
          "the API does not serve pods/resize: running pods cannot be resized in place",
          "Kubernetes 1.33+ with the InPlacePodVerticalScaling feature gate on (the default); "
          "meanwhile run headroom-extender without --actuate"};
}

const std::vector<Permission>& ExtenderPermissions() {
  static const std::vector<Permission>* const permissions = new std::vector<Permission>{
      {"list", "", "pods", "", false, "", "watch the pods it places and sizes"},
      {"watch", "", "pods", "", false, "", "watch the pods it places and sizes"},
      {"list", "", "nodes", "", false, "", "watch the nodes it judges"},
      {"watch", "", "nodes", "", false, "", "watch the nodes it judges"},
      {"list", "", "namespaces", "", false, "",
       "read each Namespace's headroom.dev/mode (its step on the adoption ladder)"},
      {"watch", "", "namespaces", "", false, "",
       "read each Namespace's headroom.dev/mode (its step on the adoption ladder)"},
      {"list", "apps", "deployments", "", false, "", "read the owners' headroom.dev/ annotations"},
      {"watch", "apps", "deployments", "", false, "", "read the owners' headroom.dev/ annotations"},
      {"list", "apps", "statefulsets", "", false, "", "read the owners' headroom.dev/ annotations"},
      {"watch", "apps", "statefulsets", "", false, "",
       "read the owners' headroom.dev/ annotations"},
      {"list", "apps", "daemonsets", "", false, "", "read the owners' headroom.dev/ annotations"},
      {"watch", "apps", "daemonsets", "", false, "", "read the owners' headroom.dev/ annotations"},
      {"list", "batch", "cronjobs", "", false, "", "read the owners' headroom.dev/ annotations"},
      {"watch", "batch", "cronjobs", "", false, "", "read the owners' headroom.dev/ annotations"},
      {"patch", "", "pods", "resize", false, "", "resize running pods in place"},
      {"create", "", "pods", "eviction", false, "", "evict through the Eviction API"},
      {"create", "", "events", "", false, "", "record what it did as Events"},
      {"create", "authentication.k8s.io", "tokenreviews", "", false, "",
       "authenticate headroom-nri's reports (--report-auth=token)"},
      {"list", "admissionregistration.k8s.io", "mutatingwebhookconfigurations", "", false, "",
       "check its admission webhook for the status page's set-up panel"},
      {"patch", "coordination.k8s.io", "leases", "", true, "headroom-extender",
       "hold the leader Lease (more than one replica)"},
      {"patch", "", "configmaps", "", true, "headroom-extender-state",
       "keep the shrink ledger and recent evictions across restarts"},
  };
  return *permissions;
}

namespace {

// A review's spec.resourceAttributes for `permission`, asked in `ns` where it is namespaced.
json ResourceAttributes(const Permission& permission, absl::string_view ns) {
  json attributes = {
      {"verb", permission.verb}, {"group", permission.group}, {"resource", permission.resource}};
  if (!permission.subresource.empty()) attributes["subresource"] = permission.subresource;
  if (permission.namespace_scoped) attributes["namespace"] = ns;
  if (!permission.name.empty()) attributes["name"] = permission.name;
  return attributes;
}

}  // namespace

std::string AccessReviewBody(const Permission& permission, absl::string_view user,
                             const std::vector<std::string>& groups, absl::string_view ns) {
  return json{{"apiVersion", "authorization.k8s.io/v1"},
              {"kind", "SubjectAccessReview"},
              {"spec",
               {{"user", user},
                {"groups", groups},
                {"resourceAttributes", ResourceAttributes(permission, ns)}}}}
      .dump();
}

std::string SelfAccessReviewBody(const Permission& permission, absl::string_view ns) {
  return json{{"apiVersion", "authorization.k8s.io/v1"},
              {"kind", "SelfSubjectAccessReview"},
              {"spec", {{"resourceAttributes", ResourceAttributes(permission, ns)}}}}
      .dump();
}

absl::StatusOr<bool> ReviewAllowed(const absl::StatusOr<json>& review) {
  if (!review.ok()) return review.status();
  if (!review->is_object()) {
    return absl::UnavailableError("the review's answer is not a JSON object");
  }
  const json& status = review->value("status", json::object());
  return status.is_object() && status.value("allowed", false);
}

CheckResult CheckExtenderRbac(absl::string_view service_account,
                              const std::vector<absl::StatusOr<bool>>& allowed) {
  const std::string name = "extender-rbac";
  const std::vector<Permission>& permissions = ExtenderPermissions();
  std::vector<std::string> missing;
  for (size_t i = 0; i < permissions.size() && i < allowed.size(); ++i) {
    if (!allowed[i].ok()) return Unreadable(name, allowed[i].status(), kApiFix);
    if (*allowed[i]) continue;
    const Permission& p = permissions[i];
    const std::string resource =
        absl::StrCat(p.group.empty() ? "" : absl::StrCat(p.group, "/"), p.resource,
                     p.subresource.empty() ? "" : absl::StrCat("/", p.subresource),
                     p.name.empty() ? "" : absl::StrCat(" ", p.name));
    missing.push_back(absl::StrCat(p.verb, " ", resource, " (", p.why, ")"));
  }
  if (missing.empty()) {
    return {name, CheckLevel::kOk,
            absl::StrCat(service_account, " may do all ", permissions.size(),
                         " things headroom-extender needs"),
            ""};
  }
  return {name, CheckLevel::kFail,
          absl::StrCat(service_account, " may not: ", absl::StrJoin(missing, "; ")),
          "apply deploy/extender/rbac.yaml (kubectl apply -k deploy/, or the Helm chart) in the "
          "extender's namespace"};
}

CheckResult CheckWebhook(const absl::StatusOr<std::string>& configurations_body,
                         absl::string_view service_name) {
  const std::string name = "admission-webhook";
  const absl::StatusOr<json> list =
      ParseObject(configurations_body, "mutatingwebhookconfigurations");
  if (!list.ok()) return Unreadable(name, list.status(), kApiFix);
  const std::string fix =
      "apply deploy/webhook (with cert-manager to inject its CA), or the Helm chart with "
      "webhook.enabled=true";
  for (const json& configuration : ArrayField(*list, "items")) {
    const std::string config_name = NestedString(configuration, "metadata", "name");
    for (const json& webhook : ArrayField(configuration, "webhooks")) {
      const json& client = ObjectField(webhook, "clientConfig");
      const json& service = ObjectField(client, "service");
      const bool to_headroom = (StringField(service, "name") == service_name &&
                                StringField(service, "path") == "/admission/pods") ||
                               absl::EndsWith(StringField(client, "url"), "/admission/pods");
      if (!to_headroom) continue;
      const std::string where = absl::StrCat("MutatingWebhookConfiguration ", config_name,
                                             ", webhook ", StringField(webhook, "name"));
      if (StringField(webhook, "failurePolicy") != "Ignore") {
        return {name, CheckLevel::kFail,
                absl::StrCat(where, ": failurePolicy ", StringField(webhook, "failurePolicy"),
                             ", so pods cannot be created while the extender is down"),
                "set failurePolicy: Ignore, as deploy/webhook does"};
      }
      if (StringField(client, "caBundle").empty()) {
        return {name, CheckLevel::kFail,
                absl::StrCat(where,
                             ": no caBundle, so the API server cannot verify the "
                             "extender's certificate and every call fails (pods are "
                             "created unsized)"),
                "install cert-manager (it injects the CA, deploy/webhook), or set caBundle to "
                "the CA of the extender's --webhook-tls-cert-file"};
      }
      const json* timeout = codec::Field(webhook, "timeoutSeconds");
      if (timeout != nullptr && timeout->is_number_integer() && timeout->get<int64_t>() > 10) {
        return {name, CheckLevel::kWarn,
                absl::StrCat(where, ": timeoutSeconds ", timeout->get<int64_t>(),
                             ": a slow extender delays every pod creation that long"),
                "set timeoutSeconds to 2, as deploy/webhook does"};
      }
      return {name, CheckLevel::kOk,
              absl::StrCat(where, " calls headroom-extender, failurePolicy Ignore"), ""};
    }
  }
  return {name, CheckLevel::kWarn,
          "no mutating webhook calls headroom-extender's /admission/pods: new pods keep their "
          "declared requests until the actuator resizes them",
          fix};
}

CheckResult CheckExtenderReady(const absl::StatusOr<int>& readyz_status,
                               absl::string_view readyz_body, absl::string_view extender_url) {
  const std::string name = "extender";
  const std::string fix = absl::StrCat(
      "is headroom-extender running? kubectl -n headroom-system get pods -l "
      "app.kubernetes.io/name=headroom-extender; reach it with kubectl -n headroom-system "
      "port-forward svc/headroom-extender 8888 and --extender-url (now ",
      extender_url, ")");
  if (!readyz_status.ok()) return Unreadable(name, readyz_status.status(), fix);
  if (*readyz_status == 200) {
    return {name, CheckLevel::kOk, absl::StrCat(extender_url, "/readyz answers 200"), ""};
  }
  return {name, CheckLevel::kFail,
          absl::StrCat(extender_url, "/readyz answers ", *readyz_status, ": ",
                       absl::StripAsciiWhitespace(readyz_body.substr(0, 300))),
          "wait for its watches and the nodes' reports (up to 90 s after a start), else read "
          "its log: kubectl -n headroom-system logs deploy/headroom-extender"};
}

CheckResult CheckNodeReports(const absl::StatusOr<std::string>& nodes_body,
                             const absl::StatusOr<std::string>& status_body) {
  const std::string name = "node-reports";
  const absl::StatusOr<json> nodes = ParseObject(nodes_body, "/api/v1/nodes");
  if (!nodes.ok()) return Unreadable(name, nodes.status(), kApiFix);
  const absl::StatusOr<json> status = ParseObject(status_body, "the extender's /api/v1/status");
  if (!status.ok()) {
    return Unreadable(name, status.status(), "see the extender check above");
  }
  std::set<std::string> reported;
  for (const json& node : ArrayField(*status, "nodes")) {
    reported.insert(StringField(node, "name"));
  }
  std::vector<std::string> missing;
  size_t schedulable = 0;
  for (const json& node : ArrayField(*nodes, "items")) {
    if (TrueField(ObjectField(node, "spec"), "unschedulable")) continue;
    ++schedulable;
    const std::string node_name = NestedString(node, "metadata", "name");
    if (!reported.contains(node_name)) missing.push_back(node_name);
  }
  const size_t reporting_count = schedulable - missing.size();
  const std::string counted =
      absl::StrCat(reporting_count, " of ", schedulable, " schedulable nodes report");
  if (missing.empty()) {
    return {name, CheckLevel::kOk, absl::StrCat(counted, " (headroom-nri)"), ""};
  }
  constexpr size_t kNamed = 10;
  std::vector<std::string> named(missing.begin(),
                                 missing.begin() + std::min(missing.size(), kNamed));
  if (missing.size() > kNamed)
    named.push_back(absl::StrCat("and ", missing.size() - kNamed, " more"));
  return {name, reporting_count == 0 ? CheckLevel::kFail : CheckLevel::kWarn,
          absl::StrCat(counted, "; no fresh report from ", absl::StrJoin(named, ", "),
                       ": the extender passes those nodes unjudged and never acts on them"),
          "check the headroom-nri DaemonSet's pod on each (kubectl -n headroom-system get pods "
          "-l app.kubernetes.io/name=headroom-nri -o wide) and that containerd has NRI enabled "
          "(deploy/containerd/nri-1.7.toml)"};
}

CheckResult CheckSchedulerCalls(const absl::StatusOr<std::string>& metrics_text) {
  const std::string name = "scheduler-profile";
  if (!metrics_text.ok()) {
    return Unreadable(name, metrics_text.status(), "see the extender check above");
  }
  double calls = 0;
  for (absl::string_view line : absl::StrSplit(*metrics_text, '\n')) {
    if (!absl::StartsWith(line, "headroom_extender_requests_total{") ||
        !absl::StrContains(line, "verb=\"filter\"")) {
      continue;
    }
    double value = 0;
    const size_t space = line.rfind(' ');
    if (space != absl::string_view::npos && absl::SimpleAtod(line.substr(space + 1), &value)) {
      calls += value;
    }
  }
  if (calls > 0) {
    return {name, CheckLevel::kOk,
            absl::StrCat("kube-scheduler has called /filter ", static_cast<int64_t>(calls),
                         " times since the extender started"),
            ""};
  }
  return {name, CheckLevel::kWarn,
          "no kube-scheduler has called the extender's /filter since it started (no pod "
          "scheduled by its profile yet, or no profile names it)",
          "run the headroom-scheduler profile (deploy/scheduler/configmap.yaml: an extender "
          "with urlPrefix http://headroom-extender.headroom-system.svc:8888) and set "
          "schedulerName: headroom-scheduler on the workloads to place"};
}

json ChecksJson(const std::vector<CheckResult>& results) {
  json checks = json::array();
  for (const CheckResult& r : results) {
    checks.push_back({{"name", r.name},
                      {"result", CheckLevelName(r.level)},
                      {"detail", r.detail},
                      {"fix", r.fix}});
  }
  return checks;
}

std::string FormatChecks(const std::vector<CheckResult>& results) {
  std::string out;
  for (const CheckResult& r : results) {
    absl::StrAppend(&out, CheckLevelName(r.level),
                    std::string(6 - CheckLevelName(r.level).size(), ' '), r.name, ": ", r.detail,
                    "\n");
    if (r.level != CheckLevel::kOk && !r.fix.empty()) {
      absl::StrAppend(&out, "      fix: ", r.fix, "\n");
    }
  }
  return out;
}

}  // namespace headroom::codec
