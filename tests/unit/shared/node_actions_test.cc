// The one actuation path (shared/node_actions.h) the actuator and the simulator share:
// optimisation, guard rails, resize threshold, disruption policy.

#include "shared/node_actions.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom {
namespace {

constexpr int64_t kMi = 1 << 20;
const absl::Time kNow = absl::FromUnixSeconds(1'795'331'119);

// One pod of a three-replica ReplicaSet, declared 1 CPU / 512Mi / limit 1Gi and running at it.
PodState Pod(std::string name, int64_t cpu_base, int64_t cpu_peak, int64_t memory_base,
             int64_t memory_peak, absl::Duration history = absl::Hours(30)) {
  PodState pod;
  pod.demand.pod_namespace = "ns";
  pod.demand.name = std::move(name);
  pod.demand.requests = {1000, 512 * kMi};
  ContainerDemand container;
  container.name = "app";
  container.cpu = CpuStats{cpu_base, cpu_peak};
  container.memory = MemoryStats{memory_base, memory_peak, memory_peak, 0};
  container.history = history;
  pod.demand.containers = {container};
  ContainerState state;
  state.declared = {1000, 512 * kMi, 1024 * kMi};
  state.current = state.declared;
  pod.containers = {state};
  pod.allow_below_declared = true;
  pod.disruption.owner_kind = "ReplicaSet";
  pod.disruption.workload_pods = 3;
  pod.disruption.workload_ready = 3;
  return pod;
}

NodeActions Plan(const std::vector<PodState>& pods, ResourceAmounts allocatable,
                 SustainedConditions& cpu_over, absl::Time now = kNow) {
  absl::StatusOr<NodeActions> actions =
      PlanNodeActions("n1", allocatable, pods, now, ActionConfig{}, cpu_over);
  EXPECT_TRUE(actions.ok()) << actions.status();
  return actions.ok() ? *std::move(actions) : NodeActions{};
}

TEST(PlanNodeActions, ResizesThroughTheGuardRailsAndTheThreshold) {
  SustainedConditions cpu_over(absl::Minutes(15));
  // a: 30 h of history, shrinks one bounded step. b: 10 s old, untouched. c: within 10%.
  const NodeActions actions = Plan({Pod("a", 200, 200, 100 * kMi, 100 * kMi),
                                    Pod("b", 200, 200, 100 * kMi, 100 * kMi, absl::Seconds(10)),
                                    Pod("c", 950, 950, 500 * kMi, 500 * kMi)},
                                   {8000, 8192 * kMi}, cpu_over);
  ASSERT_EQ(actions.resizes.size(), 1u);
  EXPECT_EQ(actions.resizes[0].pod, 0u);
  const ContainerChange& change = actions.resizes[0].containers[0];
  EXPECT_EQ(change.after.cpu_request_millis, 500);
  EXPECT_EQ(change.after.memory_request_bytes, 256 * kMi);
  EXPECT_EQ(change.last_shrink.cpu_request, kNow);
  EXPECT_THAT(actions.resizes[0].message, ::testing::HasSubstr("cpu request 1 -> 500m"));
  ASSERT_EQ(actions.skipped.size(), 2u);
  EXPECT_THAT(actions.skipped[0].why, ::testing::HasSubstr("warm-up"));
  EXPECT_THAT(actions.skipped[1].why, ::testing::HasSubstr("within 10%"));
}

TEST(PlanNodeActions, AWarmingUpPodGrowsToMemoryEvidenceOnly) {
  SustainedConditions cpu_over(absl::Minutes(15));
  // Three pods 10 s old, warming up. "stalled" had a sustained memory stall at 900Mi: its
  // request rises to 900Mi and its limit to 1.25 x 900Mi, nothing else moves. "killed" was
  // OOM-killed at 1000Mi: its limit doubles that. "quiet" has no evidence and is skipped.
  std::vector<PodState> pods = {Pod("stalled", 200, 200, 100 * kMi, 900 * kMi, absl::Seconds(10)),
                                Pod("killed", 200, 200, 100 * kMi, 900 * kMi, absl::Seconds(10)),
                                Pod("quiet", 200, 200, 100 * kMi, 900 * kMi, absl::Seconds(10))};
  pods[0].demand.containers[0].memory->pressure_bytes = 900 * kMi;
  pods[0].containers[0].memory_in_use_bytes = 900 * kMi;
  pods[1].demand.containers[0].memory->oom_bytes = 1000 * kMi;
  const NodeActions actions = Plan(pods, {8000, 8192 * kMi}, cpu_over);
  ASSERT_EQ(actions.resizes.size(), 2u);
  const SizedValues& stalled = actions.resizes[0].containers[0].after;
  EXPECT_EQ(actions.resizes[0].pod, 0u);
  EXPECT_EQ(stalled.cpu_request_millis, 1000);  // declared, kept while warming up
  EXPECT_EQ(stalled.memory_request_bytes, 900 * kMi);
  EXPECT_EQ(stalled.memory_limit_bytes, 1125 * kMi);
  EXPECT_THAT(actions.resizes[0].message, ::testing::HasSubstr("memory evidence while warming up"));
  const SizedValues& killed = actions.resizes[1].containers[0].after;
  EXPECT_EQ(actions.resizes[1].pod, 1u);
  EXPECT_EQ(killed.cpu_request_millis, 1000);
  EXPECT_EQ(killed.memory_request_bytes, 512 * kMi);
  EXPECT_EQ(killed.memory_limit_bytes, 2000 * kMi);
  ASSERT_EQ(actions.skipped.size(), 1u);
  EXPECT_EQ(actions.skipped[0].pod, 2u);
  EXPECT_THAT(actions.skipped[0].why, ::testing::HasSubstr("warm-up"));
  // A pod the caller may not resize is not resized for evidence either.
  pods[0].resize_blocked_by = "mode observe";
  pods[1].resize_blocked_by = "mode observe";
  const NodeActions blocked = Plan(pods, {8000, 8192 * kMi}, cpu_over);
  EXPECT_TRUE(blocked.resizes.empty());
}

TEST(PlanNodeActions, ProtectedPodsAreNeverChosenAndAnotherGoesInstead) {
  SustainedConditions cpu_over(absl::Minutes(15));
  // Memory: 300 + 300 + 300 Mi base + 300 Mi headroom > 1000 Mi: one pod must go. "a" has the
  // largest headroom, but is the last ready replica; "b" is a StatefulSet pod; "c" goes.
  std::vector<PodState> pods = {Pod("a", 100, 100, 300 * kMi, 600 * kMi),
                                Pod("b", 100, 100, 300 * kMi, 550 * kMi),
                                Pod("c", 100, 100, 300 * kMi, 500 * kMi)};
  pods[0].disruption.workload_ready = 1;
  pods[1].disruption.owner_kind = "StatefulSet";
  NodeActions actions = Plan(pods, {8000, 1000 * kMi}, cpu_over);
  ASSERT_EQ(actions.evictions.size(), 1u);
  EXPECT_EQ(actions.evictions[0].pod, 2u);
  // With every pod protected, nothing goes and the shortfall says so.
  pods[2].disruption.workload_pods = 1;
  actions = Plan(pods, {8000, 1000 * kMi}, cpu_over);
  EXPECT_TRUE(actions.evictions.empty());
  ASSERT_TRUE(actions.optimization.memory.shortfall.has_value());
  EXPECT_EQ(actions.optimization.memory.shortfall->code, "ProtectedPodsDoNotFit");
}

TEST(PlanNodeActions, NeverTwoReplicasOfOneWorkloadWhenThatLeavesNoneReady) {
  SustainedConditions cpu_over(absl::Minutes(15));
  // Memory 3 x 300Mi + 100Mi + 300Mi headroom > 900Mi: the optimisation gives up a, then b.
  // a and b are the two ready replicas of one workload: only a goes this round; b is kept as
  // its workload's remaining replica (the next round plans without a, and b is protected).
  std::vector<PodState> pods = {
      Pod("a", 100, 100, 300 * kMi, 600 * kMi), Pod("b", 100, 100, 300 * kMi, 600 * kMi),
      Pod("c", 100, 100, 300 * kMi, 400 * kMi), Pod("d", 100, 100, 100 * kMi, 100 * kMi)};
  for (PodState& pod : pods) pod.disruption.workload = "ns/ReplicaSet/" + pod.demand.name;
  pods[0].disruption.workload = pods[1].disruption.workload = "ns/ReplicaSet/web";
  pods[0].disruption.workload_pods = pods[1].disruption.workload_pods = 2;
  pods[0].disruption.workload_ready = pods[1].disruption.workload_ready = 2;
  const NodeActions actions = Plan(pods, {8000, 900 * kMi}, cpu_over);
  std::vector<size_t> evicted;
  for (const PlannedPodEviction& e : actions.evictions) evicted.push_back(e.pod);
  EXPECT_THAT(evicted, ::testing::ElementsAre(0u));
  bool kept_b = false;
  for (const SkippedPodAction& s : actions.skipped) {
    kept_b = kept_b || (s.pod == 1 && s.why.find("replica") != std::string::npos);
  }
  EXPECT_TRUE(kept_b);
}

TEST(PlanNodeActions, ATerminatingPodIsNotCountedNorSizedNorEvicted) {
  SustainedConditions cpu_over(absl::Minutes(15));
  // Without "gone" (terminating) the node fits: nothing else is evicted on its account.
  std::vector<PodState> pods = {Pod("gone", 100, 100, 600 * kMi, 700 * kMi),
                                Pod("a", 100, 100, 300 * kMi, 400 * kMi)};
  pods[0].disruption.terminating = true;
  const NodeActions actions = Plan(pods, {8000, 800 * kMi}, cpu_over);
  EXPECT_TRUE(actions.evictions.empty());
  for (const PlannedPodResize& r : actions.resizes) EXPECT_NE(r.pod, 0u);
  ASSERT_FALSE(actions.skipped.empty());
  EXPECT_EQ(actions.skipped[0].pod, 0u);
  EXPECT_EQ(actions.skipped[0].why, "terminating");
}

TEST(PlanNodeActions, CpuEvictsOnlyWhenTheBasesStayOverForTheSustainedPeriod) {
  SustainedConditions cpu_over(absl::Minutes(15));
  // A short shared headroom (bases 2 x 1500m fit 4 cores, + 3000m headroom do not): never.
  const std::vector<PodState> short_headroom = {Pod("a", 1500, 4500, 10 * kMi, 10 * kMi),
                                                Pod("b", 1500, 4500, 10 * kMi, 10 * kMi)};
  for (int minute = 0; minute <= 60; minute += 5) {
    EXPECT_TRUE(Plan(short_headroom, {4000, 8192 * kMi}, cpu_over, kNow + absl::Minutes(minute))
                    .evictions.empty());
  }
  // Bases over the CPU (2 x 3000m > 4 cores): only after 15 minutes without a break.
  const std::vector<PodState> over = {Pod("a", 3000, 3000, 10 * kMi, 10 * kMi),
                                      Pod("b", 3000, 3000, 10 * kMi, 10 * kMi)};
  const absl::Time later = kNow + absl::Hours(2);
  EXPECT_TRUE(Plan(over, {4000, 8192 * kMi}, cpu_over, later).evictions.empty());
  EXPECT_TRUE(
      Plan(over, {4000, 8192 * kMi}, cpu_over, later + absl::Minutes(10)).evictions.empty());
  EXPECT_EQ(Plan(over, {4000, 8192 * kMi}, cpu_over, later + absl::Minutes(15)).evictions.size(),
            1u);
}

TEST(PlanNodeActions, MismatchedContainerStatesAreRefused) {
  SustainedConditions cpu_over(absl::Minutes(15));
  PodState pod = Pod("a", 100, 100, kMi, kMi);
  pod.containers.clear();
  EXPECT_FALSE(PlanNodeActions("n1", {1000, kMi}, {pod}, kNow, {}, cpu_over).ok());
}

TEST(MovedEnough, Table) {
  EXPECT_FALSE(MovedEnough(100, 105, 0.1));
  EXPECT_TRUE(MovedEnough(100, 110, 0.1));
  EXPECT_TRUE(MovedEnough(100, 89, 0.1));
  EXPECT_TRUE(MovedEnough(std::nullopt, 1, 0.1));
  EXPECT_TRUE(MovedEnough(1, std::nullopt, 0.1));
  EXPECT_FALSE(MovedEnough(std::nullopt, std::nullopt, 0.1));
  EXPECT_TRUE(MovedEnough(0, 1, 0.1));
  // The absolute step: both must hold.
  EXPECT_FALSE(MovedEnough(100, 120, 0.1, 25));  // 20% but 20m
  EXPECT_TRUE(MovedEnough(100, 125, 0.1, 25));
  EXPECT_TRUE(MovedEnough(100, 75, 0.1, 25));
  EXPECT_FALSE(MovedEnough(1000, 1050, 0.1, 25));  // 50m but 5%
  EXPECT_TRUE(MovedEnough(std::nullopt, 1, 0.1, 25));
  EXPECT_TRUE(MovedEnough(0, 1, 0.1, 25));
}

struct WorthCase {
  const char* name;
  SizedValues before;
  SizedValues after;
  bool worth;
};

class ResizeWorthMakingTest : public ::testing::TestWithParam<WorthCase> {};

TEST_P(ResizeWorthMakingTest, FractionAndAbsoluteStep) {
  EXPECT_EQ(ResizeWorthMaking(GetParam().before, GetParam().after, ResizeThreshold{}),
            GetParam().worth);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ResizeWorthMakingTest,
    ::testing::Values(
        WorthCase{"Unchanged", {100, 256 * kMi, 512 * kMi}, {100, 256 * kMi, 512 * kMi}, false},
        WorthCase{
            "SmallCpuByFraction", {40, 256 * kMi, 512 * kMi}, {50, 256 * kMi, 512 * kMi}, false},
        WorthCase{"CpuByBoth", {100, 256 * kMi, 512 * kMi}, {130, 256 * kMi, 512 * kMi}, true},
        WorthCase{
            "SmallMemoryRequest", {100, 200 * kMi, 512 * kMi}, {100, 250 * kMi, 512 * kMi}, false},
        WorthCase{
            "MemoryRequestByBoth", {100, 200 * kMi, 512 * kMi}, {100, 270 * kMi, 512 * kMi}, true},
        WorthCase{
            "LimitRisesAtAll", {100, 256 * kMi, 512 * kMi}, {100, 256 * kMi, 513 * kMi}, true},
        WorthCase{
            "SmallLimitDrop", {100, 256 * kMi, 512 * kMi}, {100, 256 * kMi, 460 * kMi}, false},
        WorthCase{
            "LimitDropByBoth", {100, 256 * kMi, 512 * kMi}, {100, 256 * kMi, 440 * kMi}, true}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(SizeNewContainer, PeakThroughTheGuardRails) {
  UsageSnapshot stats;
  stats.cpu = CpuStats{100, 350, 200};
  stats.memory = MemoryStats{64 * kMi, 96 * kMi, 120 * kMi, 0};
  stats.history = absl::Hours(30);
  const SizedValues declared{1000, 1024 * kMi, 2048 * kMi};
  GuardRailConfig lowering;
  lowering.allow_memory_limit_below_declared = true;
  GuardResult sized = SizeNewContainer(stats, declared, true, {}, lowering);
  // requests = the peak; limit = 2 x 120Mi, raised to the 250Mi floor; no steps at creation.
  EXPECT_EQ(sized.values, (SizedValues{350, 96 * kMi, 250 * kMi}));
  sized = SizeNewContainer(stats, declared, false, {}, lowering);
  EXPECT_EQ(sized.values, (SizedValues{1000, 1024 * kMi, 1024 * kMi}));
  // By default the limit keeps the declared 2Gi.
  sized = SizeNewContainer(stats, declared, true, {}, GuardRailConfig{});
  EXPECT_EQ(sized.values, (SizedValues{350, 96 * kMi, 2048 * kMi}));
  stats.history = absl::Hours(2);
  sized = SizeNewContainer(stats, declared, true, {}, GuardRailConfig{});
  EXPECT_TRUE(sized.warming_up);
  EXPECT_EQ(sized.values, declared);
}

TEST(SizeAtRuntime, TheNodePluginsValuesThroughTheGuardRails) {
  GuardInput input;
  input.declared = {250, std::nullopt, 100 * kMi};
  input.current = input.declared;
  input.proposed.cpu_request_millis = 10;
  std::optional<MemoryStats> memory = MemoryStats{kMi, kMi, 2 * kMi, 0};
  input.memory_in_use_bytes = kMi;
  input.allow_below_declared = true;
  input.now = kNow;
  input.history = absl::Seconds(10);  // warming up: the declared values
  EXPECT_EQ(SizeAtRuntime(input, memory, {}).values, (SizedValues{250, std::nullopt, 100 * kMi}));
  // Warm: one bounded step for the weight; the limit rises to its 250Mi floor at once.
  input.history = absl::Hours(30);
  EXPECT_EQ(SizeAtRuntime(input, memory, {}).values, (SizedValues{125, std::nullopt, 250 * kMi}));
  input.running = false;  // a restart: no step
  EXPECT_EQ(SizeAtRuntime(input, memory, {}).values, (SizedValues{25, std::nullopt, 250 * kMi}));
  input.proposed.cpu_request_millis.reset();  // not sized yet: the weight is left alone
  memory->oom_bytes = 200 * kMi;
  EXPECT_EQ(SizeAtRuntime(input, memory, {}).values, (SizedValues{250, std::nullopt, 400 * kMi}));
}

}  // namespace
}  // namespace headroom
