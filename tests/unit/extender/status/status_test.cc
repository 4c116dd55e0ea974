// The status API (extender/status/status.h), the action journal and the CLI's formatting of both.

#include "extender/status/status.h"

#include "cli/status_command.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_index.h"
#include "extender/view/action_journal.h"
#include "extender/view/cluster_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;
using ::testing::HasSubstr;

constexpr int64_t kMi = int64_t{1} << 20;
constexpr int64_t kGi = int64_t{1} << 30;
const absl::Time kNow = absl::FromUnixSeconds(1'795'341'600);

ReportedPod Pod(std::string ns, std::string name, std::string workload, int64_t cpu_base,
                int64_t cpu_peak, int64_t mem, int64_t oom = 0) {
  ReportedPod pod;
  pod.pod_namespace = std::move(ns);
  pod.name = std::move(name);
  pod.uid = "uid-" + pod.name;
  pod.workload_key = std::move(workload);
  pod.requests = {1000, kGi};
  ContainerDemand c;
  c.name = "app";
  c.cpu = CpuStats{cpu_base, cpu_peak};
  c.memory = MemoryStats{mem, mem, mem, oom};
  c.history = absl::Hours(30);
  c.declared_requests = {1000, kGi};
  c.declared_limits = {0, 2 * kGi};
  pod.containers = {c};
  return pod;
}

NodeReport Report(std::string node, double load1, std::vector<ReportedPod> pods) {
  NodeReport report;
  report.node = std::move(node);
  report.reported_at = kNow - absl::Seconds(5);
  report.allocatable = {4000, 8 * kGi};
  report.load1 = load1;
  report.cpus = 4;
  report.pods = std::move(pods);
  return report;
}

TEST(StatusTotals, Table) {
  NodeFootprint a;
  a.name = "a";
  a.allocatable = {4000, 8 * kGi};
  a.base_total = {1000, 2 * kGi};
  a.headroom = {500, kGi};
  a.pod_count = 3;
  NodeFootprint b = a;
  b.name = "b";
  b.base_total = {3800, kGi};  // 3800 + 500 > 4000: over
  const NodeStatus na = NodeStatusOf(a, {3000, 6 * kGi}, {2000, 4 * kGi}, absl::Seconds(7));
  const NodeStatus nb = NodeStatusOf(b, {1000, kGi}, {1000, kGi}, absl::Seconds(1));
  EXPECT_EQ(na.projected, (ResourceAmounts{1500, 3 * kGi}));
  EXPECT_TRUE(na.fits);
  EXPECT_FALSE(nb.fits);
  const ClusterTotals totals = TotalsOf({na, nb});
  EXPECT_EQ(totals.nodes, 2);
  EXPECT_EQ(totals.pods, 6);
  EXPECT_EQ(totals.declared, (ResourceAmounts{4000, 7 * kGi}));
  EXPECT_EQ(totals.projected, (ResourceAmounts{5800, 5 * kGi}));
  // 7Gi of 2 x 8Gi fills 0.875 nodes; 4000m of 2 x 4000m fills 1: the larger.
  EXPECT_DOUBLE_EQ(totals.nodes_declared, 1.0);
  EXPECT_DOUBLE_EQ(Saving(4000, 1000), 0.75);
  EXPECT_DOUBLE_EQ(Saving(0, 1000), 0);
}

TEST(StatusNamespaces, WhatTheNextStepWouldSave) {
  NamespaceStatus ns;
  // 3 replicas at 1000m / 1Gi now, headroom would give each 400m / 1.5Gi: 1800m saved, no
  // memory (more than now is never a saving).
  AddToNamespace(ns, 3, {3000, 3 * kGi}, {400, 3 * kGi / 2}, true);
  EXPECT_EQ(ns.saves, (ResourceAmounts{1800, 0}));
  EXPECT_EQ(ns.recommended, (ResourceAmounts{1200, 9 * kGi / 2}));
  // A workload headroom may not size counts as it is: no saving.
  AddToNamespace(ns, 2, {2000, 2 * kGi}, {100, kGi / 4}, false);
  EXPECT_EQ(ns.workloads, 2);
  EXPECT_EQ(ns.pods, 5);
  EXPECT_EQ(ns.requested, (ResourceAmounts{5000, 5 * kGi}));
  EXPECT_EQ(ns.recommended, (ResourceAmounts{3200, 13 * kGi / 2}));
  EXPECT_EQ(ns.saves, (ResourceAmounts{1800, 0}));
}

class StatusBoardTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(
        view_
            .ApplyReport(Report(
                "node-a", 0.5,
                {Pod("shop", "web-1", "shop/Deployment/web", 300, 450, 200 * kMi),
                 Pod("shop", "cache-0", "shop/StatefulSet/cache", 100, 150, 400 * kMi, 384 * kMi),
                 Pod("kube-system", "dns-1", "kube-system/Deployment/dns", 50, 80, 50 * kMi)}))
            .ok());
    ASSERT_TRUE(
        view_
            .ApplyReport(Report("node-hot", 12,
                                {Pod("shop", "web-2", "shop/Deployment/web", 300, 450, 200 * kMi)}))
            .ok());
  }
  StatusBoard Board(const PodIndex* pods = nullptr, size_t history_points = 1440) {
    StatusBoard::Options options;
    options.guard.allow_below_declared = true;
    options.defaults.allow_below_declared = true;
    options.excluded_namespaces = {"kube-system"};
    options.history_points = history_points;
    return StatusBoard(view_, pods, journal_, options, [this] { return now_; });
  }

  ClusterView view_{{}};
  ActionJournal journal_;
  absl::Time now_ = kNow;
};

