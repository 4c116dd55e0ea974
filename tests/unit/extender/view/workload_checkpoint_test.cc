// The workload checkpoint round-trips and refuses what it did not write.

#include "extender/view/workload_checkpoint.h"

#include <map>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

const absl::Time kNow = absl::FromUnixSeconds(1'800'000'000);

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
