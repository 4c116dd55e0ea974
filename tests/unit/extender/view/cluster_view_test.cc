// The cluster view: visiting nodes by name, refusing bad reports, and a workload's statistics
// as the union of its replicas.

#include "extender/view/cluster_view.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
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
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

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

// The fresh reports come by node name and are shared, not copied: a reader keeps the report
// it was given while a newer one replaces it in the view; a stale report is left out.
TEST(ClusterViewTest, FreshReportsAreSharedByNameAndOutliveTheirReplacement) {
  ClusterView view({});
  ASSERT_THAT(view.ApplyReport(Report("b", {Pod("x", 1, 1, 1, 1)})), IsOk());
  ASSERT_THAT(view.ApplyReport(Report("a", {})), IsOk());
  NodeReport stale = Report("c", {});
  stale.reported_at = kNow - absl::Hours(1);
  ASSERT_THAT(view.ApplyReport(stale), IsOk());
  const std::vector<ClusterView::SharedReport> first = view.FreshReports(kNow);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0]->node, "a");
  EXPECT_EQ(first[1]->node, "b");
  EXPECT_EQ(view.FreshReports(kNow)[1], first[1]);  // the same report, not a copy
  ASSERT_THAT(view.ApplyReport(Report("b", {})), IsOk());
  const std::vector<ClusterView::SharedReport> second = view.FreshReports(kNow);
  EXPECT_NE(second[1], first[1]);
  EXPECT_TRUE(second[1]->pods.empty());
  EXPECT_EQ(first[1]->pods.size(), 1u);  // the reader's report is as it was given
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

}  // namespace
}  // namespace headroom::extender
