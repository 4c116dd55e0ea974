// The extender's reading of a node report refuses counts that cannot be: a negative maxPods or
// CPU count is an error naming the node, never a silent default.

#include "codec/report_codec.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom::codec {
namespace {

TEST(NodeReportFromProto, MaxPodsAndCpus) {
  const absl::Time now = absl::FromUnixSeconds(1795331100);
  struct Case {
    const char* name;
    int max_pods;
    int cpus;
    int want_max_pods;  // -1: refused
  };
  for (const Case& c : {Case{"unsaid: kubelet's default", 0, 4, 110}, Case{"said", 250, 4, 250},
                        Case{"negative maxPods", -5, 4, -1}, Case{"negative cpus", 110, -1, -1}}) {
    headroom::v1::NodeReport proto;
    proto.set_node("node-a");
    proto.mutable_allocatable()->set_cpu_millis(4000);
    proto.mutable_allocatable()->set_memory_bytes(int64_t{8} << 30);
    proto.set_max_pods(c.max_pods);
    proto.set_cpus(c.cpus);
    absl::StatusOr<NodeReport> report = NodeReportFromProto(proto, now);
    if (c.want_max_pods < 0) {
      ASSERT_FALSE(report.ok()) << c.name;
      EXPECT_EQ(report.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
      EXPECT_NE(report.status().message().find("node-a"), std::string::npos) << c.name;
    } else {
      ASSERT_TRUE(report.ok()) << c.name << ": " << report.status();
      EXPECT_EQ(report->max_pods, c.want_max_pods) << c.name;
    }
  }
}

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

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

}  // namespace
}  // namespace headroom::codec
