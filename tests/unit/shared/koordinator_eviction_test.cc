#include "shared/koordinator_eviction.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::ElementsAre;

KoordPod Pod(std::string name, int32_t priority, int64_t usage, int64_t request = 0,
             bool enabled = true, bool best_effort = false) {
  KoordPod pod;
  pod.pod_namespace = "ns";
  pod.name = std::move(name);
  pod.priority = priority;
  pod.cpu_usage_millis = usage;
  pod.cpu_request_millis = request;
  pod.eviction_enabled = enabled;
  pod.best_effort = best_effort;
  return pod;
}

std::vector<std::string> Names(const KoordNode& node, const KoordDecision& decision) {
  std::vector<std::string> names;
  for (const KoordEviction& e : decision.evictions) names.push_back(node.pods[e.pod].name);
  return names;
}

TEST(CpuEvictTest, EvictsLowerPriorityThenHigherUsageDownToTheLowerWatermark) {
  KoordNode node{"n1", 10'000, 7'000, 0, 0, {}};
  node.pods = {Pod("a", 5000, 1000), Pod("b", 5000, 500), Pod("c", 3000, 200),
               Pod("d", 7000, 3000),                        // above the priority threshold
               Pod("e", 1000, 900, 0, /*enabled=*/false)};  // not opted in
  KoordPod f = Pod("f", 5000, 2000);
  f.allowed_strategies = std::vector<KoordStrategy>{KoordStrategy::kBeCpuEvict};
  node.pods.push_back(f);
  CpuEvictConfig config;
  config.threshold_percent = 60;
  config.evict_enabled_priority_threshold = 5999;
  // 7000m > 60% of 10 cores; release down to 58% (the default lower): 7000 - 5800 = 1200m.
  const KoordDecision decision = EvaluateCpuEvict(node, config);
  EXPECT_TRUE(decision.triggered);
  EXPECT_EQ(decision.to_release_millis, 1200);
  EXPECT_THAT(Names(node, decision), ElementsAre("c", "a"));
  EXPECT_EQ(decision.released_millis, 1200);
  EXPECT_EQ(decision.reason.code, "CpuUsageAboveThreshold");
  EXPECT_EQ(decision.evictions[0].reason.code, "CPUEvictEviction");
  EXPECT_THAT(decision.evictions[0].reason.message, ::testing::HasSubstr("trigger by CPUEvict"));
}

TEST(CpuEvictTest, AtTheThresholdNothingHappens) {
  KoordNode node{"n1", 10'000, 6'000, 0, 0, {Pod("a", 0, 6000)}};
  CpuEvictConfig config;
  config.threshold_percent = 60;
  const KoordDecision decision = EvaluateCpuEvict(node, config);
  EXPECT_FALSE(decision.triggered);
  EXPECT_EQ(decision.reason.code, "BelowThreshold");
  EXPECT_TRUE(decision.evictions.empty());
}

TEST(CpuEvictTest, SubPriorityBreaksTies) {
  KoordNode node{"n1", 1000, 1000, 0, 0, {}};
  KoordPod low = Pod("low", 100, 10);
  low.sub_priority = 1;
  KoordPod high = Pod("high", 100, 500);
  high.sub_priority = 9;
  node.pods = {high, low, Pod("unlabelled", 100, 900)};
  CpuEvictConfig config;
  config.threshold_percent = 50;
  config.lower_percent = 0;
  config.evict_enabled_priority_threshold = 1000;
  EXPECT_THAT(Names(node, EvaluateCpuEvict(node, config)),
              ElementsAre("low", "high", "unlabelled"));
}

TEST(CpuEvictTest, SaysWhenEligiblePodsAreNotEnough) {
  KoordNode node{"n1", 1000, 1000, 0, 0, {Pod("a", 0, 100)}};
  CpuEvictConfig config;
  config.threshold_percent = 50;
  config.evict_enabled_priority_threshold = 10;
  const KoordDecision decision = EvaluateCpuEvict(node, config);
  EXPECT_EQ(decision.reason.code, "NotEnoughEvictablePods");
  EXPECT_EQ(decision.evictions.size(), 1u);
}

