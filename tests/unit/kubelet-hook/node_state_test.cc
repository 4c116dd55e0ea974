// headroom-nri's memory of workload containers is bounded: the statistics of a workload
// container none of whose containers runs on the node are forgotten after the retention, and
// the longest idle first once the budget's cap is reached; a running container's never.

#include "kubelet-hook/node_state.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1795331100);

// Tracks a running container of workload container `key`.
void TrackRunning(NodeState& state, const std::string& id, const std::string& key) {
  TrackedContainer container;
  container.id = id;
  container.name = "c";
  container.pod_id = "pod-" + id;
  container.stats_key = key;
  state.Upsert(container);
}

void Sample(NodeState& state, const std::string& key, absl::Time at) {
  state.AddCpuSample(key, at, 100);
  state.AddMemorySample(key, at, 1 << 20);
}

bool Known(const NodeState& state, const std::string& key, absl::Time now) {
  return state.History(key, now) > absl::ZeroDuration() || state.SizedCpu(key).has_value();
}

TEST(ForgetWorkloads, IdleBeyondTheRetentionIsForgottenARunningOneNever) {
  NodeState state;
  const WorkloadRetention retention{absl::Hours(24), 100};
  Sample(state, "ns/Job/done#c", kStart);
  Sample(state, "ns/Deployment/web#c", kStart);
  TrackRunning(state, "c1", "ns/Deployment/web#c");
  // The first round marks both: the finished Job's idle time counts from here.
  EXPECT_EQ(state.ForgetWorkloads(kStart, retention).total(), 0u);
  EXPECT_EQ(state.ForgetWorkloads(kStart + absl::Hours(24), retention).total(), 0u);
  const ForgottenWorkloads later =
      state.ForgetWorkloads(kStart + absl::Hours(24) + absl::Minutes(1), retention);
  EXPECT_EQ(later.idle, 1u);
  EXPECT_EQ(later.over_budget, 0u);
  EXPECT_EQ(state.workload_count(), 1u);
  EXPECT_TRUE(Known(state, "ns/Deployment/web#c", kStart + absl::Hours(25)));
  // A workload container seen running again starts its idle time anew.
  state.Remove("c1");
  EXPECT_EQ(state.ForgetWorkloads(kStart + absl::Hours(48), retention).total(), 0u);
  EXPECT_EQ(state.ForgetWorkloads(kStart + absl::Hours(72), retention).idle, 1u);
  EXPECT_EQ(state.workload_count(), 0u);
}

TEST(ForgetWorkloads, BeyondTheCapTheLongestIdleGoFirst) {
  NodeState state;
  const WorkloadRetention retention{absl::Hours(24), 3};
  // Five finished Jobs, one a minute, and one running Deployment.
  for (int i = 0; i < 5; ++i) {
    const absl::Time at = kStart + absl::Minutes(i);
    Sample(state, "ns/Job/run-" + std::to_string(i) + "#c", at);
    state.ForgetWorkloads(at, {absl::Hours(24), 100});
  }
  Sample(state, "ns/Deployment/web#c", kStart);
  TrackRunning(state, "c1", "ns/Deployment/web#c");
  const ForgottenWorkloads forgotten = state.ForgetWorkloads(kStart + absl::Minutes(10), retention);
  EXPECT_EQ(forgotten.idle, 0u);
  EXPECT_EQ(forgotten.over_budget, 3u);
  EXPECT_EQ(forgotten.live_over_budget, 0u);
  EXPECT_EQ(state.workload_count(), 3u);
  const absl::Time now = kStart + absl::Minutes(11);
  for (const char* gone : {"ns/Job/run-0#c", "ns/Job/run-1#c", "ns/Job/run-2#c"}) {
    EXPECT_FALSE(Known(state, gone, now)) << gone;
  }
  for (const char* kept : {"ns/Job/run-3#c", "ns/Job/run-4#c", "ns/Deployment/web#c"}) {
    EXPECT_TRUE(Known(state, kept, now)) << kept;
  }
}

TEST(ForgetWorkloads, RunningContainersAreKeptBeyondTheCapAndCounted) {
  NodeState state;
  for (int i = 0; i < 4; ++i) {
    const std::string key = "ns/Deployment/app-" + std::to_string(i) + "#c";
    Sample(state, key, kStart);
    TrackRunning(state, "c" + std::to_string(i), key);
  }
  const ForgottenWorkloads forgotten = state.ForgetWorkloads(kStart, {absl::Hours(24), 2});
  EXPECT_EQ(forgotten.total(), 0u);
  EXPECT_EQ(forgotten.live_over_budget, 2u);
  EXPECT_EQ(state.workload_count(), 4u);
}

TEST(ForgetWorkloads, TheIdleTimeSurvivesARestart) {
  NodeState before;
  Sample(before, "ns/Job/done#c", kStart);
  before.ForgetWorkloads(kStart, {absl::Hours(24), 100});
  const auto records = before.Records(kStart + absl::Hours(23));
  ASSERT_EQ(records.at("ns/Job/done#c").last_live, kStart);
  NodeState after;
  after.Restore(records);
  // Restarted 23 h later: the Job's 24 h run out one hour after, not 24 h after the restart.
  EXPECT_EQ(after.ForgetWorkloads(kStart + absl::Hours(23), {absl::Hours(24), 100}).total(), 0u);
  EXPECT_EQ(after.ForgetWorkloads(kStart + absl::Hours(25), {absl::Hours(24), 100}).idle, 1u);
}

// A tracked container as the optimisation and the report read it (TrackedDemand).
TEST(TrackedDemand, RuntimeValuesHistoryAndMemoryOnceItPeakedOrWasKilled) {
  TrackedContainer c;
  c.id = "c1";
  c.name = "app";
  c.stats_key = "ns/Deployment/web#app";
  c.declared = {512, std::nullopt, std::nullopt, 256 << 20};  // shares 512, limit 256Mi
  c.memory_usage_bytes = 48 << 20;
  struct Case {
    const char* name;
    bool cpu;
    bool memory;
    bool oom;
    bool want_memory;
  };
  for (const Case& k : {Case{"nothing recorded", false, false, false, false},
                        Case{"cpu only", true, false, false, false},
                        Case{"an OOM kill only", false, false, true, true},
                        Case{"memory sampled", true, true, false, true}}) {
    NodeState state;
    state.Upsert(c);
    const absl::Time now = kStart + absl::Hours(30);
    for (int h = 0; h <= 30; ++h) {  // one sample an hour
      if (k.cpu) state.AddCpuSample(c.stats_key, kStart + absl::Hours(h), 100);
      if (k.memory) state.AddMemorySample(c.stats_key, kStart + absl::Hours(h), 64 << 20);
    }
    if (k.oom) state.RecordOom(c.stats_key, now, 300 << 20);
    const ContainerDemand demand = TrackedDemand(state, c, now);
    EXPECT_EQ(demand.name, "app") << k.name;
    EXPECT_EQ(demand.declared_requests, (ResourceAmounts{500, 256 << 20})) << k.name;
    EXPECT_EQ(demand.declared_limits, (ResourceAmounts{0, 256 << 20})) << k.name;
    EXPECT_EQ(demand.memory_in_use_bytes, 48 << 20) << k.name;
    EXPECT_EQ(demand.cpu.has_value(), k.cpu) << k.name;
    EXPECT_EQ(demand.memory.has_value(), k.want_memory) << k.name;
    if (k.oom) EXPECT_EQ(demand.memory->oom_bytes, 300 << 20) << k.name;
  }
}

}  // namespace
}  // namespace headroom::nri
