// The one footprint rule (shared/footprint.h), table-driven: the extender's filter, the
// optimisation and the simulator judge a pod by it.

#include "shared/footprint.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom {
namespace {

constexpr int64_t kMi = 1 << 20;
constexpr absl::Duration kMinHistory = absl::Hours(24);

ContainerDemand Container(absl::Duration history, int64_t cpu_base, int64_t cpu_daily_base,
                          int64_t cpu_peak, int64_t memory_base, int64_t memory_peak) {
  ContainerDemand c;
  c.name = "c";
  c.cpu = CpuStats{cpu_base, cpu_peak, cpu_daily_base};
  c.memory = MemoryStats{memory_base, memory_peak, memory_peak, 0};
  c.history = history;
  c.declared_requests = {500, 256 * kMi};
  c.declared_limits = {1000, 512 * kMi};
  return c;
}

ContainerDemand WithSpike(ContainerDemand c, int64_t cpu_spike, int64_t memory_spike) {
  c.cpu->spike_millis = cpu_spike;
  c.memory->spike_bytes = memory_spike;
  return c;
}

TEST(Footprint, Table) {
  struct Case {
    std::string name;
    std::vector<ContainerDemand> containers;
    PodFootprint want;
  };
  ContainerDemand no_stats;
  no_stats.name = "c";
  no_stats.declared_requests = {500, 256 * kMi};
  no_stats.declared_limits = {1000, 512 * kMi};
  const std::vector<Case> cases = {
      {"no statistics: declared requests, headroom up to the limits",
       {no_stats},
       {{500, 256 * kMi}, {500, 256 * kMi}}},
      {"trusted: the daily base, and the peak above it",
       {Container(absl::Hours(30), 100, 300, 900, 100 * kMi, 150 * kMi)},
       {{300, 100 * kMi}, {600, 50 * kMi}}},
      {"trusted, the daily base unknown: the base",
       {Container(absl::Hours(30), 100, 0, 900, 100 * kMi, 150 * kMi)},
       {{100, 100 * kMi}, {800, 50 * kMi}}},
      {"warming up with less usage: never below what it declares",
       {Container(absl::Minutes(10), 100, 100, 200, 100 * kMi, 150 * kMi)},
       {{500, 256 * kMi}, {500, 256 * kMi}}},
      {"warming up with more usage: the usage counts",
       {Container(absl::Minutes(10), 800, 800, 3000, 400 * kMi, 900 * kMi)},
       {{800, 400 * kMi}, {2200, 500 * kMi}}},
      {"two containers: bases add up, headrooms combine by root-sum-square",
       {Container(absl::Hours(30), 100, 100, 400, 10 * kMi, 10 * kMi),
        Container(absl::Hours(30), 200, 200, 700, 20 * kMi, 30 * kMi)},
       {{300, 30 * kMi}, {584, 10 * kMi}}},
      {"trusted with a spike: the spike above the daily base, not the peak",
       {WithSpike(Container(absl::Hours(30), 100, 300, 900, 100 * kMi, 150 * kMi), 500, 120 * kMi)},
       {{300, 100 * kMi}, {200, 20 * kMi}}},
      {"a spike below the daily base: no headroom",
       {WithSpike(Container(absl::Hours(30), 100, 300, 900, 100 * kMi, 150 * kMi), 250, 90 * kMi)},
       {{300, 100 * kMi}, {0, 0}}},
  };
  for (const Case& c : cases) {
    const PodFootprint got = PodFootprintOf(c.containers, kMinHistory);
    EXPECT_EQ(got.base, c.want.base) << c.name;
    EXPECT_EQ(got.headroom, c.want.headroom) << c.name;
  }
}

TEST(Footprint, SaturatesInsteadOfOverflowing) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  ContainerDemand huge = Container(absl::Hours(30), kMax, kMax, kMax, kMax, kMax);
  const PodFootprint got = PodFootprintOf({huge, huge}, kMinHistory);
  EXPECT_EQ(got.base.cpu_millis, kMax);
  EXPECT_EQ(got.base.memory_bytes, kMax);
}

}  // namespace
}  // namespace headroom

namespace headroom {
namespace {

TEST(Footprint, PlanningSpikeFallsBackToThePeakAndNeverGoesBelowTheBase) {
  CpuStats cpu{100, 900, 300, 950, 0};
  EXPECT_EQ(PlanningSpike(cpu), 950);  // no spike: max(peak, daily peak)
  cpu.spike_millis = 400;
  EXPECT_EQ(PlanningSpike(cpu), 400);
  cpu.spike_millis = 200;
  EXPECT_EQ(PlanningSpike(cpu), 300);  // at least the daily base
  MemoryStats memory{10, 20, 20, 0, 15, 25, 0};
  EXPECT_EQ(PlanningSpike(memory), 25);
  memory.spike_bytes = 18;
  EXPECT_EQ(PlanningSpike(memory), 18);
}

}  // namespace
}  // namespace headroom
