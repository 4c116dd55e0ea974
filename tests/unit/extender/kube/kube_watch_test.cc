// The Kubernetes client pieces of headroom-extender: kubeconfig, server URLs, the watch stream
// codec, the list+watch loop (against an in-process fake API server) and the tracker that
// turns bound pods into placements the filter counts.

#include <httplib.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "extender/kube/api_nodes.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_placements.h"
#include "extender/scheduler/judge.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "io/kube_client.h"
#include "io/kube_config.h"
#include "spdlog/sinks/null_sink.h"
#include "spdlog/spdlog.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseServerUrlTest, Table) {
  struct Case {
    const char* url;
    bool ok;
    bool https;
    const char* host;
    int port;
  };
  const Case cases[] = {
      {"https://10.0.0.1:6443", true, true, "10.0.0.1", 6443},
      {"https://api.example.com", true, true, "api.example.com", 443},
      {"http://127.0.0.1:8080/", true, false, "127.0.0.1", 8080},
      {"https://[fd00::1]:6443", true, true, "fd00::1", 6443},
      {"https://[fd00::1]", true, true, "fd00::1", 443},
      {"10.0.0.1:6443", false, false, "", 0},
      {"https://host:0", false, false, "", 0},
      {"https://host:99999", false, false, "", 0},
      {"https://host:x", false, false, "", 0},
      {"https://:6443", false, false, "", 0},
      {"https://host:6443/api", false, false, "", 0},
      {"https://[fd00::1", false, false, "", 0},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.url);
    absl::StatusOr<io::ServerAddress> address = io::ParseServerUrl(c.url);
    ASSERT_EQ(address.ok(), c.ok) << address.status();
    if (!c.ok) continue;
    EXPECT_EQ(address->https, c.https);
    EXPECT_EQ(address->host, c.host);
    EXPECT_EQ(address->port, c.port);
  }
}

constexpr char kKubeconfig[] = R"(apiVersion: v1
kind: Config
current-context: local
contexts:
- name: local
  context: {cluster: c1, user: admin}
- name: other
  context: {cluster: c2, user: robot}
clusters:
- name: c1
  cluster:
    server: https://127.0.0.1:6443/
    certificate-authority-data: Q0EtUEVN
- name: c2
  cluster:
    server: https://10.0.0.1:6443
    certificate-authority: ca.crt
    insecure-skip-tls-verify: true
users:
- name: admin
  user:
    client-certificate-data: Q0VSVA==
    client-key-data: S0VZ
- name: robot
  user:
    token: abc
    tokenFile: token
)";

TEST(KubeTimeTest, WritesMetaV1TimeAndReadsItsForms) {
  const absl::Time at = absl::FromUnixSeconds(1795331119);
  EXPECT_EQ(io::FormatKubeTime(at), "2026-11-22T07:05:19Z");
  EXPECT_EQ(io::FormatKubeTime(at + absl::Milliseconds(900)), "2026-11-22T07:05:19Z");
  EXPECT_EQ(io::ParseKubeTime("2026-11-22T07:05:19Z"), at);
  // MicroTime (Leases) and an offset read as the same instant.
  EXPECT_EQ(io::ParseKubeTime("2026-11-22T07:05:19.250000Z"), at + absl::Milliseconds(250));
  EXPECT_EQ(io::ParseKubeTime("2026-11-22T08:05:19+01:00"), at);
  for (const char* bad : {"", "yesterday", "2026-11-22", "1795331119"}) {
    EXPECT_FALSE(io::ParseKubeTime(bad).has_value()) << bad;
  }
}

TEST(ParseApiJsonTest, RefusesDeepNestingBeforeParsing) {
  EXPECT_EQ(io::ParseApiJson(R"({"kind":"Status","message":"gone"})")["message"], "gone");
  EXPECT_TRUE(io::ParseApiJson("not json").is_discarded());
  // An answer whose message nests 10000 deep: discarded, not parsed recursively.
  const std::string deep =
      R"({"kind":"Status","message":)" + std::string(10000, '[') + std::string(10000, ']') + "}";
  EXPECT_TRUE(io::ParseApiJson(deep).is_discarded());
  EXPECT_EQ(io::ApiStatusMessage(deep).size(), 200u);  // the body's start instead
  const std::string fine = "[" + std::string(50, '[') + std::string(50, ']') + "]";
  EXPECT_FALSE(io::ParseApiJson(fine).is_discarded());
}

