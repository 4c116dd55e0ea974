// The node's shared headroom measured from its containers' usage profiles
// (shared/node_headroom.h), the reserve for a shortfall it rests on, and how a report's
// measurement becomes the node's footprint.

#include "shared/node_headroom.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shared/node_report.h"
#include "shared/windowed_percentile.h"

namespace headroom {
namespace {

using ::testing::ElementsAre;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000 / 86400 * 86400);

TEST(ReserveForShortfallTest, Table) {
  struct Case {
    std::vector<int64_t> values;
    double fraction;
    std::optional<int64_t> want;
  };
  const std::vector<Case> cases = {
      {{}, 0.01, std::nullopt},
      {{5, 1, 3}, 0, 5},  // no shortfall allowed: the max
      {{0, 0, 0}, 0.1, 0},
      // Usage 100 in 10 slots of 10, one of 100: total 190. 10% = 19 may lie above R:
      // R = 81 leaves exactly 19 above it.
      {{10, 10, 10, 10, 10, 10, 10, 10, 10, 100}, 0.1, 81},
      // Two spikes of 100 among 8 slots of 10: total 280, 28 above allowed: 2 x (100 - R) =
      // 28 -> R = 86.
      {{100, 10, 10, 10, 10, 10, 10, 100, 10, 10}, 0.1, 86},
      // So much allowed that R falls among the small values: 50% of 190 = 95 may lie above.
      // Below 10, excess(R) = (100 - R) + 9 (10 - R) = 190 - 10 R <= 95 -> R = 9.5, rounded
      // up to 10 (which leaves 90; 9 would leave 100).
      {{10, 10, 10, 10, 10, 10, 10, 10, 10, 100}, 0.5, 10},
      {{-5, 4}, 0, 4},  // negative counts as 0
  };
  for (Case c : cases) {
    std::vector<int64_t> values = c.values;
    EXPECT_EQ(ReserveForShortfall(values, c.fraction), c.want);
  }
}

TEST(ReserveForShortfallTest, TheExcessAboveTheReserveStaysWithinTheFraction) {
  // Any input: the reserve leaves at most the fraction above it, and one less would not.
  std::vector<int64_t> values;
  uint64_t x = 12345;
  for (int i = 0; i < 500; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    values.push_back(static_cast<int64_t>((x >> 33) % 1000) * ((x >> 20) % 17 == 0 ? 20 : 1));
  }
  const std::vector<int64_t> original = values;
  long double total = 0;
  for (int64_t v : original) total += v;
  for (double fraction : {0.0, 0.001, 0.01, 0.1, 0.5}) {
    values = original;
    const int64_t reserve = *ReserveForShortfall(values, fraction);
    const auto excess = [&](int64_t r) {
      long double sum = 0;
      for (int64_t v : original) sum += std::max<int64_t>(0, v - r);
      return sum;
    };
    EXPECT_LE(excess(reserve), fraction * total + 1e-6) << fraction;
    if (reserve > 0) EXPECT_GT(excess(reserve - 1), fraction * total) << fraction;
  }
}

// A container observed every minute for `hours`, at `base`, with `spike` during the minutes
// for which `spiking` holds.
ContainerUsageStats Observed(int hours, int64_t base, int64_t spike, bool (*spiking)(int minute)) {
  ContainerUsageStats stats;
  for (int m = 0; m < hours * 60; ++m) {
    const absl::Time at = kStart + absl::Minutes(m);
    const int64_t cpu = spiking(m) ? spike : base;
    EXPECT_TRUE(stats.AddCpu(at, cpu).ok());
    EXPECT_TRUE(stats.AddMemory(at, cpu << 20).ok());
  }
  return stats;
}

bool EvenHours(int minute) { return (minute / 60) % 2 == 0 && minute % 60 < 10; }
bool OddHours(int minute) { return (minute / 60) % 2 == 1 && minute % 60 < 10; }

TEST(MeasuredSharedHeadroomTest, SpikesThatNeverCoincideShareOneReserve) {
  // Two containers at 100m that take 1000m for 10 minutes every other hour, in turns: their
  // sum never goes above 1100m, so together they need one spike above their bases (200m).
  const ContainerUsageStats a = Observed(48, 100, 1000, EvenHours);
  const ContainerUsageStats b = Observed(48, 100, 1000, OddHours);
  const absl::Time now = kStart + absl::Hours(48) - absl::Minutes(1);
  const std::optional<int64_t> max_together = MeasuredSharedHeadroom(
      {{&a.cpu().profile(), 100}, {&b.cpu().profile(), 100}}, now, absl::Hours(48), 0, 1);
  EXPECT_EQ(max_together, 900);  // 1100m - 200m of bases: one spike, not two
  // The same two in step need both spikes.
  const ContainerUsageStats c = Observed(48, 100, 1000, EvenHours);
  EXPECT_EQ(MeasuredSharedHeadroom({{&a.cpu().profile(), 100}, {&c.cpu().profile(), 100}}, now,
                                   absl::Hours(48), 0, 1),
            1800);
  // A shortfall allowed below the spikes' volume needs less than the max.
  EXPECT_LT(*MeasuredSharedHeadroom({{&a.cpu().profile(), 100}, {&c.cpu().profile(), 100}}, now,
                                    absl::Hours(48), 0.2, 1),
            1800);
  // Too few recorded slots: not measured.
  EXPECT_EQ(MeasuredSharedHeadroom({{&a.cpu().profile(), 100}}, now, absl::Hours(48), 0, 10'000),
            std::nullopt);
}

TEST(MeasureNodeTest, PodsWithoutEnoughProfileAreLeftOut) {
  const ContainerUsageStats a = Observed(48, 100, 1000, EvenHours);
  const ContainerUsageStats b = Observed(48, 100, 1000, OddHours);
  const ContainerUsageStats young = Observed(2, 100, 1000, EvenHours);  // 2 h of profile
  const absl::Time now = kStart + absl::Hours(48) - absl::Minutes(1);
  const UsageStatsConfig config;
  const NodeMeasurement measured =
      MeasureNode({{{&a, {100, 100 << 20}}}, {{&b, {100, 100 << 20}}}, {}, {{&young, {100, 0}}}},
                  now, absl::Hours(24), config);
  EXPECT_THAT(measured.measured, ElementsAre(true, true, false, false));
  ASSERT_TRUE(measured.shared_headroom.has_value());
  EXPECT_EQ(measured.shared_headroom->memory_bytes, 900LL << 20);  // memory: the max together
  // With the default 1% shortfall the CPU reserve lies below the one-spike max.
  EXPECT_GT(measured.shared_headroom->cpu_millis, 0);
  EXPECT_LE(measured.shared_headroom->cpu_millis, 900);
  EXPECT_FALSE(MeasureNode({{}, {}}, now, absl::Hours(24), config).shared_headroom.has_value());
}

TEST(NodeFootprintOfTest, TheMeasurementStandsForItsPodsAndOthersJoinByRootSumSquare) {
  NodeReport report;
  report.node = "n";
  report.allocatable = {8000, 16LL << 30};
  const auto pod = [](const char* name, int64_t base, int64_t headroom, bool measured) {
    ReportedPod p;
    p.pod_namespace = "ns";
    p.name = name;
    ContainerDemand c;
    c.name = "c";
    c.cpu = CpuStats{base, base + headroom, base, base + headroom, base + headroom};
    c.memory = MemoryStats{1, 1, 1, 0, 1, 1, 1};
    c.history = absl::Hours(48);
    p.containers.push_back(c);
    p.in_shared_headroom = measured;
    return p;
  };
  report.pods = {pod("a", 1000, 3000, true), pod("b", 500, 3000, true), pod("c", 200, 400, false)};
  // Unmeasured: every headroom by root-sum-square: sqrt(3000^2 + 3000^2 + 400^2) = 4262.
  NodeFootprint footprint = NodeFootprintOf(report, absl::Hours(24));
  EXPECT_EQ(footprint.base_total.cpu_millis, 1700);
  EXPECT_EQ(footprint.headroom.cpu_millis, 4262);
  EXPECT_EQ(footprint.pod_count, 3);
  // Measured: a and b needed 300m above their bases together; c joins: sqrt(300^2 + 400^2).
  report.shared_headroom = ResourceAmounts{300, 0};
  footprint = NodeFootprintOf(report, absl::Hours(24));
  EXPECT_EQ(footprint.base_total.cpu_millis, 1700);
  EXPECT_EQ(footprint.headroom.cpu_millis, 500);
  EXPECT_EQ(footprint.pod_count, 3);
}

}  // namespace
}  // namespace headroom
