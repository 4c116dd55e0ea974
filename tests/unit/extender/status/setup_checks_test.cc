// The status page's set-up checks (extender/status/setup_checks.h), asked of a stand-in
// apiserver over HTTP: the verdicts are codec/preflight_checks.h's (tested there); here, that
// the extender asks the right things as itself, keeps the verdicts, and says when it could not.
// The real apiserver answers them in e2e/local/system-suite.sh.

#include "extender/status/setup_checks.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "io/kube_config.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

const absl::Time kNow = absl::FromUnixSeconds(1795331119);

// An apiserver that serves v1.34.3 with pods/resize, one webhook as deploy/ has it, and lets
// the caller do everything but evict.
class StandInApi {
 public:
  StandInApi() {
    server_.Get("/version", [](const httplib::Request&, httplib::Response& response) {
      response.set_content(R"({"major":"1","minor":"34","gitVersion":"v1.34.3"})",
                           "application/json");
    });
    server_.Get("/api/v1", [](const httplib::Request&, httplib::Response& response) {
      response.set_content(R"({"resources":[{"name":"pods"},{"name":"pods/resize"}]})",
                           "application/json");
    });
    server_.Get(
        "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations",
        [](const httplib::Request&, httplib::Response& response) {
          response.set_content(
              R"({"items":[{"metadata":{"name":"headroom"},"webhooks":[{"name":"pods.headroom.dev","failurePolicy":"Ignore","timeoutSeconds":2,"clientConfig":{"caBundle":"Zm9v","service":{"name":"headroom-extender","namespace":"headroom-system","path":"/admission/pods"}}}]}]})",
              "application/json");
        });
    server_.Post(
        "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
        [this](const httplib::Request& request, httplib::Response& response) {
          ++reviews_;
          const json review = json::parse(request.body);
          const json& attributes = review["spec"]["resourceAttributes"];
          const bool allowed = attributes.value("subresource", "") != "eviction";
          if (review["kind"] != "SelfSubjectAccessReview") response.status = 400;
          if (attributes.value("resource", "") == "leases" &&
              attributes.value("namespace", "") != "hs") {
            response.status = 400;
          }
          response.set_content(json{{"status", {{"allowed", allowed}}}}.dump(), "application/json");
        });
    server_.set_keep_alive_timeout(1);  // (stop() waits for kept-alive connections this long)
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    // A stop() before the loop runs would be missed, and the join would wait for ever.
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    io::KubeConfig config;
    config.server = "http://127.0.0.1:" + std::to_string(port_);
    client_ = *io::KubeClient::Create(config);
  }
  ~StandInApi() {
    client_.reset();  // closes its kept-alive connections first
    server_.stop();
    thread_.join();
  }
  io::KubeClient* client() { return client_.get(); }
  int reviews() const { return reviews_; }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::unique_ptr<io::KubeClient> client_;
  std::atomic<int> reviews_{0};
};

std::string Results(const json& setup) {
  std::string out;
  for (const json& check : setup["checks"]) {
    out += check["name"].get<std::string>() + "=" + check["result"].get<std::string>() + " ";
  }
  return out;
}

TEST(SetupChecks, AsksTheApiAsItselfAndKeepsTheVerdicts) {
  StandInApi api;
  SetupChecks::Sources sources;
  sources.api = api.client();
  sources.own_namespace = "hs";
  sources.metrics_text = [] {
    return std::string("headroom_extender_requests_total{code=\"200\",verb=\"filter\"} 3\n");
  };
  SetupChecks checks(sources, [] { return kNow; });
  EXPECT_EQ(checks.Json()["note"], "not checked yet");
  EXPECT_TRUE(checks.Json()["checks"].empty());
  checks.Run();
  const json setup = checks.Json();
  EXPECT_EQ(setup["checkedAt"], "2026-11-22T07:05:19+00:00");
  EXPECT_EQ(Results(setup),
            "kubernetes-version=ok in-place-resize=ok extender-rbac=fail admission-webhook=ok "
            "scheduler-profile=ok ");
  EXPECT_NE(setup["checks"][2]["detail"].get<std::string>().find("create pods/eviction"),
            std::string::npos)
      << setup["checks"][2];
  EXPECT_EQ(api.reviews(), static_cast<int>(codec::ExtenderPermissions().size()));
}

TEST(SetupChecks, WithoutAnApiNothingIsAskedAndThePanelSaysSo) {
  SetupChecks checks(SetupChecks::Sources{});
  checks.Run();
  const json setup = checks.Json();
  EXPECT_TRUE(setup["checkedAt"].is_null());
  EXPECT_TRUE(setup["checks"].empty());
  EXPECT_NE(setup["note"].get<std::string>().find("no Kubernetes API"), std::string::npos);
}

TEST(SetupChecks, AStoppedRoundKeepsNoVerdict) {
  StandInApi api;
  SetupChecks::Sources sources;
  sources.api = api.client();
  SetupChecks checks(sources);
  checks.Stop();
  checks.Run();
  EXPECT_EQ(checks.Json()["note"], "not checked yet");
  EXPECT_EQ(api.reviews(), 0);
}

TEST(SetupChecks, AnUnreachableApiIsAFailWithItsReason) {
  io::KubeConfig config;
  config.server = "http://127.0.0.1:1";  // nothing listens
  std::unique_ptr<io::KubeClient> client = *io::KubeClient::Create(config);
  SetupChecks::Sources sources;
  sources.api = client.get();
  sources.call_timeout = absl::Milliseconds(500);
  SetupChecks checks(sources);
  checks.Run();
  const json setup = checks.Json();
  ASSERT_FALSE(setup["checks"].empty());
  EXPECT_EQ(setup["checks"][0]["name"], "kubernetes-version");
  EXPECT_EQ(setup["checks"][0]["result"], "fail");
  EXPECT_NE(setup["checks"][0]["detail"].get<std::string>().find("could not read"),
            std::string::npos)
      << setup["checks"][0];
}

}  // namespace
}  // namespace headroom::extender