TEST_F(StatusBoardTest, ClusterNodesAndWorkloads) {
  journal_.Record(
      {kNow, "shop/Deployment/web", "shop/web-1", "resize", "applied", "cpu 1 -> 500m"});
  StatusBoard board = Board();
  const json status = json::parse(board.StatusJson());
  EXPECT_EQ(status["cluster"]["nodes"], 2);
  EXPECT_EQ(status["cluster"]["pods"], 4);
  EXPECT_EQ(status["cluster"]["declared"]["cpuMillis"], 4000);
  EXPECT_GT(status["cluster"]["savings"]["cpu"].get<double>(), 0.5);
  ASSERT_EQ(status["nodes"].size(), 2u);
  EXPECT_EQ(status["nodes"][1]["name"], "node-hot");
  EXPECT_TRUE(status["nodes"][1]["cordoned"].get<bool>());
  EXPECT_THAT(status["nodes"][1]["cordonReason"].get<std::string>(), HasSubstr("load1 12.00"));
  // Largest declared CPU first: web (2 replicas) before the single-replica ones.
  ASSERT_EQ(status["workloadsTotal"], 3);
  const json& web = status["workloads"][0];
  EXPECT_EQ(web["key"], "shop/Deployment/web");
  EXPECT_EQ(web["replicas"], 2);
  // The webhook's sizing: the CPU peak, 450m; the memory peak 200Mi.
  EXPECT_EQ(web["recommended"]["cpuMillis"], 450);
  EXPECT_EQ(web["recommended"]["memoryBytes"], 200 * kMi);
  ASSERT_EQ(web["actions"].size(), 1u);
  EXPECT_EQ(web["actions"][0]["message"], "cpu 1 -> 500m");
  for (const json& w : status["workloads"]) {
    if (w["key"] == "shop/StatefulSet/cache") {
      EXPECT_TRUE(w["oomKilled"].get<bool>());
    }
    if (w["key"] == "kube-system/Deployment/dns") {
      EXPECT_EQ(w["sizing"], "namespace kube-system is excluded");
      EXPECT_EQ(w["recommended"]["cpuMillis"], 1000);
    }
  }
}

TEST_F(StatusBoardTest, CachedForAFewSecondsAndHistoryIsBounded) {
  StatusBoard board = Board(nullptr, /*history_points=*/2);
  const std::string first = board.StatusJson();
  ASSERT_TRUE(view_.ApplyReport(Report("node-c", 0.1, {})).ok());
  EXPECT_EQ(board.StatusJson(), first);  // within cache_for
  now_ += absl::Seconds(6);
  EXPECT_NE(board.StatusJson(), first);
  for (int i = 0; i < 3; ++i) {
    board.Sample();
    now_ += absl::Seconds(6);
  }
  EXPECT_EQ(json::parse(board.StatusJson())["history"].size(), 2u);
}

