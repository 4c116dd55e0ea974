#include "shared/kubelet_eviction.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom {
namespace {

using ::testing::ElementsAre;

constexpr int64_t kMi = 1LL << 20;

struct QosCase {
  const char* name;
  std::vector<ContainerResourceSpec> containers;
  QosClass qos;
};

class QosTest : public ::testing::TestWithParam<QosCase> {};

TEST_P(QosTest, FollowsThePodSpec) {
  EXPECT_EQ(PodQosClass(GetParam().containers), GetParam().qos);
}

INSTANTIATE_TEST_SUITE_P(
    Seed004, QosTest,
    ::testing::Values(
        QosCase{"nothing_set", {{}}, QosClass::kBestEffort},
        QosCase{"zeros_are_unset", {{0, 0, 0, 0}}, QosClass::kBestEffort},
        QosCase{"requests_equal_limits", {{500, 500, kMi, kMi}}, QosClass::kGuaranteed},
        QosCase{"limits_only_default_requests",
                {{std::nullopt, 500, std::nullopt, kMi}},
                QosClass::kGuaranteed},
        QosCase{"request_below_limit", {{250, 500, kMi, kMi}}, QosClass::kBurstable},
        QosCase{"no_cpu_limit", {{500, std::nullopt, kMi, kMi}}, QosClass::kBurstable},
        QosCase{"request_only",
                {{100, std::nullopt, std::nullopt, std::nullopt}},
                QosClass::kBurstable},
        QosCase{"one_container_short",
                {{500, 500, kMi, kMi}, {std::nullopt, std::nullopt, std::nullopt, std::nullopt}},
                QosClass::kBurstable},
        QosCase{"all_guaranteed", {{500, 500, kMi, kMi}, {1, 1, 1, 1}}, QosClass::kGuaranteed}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(MemoryPressureRankTest, KubeletsOrder) {
  const std::vector<MemoryPressurePod> pods = {
      {{"ns", "guaranteed"}, 0, 500 * kMi, 1024 * kMi},        // under its request
      {{"ns", "besteffort"}, 0, 100 * kMi, 0},                 // 100Mi above a zero request
      {{"ns", "over-high-prio"}, 1000, 500 * kMi, 100 * kMi},  // 400Mi above, priority 1000
      {{"ns", "under-low-prio"}, -10, 100 * kMi, 500 * kMi},
      {{"ns", "over"}, 0, 300 * kMi, 100 * kMi},  // 200Mi above
  };
  std::vector<std::string> order;
  for (size_t i : RankForMemoryPressure(pods)) order.push_back(pods[i].name);
  // Exceeding requests first; then lower priority; then more above request.
  EXPECT_THAT(order,
              ElementsAre("over", "besteffort", "over-high-prio", "under-low-prio", "guaranteed"));
}

TEST(MemoryPressureRankTest, TiesKeepNameOrder) {
  const std::vector<MemoryPressurePod> pods = {{{"b", "x"}, 0, 2, 1}, {{"a", "y"}, 0, 2, 1}};
  EXPECT_THAT(RankForMemoryPressure(pods), ElementsAre(1u, 0u));
}

}  // namespace
}  // namespace headroom