TEST(KubeconfigTest, CurrentContextWithInlineData) {
  absl::StatusOr<io::KubeConfig> config = io::ParseKubeconfig(kKubeconfig, "/nowhere");
  ASSERT_THAT(config.status(), IsOk());
  EXPECT_EQ(config->server, "https://127.0.0.1:6443");
  EXPECT_EQ(config->ca_pem, "CA-PEM");
  EXPECT_EQ(config->client_cert_pem, "CERT");
  EXPECT_EQ(config->client_key_pem, "KEY");
  EXPECT_FALSE(config->insecure_skip_tls_verify);
}

TEST(KubeconfigTest, NamedContextWithFilesRelativeToTheKubeconfig) {
  const std::filesystem::path dir =
      std::filesystem::path(::testing::TempDir()) / "kubeconfig-relative";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "ca.crt") << "CA FROM FILE";
  absl::StatusOr<io::KubeConfig> config = io::ParseKubeconfig(kKubeconfig, dir.string(), "other");
  ASSERT_THAT(config.status(), IsOk());
  EXPECT_EQ(config->server, "https://10.0.0.1:6443");
  EXPECT_EQ(config->ca_pem, "CA FROM FILE");
  EXPECT_TRUE(config->insecure_skip_tls_verify);
  EXPECT_EQ(config->bearer_token, "abc");
  EXPECT_EQ(config->token_file, (dir / "token").string());
}

TEST(KubeconfigTest, ErrorsNameTheField) {
  struct Case {
    std::string yaml;
    std::string context;
    const char* message;
  };
  const Case cases[] = {
      {"[1, 2", "", "document"},
      {"- a\n- b\n", "", "expected a map"},
      {"clusters: []\n", "", "current-context"},
      {kKubeconfig, "missing", "no entry named \"missing\""},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {server: 'ftp://h'}}]\n",
       "", "server"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
       "users: [{name: u, user: {exec: {command: aws}}}]\n",
       "", "exec and auth-provider"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c, user: u}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://h'}}]\n"
       "users: [{name: u, user: {client-certificate-data: Q0VSVA==}}]\n",
       "", "go together"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://h', certificate-authority-data: '%%'}}]\n",
       "", "not base64"},
      {"current-context: x\ncontexts: [{name: x, context: {cluster: c}}]\n"
       "clusters: [{name: c, cluster: {server: 'https://h', certificate-authority: /no/ca}}]\n",
       "", "certificate-authority"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    EXPECT_THAT(io::ParseKubeconfig(c.yaml, "/", c.context).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(c.message)));
  }
  EXPECT_THAT(io::LoadKubeconfigFile("/no/such/kubeconfig").status(),
              StatusIs(absl::StatusCode::kNotFound));
}

TEST(LineSplitterTest, JoinsChunksAndSkipsBlankLines) {
  io::LineSplitter splitter;
  std::vector<std::string> lines;
  const auto collect = [&](absl::string_view line) {
    lines.emplace_back(line);
    return true;
  };
  EXPECT_TRUE(splitter.Feed("{\"a\":", collect));
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(splitter.Feed("1}\n\n{\"b\":2}\r\n{\"c\"", collect));
  EXPECT_THAT(lines, ElementsAre("{\"a\":1}", "{\"b\":2}"));
  EXPECT_EQ(splitter.buffered(), 4u);
  // The callback stops the stream.
  EXPECT_FALSE(splitter.Feed(":3}\n{\"d\":4}\n", [](absl::string_view) { return false; }));
}

TEST(WatchEventTest, ParsesTypesAndRejectsGarbage) {
  absl::StatusOr<WatchEvent> added =
      ParseWatchEvent(R"({"type":"ADDED","object":{"metadata":{"resourceVersion":"7"}}})");
  ASSERT_THAT(added.status(), IsOk());
  EXPECT_EQ(added->type, WatchEventType::kAdded);
  EXPECT_EQ(ResourceVersionOf(added->object), "7");
  absl::StatusOr<WatchEvent> gone = ParseWatchEvent(
      R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"too old"}})");
  ASSERT_THAT(gone.status(), IsOk());
  EXPECT_EQ(gone->type, WatchEventType::kError);
  EXPECT_EQ(ErrorEventCode(*gone), 410);
  for (const char* bad : {"", "[]", "{\"type\":\"ADDED\"}", "{\"type\":1,\"object\":{}}",
                          "{\"type\":\"RENAMED\",\"object\":{}}", "{\"object\":{}}"}) {
    EXPECT_THAT(ParseWatchEvent(bad).status(), StatusIs(absl::StatusCode::kInvalidArgument)) << bad;
  }
  EXPECT_EQ(ResourceVersionOf(json::object()), "");
}

