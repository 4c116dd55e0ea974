// headroom-extender's codec, cluster view and decisions, without a server.

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>

#include "absl/strings/ascii.h"
#include "codec/report_codec.h"
#include "extender/kube/pod_footprint.h"
#include "extender/scheduler/extender_wire.h"
#include "extender/scheduler/judge.h"
#include "extender/view/cluster_view.h"
#include "extender/view/workload_checkpoint.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/file_contents.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::FileContents;
using ::headroom::testing::SourceFile;

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kGi = 1LL << 30;
constexpr int64_t kMi = 1LL << 20;
const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

std::string Fixture(const std::string& name) {
  return FileContents(SourceFile("tests/testdata/kube-scheduler-extender/" + name));
}

TEST(ExtenderWireTest, DecodesFullNodesMode) {
  absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(Fixture("run1-002-filter.json"));
  ASSERT_THAT(args, IsOk());
  EXPECT_FALSE(args->node_cache_capable);
  EXPECT_EQ(args->pod.name, "pod1");
  EXPECT_EQ(args->pod.pod_namespace, "default");
  EXPECT_EQ(args->pod.workload_key, "default/Pod/pod1");
  ASSERT_EQ(args->pod.containers.size(), 1u);
  EXPECT_EQ(args->pod.containers[0].requests, (ResourceAmounts{500, 256 * kMi}));
  EXPECT_EQ(args->pod.containers[0].limits, (ResourceAmounts{1000, 512 * kMi}));
  ASSERT_EQ(args->nodes.size(), 2u);
  EXPECT_EQ(args->nodes[0].name, "node-a");
  EXPECT_EQ(args->nodes[0].allocatable, (ResourceAmounts{4000, 8 * kGi}));
  EXPECT_EQ(args->nodes[0].max_pods, 110);
}

TEST(ExtenderWireTest, DecodesNodeNamesMode) {
  absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(Fixture("run2-001-filter.json"));
  ASSERT_THAT(args, IsOk());
  EXPECT_TRUE(args->node_cache_capable);
  ASSERT_EQ(args->nodes.size(), 2u);
  EXPECT_FALSE(args->nodes[0].allocatable.has_value());
}

TEST(ExtenderWireTest, FilterResultMirrorsTheRequestMode) {
  const ExtenderArgs full = *DecodeExtenderArgs(Fixture("run1-002-filter.json"));
  FilterResult result;
  result.passed = {"node-b"};
  result.failed["node-a"] = "full";
  const nlohmann::json out = nlohmann::json::parse(EncodeFilterResult(full, result));
  EXPECT_TRUE(out["NodeNames"].is_null());
  ASSERT_EQ(out["Nodes"]["items"].size(), 1u);
  // The Node object goes back unchanged.
  EXPECT_EQ(out["Nodes"]["items"][0],
            nlohmann::json::parse(Fixture("run1-002-filter.json"))["Nodes"]["items"][1]);
  EXPECT_EQ(out["FailedNodes"]["node-a"], "full");
  EXPECT_EQ(out["Error"], "");

  const ExtenderArgs names = *DecodeExtenderArgs(Fixture("run2-001-filter.json"));
  const nlohmann::json none = nlohmann::json::parse(EncodeFilterResult(names, FilterResult{}));
  EXPECT_TRUE(none["NodeNames"].is_array());  // never null: null means "no feasible node"
  EXPECT_TRUE(none["Nodes"].is_null());
  EXPECT_TRUE(none["FailedNodes"].is_object());
}

TEST(ExtenderWireTest, PrioritiesAreABareArray) {
  EXPECT_EQ(EncodeHostPriorities({{"a", 10}, {"b", 0}}),
            R"([{"Host":"a","Score":10},{"Host":"b","Score":0}])");
}

struct KeyCase {
  const char* name;
  const char* owners;
  const char* labels;
  const char* key;
};

class WorkloadKeyTest : public ::testing::TestWithParam<KeyCase> {};

