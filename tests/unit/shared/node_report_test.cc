// A reported pod's footprint: without statistics it counts at its declared requests.

#include "shared/node_report.h"

#include <cstdint>

#include "gtest/gtest.h"

namespace headroom {
namespace {

constexpr int64_t kGi = 1LL << 30;

TEST(ClusterViewTest, PodsWithoutStatisticsCountAtTheirRequests) {
  ReportedPod pod;
  pod.requests = {700, kGi};
  pod.containers.push_back({"c", std::nullopt, std::nullopt});
  const PodFootprint footprint = FootprintOf(pod, absl::Hours(24));
  EXPECT_EQ(footprint.base, (ResourceAmounts{700, kGi}));
  EXPECT_EQ(footprint.headroom, (ResourceAmounts{0, 0}));
}

}  // namespace
}  // namespace headroom