TEST(ListWatchQueryTest, EscapesSelectorVersionAndContinueToken) {
  ListWatchOptions options = BoundPodsWatch();
  options.page_size = 2;
  options.watch_timeout = absl::Seconds(300);
  EXPECT_EQ(ListQuery(options, ""),
            "/api/v1/pods?limit=2&fieldSelector=spec.nodeName%21%3D%2Cstatus.phase%21%"
            "3DSucceeded%2Cstatus.phase%21%3DFailed");
  EXPECT_THAT(ListQuery(options, "a+b/c="), HasSubstr("&continue=a%2Bb%2Fc%3D"));
  EXPECT_THAT(WatchQuery(options, "123"),
              HasSubstr("/api/v1/pods?watch=1&allowWatchBookmarks=true&resourceVersion=123&"
                        "timeoutSeconds=300&fieldSelector="));
}

constexpr int64_t kMi = 1 << 20;
constexpr int64_t kGi = 1 << 30;
const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

json BoundPod(const std::string& uid, const std::string& node, int cpu_millis) {
  return json{
      {"metadata", {{"name", "p-" + uid}, {"namespace", "ns"}, {"uid", uid}}},
      {"spec",
       {{"nodeName", node},
        {"containers",
         {{{"name", "c"},
           {"resources",
            {{"requests", {{"cpu", std::to_string(cpu_millis) + "m"}, {"memory", "1Gi"}}}}}}}}}}};
}

NodeReport EmptyNode(const std::string& name, std::vector<ReportedPod> pods = {}) {
  NodeReport report;
  report.node = name;
  report.reported_at = kNow - absl::Seconds(5);
  report.allocatable = {4000, 8 * kGi};
  report.load1 = 0.1;
  report.cpus = 4;
  report.pods = std::move(pods);
  return report;
}

ExtenderArgs Candidate(int cpu_millis) {
  ExtenderArgs args;
  args.pod.pod_namespace = "ns";
  args.pod.name = "new";
  args.pod.containers.push_back({"c", {cpu_millis, 256 * kMi}, {cpu_millis, 256 * kMi}});
  args.nodes.push_back({"n1", {}, {}});
  return args;
}

TEST(PodPlacementTrackerTest, CountsNewlyBoundPodsOnceAndForgetsDeletedOnes) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(EmptyNode("n1")), IsOk());
  PodPlacementTracker tracker(view);
  // Pods already bound at the first list (an extender just restarted) count on their node
  // until its report lists them: a full node is not taken for an empty one meanwhile.
  tracker.Replace({BoundPod("old", "n1", 3000)}, kNow);
  EXPECT_EQ(view.PlacementCount(), 1u);
  EXPECT_TRUE(FilterNodes(Candidate(1500), view, kNow).result.failed.count("n1"));
  ReportedPod old;
  old.pod_namespace = "ns";
  old.name = "p-old";
  old.uid = "old";
  ASSERT_THAT(view.ApplyReport(EmptyNode("n1", {old})), IsOk());  // at 0m: it idles
  EXPECT_EQ(view.PlacementCount(), 0u);
  EXPECT_THAT(FilterNodes(Candidate(1500), view, kNow).result.passed, ElementsAre("n1"));
  // A relist (after 410 Gone) counts only pods it had not seen.
  tracker.Replace({BoundPod("old", "n1", 3000)}, kNow);
  EXPECT_EQ(view.PlacementCount(), 0u);

  tracker.Apply({WatchEventType::kAdded, BoundPod("a", "n1", 3000)}, kNow);
  tracker.Apply({WatchEventType::kModified, BoundPod("a", "n1", 3000)}, kNow);  // status update
  tracker.Apply({WatchEventType::kModified, BoundPod("old", "n1", 3000)}, kNow);
  EXPECT_EQ(view.PlacementCount(), 1u);
  EXPECT_EQ(tracker.placements_recorded(), 2);
  EXPECT_EQ(tracker.known_pods(), 2u);
  // 3000m placed + 1500m > 4000m.
  FilterOutcome outcome = FilterNodes(Candidate(1500), view, kNow);
  EXPECT_TRUE(outcome.result.failed.count("n1")) << "the placement must count";

  // A relist that no longer shows "a" (deleted while the watch was down) forgets it.
  tracker.Replace({BoundPod("old", "n1", 3000)}, kNow);
  EXPECT_EQ(view.PlacementCount(), 0u);
  EXPECT_EQ(tracker.known_pods(), 1u);
  EXPECT_THAT(FilterNodes(Candidate(1500), view, kNow).result.passed, ElementsAre("n1"));
  // Unbound or nameless objects are ignored.
  tracker.Apply({WatchEventType::kAdded, BoundPod("b", "", 3000)}, kNow);
  tracker.Apply({WatchEventType::kAdded, json{{"metadata", json::object()}}}, kNow);
  EXPECT_EQ(view.PlacementCount(), 0u);
}

