// The runtime resources an update leaves and the log line a change writes.

#include "kubelet-hook/nri_resources.h"

#include <string>

#include "gtest/gtest.h"
#include "nri/v1alpha1/api.pb.h"

namespace headroom::nri {
namespace {

constexpr int64_t kMi = 1024 * 1024;

TEST(DescribeContainerChange, EscapesNamesFromThePodSpec) {
  TrackedContainer container;
  container.pod_namespace = "shop";
  container.pod_name = "web\n[2026-11-24 00:00:00.000] [info] forged";
  container.name = "app";
  container.stats_key = "shop/Deployment/web#app";
  ResourcePlan plan;
  plan.cpu_quota = -1;
  const std::string line = DescribeContainerChange(container, {512, 50000, 100000, 64 * kMi}, plan);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_NE(line.find("shop/web\\x0a[2026-11-24"), std::string::npos) << line;
  EXPECT_NE(line.find(" container app (shop/Deployment/web#app): "), std::string::npos) << line;
}

TEST(WithResources, TakesWhatTheUpdateSetAndKeepsTheRest) {
  napi::LinuxResources applied;
  applied.mutable_cpu()->mutable_quota()->set_value(-1);
  applied.mutable_memory()->mutable_limit()->set_value(64 * kMi);
  const RuntimeResources after = WithResources({512, 50000, 100000, 32 * kMi}, applied);
  EXPECT_EQ(after.cpu_shares, 512u);
  EXPECT_EQ(after.cpu_quota, -1);
  EXPECT_EQ(after.cpu_period, 100000u);
  EXPECT_EQ(after.memory_limit_bytes, 64 * kMi);
}

}  // namespace
}  // namespace headroom::nri
