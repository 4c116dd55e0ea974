// headroom-extender's HTTP server, started in-process on a loopback port and driven by a
// real HTTP client: every recorded kube-scheduler request, decisions for reported nodes,
// and bad requests.

#include <grpcpp/grpcpp.h>
#include <httplib.h>
#include <sys/wait.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/strings/escaping.h"
#include "codec/repack_json.h"
#include "extender/http_server.h"
#include "extender/reports/report_service.h"
#include "extender/serving/metrics.h"
#include "extender/status/status.h"
#include "extender/view/action_journal.h"
#include "extender/view/cluster_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shared/repack_generator.h"
#include "tests/file_contents.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::FileContents;

using ::testing::HasSubstr;

constexpr int64_t kGi = 1LL << 30;

const std::filesystem::path kFixtures =
    std::filesystem::path(HEADROOM_SOURCE_DIR) / "tests/testdata/kube-scheduler-extender";

class ExtenderHttpTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ServerOptions options;
    options.max_body_bytes = 1 << 20;
    // Over plain HTTP in this process; main() serves both on HTTPS listeners only.
    options.serve_admission = true;
    options.repack_authorizer = &authorizer_;
    options.readiness = [this] {
      ReadinessFacts facts;
      facts.api = true;
      facts.watches_listed = true;
      facts.api_nodes = 2;
      facts.api_nodes_fresh = nodes_fresh_.load();
      facts.since_start = absl::Seconds(1);  // within the grace
      return JudgeReadiness(facts);
    };
    server_ = std::make_unique<ExtenderHttpServer>(view_, metrics_, options);
    absl::StatusOr<int> port = server_->Bind("127.0.0.1", 0);
    ASSERT_TRUE(port.ok()) << port.status();
    thread_ = std::thread([this] { (void)server_->Serve(); });
    port_ = *port;
    client_ = std::make_unique<httplib::Client>("127.0.0.1", *port);
    client_->set_read_timeout(5);
    // Wait (bounded) until the server accepts: Serve() runs on another thread.
    for (int i = 0; i < 500 && !server_->serving(); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(server_->serving());
  }

  void TearDown() override {
    server_->Stop();
    if (thread_.joinable()) thread_.join();
  }

  std::atomic<size_t> nodes_fresh_{2};  // of 2 API nodes, for /readyz: ready

  httplib::Result Post(const std::string& path, const std::string& body,
                       const std::string& token = "admin-token") {
    return client_->Post(path.c_str(), {{"Authorization", "Bearer " + token}}, body,
                         "application/json");
  }

  // The API server of this test: "admin-token" may post /repack, "viewer-token" is
  // authenticated but not authorized, anything else is not authenticated.
  AdminAuthorizer authorizer_{[](const std::string& path,
                                 const std::string& body) -> absl::StatusOr<nlohmann::json> {
    const nlohmann::json request = nlohmann::json::parse(body);
    if (path.find("tokenreviews") != std::string::npos) {
      const std::string token = request["spec"]["token"];
      const bool known = token == "admin-token" || token == "viewer-token";
      return nlohmann::json{
          {"status",
           {{"authenticated", known}, {"user", {{"username", token.substr(0, token.find('-'))}}}}}};
    }
    return nlohmann::json{{"status", {{"allowed", request["spec"]["user"] == "admin"}}}};
  }};

  void Report(const std::string& node, int64_t cpu_base, int64_t cpu_peak, double load1) {
    NodeReport report;
    report.node = node;
    report.reported_at = absl::Now();
    report.allocatable = {4000, 8 * kGi};
    report.load1 = load1;
    report.cpus = 4;
    if (cpu_base > 0) {
      ReportedPod pod;
      pod.pod_namespace = "ns";
      pod.name = node + "-pod";
      pod.containers.push_back(
          {"c", CpuStats{cpu_base, cpu_peak}, MemoryStats{kGi, kGi, kGi, 0}, absl::Hours(30)});
      report.pods.push_back(pod);
    }
    ASSERT_TRUE(view_.ApplyReport(report).ok());
  }

  ClusterView view_{{}};
  Metrics metrics_;
  std::unique_ptr<ExtenderHttpServer> server_;
  std::thread thread_;
  std::unique_ptr<httplib::Client> client_;
  int port_ = 0;
};