TEST(BeCpuEvictTest, RestoresSatisfactionAboveTheUpperPercent) {
  // Allowance 2 cores for 4 cores of BE requests: satisfaction 50% < 60%; BE usage 2 cores =
  // 100% >= 90%. Keep at most 2000 x 100 / 80 = 2500m of requests: release 1500m.
  KoordNode node{"n1", 8000, 7000, 2000, 0, {}};
  node.pods = {Pod("p1", 0, 900, 2000, false, true), Pod("p2", 0, 1000, 1500, false, true),
               Pod("p3", 0, 100, 500, false, true), Pod("ls", 9000, 3000, 3000, false, false)};
  BeCpuEvictConfig config{60, 80, 90};
  ASSERT_THAT(config.Validate(), IsOk());
  const KoordDecision decision = EvaluateBeCpuEvict(node, config);
  EXPECT_TRUE(decision.triggered);
  EXPECT_EQ(decision.to_release_millis, 1500);
  EXPECT_THAT(Names(node, decision), ElementsAre("p2"));  // highest usage first
  EXPECT_THAT(decision.reason.message, ::testing::HasSubstr("BE satisfaction 50.0%"));
}

TEST(BeCpuEvictTest, LowUtilisationDoesNotTrigger) {
  KoordNode node{"n1", 8000, 2000, 2000, 0, {Pod("p1", 0, 100, 4000, false, true)}};
  const KoordDecision decision = EvaluateBeCpuEvict(node, BeCpuEvictConfig{60, 80, 90});
  EXPECT_FALSE(decision.triggered);
  EXPECT_EQ(decision.reason.code, "BeSatisfactionAcceptable");
}

TEST(CpuAllocatableEvictTest, EvictsByPriorityThenLargerRequest) {
  // Requests 5000m against 4000m allocatable: 125% > 110%; down to 100%: release 1000m.
  KoordNode node{"n1", 8000, 0, 0, 4000, {}};
  node.pods = {Pod("x", 5000, 0, 3000, true, true), Pod("y", 5000, 0, 1500, true, true),
               Pod("z", 4000, 0, 500, true, true)};
  const KoordDecision decision = EvaluateCpuAllocatableEvict(node, {110, 100, 5999});
  EXPECT_TRUE(decision.triggered);
  EXPECT_EQ(decision.to_release_millis, 1000);
  EXPECT_THAT(Names(node, decision), ElementsAre("z", "x"));
}

TEST(CpuAllocatableEvictTest, AZeroBatchAccountEvictsEveryEligiblePod) {
  // The seed's walk-through: the batch CPU account set to zero.
  KoordNode node{"n1", 8000, 0, 0, 0, {Pod("x", 10, 0, 300, true, true)}};
  const KoordDecision decision = EvaluateCpuAllocatableEvict(node, {110, 100, 5999});
  EXPECT_THAT(Names(node, decision), ElementsAre("x"));
}

TEST(CpuAllocatableEvictTest, TheThresholdIsExactNotRounded) {
  // 50% of 12345m is 6172.5m: 6173m of requests is above it.
  KoordNode node{"n1", 8000, 0, 0, 12345, {Pod("x", 10, 0, 6173, true, true)}};
  EXPECT_TRUE(EvaluateCpuAllocatableEvict(node, {50, 40, 5999}).triggered);
  node.pods[0].cpu_request_millis = 6172;
  EXPECT_FALSE(EvaluateCpuAllocatableEvict(node, {50, 40, 5999}).triggered);
}

TEST(KoordConfigTest, ValidatesTheSeedsRanges) {
  EXPECT_THAT((BeCpuEvictConfig{70, 80, 90}.Validate()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("cpuEvictBESatisfactionLowerPercent")));
  EXPECT_THAT((BeCpuEvictConfig{60, 50, 90}.Validate()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("cpuEvictBESatisfactionUpperPercent")));
  CpuEvictConfig cpu;
  cpu.threshold_percent = 60;
  cpu.lower_percent = 70;
  EXPECT_THAT(cpu.Validate(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       ::testing::HasSubstr("cpuEvictLowerPercent")));
  EXPECT_THAT((CpuAllocatableEvictConfig{90, 100, 0}.Validate()),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::HasSubstr("cpuAllocatableEvictThresholdPercent")));
}

}  // namespace
}  // namespace headroom