// With the daemon's background refresher, a read is given the last document built and never
// waits for a build after the first; the refresher rebuilds only while someone reads.
TEST_F(StatusBoardTest, RefreshedInTheBackgroundWhileSomeoneReads) {
  StatusBoard::Options options;
  options.refresh_in_background = true;
  options.watched_for = absl::Seconds(10);
  StatusBoard board(view_, nullptr, journal_, options, [this] { return now_; });
  const auto nodes = [](const std::string& document) {
    return json::parse(document)["cluster"]["nodes"].get<int>();
  };
  EXPECT_EQ(nodes(board.StatusJson()), 2);  // the first read builds
  ASSERT_TRUE(view_.ApplyReport(Report("node-c", 0.1, {})).ok());
  now_ += absl::Seconds(6);  // past cache_for: the read does not build
  EXPECT_EQ(nodes(board.StatusJson()), 2);
  board.RefreshIfWatched();  // read 0 s ago: rebuilt
  EXPECT_EQ(nodes(board.StatusJson()), 3);
  ASSERT_TRUE(view_.ApplyReport(Report("node-d", 0.1, {})).ok());
  now_ += absl::Seconds(11);  // nobody has read for longer than watched_for: no build
  board.RefreshIfWatched();
  EXPECT_EQ(nodes(board.StatusJson()), 3);
  board.RefreshIfWatched();  // read again just now
  EXPECT_EQ(nodes(board.StatusJson()), 4);
  now_ += absl::Seconds(31);  // a document older than 6 * cache_for is never served
  ASSERT_TRUE(view_.ApplyReport(Report("node-e", 0.1, {})).ok());
  EXPECT_EQ(nodes(board.StatusJson()), 5);
}

// A node's declared and requested sums take each pod's requests from the API where it knows
// the pod (as declared before the webhook changed them; pod-level requests where the pod has
// them) and from the report for a pod the API does not know.
TEST_F(StatusBoardTest, NodeSumsTakeEachPodsRequestsFromTheApi) {
  const auto api_pod = [](const std::string& name, json resources, json annotations,
                          json pod_resources) {
    json object = {{"metadata",
                    {{"namespace", "shop"},
                     {"name", name},
                     {"uid", "uid-" + name},
                     {"annotations", std::move(annotations)}}},
                   {"spec",
                    {{"nodeName", "node-a"},
                     {"containers", {{{"name", "app"}, {"resources", std::move(resources)}}}}}}};
    if (!pod_resources.is_null()) object["spec"]["resources"] = std::move(pod_resources);
    return object;
  };
  PodIndex pods;
  pods.Replace(
      {api_pod("web-1", {{"requests", {{"cpu", "500m"}, {"memory", "256Mi"}}}},
               {{"headroom.dev/declared",
                 R"([{"name":"app","resources":{"requests":{"cpu":"1","memory":"1Gi"}}}])"}},
               nullptr),
       api_pod("cache-0", {{"requests", {{"cpu", "100m"}}}}, json::object(),
               {{"requests", {{"cpu", "2"}, {"memory", "2Gi"}}}})});
  const std::vector<std::optional<PodRequests>> requests =
      pods.RequestsOf({Pod("shop", "web-1", "", 1, 2, kMi), Pod("shop", "nobody", "", 1, 2, kMi)});
  ASSERT_EQ(requests.size(), 2u);
  ASSERT_TRUE(requests[0].has_value());
  EXPECT_EQ(requests[0]->declared.cpu_millis, 1000);
  EXPECT_EQ(requests[0]->now.cpu_millis, 500);
  EXPECT_FALSE(requests[1].has_value());

  StatusBoard board = Board(&pods);
  const json status = json::parse(board.StatusJson());
  const json& node_a = status["nodes"][0];
  ASSERT_EQ(node_a["name"], "node-a");
  // web-1 1 (declared) / 500m (now), cache-0 2 (pod level), dns-1 1 (as reported).
  EXPECT_EQ(node_a["declared"]["cpuMillis"], 4000);
  EXPECT_EQ(node_a["requested"]["cpuMillis"], 3500);
  EXPECT_EQ(node_a["declared"]["memoryBytes"], kGi + 2 * kGi + kGi);
  EXPECT_EQ(node_a["requested"]["memoryBytes"], 256 * kMi + 2 * kGi + kGi);
}