TEST_P(WorkloadKeyTest, FollowsTheControllingOwner) {
  EXPECT_EQ(WorkloadKeyFromController("shop", "pod-x",
                                      WorkloadKeyLabels(nlohmann::json::parse(GetParam().labels)),
                                      ControllingOwner(nlohmann::json::parse(GetParam().owners))),
            GetParam().key);
}

INSTANTIATE_TEST_SUITE_P(
    Table, WorkloadKeyTest,
    ::testing::Values(
        KeyCase{"none", "null", "{}", "shop/Pod/pod-x"},
        KeyCase{"replicaset_of_deployment",
                R"([{"kind":"ReplicaSet","name":"checkout-6d9f7b","controller":true}])",
                R"({"pod-template-hash":"6d9f7b","app":"checkout"})", "shop/Deployment/checkout"},
        // Without the Deployment's hash label a ReplicaSet is its own workload, whatever its
        // name looks like.
        KeyCase{"replicaset_without_hash_label",
                R"([{"kind":"ReplicaSet","name":"checkout-6d9f7b","controller":true}])", "{}",
                "shop/ReplicaSet/checkout-6d9f7b"},
        KeyCase{"replicaset_other_hash",
                R"([{"kind":"ReplicaSet","name":"checkout-6d9f7b","controller":true}])",
                R"({"pod-template-hash":"abc"})", "shop/ReplicaSet/checkout-6d9f7b"},
        KeyCase{"argo_rollout",
                R"([{"kind":"ReplicaSet","name":"canary-5f8c9","controller":true}])",
                R"({"rollouts-pod-template-hash":"5f8c9"})", "shop/Rollout/canary"},
        KeyCase{"statefulset", R"([{"kind":"StatefulSet","name":"db","controller":true}])", "{}",
                "shop/StatefulSet/db"},
        KeyCase{"not_controller", R"([{"kind":"StatefulSet","name":"db"}])", "{}",
                "shop/Pod/pod-x"},
        KeyCase{"bare_replicaset", R"([{"kind":"ReplicaSet","name":"plain","controller":true}])",
                "{}", "shop/ReplicaSet/plain"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

struct BadBody {
  const char* name;
  const char* body;
  const char* message;
};

class BadArgsTest : public ::testing::TestWithParam<BadBody> {};

TEST_P(BadArgsTest, IsRejectedWithTheField) {
  EXPECT_THAT(DecodeExtenderArgs(GetParam().body),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, BadArgsTest,
    ::testing::Values(
        BadBody{"not_json", "{", "not valid JSON"}, BadBody{"array", "[]", "ExtenderArgs"},
        BadBody{"no_pod", R"({"NodeNames":[]})", "Pod: required"},
        BadBody{"no_name", R"({"Pod":{"metadata":{}},"NodeNames":[]})", "Pod.metadata.name"},
        BadBody{"no_nodes", R"({"Pod":{"metadata":{"name":"p"}}})", "neither NodeNames"},
        BadBody{"names_type", R"({"Pod":{"metadata":{"name":"p"}},"NodeNames":"a"})",
                "NodeNames: expected an array"},
        BadBody{"bad_quantity",
                R"({"Pod":{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c",
                "resources":{"requests":{"cpu":"lots"}}}]}},"NodeNames":[]})",
                "Pod.spec.containers[0].resources.requests.cpu"},
        BadBody{"annotations_type",
                R"({"Pod":{"metadata":{"name":"p","annotations":[]}},"NodeNames":[]})",
                "Pod.metadata.annotations: expected an object"},
        BadBody{"labels_type", R"({"Pod":{"metadata":{"name":"p","labels":"x"}},"NodeNames":[]})",
                "Pod.metadata.labels: expected an object"},
        BadBody{"node_without_name", R"({"Pod":{"metadata":{"name":"p"}},"Nodes":{"items":[{}]}})",
                "Nodes.items[0].metadata.name"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

ReportedPod Pod(std::string name, int64_t cpu_base, int64_t cpu_peak, int64_t memory_base,
                int64_t memory_peak, std::string workload = "") {
  ReportedPod pod;
  pod.pod_namespace = "ns";
  pod.name = std::move(name);
  pod.uid = pod.name + "-uid";
  pod.workload_key = std::move(workload);
  // Observed for longer than the warm-up, so the statistics are trusted.
  pod.containers.push_back({"c", CpuStats{cpu_base, cpu_peak},
                            MemoryStats{memory_base, memory_peak, memory_peak, 0},
                            absl::Hours(30)});
  return pod;
}

NodeReport Report(std::string node, std::vector<ReportedPod> pods, double load1 = 0.5) {
  NodeReport report;
  report.node = std::move(node);
  report.reported_at = kNow - absl::Seconds(10);
  report.allocatable = {4000, 8 * kGi};
  report.load1 = load1;
  report.cpus = 4;
  report.pods = std::move(pods);
  return report;
}

ExtenderArgs Args(std::vector<std::string> nodes, int64_t cpu_request = 500,
                  int64_t cpu_limit = 1000) {
  ExtenderArgs args;
  args.pod.pod_namespace = "ns";
  args.pod.name = "new";
  args.pod.workload_key = "ns/Deployment/web";
  args.pod.containers.push_back({"c", {cpu_request, 256 * kMi}, {cpu_limit, 512 * kMi}});
  for (std::string& name : nodes) args.nodes.push_back({std::move(name), {}, {}});
  return args;
}

TEST(JudgeTest, AFullNodeIsRejectedWithAReasonAndAnUnknownNodePasses) {
  ClusterView view({});
  // node-a: base 3100m, headroom 500m.
  ASSERT_THAT(view.ApplyReport(Report("node-a", {Pod("x", 3100, 3600, kGi, kGi)})), IsOk());
  ASSERT_THAT(view.ApplyReport(Report("node-b", {})), IsOk());
  // Candidate (no statistics): base 500m, headroom 500m (limit - request), shared with the
  // node's by root-sum-square: 3100 + 500 + ceil(sqrt(500^2 + 500^2)) = 4308m > 4000m.
  const ExtenderArgs args = Args({"node-a", "node-b", "node-c"});  // the outcome views its names
  const FilterOutcome outcome = FilterNodes(args, view, kNow);
  EXPECT_THAT(outcome.result.passed, ElementsAre("node-b", "node-c"));
  ASSERT_EQ(outcome.result.failed.count("node-a"), 1u);
  EXPECT_THAT(outcome.result.failed.at("node-a"), HasSubstr("projected cpu 4308m"));
  EXPECT_THAT(outcome.rejection_codes, ElementsAre("InsufficientCpu"));
  EXPECT_EQ(outcome.unknown_nodes, 1);
  // Without headroom of its own (limit = request 400m): 3100 + 400 + 500 = 4000m fits.
  EXPECT_THAT(FilterNodes(Args({"node-a"}, 400, 400), view, kNow).result.passed,
              ElementsAre("node-a"));
}

TEST(JudgeTest, ALoadCordonedNodeIsRejected) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(Report("hot", {}, /*load1=*/6.0)), IsOk());
  const FilterOutcome outcome = FilterNodes(Args({"hot"}), view, kNow);
  ASSERT_EQ(outcome.result.failed.count("hot"), 1u);
  EXPECT_THAT(outcome.result.failed.at("hot"), HasSubstr("cordoned for load"));
  EXPECT_THAT(outcome.rejection_codes, ElementsAre("LoadCordoned"));
}