TEST(PodPlacementTrackerTest, APodTheNodeReportAlreadyListsIsNotCountedTwice) {
  ClusterView view({});
  ReportedPod listed;
  listed.pod_namespace = "ns";
  listed.name = "p-a";
  listed.uid = "a";
  listed.requests = {3000, kGi};
  ASSERT_THAT(view.ApplyReport(EmptyNode("n1", {listed})), IsOk());
  PodPlacementTracker tracker(view);
  tracker.Replace({}, kNow);
  tracker.Apply({WatchEventType::kAdded, BoundPod("a", "n1", 3000)}, kNow);
  EXPECT_EQ(view.PlacementCount(), 0u);
  tracker.Replace({BoundPod("b", "n1", 3000), BoundPod("a", "n1", 3000)}, kNow);
  EXPECT_EQ(view.PlacementCount(), 1u);  // b only: a is in the report
}

json NodeObject(const std::string& name, const std::string& cpu, const std::string& pods) {
  return json{{"metadata", {{"name", name}}},
              {"status", {{"allocatable", {{"cpu", cpu}, {"memory", "8Gi"}, {"pods", pods}}}}}};
}

TEST(ApiNodeTrackerTest, TheApiAllocatableOverridesTheReportsAndGoesAwayWithTheNode) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(EmptyNode("n1")), IsOk());  // the report says 4000m
  ApiNodeTracker nodes(view);
  EXPECT_THAT(FilterNodes(Candidate(3000), view, kNow).result.passed, ElementsAre("n1"));
  nodes.Replace({NodeObject("n1", "2", "110"), json{{"metadata", {{"name", "no-status"}}}}});
  EXPECT_EQ(view.ApiNodeCount(), 1u);
  FilterOutcome outcome = FilterNodes(Candidate(3000), view, kNow);
  ASSERT_TRUE(outcome.result.failed.count("n1"));
  EXPECT_THAT(outcome.result.failed["n1"], HasSubstr("allocatable 2"));
  // A modified node with room for no more pods.
  nodes.Apply({WatchEventType::kModified, NodeObject("n1", "8", "0")});
  EXPECT_THAT(FilterNodes(Candidate(100), view, kNow).result.failed["n1"], HasSubstr("pods"));
  nodes.Apply({WatchEventType::kDeleted, NodeObject("n1", "8", "0")});
  EXPECT_EQ(view.ApiNodeCount(), 0u);
  EXPECT_THAT(FilterNodes(Candidate(3000), view, kNow).result.passed, ElementsAre("n1"));
}

// A fake API server: pages of a list, then watches whose content each test scripts.
class FakeApiServer {
 public:
  FakeApiServer() {
    server_.Get("/api/v1/pods", [this](const httplib::Request& request,
                                       httplib::Response& response) {
      {
        absl::MutexLock lock(&mu_);
        requests_.push_back(request.has_param("watch")
                                ? "watch rv=" + request.get_param_value("resourceVersion")
                                : "list continue=" + request.get_param_value("continue"));
      }
      if (!request.has_param("watch")) {
        if (request.get_param_value("continue").empty()) {
          response.set_content(
              json{{"metadata", {{"resourceVersion", "10"}, {"continue", "page2"}}},
                   {"items", {BoundPod("a", "n1", 100)}}}
                  .dump(),
              "application/json");
        } else {
          response.set_content(
              json{{"metadata", {{"resourceVersion", "10"}}}, {"items", {BoundPod("b", "n1", 100)}}}
                  .dump(),
              "application/json");
        }
        return;
      }
      int watch;
      {
        absl::MutexLock lock(&mu_);
        watch = watches_++;
      }
      if (watch == 0) {
        // One pod bound, a bookmark, then "too old": the watcher must list again.
        std::string body =
            json{{"type", "ADDED"},
                 {"object",
                  [] {
                    json pod = BoundPod("c", "n1", 100);
                    pod["metadata"]["resourceVersion"] = "11";
                    return pod;
                  }()}}
                .dump() +
            "\n" +
            R"({"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"12"}}})" +
            "\n" + R"({"type":"ERROR","object":{"kind":"Status","code":410,"message":"gone"}})" +
            "\n";
        response.set_content(body, "application/json");
        return;
      }
      if (watch == 1) {
        response.status = 500;
        response.set_content(R"({"kind":"Status","message":"etcd is sad"})", "application/json");
        return;
      }
      // Then a watch that stays open until the client goes away.
      response.set_chunked_content_provider("application/json",
                                            [this](size_t, httplib::DataSink& sink) {
                                              sink.write("\n", 1);
                                              absl::SleepFor(absl::Milliseconds(20));
                                              return !done_.load();
                                            });
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
  }
  ~FakeApiServer() {
    done_ = true;
    server_.stop();
    thread_.join();
  }
  int port() const { return port_; }
  std::vector<std::string> requests() {
    absl::MutexLock lock(&mu_);
    return requests_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::atomic<bool> done_{false};
  absl::Mutex mu_;
  std::vector<std::string> requests_;
  int watches_ = 0;
};

