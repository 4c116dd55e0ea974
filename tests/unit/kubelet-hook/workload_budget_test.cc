// headroom-nri's workload cap follows its memory budget.

#include "kubelet-hook/workload_budget.h"

#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

constexpr int64_t kMi = int64_t{1} << 20;

TEST(MemoryBudgetBytes, TheFlagElseAShareOfTheLimitElseTheDefault) {
  EXPECT_EQ(MemoryBudgetBytes(64 * kMi, 128 * kMi), 64 * kMi);
  EXPECT_EQ(MemoryBudgetBytes(std::nullopt, 128 * kMi), 96 * kMi);
  EXPECT_EQ(MemoryBudgetBytes(std::nullopt, 512 * kMi), 384 * kMi);
  EXPECT_EQ(MemoryBudgetBytes(std::nullopt, std::nullopt), 96 * kMi);
}

TEST(RetentionForBudget, FortyKibPerWorkloadContainerWithAFloor) {
  EXPECT_EQ(RetentionForBudget(96 * kMi, absl::Hours(24)).max_workloads, 2457u);
  EXPECT_EQ(RetentionForBudget(384 * kMi, absl::Hours(24)).max_workloads, 9830u);
  // Too small a budget still holds a full node's running containers.
  EXPECT_EQ(RetentionForBudget(1 * kMi, absl::Hours(24)).max_workloads, kMinWorkloadContainers);
  EXPECT_EQ(RetentionForBudget(-1, absl::Hours(24)).max_workloads, kMinWorkloadContainers);
  EXPECT_EQ(RetentionForBudget(96 * kMi, absl::Hours(6)).idle, absl::Hours(6));
}

}  // namespace
}  // namespace headroom::nri