TEST(JudgeTest, StaleReportsAreIgnoredNotHeldAgainstTheNode) {
  ClusterView view({});
  NodeReport old = Report("old", {Pod("x", 4000, 4000, kGi, kGi)});
  old.reported_at = kNow - absl::Minutes(10);
  ASSERT_THAT(view.ApplyReport(old), IsOk());
  EXPECT_THAT(FilterNodes(Args({"old"}), view, kNow).result.passed, ElementsAre("old"));
}

TEST(JudgeTest, SpreadPrefersTheEmptyNode) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(Report("busy", {Pod("x", 2000, 2500, 4 * kGi, 4 * kGi)})), IsOk());
  ASSERT_THAT(view.ApplyReport(Report("empty", {})), IsOk());
  const ExtenderArgs args = Args({"busy", "empty", "unknown"});  // the scores view its names
  const std::vector<HostPriority> scores = PrioritizeNodes(args, view, kNow, {});
  ASSERT_EQ(scores.size(), 3u);
  EXPECT_GT(scores[1].score, scores[0].score);
  EXPECT_EQ(scores[2].score, kUnknownNodeScore);
  for (const HostPriority& p : scores) {
    EXPECT_GE(p.score, 0);
    EXPECT_LE(p.score, 10);
  }
  ScoringConfig pack;
  pack.strategy = ScoringStrategy::kPack;
  const ExtenderArgs two = Args({"busy", "empty"});
  const std::vector<HostPriority> packed = PrioritizeNodes(two, view, kNow, pack);
  EXPECT_GT(packed[0].score, packed[1].score);
}

