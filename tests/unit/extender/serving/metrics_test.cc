// headroom-extender's metrics (extender/serving/metrics.h): the shared request series, the
// cluster gauges, and the counters an area registers (scheduler/scheduler_metrics.h here).

#include "extender/serving/metrics.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "extender/scheduler/scheduler_metrics.h"

namespace headroom::extender {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(MetricsTest, RendersCountersAndHistograms) {
  Metrics metrics;
  SchedulerMetrics scheduler(metrics);
  metrics.ObserveRequest("filter", 200, absl::Microseconds(300));
  metrics.ObserveRequest("filter", 400, absl::Milliseconds(2));
  scheduler.CountRejection("InsufficientCpu");
  scheduler.CountUnknownNodes(3);
  Metrics::ClusterGauges gauges;
  gauges.nodes_reported = 2;
  gauges.oldest_report_age = absl::Seconds(30);
  gauges.newest_report_age = absl::Seconds(5);
  std::string text = metrics.Render(gauges);
  EXPECT_THAT(text, Not(HasSubstr("pod_watch")));  // no API configured
  gauges.pod_watch = {{true, 2, 1, 7}};
  gauges.api_nodes = 3;
  gauges.pending_placements = 4;
  const std::string with_watch = metrics.Render(gauges);
  EXPECT_THAT(with_watch, HasSubstr("headroom_extender_pod_watch_synced 1\n"));
  EXPECT_THAT(with_watch, HasSubstr("headroom_extender_pod_watch_errors_total 1\n"));
  EXPECT_THAT(with_watch, HasSubstr("headroom_extender_pod_watch_placements_total 7\n"));
  EXPECT_THAT(with_watch, HasSubstr("headroom_extender_api_nodes 3\n"));
  EXPECT_THAT(with_watch, HasSubstr("headroom_extender_pending_placements 4\n"));
  EXPECT_THAT(text, HasSubstr("headroom_extender_requests_total{code=\"200\",verb=\"filter\"} 1"));
  EXPECT_THAT(text, HasSubstr("headroom_extender_request_duration_seconds_bucket{verb=\"filter\","
                              "le=\"0.0005\"} 1"));
  EXPECT_THAT(text,
              HasSubstr("headroom_extender_request_duration_seconds_count{verb=\"filter\"} 2"));
  EXPECT_THAT(text,
              HasSubstr("headroom_extender_filter_rejections_total{reason=\"InsufficientCpu\"} 1"));
  EXPECT_THAT(text, HasSubstr("headroom_extender_unknown_nodes_total 3"));
  EXPECT_THAT(text, HasSubstr("headroom_extender_report_age_seconds{which=\"oldest\"} 30\n"));
}

TEST(MetricsTest, AFamilyNothingCountedYetStillHasItsHelpAndType) {
  Metrics metrics;
  LabelledCounter actions(metrics, {"headroom_test_actions_total", "What a test did.",
                                    prometheus::MetricType::Counter});
  const std::string text = metrics.Render({});
  EXPECT_THAT(text, HasSubstr("# HELP headroom_test_actions_total What a test did.\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE headroom_test_actions_total counter\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE headroom_extender_request_duration_seconds histogram\n"));
  EXPECT_THAT(text, Not(HasSubstr("headroom_test_actions_total{")));
}

TEST(MetricsTest, AFamilyRegisteredTwiceIsOneFamily) {
  // Two HTTP listeners (the main one and the webhook's) each hold the scheduler's counters.
  Metrics metrics;
  SchedulerMetrics first(metrics);
  SchedulerMetrics second(metrics);
  first.CountRejection("InsufficientCpu");
  second.CountRejection("InsufficientCpu");
  const std::string text = metrics.Render({});
  EXPECT_THAT(text,
              HasSubstr("headroom_extender_filter_rejections_total{reason=\"InsufficientCpu\"} 2"));
  const std::string help = "# HELP headroom_extender_filter_rejections_total";
  EXPECT_EQ(text.find(help), text.rfind(help));  // declared once
}

TEST(MetricsTest, LabelledCounterKeepsEachLabelSetApart) {
  Metrics metrics;
  LabelledCounter counter(metrics, {"headroom_test_total", "h", prometheus::MetricType::Counter});
  counter.Increment({{"a", "x"}, {"b", "y"}});
  counter.Increment({{"a", "x"}, {"b", "y"}}, 2);
  counter.Increment({{"a", "xy"}, {"b", ""}});
  const std::string text = metrics.Render({});
  EXPECT_THAT(text, HasSubstr("headroom_test_total{a=\"x\",b=\"y\"} 3\n"));
  EXPECT_THAT(text, HasSubstr("headroom_test_total{a=\"xy\",b=\"\"} 1\n"));
}

}  // namespace
}  // namespace headroom::extender