TEST(ListWatcherTest, ListsInPagesWatchesRelistsOnGoneBacksOffAndStopsPromptly) {
  FakeApiServer api;
  io::KubeConfig config;
  config.server = "http://127.0.0.1:" + std::to_string(api.port());
  absl::StatusOr<std::unique_ptr<io::KubeClient>> client = io::KubeClient::Create(config);
  ASSERT_THAT(client.status(), IsOk());
  ListWatchOptions options = BoundPodsWatch();
  options.initial_backoff = absl::Milliseconds(10);
  absl::Mutex mu;
  std::vector<std::string> seen;
  ListWatcher watcher(
      **client, options,
      {[&](std::vector<json> items) {
         absl::MutexLock lock(&mu);
         std::string line = "replace";
         for (const json& item : items) line += " " + item["metadata"]["uid"].get<std::string>();
         seen.push_back(line);
       },
       [&](const WatchEvent& event) {
         absl::MutexLock lock(&mu);
         seen.push_back("event " + event.object["metadata"]["uid"].get<std::string>());
       }},
      std::make_shared<spdlog::logger>("test", std::make_shared<spdlog::sinks::null_sink_mt>()));
  std::thread runner([&] { watcher.Run(); });
  // Wait until the third watch (the one that stays open) has started.
  for (int i = 0; i < 500 && api.requests().size() < 7; ++i) absl::SleepFor(absl::Milliseconds(10));
  const absl::Time stop_at = absl::Now();
  watcher.Stop();
  runner.join();
  EXPECT_LT(absl::Now() - stop_at, absl::Seconds(2)) << "Stop() must end an open watch";
  EXPECT_THAT(api.requests(),
              ElementsAre("list continue=", "list continue=page2", "watch rv=10",
                          "list continue=", "list continue=page2", "watch rv=10", "watch rv=10"));
  absl::MutexLock lock(&mu);
  EXPECT_THAT(seen, ElementsAre("replace a b", "event c", "replace a b"));
  EXPECT_TRUE(watcher.synced());
  EXPECT_EQ(watcher.lists(), 2);
  EXPECT_EQ(watcher.watch_errors(), 1);  // the 500
}

TEST(KubeClientTest, RefusesUnusableCertificatesAndReportsApiErrors) {
  io::KubeConfig config;
  config.server = "https://127.0.0.1:1";
  config.ca_pem = "not a certificate";
  EXPECT_THAT(io::KubeClient::Create(config).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("CA")));
  config.ca_pem.clear();
  config.client_cert_pem = "x";
  config.client_key_pem = "y";
  EXPECT_THAT(io::KubeClient::Create(config).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("client certificate")));

  httplib::Server server;
  server.Get("/api/v1/nodes", [](const httplib::Request& request, httplib::Response& response) {
    response.status = request.get_header_value("Authorization") == "Bearer t0k" ? 403 : 401;
    response.set_content(R"({"kind":"Status","message":"nodes is forbidden"})", "application/json");
  });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  io::KubeConfig plain;
  plain.server = "http://127.0.0.1:" + std::to_string(port);
  plain.bearer_token = "t0k";
  std::unique_ptr<io::KubeClient> client = *io::KubeClient::Create(plain);
  EXPECT_THAT(client->Get("/api/v1/nodes", absl::Seconds(5)).status(),
              StatusIs(absl::StatusCode::kPermissionDenied, HasSubstr("nodes is forbidden")));
  server.stop();
  thread.join();
  EXPECT_THAT(client->Get("/api/v1/nodes", absl::Seconds(5)).status(),
              StatusIs(absl::StatusCode::kUnavailable));
}