TEST(JudgeTest, TheCandidateIsSizedFromItsWorkloadsStatistics) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(
                  Report("a", {Pod("web-1", 100, 300, 100 * kMi, 200 * kMi, "ns/Deployment/web")})),
              IsOk());
  const PodFootprint footprint = CandidateFootprint(Args({}).pod, view);
  EXPECT_EQ(footprint.base, (ResourceAmounts{100, 100 * kMi}));
  EXPECT_EQ(footprint.headroom, (ResourceAmounts{200, 100 * kMi}));
  // Another workload has none: declared requests (base) and limits (peak).
  PodSpec other = Args({}).pod;
  other.workload_key = "ns/Deployment/api";
  EXPECT_EQ(CandidateFootprint(other, view).base, (ResourceAmounts{500, 256 * kMi}));
  EXPECT_EQ(CandidateFootprint(other, view).headroom, (ResourceAmounts{500, 256 * kMi}));
}

TEST(JudgeTest, RecentPlacementsCountUntilAReportCoversThem) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(Report("n", {})), IsOk());
  // Two 1600m pods placed back to back, then a 900m one: 3200 + 900 = 4100m > 4000m.
  view.RecordPlacement("p1", "n", {{1600, kGi}, {0, 0}}, kNow);
  view.RecordPlacement("p2", "n", {{1600, kGi}, {0, 0}}, kNow);
  EXPECT_TRUE(FilterNodes(Args({"n"}, 900, 900), view, kNow).result.failed.count("n"));
  // After the TTL, unconfirmed placements no longer count.
  EXPECT_THAT(FilterNodes(Args({"n"}, 900, 900), view, kNow + absl::Minutes(3)).result.passed,
              ElementsAre("n"));
}

