// The simulator's accounting on scenarios small enough to compute by hand, its CPU sharing,
// its readers, and its determinism.

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shared/disruption_window.h"
#include "sim/cluster_simulator.h"
#include "sim/cpu_share.h"
#include "sim/cronjobs.h"
#include "sim/report.h"
#include "sim/trace_data.h"
#include "sim/usage_generator.h"
#include "tests/status_matchers.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kGi = 1LL << 30;

struct CpuCase {
  const char* name;
  int64_t capacity;
  std::vector<int64_t> demands;
  std::vector<int64_t> weights;
  std::vector<int64_t> granted;
};

class ShareCpuTest : public ::testing::TestWithParam<CpuCase> {};

TEST_P(ShareCpuTest, WeightedMaxMinFairness) {
  EXPECT_EQ(ShareCpu(GetParam().capacity, GetParam().demands, GetParam().weights),
            GetParam().granted);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ShareCpuTest,
    ::testing::Values(
        CpuCase{"no_contention", 4000, {1000, 2000}, {100, 100}, {1000, 2000}},
        CpuCase{"equal_weights", 1000, {800, 800}, {100, 100}, {500, 500}},
        CpuCase{"by_weight", 1000, {900, 900}, {300, 100}, {750, 250}},
        // The small pod takes 100; the other two share the remaining 900 equally.
        CpuCase{"leftover_redistributed", 1000, {100, 800, 800}, {1, 1, 1}, {100, 450, 450}},
        // Weight 0 counts as 2, the smallest CPU weight kubelet sets.
        CpuCase{"zero_weight", 1000, {1000, 1000}, {0, 2}, {500, 500}},
        CpuCase{"empty", 1000, {}, {}, {}}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// One node of 4 CPUs / 8 GiB, no autoscaling, no warm-up, one policy.
SimulationConfig FixedCluster(PolicyKind policy, int nodes = 1) {
  SimulationConfig config;
  config.node_shape = {"n", {4000, 8 * kGi}};
  config.initial_nodes = nodes;
  config.autoscale = false;
  config.warmup_minutes = 0;
  config.series_every_minutes = 1;
  config.policies = {policy};
  return config;
}

UsageTraces Traces(std::vector<std::vector<int64_t>> cpu,
                   std::vector<std::vector<int64_t>> memory) {
  UsageTraces traces;
  traces.minutes = static_cast<int>(cpu[0].size());
  traces.cpu_millis = std::move(cpu);
  traces.memory_bytes = std::move(memory);
  return traces;
}

TEST(SimulatorTest, AnOomIsCountedEachMinuteUsageIsAboveTheLimit) {
  // Declared 1 GiB with limit ratio 1: usage crosses it in minutes 2, 3 and 5.
  const std::vector<PodSpec> pods = {{"p", {1000, kGi}, "LS"}};
  const UsageTraces usage =
      Traces({{100, 100, 100, 100, 100, 100}}, {{kGi / 2, kGi, kGi + 1, 2 * kGi, kGi, kGi + 5}});
  const PolicyRun run =
      SimulatePolicy(PolicyKind::kStatic, pods, usage, FixedCluster(PolicyKind::kStatic));
  EXPECT_EQ(run.summary.oom_kills, 3);
}

TEST(SimulatorTest, CpuShortfallIsDemandTheNodeCouldNotGive) {
  // Two pods on a 4-CPU node: demands 3 + 3 = 6 cores for two minutes, then 1 + 1.
  // Shortfall = 2 cores x 2 minutes = 4 core-minutes of 16 core-minutes of demand.
  const std::vector<PodSpec> pods = {{"a", {1000, kGi}, "LS"}, {"b", {1000, kGi}, "LS"}};
  const UsageTraces usage = Traces({{3000, 3000, 1000, 1000}, {3000, 3000, 1000, 1000}},
                                   {{kGi, kGi, kGi, kGi}, {kGi, kGi, kGi, kGi}});
  const PolicyRun run =
      SimulatePolicy(PolicyKind::kStatic, pods, usage, FixedCluster(PolicyKind::kStatic));
  EXPECT_DOUBLE_EQ(run.summary.cpu_shortfall_core_hours, 4.0 / 60);
  EXPECT_DOUBLE_EQ(run.summary.cpu_shortfall_fraction, 4.0 / 16);
  EXPECT_DOUBLE_EQ(run.summary.used_cpu_millis, (4000 + 4000 + 2000 + 2000) / 4.0);
  EXPECT_DOUBLE_EQ(run.summary.cpu_utilisation, 3000.0 / 2000);  // used / requested
}

TEST(SimulatorTest, APodThatFitsNowhereIsPendingAndUnserved) {
  const std::vector<PodSpec> pods = {
      {"small", {1000, kGi}, "LS"}, {"huge", {3500, kGi}, "LS"}, {"more", {1000, kGi}, "LS"}};
  const UsageTraces usage = Traces({{500, 500, 500}, {2000, 2000, 2000}, {100, 100, 100}},
                                   {{kGi, kGi, kGi}, {kGi, kGi, kGi}, {kGi, kGi, kGi}});
  const PolicyRun run =
      SimulatePolicy(PolicyKind::kStatic, pods, usage, FixedCluster(PolicyKind::kStatic));
  // 1000m + 3500m exceeds 4 CPUs: "huge" waits all three minutes; "more" fits after "small".
  EXPECT_DOUBLE_EQ(run.summary.pending_pod_hours, 3.0 / 60);
  EXPECT_DOUBLE_EQ(run.summary.cpu_shortfall_core_hours, 3 * 2.0 / 60);
  ASSERT_FALSE(run.series.empty());
  EXPECT_EQ(run.series[0].pending, 1);
  EXPECT_EQ(run.series[0].requested_cpu_millis, 2000);
}

TEST(SimulatorTest, NodeMemoryPressureEvictsInKubeletsOrder) {
  // 8 GiB node; usage 5 + 4 GiB at minute 1. The best-effort pod and the pod above its
  // request go first: "be" (BE, above its 1 GiB request) is evicted, "ls" stays.
  const std::vector<PodSpec> pods = {{"ls", {1000, 6 * kGi}, "LS"}, {"be", {1000, kGi}, "BE"}};
  std::vector<int64_t> ls_memory(9, 4 * kGi);
  ls_memory[1] = 5 * kGi;
  std::vector<int64_t> be_memory(9, kGi);
  be_memory[1] = 4 * kGi;
  const UsageTraces usage =
      Traces({std::vector<int64_t>(9, 100), std::vector<int64_t>(9, 100)}, {ls_memory, be_memory});
  SimulationConfig config = FixedCluster(PolicyKind::kStatic);
  config.memory_limit_ratio = 8;  // no OOM kills: only node pressure
  const PolicyRun run = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_EQ(run.summary.pressure_evictions, 1);
  EXPECT_EQ(run.summary.oom_kills, 0);
  // Only "ls" remains placed: the node takes no new pods while under memory pressure.
  EXPECT_EQ(run.series[1].requested_memory_bytes, 6 * kGi);
  EXPECT_EQ(run.series[1].pending, 1);
  // kubelet's evictionPressureTransitionPeriod is 5 minutes: back on the node at minute 6.
  EXPECT_EQ(run.series[5].pending, 1);
  EXPECT_EQ(run.series[6].pending, 0);
  EXPECT_EQ(run.series[6].requested_memory_bytes, 7 * kGi);
}

TEST(SimulatorTest, StepsWeighEveryAccountByTheirMinutes) {
  // The shortfall case in 5-minute steps: two steps of 6 cores on 4, then two of 2.
  const std::vector<PodSpec> pods = {{"a", {1000, kGi}, "LS"}, {"b", {1000, kGi}, "LS"}};
  UsageTraces usage = Traces({{3000, 3000, 1000, 1000}, {3000, 3000, 1000, 1000}},
                             {{kGi, kGi, kGi, kGi}, {kGi, kGi, kGi, kGi}});
  usage.step_minutes = 5;
  usage.minutes = 20;
  SimulationConfig config = FixedCluster(PolicyKind::kStatic);
  const PolicyRun run = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_DOUBLE_EQ(run.summary.cpu_shortfall_core_hours, 2.0 * 10 / 60);
  EXPECT_DOUBLE_EQ(run.summary.cpu_shortfall_fraction, 4.0 / 16);
  EXPECT_DOUBLE_EQ(run.summary.used_cpu_millis, 3000);
  EXPECT_EQ(run.series.size(), 4);  // a point each step when steps are longer than the series
  EXPECT_EQ(run.series[3].minute, 15);
}

TEST(SimulatorTest, PodsArriveAndLeaveWithTheirTrace) {
  // "late" starts at minute 2 and "short" is gone from minute 3: both count only while they
  // exist, and a pod that left is never placed again.
  std::vector<PodSpec> pods = {{"late", {1000, kGi}, "LS"}, {"short", {1000, kGi}, "LS"}};
  pods[0].start_minute = 2;
  pods[1].end_minute = 3;
  const UsageTraces usage = Traces({{0, 0, 500, 500, 500}, {700, 700, 700, 0, 0}},
                                   {{0, 0, kGi, kGi, kGi}, {kGi, kGi, kGi, 0, 0}});
  const PolicyRun run =
      SimulatePolicy(PolicyKind::kStatic, pods, usage, FixedCluster(PolicyKind::kStatic));
  ASSERT_EQ(run.series.size(), 5);
  EXPECT_EQ(run.series[1].requested_cpu_millis, 1000);
  EXPECT_EQ(run.series[2].requested_cpu_millis, 2000);
  EXPECT_EQ(run.series[3].requested_cpu_millis, 1000);
  EXPECT_EQ(run.series[4].requested_cpu_millis, 1000);
  EXPECT_EQ(run.summary.departures, 1);
  EXPECT_DOUBLE_EQ(run.summary.pending_pod_hours, 0);
}

TEST(OracleTest, FewestNodesThatHoldTheUsageEachStep) {
  // Nodes of 4 CPUs / 8 GiB. Step 0: 5 cores (2 nodes); step 1: 3 cores but 9 GiB (2 nodes);
  // step 2: 1 core (1 node). A pending or running pod counts alike; one gone does not.
  std::vector<PodSpec> pods = {{"a", {1000, kGi}, "LS"}, {"b", {1000, kGi}, "LS"}};
  pods[1].end_minute = 2;
  const UsageTraces usage = Traces({{3000, 2000, 1000}, {2000, 1000, 9000}},
                                   {{kGi, 4 * kGi, kGi}, {kGi, 5 * kGi, 9 * kGi}});
  SimulationConfig config = FixedCluster(PolicyKind::kStatic);
  OracleSummary oracle = OracleNodes(pods, usage, config);
  EXPECT_DOUBLE_EQ(oracle.nodes_average, 5.0 / 3);
  EXPECT_EQ(oracle.nodes_max, 2);
  EXPECT_DOUBLE_EQ(oracle.pod_days, 5.0 / 1440);
  config.warmup_minutes = 2;  // only the last step is summarised
  oracle = OracleNodes(pods, usage, config);
  EXPECT_DOUBLE_EQ(oracle.nodes_average, 1);
  EXPECT_EQ(oracle.nodes_max, 1);
  // Pods count too: at most one pod a node needs two nodes while both pods are alive.
  config.warmup_minutes = 0;
  config.max_pods_per_node = 1;
  oracle = OracleNodes(pods, usage, config);
  EXPECT_DOUBLE_EQ(oracle.nodes_average, 5.0 / 3);
  EXPECT_EQ(oracle.nodes_max, 2);
  const UsageTraces idle = Traces({{1, 1, 1}, {1, 1, 1}}, {{1, 1, 1}, {1, 1, 1}});
  oracle = OracleNodes(pods, idle, config);
  EXPECT_DOUBLE_EQ(oracle.nodes_average, 5.0 / 3);  // 2, 2, then 1 once b is gone
}

TEST(SimulatorTest, AutoscalingAddsNodesForPendingPods) {
  SimulationConfig config = FixedCluster(PolicyKind::kStatic, 0);
  config.autoscale = true;
  const std::vector<PodSpec> pods = {{"a", {3000, kGi}, "LS"}, {"b", {3000, kGi}, "LS"}};
  const UsageTraces usage = Traces({{1, 1}, {1, 1}}, {{1, 1}, {1, 1}});
  const PolicyRun run = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_EQ(run.summary.nodes_max, 2);
  EXPECT_DOUBLE_EQ(run.summary.pending_pod_hours, 0);
}

TEST(SimulatorTest, ScaleDownDrainsANodeUnneededForTenMinutes) {
  // Memory pressure at minute 1 evicts "be" from node 0, which takes no pods for 5 minutes, so
  // a second node comes for it. That node's requests use a quarter of it: unneeded from
  // minute 1; the autoscaler's 10 minutes (and its 10 minutes after a scale-up) end at minute
  // 11, when "be" moves back and the node goes.
  const std::vector<PodSpec> pods = {{"ls", {1000, 6 * kGi}, "LS"}, {"be", {1000, kGi}, "BE"}};
  std::vector<int64_t> ls_memory(20, 4 * kGi);
  ls_memory[1] = 5 * kGi;
  std::vector<int64_t> be_memory(20, kGi);
  be_memory[1] = 4 * kGi;
  const UsageTraces usage = Traces({std::vector<int64_t>(20, 100), std::vector<int64_t>(20, 100)},
                                   {ls_memory, be_memory});
  SimulationConfig config = FixedCluster(PolicyKind::kStatic, 0);
  config.autoscale = true;
  config.memory_limit_ratio = 8;
  const PolicyRun run = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_EQ(run.summary.pressure_evictions, 1);
  EXPECT_EQ(run.series[1].nodes, 2);
  EXPECT_EQ(run.series[10].nodes, 2);
  EXPECT_EQ(run.series[11].nodes, 1);
  EXPECT_EQ(run.summary.consolidation_moves, 1);
  EXPECT_EQ(run.series[19].nodes, 1);
  EXPECT_EQ(run.series[19].requested_memory_bytes, 7 * kGi);
}

TEST(SimulatorTest, KarpenterConsolidatesWhatTheClusterAutoscalerKeeps) {
  // 4-core nodes. "t" (1 core, gone at minute 5) and "a" (2 cores) fill node 0 to 75%; "b"
  // (2 cores) does not fit there and gets node 1. Once "t" is gone each node is exactly half
  // requested: the Cluster Autoscaler keeps both (under half is its threshold); Karpenter has
  // no threshold and deletes a node as soon as its pods fit on the others.
  std::vector<PodSpec> pods = {
      {"t", {1000, kGi}, "LS"}, {"a", {2000, kGi}, "LS"}, {"b", {2000, kGi}, "LS"}};
  pods[0].end_minute = 5;
  const UsageTraces usage = Traces(
      {std::vector<int64_t>(30, 100), std::vector<int64_t>(30, 100), std::vector<int64_t>(30, 100)},
      {std::vector<int64_t>(30, kGi / 2), std::vector<int64_t>(30, kGi / 2),
       std::vector<int64_t>(30, kGi / 2)});
  SimulationConfig config = FixedCluster(PolicyKind::kStatic, 0);
  config.autoscale = true;
  const PolicyRun kept = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_EQ(kept.series[29].nodes, 2);
  EXPECT_EQ(kept.summary.consolidation_moves, 0);
  config.autoscaler = Autoscaler::kKarpenter;
  const PolicyRun consolidated = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_EQ(consolidated.series[4].nodes, 2);
  EXPECT_EQ(consolidated.series[5].nodes, 1);
  EXPECT_EQ(consolidated.series[5].pending, 0);
  EXPECT_EQ(consolidated.summary.consolidation_moves, 1);
  EXPECT_EQ(consolidated.series[29].requested_cpu_millis, 4000);
}

TEST(SimulatorTest, KarpenterDeletesTheNodeWithTheFewestPodsFirst) {
  // Node 0 holds "big" (2.5 cores, 62% of it); node 1 holds four pods of 300m (30%). Either
  // node's pods fit on the other. The Cluster Autoscaler drains the one under half requested,
  // moving four pods; Karpenter deletes the one whose disruption costs least: one pod.
  std::vector<PodSpec> pods = {{"big", {2500, kGi}, "LS"}, {"filler", {1500, kGi}, "LS"}};
  for (int i = 0; i < 4; ++i) pods.push_back({"s" + std::to_string(i), {300, kGi / 4}, "LS"});
  pods[1].end_minute = 5;  // holds node 0 full while the small pods are placed
  std::vector<std::vector<int64_t>> cpu(pods.size(), std::vector<int64_t>(40, 100));
  std::vector<std::vector<int64_t>> memory(pods.size(), std::vector<int64_t>(40, kGi / 8));
  const UsageTraces usage = Traces(cpu, memory);
  SimulationConfig config = FixedCluster(PolicyKind::kStatic, 0);
  config.autoscale = true;
  const PolicyRun autoscaler = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_EQ(autoscaler.series[39].nodes, 1);
  EXPECT_EQ(autoscaler.summary.consolidation_moves, 4);
  config.autoscaler = Autoscaler::kKarpenter;
  const PolicyRun karpenter = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_EQ(karpenter.series[39].nodes, 1);
  EXPECT_EQ(karpenter.summary.consolidation_moves, 1);
}

TEST(SimulatorTest, HeadroomDefersAResizeTheNodeCannotHold) {
  // One 4-core node, two pods. "steady" uses 3 cores for the first two days, then 200m: its
  // daily base keeps it at about 3 cores for a day. "grower" uses 200m, then 2.5 cores on day
  // 3: its growth does not fit beside "steady". The bases now (2.7 cores) fit, so headroom
  // evicts nothing; its actuator never re-creates a pod to resize it, so the kubelet defers
  // the resize and the pod runs on at its current requests (sharing CPU by weight).
  constexpr int kMinutes = 3 * 1440;
  std::vector<int64_t> steady(kMinutes, 3000);
  std::vector<int64_t> grower(kMinutes, 200);
  for (int m = 2 * 1440; m < kMinutes; ++m) {
    steady[static_cast<size_t>(m)] = 200;
    grower[static_cast<size_t>(m)] = 2500;
  }
  const std::vector<PodSpec> pods = {{"steady", {3000, kGi}, "LS"}, {"grower", {500, kGi}, "LS"}};
  const UsageTraces usage = Traces({steady, grower}, {std::vector<int64_t>(kMinutes, kGi / 2),
                                                      std::vector<int64_t>(kMinutes, kGi / 2)});
  SimulationConfig config = FixedCluster(PolicyKind::kHeadroom, 1);
  config.warmup_minutes = 2 * 1440;
  const PolicyRun headroom = SimulatePolicy(PolicyKind::kHeadroom, pods, usage, config);
  EXPECT_GT(headroom.summary.deferred_resizes, 0);
  EXPECT_EQ(headroom.summary.resize_evictions, 0);
  EXPECT_EQ(headroom.summary.optimizer_evictions, 0);
  EXPECT_DOUBLE_EQ(headroom.summary.pending_pod_hours, 0);  // both kept running
}

TEST(SimulatorTest, HeadroomSharesHeadroomWhereStaticReservesPeaks) {
  // Four pods declaring 1 core each on an autoscaled cluster; each uses 200m steadily with
  // its own short daily spike. Nothing changes during the 24 h warm-up (guard rail); over the
  // second day the requests come down in bounded steps; on the third, headroom requests far
  // less than the declared 4 cores: 4 x 200m + one shared 700m spike.
  std::vector<PodSpec> pods;
  std::vector<std::vector<int64_t>> cpu;
  std::vector<std::vector<int64_t>> memory;
  constexpr int kMinutes = 3 * 1440;
  for (int p = 0; p < 4; ++p) {
    pods.push_back({"p" + std::to_string(p), {1000, kGi}, "LS"});
    std::vector<int64_t> series(kMinutes, 200);
    for (int day = 0; day < 3; ++day) {
      for (int m = p * 300; m < p * 300 + 5; ++m) series[static_cast<size_t>(day * 1440 + m)] = 900;
    }
    cpu.push_back(series);
    memory.push_back(std::vector<int64_t>(kMinutes, kGi / 2));
  }
  SimulationConfig config = FixedCluster(PolicyKind::kHeadroom, 0);
  config.autoscale = true;
  config.warmup_minutes = 2 * 1440;
  const UsageTraces usage = Traces(cpu, memory);
  const PolicyRun headroom = SimulatePolicy(PolicyKind::kHeadroom, pods, usage, config);
  const PolicyRun fixed = SimulatePolicy(PolicyKind::kStatic, pods, usage, config);
  EXPECT_DOUBLE_EQ(fixed.summary.requested_cpu_millis, 4000);
  EXPECT_LT(headroom.summary.requested_cpu_millis, 2000);
  EXPECT_EQ(headroom.summary.oom_kills, 0);
  // Stable sizes: the daily envelope does not move, so after the bounded steps of the second
  // day nothing is resized on the third.
  EXPECT_EQ(headroom.summary.resizes, 0);
  // The memory limit is 2 x the 7-day max (1 GiB), not the declared 1 GiB.
  EXPECT_LT(headroom.summary.requested_memory_bytes, fixed.summary.requested_memory_bytes);
}

// Memory pressure as a signal (shared/memory_pressure.h) in the simulator: a pod declaring
// 1Gi with a 2Gi limit (memory.high 1.9Gi under Memory QoS) grows 10Mi a minute to 2.5Gi,
// still in its 24 h warm-up. The stall above memory.high makes headroom raise its limit a
// step above the memory in use, again each time it stalls, ahead of the growth: no OOM kill.
// Without the signal (threshold 0) it keeps its declared 2Gi limit and is killed; without
// Memory QoS there is no stall to see.
TEST(SimulatorTest, AMemoryStallRaisesTheLimitBeforeTheKill) {
  constexpr int kMinutes = 240;
  std::vector<int64_t> memory(kMinutes);
  for (int m = 0; m < kMinutes; ++m) {
    memory[static_cast<size_t>(m)] = std::min<int64_t>(kGi + m * (10LL << 20), 5 * kGi / 2);
  }
  const std::vector<PodSpec> pods = {{"grower", {1000, kGi}, "LS"}};
  const UsageTraces usage = Traces({std::vector<int64_t>(kMinutes, 500)}, {memory});
  SimulationConfig config = FixedCluster(PolicyKind::kHeadroom);
  config.memory_limit_ratio = 2;
  const auto run = [&](double threshold, double throttling_factor) {
    SimulationConfig c = config;
    c.headroom.memory_pressure.stall_share = threshold;
    c.memory_throttling_factor = throttling_factor;
    return SimulatePolicy(PolicyKind::kHeadroom, pods, usage, c).summary;
  };
  const PolicySummary acted = run(0.10, 0.9);
  EXPECT_EQ(acted.oom_kills, 0);
  EXPECT_GT(acted.memory_pressure_records, 0);
  EXPECT_GT(acted.memory_stall_pod_hours, 0);
  // The memory request follows the memory in use under pressure.
  EXPECT_GT(acted.requested_memory_bytes, static_cast<double>(kGi));

  const PolicySummary ignored = run(0, 0.9);
  EXPECT_GT(ignored.oom_kills, 0);
  EXPECT_EQ(ignored.memory_pressure_records, 0);
  EXPECT_GT(ignored.memory_stall_pod_hours, acted.memory_stall_pod_hours);

  const PolicySummary no_qos = run(0.10, 0);
  EXPECT_GT(no_qos.oom_kills, 0);
  EXPECT_EQ(no_qos.memory_pressure_records, 0);
  EXPECT_DOUBLE_EQ(no_qos.memory_stall_pod_hours, 0);

  // The static policy stalls as well, and acts on nothing.
  config.policies = {PolicyKind::kStatic};
  const PolicySummary fixed = SimulatePolicy(PolicyKind::kStatic, pods, usage, config).summary;
  EXPECT_GT(fixed.memory_stall_pod_hours, 0);
  EXPECT_EQ(fixed.memory_pressure_records, 0);
  EXPECT_GT(fixed.oom_kills, 0);
}

// Four pods declaring 1 core and 1Gi that use 200m and 512Mi steadily for three days, on an
// autoscaled cluster under headroom, summarised on the third day.
struct SteadyPods {
  std::vector<PodSpec> pods;
  UsageTraces usage;
  SimulationConfig config;
};
SteadyPods FourSteadyPods() {
  constexpr int kMinutes = 3 * 1440;
  SteadyPods steady;
  std::vector<std::vector<int64_t>> cpu;
  std::vector<std::vector<int64_t>> memory;
  for (int p = 0; p < 4; ++p) {
    steady.pods.push_back({"p" + std::to_string(p), {1000, kGi}, "LS"});
    cpu.push_back(std::vector<int64_t>(kMinutes, 200));
    memory.push_back(std::vector<int64_t>(kMinutes, kGi / 2));
  }
  steady.usage = Traces(cpu, memory);
  steady.config = FixedCluster(PolicyKind::kHeadroom, 0);
  steady.config.autoscale = true;
  steady.config.warmup_minutes = 2 * 1440;
  return steady;
}

// The per-workload tuning reaches the simulated headroom policy through the product's guard
// rails: a min-cpu keeps the requests up; keep-declared leaves them as declared.
TEST(SimulatorTest, PodAnnotationsTuneTheHeadroomPolicy) {
  const SteadyPods steady = FourSteadyPods();
  const std::vector<PodSpec>& pods = steady.pods;
  const UsageTraces& usage = steady.usage;
  SimulationConfig config = steady.config;
  const auto requested_cpu = [&](Annotations annotations) {
    config.headroom.pod_annotations = std::move(annotations);
    return SimulatePolicy(PolicyKind::kHeadroom, pods, usage, config).summary.requested_cpu_millis;
  };
  EXPECT_LT(requested_cpu({}), 2000);
  EXPECT_DOUBLE_EQ(requested_cpu({{"headroom.dev/min-cpu", "700m"}}), 4 * 700);
  EXPECT_DOUBLE_EQ(requested_cpu({{"headroom.dev/keep-declared", "cpu"}}), 4000);
}

// Disruption windows (--disruption-window, as the extender's): four pods declaring 1 core use
// 200m. The simulation starts on a Wednesday at midnight and the 24 h warm-up ends on Thursday;
// the summary is Friday. With no window the requests come down on Thursday; with a window on
// Mondays only nothing is ever shrunk; with one hour a night one shrink step a night is taken
// (at most half of the value per step), so Friday ends between the two.
TEST(SimulatorTest, DisruptionWindowsHoldShrinksOutsideTheirHours) {
  const SteadyPods steady = FourSteadyPods();
  const std::vector<PodSpec>& pods = steady.pods;
  const UsageTraces& usage = steady.usage;
  SimulationConfig config = steady.config;
  const auto run = [&](absl::string_view windows) {
    config.headroom.disruption_windows = *ParseDisruptionWindows(windows);
    return SimulatePolicy(PolicyKind::kHeadroom, pods, usage, config).summary;
  };
  const PolicySummary always = run("");
  const PolicySummary mondays = run("Mon 00:00-24:00");
  const PolicySummary nightly = run("03:00-04:00");
  EXPECT_LT(always.requested_cpu_millis, 2000);
  EXPECT_DOUBLE_EQ(mondays.requested_cpu_millis, 4000);
  EXPECT_EQ(mondays.resizes_down, 0);
  EXPECT_GT(nightly.requested_cpu_millis, always.requested_cpu_millis);
  EXPECT_LT(nightly.requested_cpu_millis, 4000);
  EXPECT_GT(nightly.resizes_down, 0);
  // The same window as a pod annotation (pod > cluster, as the daemons resolve it).
  config.headroom.pod_annotations = {{"headroom.dev/disruption-window", "Mon 00:00-24:00"}};
  EXPECT_DOUBLE_EQ(run("").requested_cpu_millis, 4000);
}

// CronJobs (sim/cronjobs.h): every chosen pod becomes one run a day, each run a pod replaying
// the pod's usage at its minutes; the runs are one workload when grouped.
TEST(CronJobsTest, EachChosenPodBecomesOneRunADay) {
  constexpr int kMinutes = 3 * 1440;
  std::vector<PodSpec> pods;
  std::vector<std::vector<int64_t>> cpu;
  std::vector<std::vector<int64_t>> memory;
  for (int p = 0; p < 4; ++p) {
    pods.push_back({"p" + std::to_string(p), {1000, kGi}, "LS"});
    std::vector<int64_t> series(kMinutes);
    for (int m = 0; m < kMinutes; ++m) series[static_cast<size_t>(m)] = 100 * p + m % 7 + 1;
    cpu.push_back(series);
    memory.push_back(std::vector<int64_t>(kMinutes, kGi / 2));
  }
  const UsageTraces usage = Traces(cpu, memory);

  const CronJobRuns none = MakeCronJobs(pods, usage, {0, true}, 7);
  EXPECT_EQ(none.pods.size(), 4u);
  EXPECT_EQ(none.cronjobs, 0);
  EXPECT_EQ(none.usage.cpu_millis, usage.cpu_millis);

  for (const bool grouped : {true, false}) {
    const CronJobRuns made = MakeCronJobs(pods, usage, {1, grouped}, 7);
    EXPECT_EQ(made.cronjobs, 4);
    EXPECT_EQ(made.runs, 12);  // 3 days
    ASSERT_EQ(made.pods.size(), 12u);
    ASSERT_EQ(made.usage.cpu_millis.size(), 12u);
    for (size_t r = 0; r < made.pods.size(); ++r) {
      const PodSpec& run = made.pods[r];
      const std::string original = run.name.substr(0, run.name.find("-run"));
      const size_t p = static_cast<size_t>(original[1] - '0');
      EXPECT_EQ(run.workload, grouped ? original + "-cronjob" : run.name);
      const int length = run.end_minute - run.start_minute;
      EXPECT_GE(length, 30) << run.name;
      EXPECT_LE(length, 180) << run.name;
      // The same minute of the day for every run of one CronJob.
      EXPECT_EQ(run.start_minute % 1440, made.pods[r - r % 3].start_minute % 1440) << run.name;
      for (int m = 0; m < kMinutes; ++m) {
        const bool inside = m >= run.start_minute && m < run.end_minute;
        EXPECT_EQ(made.usage.cpu_millis[r][static_cast<size_t>(m)],
                  inside ? cpu[p][static_cast<size_t>(m)] : 0)
            << run.name << " minute " << m;
      }
    }
  }
}

// A CronJob declaring 1 core whose runs use 200m: headroom sizes a run at admission from the
// runs before it when they are one workload (its key), and admits every run as declared when
// each run is a workload of its own (no history). Four daily runs; the summary is the fourth.
TEST(SimulatorTest, ACronJobsRunsAreSizedFromTheRunsBeforeIt) {
  constexpr int kMinutes = 4 * 1440;
  const std::vector<PodSpec> job = {{"nightly", {1000, kGi}, "BE"}};
  const UsageTraces usage =
      Traces({std::vector<int64_t>(kMinutes, 200)}, {std::vector<int64_t>(kMinutes, kGi / 4)});
  SimulationConfig config = FixedCluster(PolicyKind::kHeadroom, 1);
  config.warmup_minutes = 3 * 1440;
  const auto requested = [&](bool grouped) {
    const CronJobRuns runs = MakeCronJobs(job, usage, {1, grouped}, 3);
    EXPECT_EQ(runs.runs, 4);
    const PolicyRun run = SimulatePolicy(PolicyKind::kHeadroom, runs.pods, runs.usage, config);
    return run.summary.requested_cpu_millis;
  };
  const double per_run = requested(false);
  const double grouped = requested(true);
  EXPECT_GT(per_run, 0);
  EXPECT_LT(grouped, per_run / 2) << "grouped " << grouped << ", per run " << per_run;
}

TEST(SimulatorTest, SameSeedSameResultOtherSeedOtherResult) {
  std::vector<PodSpec> pods;
  for (int p = 0; p < 12; ++p) {
    pods.push_back({"p" + std::to_string(p), {2000 + 500 * (p % 3), 4 * kGi}, p % 2 ? "BE" : "LS"});
  }
  const std::vector<MemorySeries> memory = {{"a", std::vector<double>(120, 0.4)},
                                            {"b", std::vector<double>(120, 0.7)}};
  SimulationConfig config = FixedCluster(PolicyKind::kStatic, 0);
  config.autoscale = true;
  config.warmup_minutes = 60;
  config.policies = {PolicyKind::kStatic, PolicyKind::kVpa, PolicyKind::kCrane,
                     PolicyKind::kHeadroom};
  config.node_shape = {"n", {16000, 64 * kGi}};
  const auto run = [&](uint64_t seed) {
    const UsageTraces usage = GenerateUsage(pods, memory, nullptr, 360, seed);
    return ResultJson(Simulate(pods, usage, config), {}).dump();
  };
  EXPECT_EQ(run(3), run(3));
  EXPECT_NE(run(3), run(4));
}

TEST(UsageGeneratorTest, MemoryFollowsTheSeriesAndCpuStaysPositive) {
  const std::vector<PodSpec> pods = {{"p", {4000, 10 * kGi}, "BE"}};
  const std::vector<MemorySeries> memory = {{"m", {0.5, 0.25}}};
  const UsageTraces usage = GenerateUsage(pods, memory, nullptr, 5, 9);
  ASSERT_EQ(usage.memory_bytes[0].size(), 5u);
  for (int64_t bytes : usage.memory_bytes[0]) {
    EXPECT_TRUE(bytes == 5 * kGi || bytes == 5 * kGi / 2) << bytes;
  }
  for (int64_t millis : usage.cpu_millis[0]) EXPECT_GE(millis, 1);
  // A CPU series replaces the synthetic model: fractions of the declared CPU.
  const std::vector<MemorySeries> cpu = {{"c", {0.25}}};
  EXPECT_THAT(GenerateUsage(pods, memory, &cpu, 2, 9).cpu_millis[0], ElementsAre(1000, 1000));
}

TEST(TraceDataTest, OpenbPodsSkipGpuPods) {
  absl::StatusOr<std::vector<PodSpec>> pods = ParseOpenbPods(
      "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
      "deletion_time,scheduled_time\n"
      "a,8000,30517,0,0,,LS,Running,0,1,0\n"
      "b,12000,16384,1,1000,,LS,Running,0,1,0\n");
  ASSERT_THAT(pods, IsOk());
  ASSERT_EQ(pods->size(), 1u);
  EXPECT_EQ((*pods)[0].requests.cpu_millis, 8000);
  EXPECT_EQ((*pods)[0].requests.memory_bytes, 30517LL << 20);
  EXPECT_EQ((*pods)[0].qos, "LS");
  EXPECT_THAT(ParseOpenbPods("name,cpu_milli,memory_mib\na,x,1\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 2: column cpu_milli")));
  EXPECT_THAT(ParseOpenbPods("name,cpu\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("missing column")));
}

TEST(TraceDataTest, BadPodAndNodeListsAreRefused) {
  EXPECT_THAT(
      ParseOpenbPods("name,cpu_milli,memory_mib\na,1,1\na,2,2\n"),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("line 3: pod name a appears twice")));
  EXPECT_THAT(ParseOpenbPods("name,cpu_milli,memory_mib\na,1,99999999999999\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("too large")));
  EXPECT_THAT(ParseOpenbNodes("cpu_milli,memory_mib,sn\n32000,1024\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected 3 fields, got 2")));
  EXPECT_THAT(ParseOpenbNodes("sn,cpu_milli,memory_mib\nn,0,1024\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs CPU and memory")));
  absl::StatusOr<std::vector<NodeShape>> nodes =
      ParseOpenbNodes("sn,cpu_milli,memory_mib,gpu,model\nn1,96000,524288,0,\n");
  ASSERT_THAT(nodes, IsOk());
  EXPECT_EQ((*nodes)[0].allocatable.memory_bytes, 512 * kGi);
}

TEST(TraceDataTest, MemorySeriesInBothShapes) {
  std::string wide = "minute,x,y\n";
  std::string long_shape = "value,timestamp_anon,container_ip\n";
  for (int m = 0; m < 60; ++m) {
    wide += std::to_string(m) + ",0.5,0.25\n";
    long_shape += "0.5," + std::to_string(1000 + 60 * (59 - m)) + ",h\n";  // any order
  }
  absl::StatusOr<std::vector<MemorySeries>> parsed = ParseMemorySeries(wide);
  ASSERT_THAT(parsed, IsOk());
  ASSERT_EQ(parsed->size(), 2u);
  EXPECT_EQ((*parsed)[1].id, "y");
  EXPECT_EQ((*parsed)[1].fractions[3], 0.25);
  parsed = ParseMemorySeries(long_shape);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ((*parsed)[0].fractions.size(), 60u);
  EXPECT_THAT(ParseMemorySeries("minute,x\n0,abc\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a number")));
  EXPECT_THAT(ParseMemorySeries("minute,x\n0,0.5\n"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at least 60")));
}

TEST(SimulationConfigTest, Validates) {
  SimulationConfig config = FixedCluster(PolicyKind::kStatic);
  EXPECT_THAT(config.Validate(60), IsOk());
  EXPECT_THAT(config.Validate(0), StatusIs(absl::StatusCode::kInvalidArgument));
  config.warmup_minutes = 60;
  EXPECT_THAT(config.Validate(60),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("warm-up")));
  config = FixedCluster(PolicyKind::kStatic, 0);
  EXPECT_THAT(config.Validate(60),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("initial nodes")));
}

TEST(ReportTest, TableAndChartNameEveryPolicy) {
  SimulationResult result;
  result.minutes = 60;
  for (PolicyKind kind : {PolicyKind::kStatic, PolicyKind::kHeadroom}) {
    PolicyRun run;
    run.kind = kind;
    run.series.push_back({0, 1000, kGi, 500, kGi / 2, 600, 4000, 8 * kGi, 1, 0});
    run.summary.requested_cpu_millis = kind == PolicyKind::kStatic ? 4800 : 2400;
    run.summary.nodes_average = 1;
    run.summary.optimizer_evictions = kind == PolicyKind::kStatic ? 0 : 3;
    run.summary.resizes = 8;
    run.summary.resizes_down = 6;
    run.summary.resizes_up = 2;
    result.runs.push_back(run);
  }
  result.oracle = {2, 3, 4};
  const std::vector<std::vector<std::string>> rows = SummaryRows(result);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0][0], "POLICY");
  EXPECT_EQ(rows[2][0], "headroom");
  EXPECT_EQ(rows[2][2], "0.50");  // nodes / the oracle's
  EXPECT_EQ(rows[2][3], "2 cores");
  const std::string rates = OracleAndRates(result);
  EXPECT_THAT(rates, HasSubstr("2.0 nodes average, 3 at most"));
  EXPECT_THAT(rates, HasSubstr("headroom  evictions 0.750 (0.750 / 0.000 / 0.000 / 0.000), "
                               "resizes 2.00 (0.50 / 1.50 / 0.00 / 0.00)"));
  EXPECT_THAT(SavingsAgainstStatic(result), HasSubstr("headroom  CPU requested -50%"));
  result.runs.erase(result.runs.begin());
  EXPECT_EQ(SavingsAgainstStatic(result), "");
  const std::string svg = ResultSvg(result, "t");
  EXPECT_THAT(svg, HasSubstr("<svg"));
  EXPECT_THAT(svg, HasSubstr(">headroom</text>"));
  EXPECT_THAT(svg, HasSubstr("</svg>"));
}

}  // namespace
}  // namespace headroom::sim