// Writes reuse a kept-alive connection (the actuator writes thousands a round), and a write on a
// connection the server has closed since is sent again on a new one, once.
TEST(KubeClientTest, WritesReuseAConnectionRetryWhenTheServerClosedItNotWhenItIsSlow) {
  httplib::Server server;
  std::mutex mu;
  std::vector<int> ports;            // the client's port of each write: one per connection
  server.set_keep_alive_timeout(1);  // (stop() waits for kept-alive connections this long)
  server.Patch(R"(/api/v1/namespaces/ns/pods/(\w+)/resize)",
               [&](const httplib::Request& request, httplib::Response& response) {
                 std::lock_guard<std::mutex> lock(mu);
                 ports.push_back(request.remote_port);
                 response.set_content(R"({"kind":"Pod"})", "application/json");
               });
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread thread([&] { server.listen_after_bind(); });
  io::KubeConfig plain;
  plain.server = "http://127.0.0.1:" + std::to_string(port);
  std::unique_ptr<io::KubeClient> client = *io::KubeClient::Create(plain);
  for (const char* pod : {"a", "b", "c"}) {
    absl::StatusOr<io::KubeClient::WriteResult> written =
        client->Write("PATCH", absl::StrCat("/api/v1/namespaces/ns/pods/", pod, "/resize"), "{}",
                      "application/strategic-merge-patch+json", absl::Seconds(5));
    ASSERT_TRUE(written.ok()) << written.status();
    EXPECT_EQ(written->status, 200);
  }
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(ports.size(), 3u);
    EXPECT_EQ(ports[0], ports[1]);
    EXPECT_EQ(ports[1], ports[2]);
  }
  // The server restarts: the kept connection is dead; the write goes through on a new one.
  server.stop();
  thread.join();
  httplib::Server again;
  again.set_keep_alive_timeout(1);
  again.Patch(R"(/api/v1/namespaces/ns/pods/(\w+)/resize)",
              [&](const httplib::Request& request, httplib::Response& response) {
                std::lock_guard<std::mutex> lock(mu);
                ports.push_back(request.remote_port);
                response.status = 422;
                response.set_content(R"({"kind":"Status","message":"no"})", "application/json");
              });
  std::atomic<int> slow_calls{0};
  again.Patch("/api/v1/namespaces/ns/slow",
              [&](const httplib::Request&, httplib::Response& response) {
                ++slow_calls;
                std::this_thread::sleep_for(std::chrono::milliseconds(2500));
                response.set_content("{}", "application/json");
              });
  ASSERT_TRUE(again.bind_to_port("127.0.0.1", port));
  std::thread thread_again([&] { again.listen_after_bind(); });
  absl::StatusOr<io::KubeClient::WriteResult> written =
      client->Write("PATCH", "/api/v1/namespaces/ns/pods/d/resize", "{}",
                    "application/strategic-merge-patch+json", absl::Seconds(5));
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(written->status, 422);
  {
    std::lock_guard<std::mutex> lock(mu);
    ASSERT_EQ(ports.size(), 4u);  // the dead connection's attempt never reached a server
    EXPECT_NE(ports[3], ports[2]);
  }
  // A reused connection whose answer does not come in time is not tried again (the server is
  // slow, not gone: a second try would double the wait and could send an eviction twice).
  EXPECT_THAT(client
                  ->Write("PATCH", "/api/v1/namespaces/ns/slow", "{}",
                          "application/strategic-merge-patch+json", absl::Seconds(1))
                  .status(),
              StatusIs(absl::StatusCode::kUnavailable));
  EXPECT_EQ(slow_calls.load(), 1);
  again.stop();
  thread_again.join();
  // No server: a new connection's failure is the answer, not retried forever.
  EXPECT_THAT(client
                  ->Write("PATCH", "/api/v1/namespaces/ns/pods/e/resize", "{}",
                          "application/strategic-merge-patch+json", absl::Seconds(5))
                  .status(),
              StatusIs(absl::StatusCode::kUnavailable));
}

}  // namespace
}  // namespace headroom::extender