TEST(JudgeTest, PlacementsCountOnTheirOwnNodeAndExpireEvenBetweenSweeps) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(Report("n1", {})), IsOk());
  ASSERT_THAT(view.ApplyReport(Report("n2", {})), IsOk());
  view.RecordPlacement("p1", "n1", {{3600, kGi}, {0, 0}}, kNow);
  // Placed again elsewhere (a relist): it counts once, on the newer node.
  view.RecordPlacement("p1", "n2", {{3600, kGi}, {0, 0}}, kNow);
  EXPECT_EQ(view.PlacementCount(), 1u);
  const ExtenderArgs both = Args({"n1", "n2"}, 900, 900);  // the outcome views its names
  FilterOutcome outcome = FilterNodes(both, view, kNow);
  EXPECT_THAT(outcome.result.passed, ElementsAre("n1"));
  EXPECT_EQ(outcome.result.failed.count("n2"), 1u);
  // Judged just after a sweep (sweeps run at most once a second), a placement past its TTL
  // does not count although it has not been swept yet.
  const absl::Time swept = kNow + absl::Seconds(30);
  EXPECT_EQ(FilterNodes(Args({"n1"}, 900, 900), view, swept).result.failed.count("n1"), 0u);
  view.RecordPlacement("p2", "n1", {{3600, kGi}, {0, 0}},
                       swept - absl::Minutes(2) - absl::Seconds(1));
  EXPECT_THAT(
      FilterNodes(Args({"n1"}, 900, 900), view, swept + absl::Milliseconds(500)).result.passed,
      ElementsAre("n1"));
  EXPECT_EQ(view.PlacementCount(), 2u);  // not swept yet
  // Still fresh: it counts.
  view.RecordPlacement("p2", "n1", {{3600, kGi}, {0, 0}}, swept);
  EXPECT_EQ(FilterNodes(Args({"n1"}, 900, 900), view, swept + absl::Milliseconds(600))
                .result.failed.count("n1"),
            1u);
  view.ForgetPlacement("p1");
  view.ForgetPlacement("p2");
  EXPECT_EQ(view.PlacementCount(), 0u);
  EXPECT_THAT(FilterNodes(Args({"n1", "n2"}, 900, 900), view, kNow).result.passed,
              ElementsAre("n1", "n2"));
}

TEST(JudgeTest, WhatIsKnownOfANodeBeforeItsFirstReportCountsOnceItReports) {
  ClusterView view({});
  view.SetApiNode("n", {{2000, 8 * kGi}, std::nullopt});  // the API says 2 CPUs
  view.RecordPlacement("p1", "n", {{1600, kGi}, {0, 0}}, kNow);
  // No report yet: unknown, passed.
  EXPECT_THAT(FilterNodes(Args({"n"}), view, kNow).result.passed, ElementsAre("n"));
  ASSERT_THAT(view.ApplyReport(Report("n", {})), IsOk());  // the report says 4 CPUs
  // 1600m placed + 500m base + 500m headroom > the API's 2000m.
  FilterOutcome outcome = FilterNodes(Args({"n"}), view, kNow);
  ASSERT_EQ(outcome.result.failed.count("n"), 1u);
  EXPECT_THAT(outcome.result.failed["n"], HasSubstr("allocatable 2"));
  view.ForgetPlacement("p1");
  EXPECT_THAT(FilterNodes(Args({"n"}), view, kNow).result.passed, ElementsAre("n"));
  // A node forgotten for not reporting takes its placements with it.
  view.RecordPlacement("p2", "n", {{100, kGi}, {0, 0}}, kNow);
  EXPECT_EQ(view.PlacementCount(), 1u);
  EXPECT_EQ(view.ExpireNodes(kNow + absl::Hours(2)), 1u);
  EXPECT_EQ(view.PlacementCount(), 0u);
}

// Judging keeps each node's judgement between requests; every change to what it depends on
// must show in the next request. Each case: a node judged twice (so the judgement is kept),
// a change, and the verdict 300 ms later.
struct KeptJudgementCase {
  const char* change;
  std::function<void(ClusterView&)> before;  // before the judgement is kept
  std::function<void(ClusterView&)> apply;
  bool passes_after;
};

class KeptJudgementTest : public ::testing::TestWithParam<KeptJudgementCase> {};

TEST_P(KeptJudgementTest, FollowsEveryChange) {
  const KeptJudgementCase& c = GetParam();
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(Report("n", {})), IsOk());
  if (c.before) c.before(view);
  const bool passed_before =
      FilterNodes(Args({"n"}, 900, 900), view, kNow).result.failed.count("n") == 0;
  EXPECT_EQ(FilterNodes(Args({"n"}, 900, 900), view, kNow + absl::Milliseconds(100))
                    .result.failed.count("n") == 0,
            passed_before);
  ASSERT_NE(passed_before, c.passes_after) << "the case must change the verdict";
  c.apply(view);
  EXPECT_EQ(FilterNodes(Args({"n"}, 900, 900), view, kNow + absl::Milliseconds(300))
                    .result.failed.count("n") == 0,
            c.passes_after)
      << c.change;
}