TEST_F(ExtenderHttpTest, EveryRecordedRequestGetsAnAnswerTheSchedulerAccepts) {
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kFixtures)) {
    const std::string name = entry.path().filename().string();
    const bool filter = name.find("-filter.json") != std::string::npos;
    const bool prioritize = name.find("-prioritize.json") != std::string::npos;
    if (!filter && !prioritize) continue;
    const std::string body = FileContents(entry.path());
    const nlohmann::json request = nlohmann::json::parse(body);
    const bool names_mode = !request["NodeNames"].is_null();
    const size_t node_count =
        names_mode ? request["NodeNames"].size() : request["Nodes"]["items"].size();
    httplib::Result result = Post(filter ? "/filter" : "/prioritize", body);
    ASSERT_TRUE(result) << name;
    ASSERT_EQ(result->status, 200) << name << ": " << result->body;
    const nlohmann::json reply = nlohmann::json::parse(result->body);
    if (filter) {
      // Go field names, null for the unused mode, every node passed (nothing is reported).
      for (const char* key :
           {"Nodes", "NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}) {
        EXPECT_TRUE(reply.contains(key)) << name << " " << key;
      }
      EXPECT_EQ(reply["Error"], "") << name;
      if (names_mode) {
        EXPECT_TRUE(reply["Nodes"].is_null()) << name;
        EXPECT_EQ(reply["NodeNames"].size(), node_count) << name;
      } else {
        EXPECT_TRUE(reply["NodeNames"].is_null()) << name;
        EXPECT_EQ(reply["Nodes"]["items"], request["Nodes"]["items"]) << name;
      }
    } else {
      ASSERT_TRUE(reply.is_array()) << name;
      ASSERT_EQ(reply.size(), node_count) << name;
      for (const auto& host : reply) {
        EXPECT_TRUE(host["Host"].is_string()) << name;
        EXPECT_GE(host["Score"].get<int>(), 0) << name;
        EXPECT_LE(host["Score"].get<int>(), 10) << name;
      }
    }
    ++replayed;
  }
  EXPECT_EQ(replayed, 11);  // run1 2, run2 3, run3a 1, run3b 1, run4 2, run5 2
}

TEST_F(ExtenderHttpTest, DecisionsForReportedNodes) {
  Report("node-a", 3800, 3900, 0.3);  // full: 3800m base
  Report("node-b", 0, 0, 6.0);        // empty but load 1.5 per CPU: cordoned
  const std::string body = FileContents(kFixtures / "run2-001-filter.json");  // node-a, node-b
  httplib::Result result = Post("/filter", body);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200);
  const nlohmann::json reply = nlohmann::json::parse(result->body);
  EXPECT_TRUE(reply["NodeNames"].empty());
  EXPECT_THAT(reply["FailedNodes"]["node-a"].get<std::string>(), HasSubstr("projected cpu"));
  EXPECT_THAT(reply["FailedNodes"]["node-b"].get<std::string>(), HasSubstr("cordoned for load"));
  // Fresh reports: node-a busy, node-b empty and cool. Spread prefers node-b.
  Report("node-a", 3000, 3100, 0.1);
  Report("node-b", 0, 0, 0.1);
  const std::string prioritize = FileContents(kFixtures / "run2-002-prioritize.json");
  httplib::Result scores = Post("/prioritize", prioritize);
  ASSERT_TRUE(scores);
  const nlohmann::json ranked = nlohmann::json::parse(scores->body);
  ASSERT_EQ(ranked.size(), 2u);
  EXPECT_EQ(ranked[0]["Host"], "node-a");
  EXPECT_LT(ranked[0]["Score"].get<int>(), ranked[1]["Score"].get<int>());
}

TEST_F(ExtenderHttpTest, ReadyzFollowsTheReadinessJudgement) {
  nodes_fresh_ = 1;
  httplib::Result early = client_->Get("/readyz");
  ASSERT_TRUE(early);
  EXPECT_EQ(early->status, 503);
  EXPECT_THAT(early->body, HasSubstr("1 of 2 nodes have reported"));
  nodes_fresh_ = 2;
  httplib::Result ready = client_->Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200) << ready->body;
}

TEST_F(ExtenderHttpTest, BadRequestsGetAJsonReason) {
  httplib::Result bad = Post("/filter", R"({"Pod": )");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_THAT(nlohmann::json::parse(bad->body)["error"].get<std::string>(),
              HasSubstr("not valid JSON"));
  httplib::Result wrong = Post("/filter", R"({"Pod":{"metadata":{"name":"p"}}})");
  ASSERT_TRUE(wrong);
  EXPECT_EQ(wrong->status, 400);
  EXPECT_THAT(wrong->body, HasSubstr("neither NodeNames nor Nodes"));
  httplib::Result huge = Post("/filter", std::string(2 << 20, ' '));
  ASSERT_TRUE(huge);
  EXPECT_EQ(huge->status, 413);
  EXPECT_THAT(nlohmann::json::parse(huge->body)["error"].get<std::string>(),
              HasSubstr("too large"));
  httplib::Result missing = client_->Get("/nope");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_THAT(missing->body, HasSubstr("no such endpoint"));
  // The server is still there.
  httplib::Result health = client_->Get("/healthz");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}