TEST_F(StatusBoardTest, ExplainSaysWhatAndWhyInWords) {
  PodIndex pods;
  pods.Replace({json::parse(R"({"metadata": {"namespace": "shop", "name": "web-2", "uid": "u2",
      "annotations": {"headroom.dev/exclude": "true"}},
      "spec": {"nodeName": "node-hot", "containers": [{"name": "app",
      "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}})")});
  StatusBoard board = Board(&pods);
  absl::StatusOr<json> oom = board.Explain("shop", "cache-0");
  ASSERT_TRUE(oom.ok()) << oom.status();
  const std::string words = oom->at("explanation").dump();
  EXPECT_THAT(words, HasSubstr("runs on node-a"));
  EXPECT_THAT(words, HasSubstr("OOM-killed at 384Mi"));
  // 2 x the 7-day max 400Mi is 800Mi, below the declared 2Gi: the declared limit stays.
  EXPECT_EQ(oom->at("containers")[0]["recommended"]["memoryLimitBytes"], 2 * kGi);

  absl::StatusOr<json> excluded = board.Explain("shop", "web-2");
  ASSERT_TRUE(excluded.ok()) << excluded.status();
  EXPECT_THAT(excluded->at("explanation").dump(), HasSubstr("annotated headroom.dev/exclude"));
  EXPECT_THAT(excluded->at("explanation").dump(), HasSubstr("load-cordoned"));
  EXPECT_EQ(excluded->at("containers")[0]["recommended"]["cpuRequestMillis"], 1000);

  absl::StatusOr<json> system = board.Explain("kube-system", "dns-1");
  ASSERT_TRUE(system.ok());
  EXPECT_THAT(system->at("explanation").dump(), HasSubstr("namespace kube-system is excluded"));

  EXPECT_EQ(board.Explain("shop", "nope").status().code(), absl::StatusCode::kNotFound);
}

// Explain finds a pod through the view's index: the node that reported it last, gone once no
// fresh report lists it.
TEST(ClusterViewPodIndex, FollowsTheReports) {
  ClusterView view{{}};
  const auto node_of = [&](const char* name, absl::Time now) {
    const std::optional<ClusterView::FoundPod> found = view.FindReportedPod("shop", name, now);
    return found.has_value() ? found->node : std::string("-");
  };
  ASSERT_TRUE(view.ApplyReport(Report("a", 0.5,
                                      {Pod("shop", "web-1", "shop/Deployment/web", 1, 2, kMi),
                                       Pod("shop", "web-2", "shop/Deployment/web", 1, 2, kMi)}))
                  .ok());
  EXPECT_EQ(node_of("web-1", kNow), "a");
  const std::optional<ClusterView::FoundPod> found = view.FindReportedPod("shop", "web-2", kNow);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->pod.uid, "uid-web-2");
  EXPECT_EQ(node_of("web-3", kNow), "-");
  EXPECT_EQ(node_of("web-1", kNow + absl::Hours(1)), "-");  // the report is stale by then
  // web-2 moved to b; a's next report no longer lists it, nor web-1.
  ASSERT_TRUE(
      view.ApplyReport(Report("b", 0.5, {Pod("shop", "web-2", "shop/Deployment/web", 1, 2, kMi)}))
          .ok());
  EXPECT_EQ(node_of("web-2", kNow), "b");
  ASSERT_TRUE(view.ApplyReport(Report("a", 0.5, {})).ok());
  EXPECT_EQ(node_of("web-2", kNow), "b");  // a's report does not take b's pod away
  EXPECT_EQ(node_of("web-1", kNow), "-");
  // A node forgotten takes its pods with it.
  EXPECT_EQ(view.ExpireNodes(kNow + absl::Hours(3)), 2u);
  EXPECT_EQ(node_of("web-2", kNow), "-");
}

// The per-controller counts are kept as pods come and go, and equal a recount.
TEST(PodIndexCounts, KeptAsPodsComeAndGo) {
  const auto pod = [](const std::string& name, const std::string& owner, bool ready,
                      bool terminating = false) {
    json object = {
        {"metadata",
         {{"namespace", "shop"},
          {"name", name},
          {"uid", "u-" + name},
          {"ownerReferences", {{{"kind", "ReplicaSet"}, {"name", owner}, {"controller", true}}}}}},
        {"status", {{"conditions", {{{"type", "Ready"}, {"status", ready ? "True" : "False"}}}}}}};
    if (terminating) object["metadata"]["deletionTimestamp"] = "2026-11-27T00:00:00Z";
    return object;
  };
  const auto event = [](WatchEventType type, json object) {
    WatchEvent e;
    e.type = type;
    e.object = std::move(object);
    return e;
  };
  PodIndex index;
  index.Replace({pod("web-1", "web", true), pod("web-2", "web", false), pod("db-0", "db", true)});
  const auto count_of = [&](const std::string& name, const std::string& owner) {
    absl::StatusOr<ApiPod> decoded = DecodeApiPod(pod(name, owner, true));
    return index.CountFor(*decoded);
  };
  EXPECT_EQ(count_of("x", "web").pods, 2);
  EXPECT_EQ(count_of("x", "web").ready, 1);
  index.Apply(event(WatchEventType::kModified, pod("web-2", "web", true)));
  EXPECT_EQ(count_of("x", "web").ready, 2);
  index.Apply(event(WatchEventType::kAdded, pod("web-3", "web", false)));
  EXPECT_EQ(count_of("x", "web").pods, 3);
  index.Apply(event(WatchEventType::kModified, pod("web-1", "web", true, /*terminating=*/true)));
  EXPECT_EQ(count_of("x", "web").pods, 2);  // a terminating pod does not count
  index.Apply(event(WatchEventType::kDeleted, pod("db-0", "db", true)));
  EXPECT_EQ(count_of("x", "db").pods, 0);
  index.Apply(event(WatchEventType::kDeleted, pod("db-0", "db", true)));  // twice: no harm
  EXPECT_EQ(count_of("x", "db").pods, 0);
  const auto all = index.WorkloadCounts();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.at("shop/ReplicaSet/web").pods, 2);
  EXPECT_EQ(all.at("shop/ReplicaSet/web").ready, 1);
}