INSTANTIATE_TEST_SUITE_P(
    Changes, KeptJudgementTest,
    ::testing::Values(
        KeptJudgementCase{"a placement", nullptr,
                          [](ClusterView& v) {
                            v.RecordPlacement("p", "n", {{3600, kGi}, {0, 0}}, kNow);
                          },
                          false},
        KeptJudgementCase{"a placement forgotten",
                          [](ClusterView& v) {
                            v.RecordPlacement("p", "n", {{3600, kGi}, {0, 0}}, kNow);
                          },
                          [](ClusterView& v) { v.ForgetPlacement("p"); }, true},
        KeptJudgementCase{"a placement expiring (no sweep between)",
                          [](ClusterView& v) {
                            v.RecordPlacement("p", "n", {{3600, kGi}, {0, 0}},
                                              kNow - absl::Minutes(2) + absl::Milliseconds(200));
                          },
                          [](ClusterView&) {}, true},
        KeptJudgementCase{"the API's allocatable", nullptr,
                          [](ClusterView& v) {
                            v.SetApiNode("n", {{500, 8 * kGi}, {}});
                          },
                          false},
        KeptJudgementCase{"the API forgetting the node",
                          [](ClusterView& v) {
                            v.SetApiNode("n", {{500, 8 * kGi}, {}});
                          },
                          [](ClusterView& v) { v.ForgetApiNode("n"); }, true},
        KeptJudgementCase{"the API's nodes relisted", nullptr,
                          [](ClusterView& v) {
                            v.ReplaceApiNodes({{"n", ClusterView::ApiNode{{500, 8 * kGi}, {}}}});
                          },
                          false},
        KeptJudgementCase{"the API's pod limit", nullptr,
                          [](ClusterView& v) {
                            v.SetApiNode("n", {{4000, 8 * kGi}, 0});
                          },
                          false},
        KeptJudgementCase{
            "a new report", nullptr,
            [](ClusterView& v) {
              ASSERT_THAT(v.ApplyReport(Report("n", {Pod("x", 3500, 3500, kGi, kGi)})), IsOk());
            },
            false},
        KeptJudgementCase{"a new report with high load", nullptr,
                          [](ClusterView& v) {
                            ASSERT_THAT(v.ApplyReport(Report("n", {}, /*load1=*/6.0)), IsOk());
                          },
                          false}),
    [](const ::testing::TestParamInfo<KeptJudgementCase>& info) {
      std::string name = info.param.change;
      for (char& ch : name) {
        if (!absl::ascii_isalnum(static_cast<unsigned char>(ch))) ch = '_';
      }
      return name;
    });

// VisitNodes looks nodes up in chunks and visits them after: every name is visited once, in
// order, with its own node, across chunk edges, with unknown and stale nodes among them, both
// when judged afresh and when the judgement is kept.
TEST(ClusterViewTest, VisitsEveryNameOnceInOrderWithItsOwnNode) {
  for (const int count : {0, 1, 63, 64, 65, 129, 200}) {
    ClusterView view({});
    std::vector<std::string> names;
    for (int i = 0; i < count; ++i) {
      std::string name = absl::StrCat(i % 3 == 2 ? "unknown-" : "node-", i);
      if (i % 3 != 2) {
        NodeReport report = Report(name, {});
        if (i % 5 == 4) report.reported_at = kNow - absl::Hours(1);  // stale
        ASSERT_THAT(view.ApplyReport(report), IsOk());
      }
      names.push_back(std::move(name));
    }
    const std::vector<absl::string_view> views(names.begin(), names.end());
    for (const char* when : {"afresh", "kept"}) {
      size_t next = 0;
      view.VisitNodes(views, kNow, [&](size_t i, const NodeFootprint* node) {
        ASSERT_EQ(i, next++) << count << " names, " << when;
        const bool known = i % 3 != 2 && i % 5 != 4;
        ASSERT_EQ(node != nullptr, known) << names[i] << ", " << when;
        if (known) EXPECT_EQ(node->name, names[i]) << when;
      });
      EXPECT_EQ(next, names.size()) << count << " names, " << when;
    }
  }
}