// The read-only APIs answer 429 (with Retry-After) beyond their rate, so a flood of them
// takes no more than that from the extender; explain runs on the event loops, not behind
// status builds.
TEST(ExtenderReadApis, StatusAndExplainAreRateLimited) {
  ClusterView view{{}};
  Metrics metrics;
  ActionJournal journal;
  StatusBoard board(view, nullptr, journal, {});
  ServerOptions options;
  options.status = &board;
  ExtenderHttpServer server(view, metrics, options);
  absl::StatusOr<int> port = server.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status();
  std::thread serving([&] { (void)server.Serve(); });
  httplib::Client client("127.0.0.1", *port);
  for (int i = 0; i < 500 && !server.serving(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  const auto count = [&](const std::string& path, int requests, int expected) {
    int answered = 0;
    int limited = 0;
    for (int i = 0; i < requests; ++i) {
      httplib::Result result = client.Get(path.c_str());
      ASSERT_TRUE(result);
      if (result->status == 429) {
        ++limited;
        EXPECT_EQ(result->get_header_value("Retry-After"), "1");
        EXPECT_THAT(result->body, HasSubstr("too many"));
      } else {
        EXPECT_EQ(result->status, expected) << result->body;
        ++answered;
      }
    }
    // The burst, and what refilled while the loop ran (a fraction of a second).
    EXPECT_GE(answered, requests / 2) << path;
    EXPECT_GT(limited, 0) << path;
  };
  count("/api/v1/status", 40, 200);
  count("/api/v1/explain?pod=shop/nowhere", 80, 404);
  server.Stop();
  serving.join();
}

// A repack input of `nodes` nodes; over-full at 300 nodes, a solve uses its whole time limit.
std::string RepackCluster(int nodes, int pods_per_node, double utilisation) {
  RepackGeneratorConfig config;
  config.nodes = nodes;
  config.pods_per_node = pods_per_node;
  config.tiers = 3;
  config.target_utilisation = utilisation;
  return codec::EncodeRepackInstance(GenerateRepackInstance(config)).dump();
}

TEST_F(ExtenderHttpTest, StopCancelsARunningRepack) {
  // A large, over-full cluster: the solve uses its whole 30 s unless cancelled.
  const std::string cluster = RepackCluster(300, 10, 1.1);
  const auto sent = std::chrono::steady_clock::now();
  std::thread caller([&] { (void)Post("/repack?timeout=30s", cluster); });
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  const auto stop = std::chrono::steady_clock::now();
  server_->Stop();
  thread_.join();
  const auto stopped = std::chrono::steady_clock::now();
  caller.join();
  EXPECT_LT(stopped - stop, std::chrono::seconds(2)) << "the solve held the shutdown";
  EXPECT_LT(stopped - sent, std::chrono::seconds(10));
}

TEST_F(ExtenderHttpTest, ACallerThatGoesAwayEndsItsRepack) {
  const std::string cluster = RepackCluster(300, 10, 1.1);
  {
    // This caller gives up after a second and closes its connection; its solve had 30 s.
    httplib::Client impatient("127.0.0.1", port_);
    impatient.set_read_timeout(1);
    httplib::Result result =
        impatient.Post("/repack?timeout=30s", {{"Authorization", "Bearer admin-token"}}, cluster,
                       "application/json");
    EXPECT_FALSE(result) << "the 30 s solve answered within the caller's second";
  }
  // The next caller is not kept waiting (429: one solve at a time) for the rest of it.
  const std::string small_cluster = RepackCluster(3, 2, 0.5);
  const auto gone = std::chrono::steady_clock::now();
  int status = 0;
  while (std::chrono::steady_clock::now() - gone < std::chrono::seconds(30)) {
    httplib::Result next = Post("/repack?timeout=1s", small_cluster);
    status = next ? next->status : 0;
    if (status != 429) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(status, 200);
  // An abandoned solve would hold the next caller for the rest of its 30 s; a cancelled one
  // ends within the solver's next check. 10 s leaves room for a loaded sanitizer build (it
  // took 3.1 s once under ASan beside a compiler).
  EXPECT_LT(std::chrono::steady_clock::now() - gone, std::chrono::seconds(10));
}

TEST_F(ExtenderHttpTest, RepackAnswersAPlanAndRefusesBadInput) {
  // Seed 002's Figure 1: two 4Gi nodes, 2Gi pods spread out, a 3Gi pod pending.
  const std::string cluster = R"({
    "nodes": [{"name": "a", "cpu": "4", "memory": "4Gi"}, {"name": "b", "cpu": "4", "memory": "4Gi"}],
    "pods": [{"name": "p1", "cpu": "100m", "memory": "2Gi", "node": "a"},
             {"name": "p2", "cpu": "100m", "memory": "2Gi", "node": "b"},
             {"name": "p3", "cpu": "100m", "memory": "3Gi"}]})";
  httplib::Result result = Post("/repack?timeout=2s", cluster);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const nlohmann::json plan = nlohmann::json::parse(result->body);
  EXPECT_TRUE(plan["dryRun"].get<bool>());
  EXPECT_TRUE(plan["optimal"].get<bool>());
  EXPECT_EQ(plan["tiers"][0]["placedAfter"], 3);
  EXPECT_EQ(plan["changes"].size(), 2u);
  EXPECT_FALSE(plan["assignment"]["p3"].is_null());

  httplib::Result anonymous = Post("/repack", cluster, "forged");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401) << anonymous->body;
  httplib::Result viewer = Post("/repack", cluster, "viewer-token");
  ASSERT_TRUE(viewer);
  EXPECT_EQ(viewer->status, 403) << viewer->body;
  EXPECT_THAT(viewer->body, HasSubstr("viewer may not post /repack"));

  httplib::Result bad_timeout = Post("/repack?timeout=2h", cluster);
  ASSERT_TRUE(bad_timeout);
  EXPECT_EQ(bad_timeout->status, 400);
  EXPECT_THAT(bad_timeout->body, HasSubstr("timeout"));
  httplib::Result bad_body =
      Post("/repack", R"({"nodes": [{"name": "a", "cpu": "x", "memory": "1"}]})");
  ASSERT_TRUE(bad_body);
  EXPECT_EQ(bad_body->status, 400);
  EXPECT_THAT(nlohmann::json::parse(bad_body->body)["error"].get<std::string>(),
              HasSubstr("nodes[0].cpu"));
}