// The index keeps only the annotations headroom reads: a large foreign one is dropped, its
// own and Karpenter's kept, a mirror pod still known as one.
TEST(PodIndexAnnotations, KeepsOnlyWhatHeadroomReads) {
  const json object = {{"metadata",
                        {{"namespace", "shop"},
                         {"name", "web-1"},
                         {"uid", "u-web-1"},
                         {"annotations",
                          {{"sidecar.istio.io/status", std::string(8192, 'x')},
                           {"kubernetes.io/config.mirror", "abc"},
                           {"karpenter.sh/do-not-disrupt", "true"},
                           {"headroom.dev/mode", "observe"},
                           {"headroom.dev/declared", "[]"}}}}}};
  const absl::StatusOr<ApiPod> pod = DecodeApiPod(object);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_TRUE(pod->mirror);
  EXPECT_EQ(pod->annotations.size(), 3u);
  EXPECT_FALSE(pod->annotations.contains("sidecar.istio.io/status"));
  EXPECT_EQ(pod->annotations.at("karpenter.sh/do-not-disrupt"), "true");
  EXPECT_EQ(pod->annotations.at("headroom.dev/mode"), "observe");
  for (const auto& [key, read] :
       std::vector<std::pair<std::string, bool>>{{"headroom.dev/min-cpu", true},
                                                 {"headroom.dev/", true},
                                                 {"karpenter.sh/do-not-disrupt", true},
                                                 {"karpenter.sh/other", false},
                                                 {"headroom.devx/mode", false},
                                                 {"kubectl.kubernetes.io/restartedAt", false}}) {
    EXPECT_EQ(IsReadAnnotation(key), read) << key;
  }
}

TEST(ActionJournal, NewestFirstAndBounded) {
  ActionJournal journal(3);
  for (int i = 0; i < 5; ++i) {
    journal.Record({kNow + absl::Seconds(i), i % 2 ? "w/odd" : "w/even", absl::StrCat("p", i),
                    "resize", "applied", absl::StrCat(i)});
  }
  EXPECT_EQ(journal.size(), 3u);
  const std::vector<JournalEntry> even = journal.ForWorkload("w/even", 10);
  ASSERT_EQ(even.size(), 2u);  // 0 fell out
  EXPECT_EQ(even[0].message, "4");
  EXPECT_EQ(even[1].message, "2");
  EXPECT_EQ(journal.ForPod("p3", 10).size(), 1u);
  EXPECT_TRUE(journal.ForWorkload("", 10).empty());
}

TEST_F(StatusBoardTest, TheCliPrintsTheNumbers) {
  StatusBoard board = Board();
  const std::string text = cli::FormatStatus(json::parse(board.StatusJson()));
  EXPECT_THAT(text, HasSubstr("2 nodes reporting, 4 pods"));
  EXPECT_THAT(text, HasSubstr("CPU     declared 4 -> projected"));
  EXPECT_THAT(text, HasSubstr("node-hot"));
  EXPECT_THAT(text, HasSubstr("load-cordoned: load1 12.00"));
  EXPECT_THAT(text, HasSubstr("shop/Deployment/web         2         1 1Gi         450m 200Mi"));
  const std::string explained = cli::FormatExplanation(*board.Explain("shop", "cache-0"));
  EXPECT_THAT(explained, HasSubstr("pod shop/cache-0\n  - runs on node-a"));
}

}  // namespace
}  // namespace headroom::extender