TEST(ClusterViewTest, RefusesBadReportsWithoutChangingAnything) {
  ClusterView view({});
  EXPECT_THAT(view.ApplyReport(Report("", {})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node name")));
  EXPECT_THAT(view.ApplyReport(Report("n", {Pod("x", 1, 1, 1, 1), Pod("x", 1, 1, 1, 1)})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("appears twice")));
  NodeReport negative = Report("n", {});
  negative.allocatable.cpu_millis = -1;
  EXPECT_THAT(view.ApplyReport(negative), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_EQ(view.NodeCount(), 0u);
}

TEST(ClusterViewTest, AWorkloadsStatisticsAreTheUnionOfItsReplicasAndExpire) {
  ClusterView view({});
  // Two replicas of ns/Deployment/web on two nodes: a busier one and an older one.
  ReportedPod busy = Pod("web-1", 500, 900, kGi, 2 * kGi, "ns/Deployment/web");
  ReportedPod old = Pod("web-2", 100, 300, kGi, kGi, "ns/Deployment/web");
  old.containers[0].history = absl::Hours(200);
  ASSERT_THAT(view.ApplyReport(Report("node-a", {busy})), IsOk());
  ASSERT_THAT(view.ApplyReport(Report("node-b", {old})), IsOk());
  std::optional<ClusterView::ContainerStats> stats =
      view.WorkloadContainer("ns/Deployment/web", "c");
  ASSERT_TRUE(stats.has_value());
  EXPECT_EQ(stats->cpu->base_millis, 500);  // the larger of each
  EXPECT_EQ(stats->cpu->peak_millis, 900);
  EXPECT_EQ(stats->memory->peak_bytes, 2 * kGi);
  EXPECT_EQ(stats->history, absl::Hours(200));  // the longer
  // node-a reports again without the replica: its part stays until it is a week old.
  ASSERT_THAT(view.ApplyReport(Report("node-a", {})), IsOk());
  EXPECT_EQ(view.WorkloadContainer("ns/Deployment/web", "c")->cpu->base_millis, 500);
  view.ExpireWorkloads(kNow + absl::Hours(7 * 24));
  EXPECT_FALSE(view.WorkloadContainer("ns/Deployment/web", "c").has_value());
}

TEST(ClusterViewTest, PodsWithoutStatisticsCountAtTheirRequests) {
  ReportedPod pod;
  pod.requests = {700, kGi};
  pod.containers.push_back({"c", std::nullopt, std::nullopt});
  const PodFootprint footprint = FootprintOf(pod, absl::Hours(24));
  EXPECT_EQ(footprint.base, (ResourceAmounts{700, kGi}));
  EXPECT_EQ(footprint.headroom, (ResourceAmounts{0, 0}));
}

TEST(ReportCodecTest, JsonFormWithDefaults) {
  absl::StatusOr<headroom::v1::NodeReport> proto = codec::ReportFromJson(
      R"({"node":"n1","allocatable":{"cpuMillis":"4000","memoryBytes":"8589934592"},"cpus":4,
          "pods":[{"name":"p","workloadKey":"ns/Deployment/p","ranking":"EVICTION_RANKING_HIGH",
          "containers":[{"name":"c","cpu":{"baseMillis":"100","peakMillis":"300"},
          "memory":{"baseBytes":"10","peakBytes":"20"}}]}]})");
  ASSERT_THAT(proto, IsOk());
  absl::StatusOr<NodeReport> report = codec::NodeReportFromProto(*proto, kNow);
  ASSERT_THAT(report, IsOk());
  EXPECT_EQ(report->reported_at, kNow);  // no time in the report: when it arrived
  EXPECT_EQ(report->max_pods, 110);
  EXPECT_FALSE(report->load1.has_value());  // unknown load never cordons
  ASSERT_EQ(report->pods.size(), 1u);
  EXPECT_EQ(report->pods[0].pod_namespace, "default");
  EXPECT_EQ(report->pods[0].ranking, EvictionRanking::kHigh);
  EXPECT_EQ(report->pods[0].containers[0].memory->max_7d_bytes, 20);  // defaults to peak
  // ToProto and back keeps everything.
  absl::StatusOr<NodeReport> again =
      codec::NodeReportFromProto(codec::NodeReportToProto(*report), kNow + absl::Hours(1));
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->reported_at, kNow);
  EXPECT_EQ(again->pods[0].containers[0].cpu->peak_millis, 300);
  EXPECT_EQ(FootprintOf(again->pods[0], absl::ZeroDuration()).headroom.cpu_millis, 200);
}

TEST(ReportCodecTest, RefusesWhatThePluginCouldNotHaveSent) {
  EXPECT_THAT(codec::ReportFromJson(R"({"node":"n","bogus":1})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bogus")));
  EXPECT_THAT(codec::ReportFromJson("not json"), StatusIs(absl::StatusCode::kInvalidArgument));
  headroom::v1::NodeReport proto;
  EXPECT_THAT(codec::NodeReportFromProto(proto, kNow),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node: required")));
  proto.set_node("n");
  proto.mutable_allocatable()->set_cpu_millis(-1);
  EXPECT_THAT(codec::NodeReportFromProto(proto, kNow),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("node.allocatable")));
  proto.mutable_allocatable()->set_cpu_millis(1000);
  headroom::v1::PodReport* pod = proto.add_pods();
  pod->set_name("p");
  headroom::v1::ContainerReport* c = pod->add_containers();
  c->set_name("c");
  c->mutable_memory()->set_base_bytes(100);
  c->mutable_memory()->set_peak_bytes(50);
  EXPECT_THAT(
      codec::NodeReportFromProto(proto, kNow),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("pods[0].containers[0].memory.max")));
}

