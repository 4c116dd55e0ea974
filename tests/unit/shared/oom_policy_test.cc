#include "shared/oom_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'700'000'000);

OomEvent Event(const char* container_id, const char* pod, absl::Duration after) {
  return {container_id, pod, kT0 + after, 512 << 20};
}

TEST(OomPolicyTest, FirstOomIsRecordedAndEvicts) {
  OomCooldownTracker tracker;
  const OomDecision decision = tracker.Evaluate(Event("c1", "web-1", {}), {});
  EXPECT_TRUE(decision.record);
  EXPECT_TRUE(decision.evict);
  EXPECT_EQ(decision.reason.code, "OomKilled");
}

TEST(OomPolicyTest, CooldownIsPerContainerAndPodName) {
  OomCooldownTracker tracker;  // 5 minute cooldown
  ASSERT_TRUE(tracker.Evaluate(Event("c1", "web-1", {}), {}).evict);
  // Same instance again within the cooldown: ignored entirely (not even recorded).
  OomDecision again = tracker.Evaluate(Event("c1", "web-1", absl::Minutes(2)), {});
  EXPECT_FALSE(again.record);
  EXPECT_FALSE(again.evict);
  EXPECT_EQ(again.reason.code, "CooldownActive");
  // A recreated pod (new name) or another container is watched on its own.
  EXPECT_TRUE(tracker.Evaluate(Event("c1", "web-2", absl::Minutes(2)), {}).evict);
  EXPECT_TRUE(tracker.Evaluate(Event("c2", "web-1", absl::Minutes(2)), {}).evict);
  // After the cooldown the first instance counts again.
  EXPECT_TRUE(tracker.Evaluate(Event("c1", "web-1", absl::Minutes(5)), {}).evict);
}

TEST(OomPolicyTest, IgnoredEventsDoNotExtendTheCooldown) {
  OomCooldownTracker tracker;
  ASSERT_TRUE(tracker.Evaluate(Event("c1", "p", {}), {}).evict);
  ASSERT_FALSE(tracker.Evaluate(Event("c1", "p", absl::Minutes(4)), {}).evict);
  EXPECT_TRUE(tracker.Evaluate(Event("c1", "p", absl::Minutes(5)), {}).evict);
}

struct GuardCase {
  const char* name;
  OomGuards guards;
  const char* code;
};

class OomGuardTest : public ::testing::TestWithParam<GuardCase> {};

TEST_P(OomGuardTest, RecordsButDoesNotEvict) {
  OomCooldownTracker tracker;
  const OomDecision decision = tracker.Evaluate(Event("c", "p", {}), GetParam().guards);
  EXPECT_TRUE(decision.record);
  EXPECT_FALSE(decision.evict);
  EXPECT_EQ(decision.reason.code, GetParam().code);
}

INSTANTIATE_TEST_SUITE_P(
    Seed000Flow, OomGuardTest,
    ::testing::Values(
        GuardCase{"memory_disabled", {true, false, false}, "MemoryApplicationDisabled"},
        GuardCase{"excluded", {false, true, false}, "PodExcluded"},
        GuardCase{"workload_disabled", {false, false, true}, "WorkloadDisabled"},
        // The flow checks in order: memory setting, exclusion, then workload.
        GuardCase{"all", {true, true, true}, "MemoryApplicationDisabled"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(OomPolicyTest, TrackingIsBoundedByTheCooldown) {
  OomCooldownTracker tracker;
  for (int i = 0; i < 1000; ++i) {
    tracker.Evaluate(Event("c", ("pod-" + std::to_string(i)).c_str(), absl::Seconds(i)), {});
  }
  // Only pods OOM-killed within the last 5 minutes are still tracked.
  EXPECT_EQ(tracker.tracked(), 300u);
}

}  // namespace
}  // namespace headroom
