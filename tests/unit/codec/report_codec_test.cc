// The extender's reading of a node report refuses counts that cannot be: a negative maxPods or
// CPU count is an error naming the node, never a silent default.

#include "codec/report_codec.h"

#include <string>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace headroom::codec