TEST(WorkloadCheckpointTest, RoundTripsAndRefusesWhatItDidNotWrite) {
  std::map<std::string, ClusterView::ContainerStats> workloads;
  workloads["ns/Deployment/web#app"] = {CpuStats{100, 300}, MemoryStats{1, 2, 3, 4}};
  workloads["ns/StatefulSet/db#db"] = {std::nullopt, MemoryStats{5, 6, 7, 0}};
  const std::string text = EncodeWorkloads(workloads, kNow);
  absl::StatusOr<std::map<std::string, ClusterView::ContainerStats>> decoded =
      DecodeWorkloads(text);
  ASSERT_THAT(decoded, IsOk());
  ASSERT_EQ(decoded->size(), 2u);
  EXPECT_EQ(decoded->at("ns/Deployment/web#app").cpu->peak_millis, 300);
  EXPECT_EQ(decoded->at("ns/Deployment/web#app").memory->oom_bytes, 4);
  EXPECT_FALSE(decoded->at("ns/StatefulSet/db#db").cpu.has_value());
  EXPECT_THAT(DecodeWorkloads(R"({"version":2,"workloads":{}})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("version-1")));
  EXPECT_THAT(DecodeWorkloads(R"({"version":1,"workloads":{"k":{"cpu":{"baseMillis":-1,
              "peakMillis":1}}}})"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("baseMillis")));
  EXPECT_THAT(DecodeWorkloads("{"), StatusIs(absl::StatusCode::kInvalidArgument));
}

}  // namespace
}  // namespace headroom::extender