TEST_F(ExtenderHttpTest, AdmissionWebhookSizesFromReportsAndRefusesBadInput) {
  NodeReport report;
  report.node = "n1";
  report.reported_at = absl::Now();
  report.allocatable = {4000, 8 * kGi};
  ReportedPod seen;
  seen.pod_namespace = "shop";
  seen.name = "web-7d4b9c-abcde";
  seen.workload_key = "shop/Deployment/web";
  // Observed for 30 h: past the warm-up, so the webhook sizes from it.
  seen.containers.push_back(
      {"app", CpuStats{100, 350}, MemoryStats{64 << 20, 96 << 20, 120 << 20, 0}, absl::Hours(30)});
  report.pods.push_back(seen);
  ASSERT_TRUE(view_.ApplyReport(report).ok());

  const std::string review = R"({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
    "request": {"uid": "r-1", "operation": "CREATE", "namespace": "shop",
      "resource": {"group": "", "version": "v1", "resource": "pods"},
      "object": {"metadata": {"generateName": "web-7d4b9c-", "labels": {"pod-template-hash": "7d4b9c"}, "ownerReferences": [
          {"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c", "controller": true}]},
        "spec": {"containers": [{"name": "app", "resources": {"limits": {"cpu": "2"}}}]}}}})";
  httplib::Result result = Post("/admission/pods", review);
  ASSERT_TRUE(result);
  ASSERT_EQ(result->status, 200) << result->body;
  const nlohmann::json answer = nlohmann::json::parse(result->body);
  EXPECT_EQ(answer["response"]["uid"], "r-1");
  EXPECT_TRUE(answer["response"]["allowed"].get<bool>());
  std::string patch;
  ASSERT_TRUE(absl::Base64Unescape(answer["response"]["patch"].get<std::string>(), &patch));
  EXPECT_EQ(nlohmann::json::parse(patch)[0]["value"],
            nlohmann::json::parse(R"({"requests": {"cpu": "350m", "memory": "96Mi"},
                                      "limits": {"memory": "250Mi"}})"));

  for (const std::string& body :
       {std::string("{"), std::string(R"({"kind": "AdmissionReview"})")}) {
    httplib::Result bad = Post("/admission/pods", body);
    ASSERT_TRUE(bad);
    EXPECT_EQ(bad->status, 400) << body;
    EXPECT_TRUE(nlohmann::json::parse(bad->body).contains("error")) << bad->body;
  }
  httplib::Result metrics = client_->Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_THAT(metrics->body,
              HasSubstr("headroom_extender_admissions_total{outcome=\"mutated\"} 1"));
  EXPECT_THAT(metrics->body,
              HasSubstr("headroom_extender_admissions_total{outcome=\"malformed\"} 2"));
}

