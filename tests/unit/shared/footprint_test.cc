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

// A pod that declares pod-level resources is judged at least at them until every container is
// trusted: its containers often declare nothing of their own.
TEST(Footprint, PodLevelResourcesAreAFloorUntilEveryContainerIsTrusted) {
  struct Case {
    std::string name;
    std::vector<ContainerDemand> containers;
    PodLevelResources pod_level;
    PodFootprint want;
  };
  ContainerDemand bare;  // declares nothing, no statistics
  bare.name = "c";
  ContainerDemand declared;
  declared.name = "c";
  declared.declared_requests = {500, 256 * kMi};
  declared.declared_limits = {1000, 512 * kMi};
  const ContainerDemand trusted = Container(absl::Hours(30), 100, 300, 900, 100 * kMi, 150 * kMi);
  ContainerDemand warming = Container(absl::Minutes(10), 100, 100, 200, 10 * kMi, 15 * kMi);
  warming.declared_requests = {};
  warming.declared_limits = {};
  // Without pod-level resources: bases 300 + 100 and 100Mi + 10Mi, headrooms combined.
  const PodFootprint mixed = PodFootprintOf({trusted, warming}, kMinHistory);
  ASSERT_EQ(mixed.base, (ResourceAmounts{400, 110 * kMi}));
  const std::vector<Case> cases = {
      {"bare containers: the pod-level request and limit",
       {bare, bare},
       {{2000, 1024 * kMi}, {4000, 1024 * kMi}},
       {{2000, 1024 * kMi}, {2000, 0}}},
      {"a pod-level limit alone stands for the request (the API's default)",
       {bare},
       {{0, 0}, {0, 512 * kMi}},
       {{0, 512 * kMi}, {0, 0}}},
      {"containers asking more than the pod level: theirs",
       {declared},
       {{200, 128 * kMi}, {0, 0}},
       {{500, 256 * kMi}, {500, 256 * kMi}}},
      {"only memory at pod level: cpu by the containers",
       {declared},
       {{0, 1024 * kMi}, {0, 2048 * kMi}},
       {{500, 1024 * kMi}, {500, 1024 * kMi}}},
      {"one container warming up: the floor holds",
       {trusted, warming},
       {{2000, 1024 * kMi}, {0, 0}},
       {{2000, 1024 * kMi}, mixed.headroom}},
      {"every container trusted: usage alone",
       {trusted},
       {{2000, 1024 * kMi}, {4000, 2048 * kMi}},
       {{300, 100 * kMi}, {600, 50 * kMi}}},
      {"no pod-level resources: the container rule", {bare}, {}, {{0, 0}, {0, 0}}},
  };
  for (const Case& c : cases) {
    const PodFootprint got = PodFootprintOf(c.containers, kMinHistory, c.pod_level);
    EXPECT_EQ(got.base, c.want.base) << c.name;
    EXPECT_EQ(got.headroom, c.want.headroom) << c.name;
  }
}

TEST(PodLevelResources, EffectiveRequestsAndDefaulting) {
  const ResourceAmounts containers{300, 64 * kMi};
  EXPECT_EQ(EffectivePodRequests(containers, {}), containers);
  EXPECT_EQ(EffectivePodRequests(containers, {{1000, 0}, {}}), (ResourceAmounts{1000, 64 * kMi}));
  EXPECT_EQ(EffectivePodRequests(containers, {{0, 1024 * kMi}, {0, 2048 * kMi}}),
            (ResourceAmounts{300, 1024 * kMi}));
  // Defaulting: only with some pod-level limit; the containers' sum first, else the limit.
  EXPECT_EQ(WithDefaultedRequests({{}, {}}, containers).requests, (ResourceAmounts{0, 0}));
  EXPECT_EQ(WithDefaultedRequests({{}, {2000, 0}}, containers).requests, containers);
  EXPECT_EQ(WithDefaultedRequests({{}, {2000, 512 * kMi}}, {0, 64 * kMi}).requests,
            (ResourceAmounts{2000, 64 * kMi}));
  EXPECT_EQ(WithDefaultedRequests({{500, 0}, {2000, 512 * kMi}}, {}).requests,
            (ResourceAmounts{500, 512 * kMi}));
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
