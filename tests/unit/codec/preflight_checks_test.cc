// `headroom preflight`'s verdicts on the answers of an apiserver and a headroom-extender
// (codec/preflight_checks.h). The command itself runs against a real apiserver in
// e2e/local/scheduler-suite.sh, where each check is broken on purpose.

#include "codec/preflight_checks.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace headroom::codec {
namespace {

struct Case {
  std::string name;
  CheckResult result;
  CheckLevel want;
  std::string detail_has;
};

void ExpectAll(const std::vector<Case>& cases) {
  for (const Case& c : cases) {
    EXPECT_EQ(c.result.level, c.want) << c.name << ": " << c.result.detail;
    EXPECT_NE(c.result.detail.find(c.detail_has), std::string::npos)
        << c.name << ": " << c.result.detail;
    EXPECT_EQ(c.result.fix.empty(), c.want == CheckLevel::kOk) << c.name << ": " << c.result.fix;
  }
}

TEST(Preflight, KubeVersionAndResizeApi) {
  ExpectAll({
      {"supported", CheckKubeVersion(R"({"major":"1","minor":"34","gitVersion":"v1.34.3"})"),
       CheckLevel::kOk, "v1.34.3"},
      {"newer", CheckKubeVersion(R"({"major":"1","minor":"40","gitVersion":"v1.40.0"})"),
       CheckLevel::kWarn, "v1.40.0"},
      {"too old", CheckKubeVersion(R"({"major":"1","minor":"30","gitVersion":"v1.30.1"})"),
       CheckLevel::kFail, "v1.30.1"},
      {"unreachable", CheckKubeVersion(absl::UnavailableError("connection refused")),
       CheckLevel::kFail, "connection refused"},
      {"resize served", CheckResizeApi(R"({"resources":[{"name":"pods"},{"name":"pods/resize"}]})"),
       CheckLevel::kOk, "pods/resize"},
      {"resize not served", CheckResizeApi(R"({"resources":[{"name":"pods"}]})"), CheckLevel::kFail,
       "does not serve"},
      {"discovery not JSON", CheckResizeApi(std::string("<html>")), CheckLevel::kFail,
       "not a JSON object"},
  });
}

TEST(Preflight, ReviewAllowedReadsTheAnswer) {
  EXPECT_EQ(ReviewAllowed(nlohmann::json::parse(R"({"status":{"allowed":true}})")).value(), true);
  EXPECT_EQ(ReviewAllowed(nlohmann::json::parse(R"({"status":{"allowed":false}})")).value(), false);
  EXPECT_EQ(ReviewAllowed(nlohmann::json::parse(R"({"status":{}})")).value(), false);
  EXPECT_EQ(ReviewAllowed(nlohmann::json::parse(R"({"status":"odd"})")).value(), false);
  EXPECT_EQ(ReviewAllowed(nlohmann::json::parse("[]")).status().code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(ReviewAllowed(absl::PermissionDeniedError("forbidden")).status().code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(Preflight, ExtenderRbacNamesWhatIsMissing) {
  const size_t n = ExtenderPermissions().size();
  std::vector<absl::StatusOr<bool>> all(n, true);
  std::vector<absl::StatusOr<bool>> no_resize = all;
  for (size_t i = 0; i < n; ++i) {
    if (ExtenderPermissions()[i].subresource == "resize") no_resize[i] = false;
  }
  std::vector<absl::StatusOr<bool>> unasked = all;
  unasked[0] = absl::PermissionDeniedError("subjectaccessreviews is forbidden");
  ExpectAll({
      {"all allowed", CheckExtenderRbac("sa", all), CheckLevel::kOk, "may do all"},
      {"no resize", CheckExtenderRbac("sa", no_resize), CheckLevel::kFail,
       "patch pods/resize (resize running pods in place)"},
      {"could not ask", CheckExtenderRbac("sa", unasked), CheckLevel::kFail, "forbidden"},
  });
  // The review asks for the ServiceAccount, the subresource and the namespace where needed.
  const std::string body =
      AccessReviewBody(ExtenderPermissions().back(), "system:serviceaccount:hs:x", {"g"}, "hs");
  EXPECT_NE(body.find(R"("namespace":"hs")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("name":"headroom-extender-state")"), std::string::npos) << body;
  EXPECT_NE(body.find(R"("user":"system:serviceaccount:hs:x")"), std::string::npos) << body;
}

std::string Webhooks(const std::string& webhook) {
  return R"({"items":[{"metadata":{"name":"other"},"webhooks":[{"name":"x","clientConfig":{"service":{"name":"other","path":"/mutate"}}}]},
                      {"metadata":{"name":"headroom"},"webhooks":[)" +
         webhook + "]}]}";
}

TEST(Preflight, Webhook) {
  const std::string good =
      R"({"name":"pods.headroom.dev","failurePolicy":"Ignore","timeoutSeconds":2,"clientConfig":{"caBundle":"Zm9v","service":{"name":"headroom-extender","namespace":"headroom-system","path":"/admission/pods"}}})";
  std::string fail_closed = good;
  fail_closed.replace(fail_closed.find("Ignore"), 6, "Fail");
  std::string no_ca = good;
  no_ca.replace(no_ca.find(R"("caBundle":"Zm9v",)"), 18, "");
  std::string slow = good;
  slow.replace(slow.find(":2,"), 3, ":30,");
  ExpectAll({
      {"as deployed", CheckWebhook(Webhooks(good), "headroom-extender"), CheckLevel::kOk,
       "MutatingWebhookConfiguration headroom"},
      {"by URL",
       CheckWebhook(
           Webhooks(
               R"({"name":"u","failurePolicy":"Ignore","clientConfig":{"caBundle":"Zm9v","url":"https://10.0.0.1:8443/admission/pods"}})"),
           "headroom-extender"),
       CheckLevel::kOk, "webhook u"},
      {"failurePolicy Fail", CheckWebhook(Webhooks(fail_closed), "headroom-extender"),
       CheckLevel::kFail, "failurePolicy Fail"},
      {"no CA", CheckWebhook(Webhooks(no_ca), "headroom-extender"), CheckLevel::kFail,
       "no caBundle"},
      {"slow", CheckWebhook(Webhooks(slow), "headroom-extender"), CheckLevel::kWarn,
       "timeoutSeconds 30"},
      {"another service's only", CheckWebhook(Webhooks(good), "my-extender"), CheckLevel::kWarn,
       "no mutating webhook"},
      {"none", CheckWebhook(std::string(R"({"items":[]})"), "headroom-extender"), CheckLevel::kWarn,
       "no mutating webhook"},
  });
}

TEST(Preflight, ExtenderReportsAndScheduler) {
  const std::string nodes =
      R"({"items":[{"metadata":{"name":"a"}},{"metadata":{"name":"b"}},
                   {"metadata":{"name":"c"},"spec":{"unschedulable":true}}]})";
  ExpectAll({
      {"ready", CheckExtenderReady(200, "ok\n", "http://e"), CheckLevel::kOk, "200"},
      {"not synced", CheckExtenderReady(503, "waiting for 3 of 4 nodes to report\n", "http://e"),
       CheckLevel::kFail, "503: waiting for 3 of 4 nodes to report"},
      {"unreachable",
       CheckExtenderReady(absl::UnavailableError("cannot reach http://e"), "", "http://e"),
       CheckLevel::kFail, "cannot reach"},
      {"all report", CheckNodeReports(nodes, R"({"nodes":[{"name":"a"},{"name":"b"}]})"),
       CheckLevel::kOk, "2 of 2 schedulable nodes report"},
      {"one missing", CheckNodeReports(nodes, R"({"nodes":[{"name":"a"}]})"), CheckLevel::kWarn,
       "1 of 2 schedulable nodes report; no fresh report from b"},
      {"none", CheckNodeReports(nodes, R"({"nodes":[]})"), CheckLevel::kFail, "from a, b"},
      {"called",
       CheckSchedulerCalls(
           std::string("# TYPE headroom_extender_requests_total counter\n"
                       "headroom_extender_requests_total{code=\"200\",verb=\"filter\"} 7\n"
                       "headroom_extender_requests_total{code=\"400\",verb=\"filter\"} 1\n"
                       "headroom_extender_requests_total{code=\"200\",verb=\"prioritize\"} 9\n")),
       CheckLevel::kOk, "8 times"},
      {"never called",
       CheckSchedulerCalls(
           std::string("headroom_extender_requests_total{code=\"200\",verb=\"prioritize\"} 9\n")),
       CheckLevel::kWarn, "no kube-scheduler"},
  });
}

TEST(Preflight, FormatShowsTheFixOnlyWhenNotOk) {
  const std::string text = FormatChecks(
      {{"a", CheckLevel::kOk, "fine", ""}, {"b", CheckLevel::kFail, "broken", "mend it"}});
  EXPECT_EQ(text, "ok    a: fine\nfail  b: broken\n      fix: mend it\n");
}

}  // namespace
}  // namespace headroom::codec