// Runs the real `headroom report` binary; returns its exit status.
int HeadroomReport(int grpc_port, const std::string& input_path, std::string* err) {
  const std::string err_path = (std::filesystem::temp_directory_path() /
                                ("headroom-report-err-" + std::to_string(::getpid())))
                                   .string();
  const std::string command = std::string("'") + HEADROOM_CLI_BINARY +
                              "' report --extender 127.0.0.1:" + std::to_string(grpc_port) +
                              " --input '" + input_path + "' >/dev/null 2>'" + err_path + "'";
  const int status = std::system(command.c_str());
  *err = FileContents(err_path);
  std::filesystem::remove(err_path);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_F(ExtenderHttpTest, AReportSentWithTheCliChangesTheDecision) {
  ReportServiceImpl service(view_);
  absl::StatusOr<RunningGrpcServer> grpc_server = StartReportServer("127.0.0.1:0", service);
  ASSERT_TRUE(grpc_server.ok()) << grpc_server.status();
  const std::string body = FileContents(kFixtures / "run2-001-filter.json");
  nlohmann::json before = nlohmann::json::parse(Post("/filter", body)->body);
  EXPECT_EQ(before["NodeNames"].size(), 2u);  // nothing reported yet: both pass

  std::string err;
  const std::filesystem::path example =
      std::filesystem::path(HEADROOM_SOURCE_DIR) / "examples/node-report.json";
  ASSERT_EQ(HeadroomReport(grpc_server->port, example.string(), &err), 0) << err;
  nlohmann::json after = nlohmann::json::parse(Post("/filter", body)->body);
  // node-a: the reported pod's daily base 3200m (not its 10-minute 3100m) + pod1's 500m + one
  // shared headroom. The example reports no measured headroom, so the two headrooms -- the
  // reported pod's 500m (its daily peak 3700m - 3200m) and pod1's 500m (limit 1 - request) --
  // join by root-sum-square: ceil(sqrt(500^2 + 500^2)) = 708m; 4408m > 4000m.
  EXPECT_EQ(after["NodeNames"], nlohmann::json::array({"node-b"}));
  EXPECT_THAT(after["FailedNodes"]["node-a"].get<std::string>(), HasSubstr("projected cpu 4408m"));

  // A malformed report is refused before it is sent, naming the field, and changes nothing.
  const std::filesystem::path bad =
      std::filesystem::temp_directory_path() / ("bad-report-" + std::to_string(::getpid()));
  std::ofstream(bad) << R"({"node":"node-b","allocatable":{"cpuMillis":"4000"},"pods":[
      {"name":"p","containers":[{"name":"c","cpu":{"baseMillis":"900","peakMillis":"100"}}]}]})";
  EXPECT_EQ(HeadroomReport(grpc_server->port, bad.string(), &err), 2);
  EXPECT_THAT(err, HasSubstr("pods[0].containers[0].cpu.max"));
  std::filesystem::remove(bad);
  EXPECT_EQ(view_.NodeCount(), 1u);
  grpc_server->server->Shutdown();
}

TEST_F(ExtenderHttpTest, HealthReadinessAndMetrics) {
  ASSERT_TRUE(Post("/filter", FileContents(kFixtures / "run2-001-filter.json")));
  ASSERT_TRUE(Post("/filter", "{"));
  httplib::Result ready = client_->Get("/readyz");
  ASSERT_TRUE(ready);
  EXPECT_EQ(ready->status, 200);
  httplib::Result metrics = client_->Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_EQ(metrics->status, 200);
  EXPECT_THAT(metrics->body,
              HasSubstr("headroom_extender_requests_total{code=\"200\",verb=\"filter\"} 1"));
  EXPECT_THAT(metrics->body,
              HasSubstr("headroom_extender_requests_total{code=\"400\",verb=\"filter\"} 1"));
  EXPECT_THAT(metrics->body, HasSubstr("headroom_extender_unknown_nodes_total 2"));
}

}  // namespace
}  // namespace headroom::extender
