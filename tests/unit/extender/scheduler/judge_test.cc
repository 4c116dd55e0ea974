// The scheduler's judgement of nodes: projected fit, load cordon, placements between reports,
// scoring, and the judgement kept between requests following every change.

#include "extender/scheduler/judge.h"

#include <functional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "extender/kube/pod_footprint.h"
#include "extender/scheduler/extender_wire.h"
#include "extender/view/cluster_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"
#include "tests/unit/extender/node_report_builders.h"

namespace headroom::extender {
namespace {

using ::headroom::extender::test_reports::kGi;
using ::headroom::extender::test_reports::kMi;
using ::headroom::extender::test_reports::kNow;
using ::headroom::extender::test_reports::Pod;
using ::headroom::extender::test_reports::Report;
using ::headroom::testing::IsOk;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

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

}  // namespace
}  // namespace headroom::extender
