#include "shared/node_optimizer.h"

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kMi = 1 << 20;
constexpr int64_t kGi = 1LL << 30;

// A container observed for 30 h: past the 24 h warm-up, so its statistics are used.
ContainerDemand C(std::string name, int64_t cpu_base, int64_t cpu_peak, int64_t memory_base,
                  int64_t memory_peak, int64_t max_7d = -1, int64_t oom = 0) {
  return {std::move(name), CpuStats{cpu_base, cpu_peak},
          MemoryStats{memory_base, memory_peak, max_7d < 0 ? memory_peak : max_7d, oom},
          absl::Hours(30)};
}

// The caller has seen the CPU bases over the available CPU for the sustained period.
constexpr OptimizeOptions kCpuEvictions{absl::Hours(24), /*evict_for_cpu=*/true};

PodDemand Pod(std::string name, EvictionRanking ranking, std::vector<ContainerDemand> containers,
              bool daemonset = false) {
  PodDemand pod;
  pod.pod_namespace = "ns";
  pod.name = std::move(name);
  pod.ranking = ranking;
  pod.daemonset = daemonset;
  pod.containers = std::move(containers);
  return pod;
}

NodeDemand Node(int64_t cpu_millis, int64_t memory_bytes, std::vector<PodDemand> pods) {
  return {"n1", {cpu_millis, memory_bytes}, std::move(pods)};
}

NodeOptimization Optimize(const NodeDemand& node, const OptimizeOptions& options = {}) {
  absl::StatusOr<NodeOptimization> result = OptimizeNode(node, options);
  EXPECT_TRUE(result.ok()) << result.status();
  return result.ok() ? *std::move(result) : NodeOptimization{};
}

// "pod/container=cpu,memoryRequest,memoryLimit" for compact comparisons.
std::vector<std::string> Sizes(const NodeDemand& node, const NodeOptimization& result) {
  std::vector<std::string> out;
  for (const ContainerResult& c : result.containers) {
    out.push_back(node.pods[c.pod].name + "/" + node.pods[c.pod].containers[c.container].name +
                  "=" + std::to_string(c.sizing.cpu_request_millis) + "," +
                  std::to_string(c.sizing.memory_request_bytes) + "," +
                  std::to_string(c.sizing.memory_limit_bytes));
    EXPECT_FALSE(c.sizing.cpu_limit_millis.has_value());
  }
  return out;
}

std::vector<std::string> Evicted(const NodeDemand& node, const NodeOptimization& result) {
  std::vector<std::string> out;
  for (const PodEviction& e : result.evictions) {
    out.push_back(node.pods[e.pod].name + ":" + std::string(ResourceName(e.resource)));
  }
  return out;
}

TEST(NodeOptimizerTest, SharesTheCombinedHeadroomInProportion) {
  // Without a measured shared headroom, the pods' headrooms combine by root-sum-square.
  // CPU: bases 500 + 200 + 300 = 1000m, headrooms 1000/200/800 (total 2000): shared
  //   ceil(sqrt(1000^2 + 200^2 + 800^2)) = 1297m (seed 000's largest alone: 1000m).
  //   final = base + 1297 x own / 2000, rounded up: 1149m, 330m, 819m.
  // Memory: bases 1000/500/256 Mi, headrooms 500/100/0 Mi (total 600 Mi): shared
  //   ceil(sqrt(524288000^2 + 104857600^2)) = 534670949 bytes.
  //   a: 1000Mi + ceil(534670949 x 500/600) = 1048576000 + 445559125 = 1494135125
  //   b:  500Mi + ceil(534670949 x 100/600) =  524288000 +  89111825 =  613399825
  //   c:  256Mi (no headroom of its own)
  const NodeDemand node =
      Node(4000, 8 * kGi,
           {Pod("a", EvictionRanking::kLow, {C("app", 500, 1500, 1000 * kMi, 1500 * kMi)}),
            Pod("b", EvictionRanking::kLow, {C("app", 200, 400, 500 * kMi, 600 * kMi)}),
            Pod("c", EvictionRanking::kLow, {C("app", 300, 1100, 256 * kMi, 256 * kMi)})});
  const NodeOptimization result = Optimize(node);
  EXPECT_TRUE(result.evictions.empty());
  EXPECT_THAT(Sizes(node, result),
              ElementsAre("a/app=1149,1494135125,3145728000", "b/app=330,613399825,1258291200",
                          "c/app=819,268435456,536870912"));
  EXPECT_EQ(result.cpu.base_total, 1000);
  EXPECT_EQ(result.cpu.shared_headroom, 1297);
  EXPECT_EQ(result.cpu.total_headroom, 2000);
  EXPECT_TRUE(result.cpu.fits);
  EXPECT_EQ(result.memory.shared_headroom, 534670949);
  EXPECT_TRUE(result.memory.fits);
}

TEST(NodeOptimizerTest, AMeasuredSharedHeadroomStandsForThePodsInIt) {
  // The same node, measured by headroom-nri: a and b together need 300m and 200Mi above
  // their bases; c is outside the measurement, so its 800m joins by root-sum-square:
  // ceil(sqrt(300^2 + 800^2)) = 855m. Memory: c has no headroom, so 200Mi.
  NodeDemand node =
      Node(4000, 8 * kGi,
           {Pod("a", EvictionRanking::kLow, {C("app", 500, 1500, 1000 * kMi, 1500 * kMi)}),
            Pod("b", EvictionRanking::kLow, {C("app", 200, 400, 500 * kMi, 600 * kMi)}),
            Pod("c", EvictionRanking::kLow, {C("app", 300, 1100, 256 * kMi, 256 * kMi)})});
  node.shared_headroom = ResourceAmounts{300, 200 * kMi};
  node.pods[0].in_shared_headroom = true;
  node.pods[1].in_shared_headroom = true;
  NodeOptimization result = Optimize(node);
  EXPECT_EQ(result.cpu.shared_headroom, 855);
  EXPECT_EQ(result.memory.shared_headroom, 200 * kMi);
  // Shared in proportion to each container's own headroom: 855 x 1000/2000 = 428 (rounded up).
  EXPECT_THAT(Sizes(node, result)[0], HasSubstr("a/app=928,"));
  // Every pod measured: exactly the measurement.
  node.pods[2].in_shared_headroom = true;
  result = Optimize(node);
  EXPECT_EQ(result.cpu.shared_headroom, 300);
  // The measurement is kept while a pod is evicted for memory (a pod leaving only lowers it):
  // bases 1756Mi + 200Mi on 1.9Gi evicts one pod and the reprieve keeps the others.
  node.allocatable.memory_bytes = 1900 * kMi;
  result = Optimize(node);
  EXPECT_THAT(Evicted(node, result), ElementsAre("a:memory"));
  EXPECT_EQ(result.memory.shared_headroom, 200 * kMi);
}

TEST(NodeOptimizerTest, EvictsForMemoryThenForCpuOnlyWhenTheBasesDoNotFit) {
  // Memory: bases 1 + 1 + 0.5 + 1 + 0.5 = 4Gi, shared headroom sqrt(1Gi^2 + 2 x 512Mi^2)
  //   = 1254Mi -> over 4Gi.
  //   Order: a (low, 1Gi), b (low, 512Mi), c (medium), d (high), ds (DaemonSet).
  //   Evict a -> 3Gi + sqrt(2) x 512Mi (724Mi) fits.
  // CPU over ds, b, c, d: bases 100 + 300 + 400 + 500 = 1300m, shared headroom 1814m.
  //   On 2 cores base + headroom (3114m) does not fit but the bases do: CPU is compressible,
  //   nothing is evicted for it, even when the caller allows CPU evictions.
  //   On 1.2 cores the bases (1300m) do not fit: with CPU evictions allowed, b (low) goes ->
  //   1000m fits. Without, nothing goes and the shortfall says why.
  // Sizes once b is gone: CPU headrooms c 200, d 1000 (total 1200, shared
  //   ceil(sqrt(200^2 + 1000^2)) = 1020): c = 400 + ceil(1020 x 200 / 1200) = 570;
  //   d = 500 + ceil(1020 x 1000 / 1200) = 1350.
  //   Memory headroom c 512Mi only: c = 1Gi + 512Mi.
  NodeDemand node =
      Node(2000, 4 * kGi,
           {Pod("ds", EvictionRanking::kLow, {C("agent", 100, 100, kGi, kGi)}, /*daemonset=*/true),
            Pod("a", EvictionRanking::kLow, {C("app", 200, 300, kGi, 2 * kGi)}),
            Pod("b", EvictionRanking::kLow, {C("app", 300, 1800, 512 * kMi, kGi)}),
            Pod("c", EvictionRanking::kMedium, {C("app", 400, 600, kGi, 1536 * kMi)}),
            Pod("d", EvictionRanking::kHigh, {C("app", 500, 1500, 512 * kMi, 512 * kMi)})});
  NodeOptimization result = Optimize(node, kCpuEvictions);
  EXPECT_THAT(Evicted(node, result), ElementsAre("a:memory"));
  EXPECT_EQ(result.evictions[0].reason.code, "MemoryDoesNotFit");
  EXPECT_THAT(result.evictions[0].reason.message, HasSubstr("base 4Gi + shared headroom "));
  EXPECT_THAT(result.evictions[0].reason.message, HasSubstr("> available 4Gi"));
  EXPECT_FALSE(result.cpu.fits);
  EXPECT_TRUE(result.cpu.bases_fit);
  EXPECT_FALSE(result.cpu.shortfall.has_value());

  node.allocatable.cpu_millis = 1200;
  result = Optimize(node);
  EXPECT_THAT(Evicted(node, result), ElementsAre("a:memory"));
  ASSERT_TRUE(result.cpu.shortfall.has_value());
  EXPECT_EQ(result.cpu.shortfall->code, "CpuBasesOverAllocatable");

  result = Optimize(node, kCpuEvictions);
  EXPECT_THAT(Evicted(node, result), ElementsAre("a:memory", "b:cpu"));
  EXPECT_EQ(result.evictions[1].reason.code, "CpuDoesNotFit");
  EXPECT_THAT(result.evictions[1].reason.message,
              HasSubstr("bases now 1300m > available 1200m for a sustained period"));
  EXPECT_THAT(Sizes(node, result),
              ElementsAre("ds/agent=100,1073741824,2147483648", "c/app=570,1610612736,3221225472",
                          "d/app=1350,536870912,1073741824"));
  EXPECT_TRUE(result.cpu.bases_fit);
  EXPECT_TRUE(result.memory.fits);
}

TEST(NodeOptimizerTest, ProtectedPodsAreSkippedInTheEvictionOrder) {
  // Memory 400 + 400 + 300 headroom > 1Gi: "a" (larger headroom) would go first, but it is
  // protected by the disruption policy, so "b" goes.
  NodeDemand node = Node(4000, kGi,
                         {Pod("a", EvictionRanking::kLow, {C("app", 1, 1, 400 * kMi, 700 * kMi)}),
                          Pod("b", EvictionRanking::kLow, {C("app", 1, 1, 400 * kMi, 500 * kMi)})});
  EXPECT_THAT(Evicted(node, Optimize(node)), ElementsAre("a:memory"));
  node.pods[0].protected_from_eviction = true;
  EXPECT_THAT(Evicted(node, Optimize(node)), ElementsAre("b:memory"));
}

TEST(NodeOptimizerTest, JudgesByTheDailyPeakOfTheBase) {
  // Off-peak the base is 100m, but the daily base is 800m: the pod is sized and judged at
  // 800m + its share of the headroom above that (peak 1000m).
  ContainerDemand c = C("app", 100, 1000, 10 * kMi, 10 * kMi);
  c.cpu->daily_base_millis = 800;
  const NodeDemand node = Node(4000, kGi, {Pod("a", EvictionRanking::kLow, {c})});
  const NodeOptimization result = Optimize(node);
  EXPECT_EQ(result.cpu.base_total, 800);
  EXPECT_EQ(result.cpu.shared_headroom, 200);
  EXPECT_THAT(Sizes(node, result), ElementsAre("a/app=1000,10485760,20971520"));
  // A CPU eviction answers an overload now: yesterday's daily peak alone never evicts.
  NodeDemand small = Node(600, kGi, {Pod("a", EvictionRanking::kLow, {c})});
  EXPECT_TRUE(Optimize(small, kCpuEvictions).evictions.empty());
  small.allocatable.cpu_millis = 90;  // the base now (100m) does not fit
  EXPECT_THAT(Evicted(small, Optimize(small, kCpuEvictions)), ElementsAre("a:cpu"));
}

TEST(NodeOptimizerTest, WarmingUpPodsKeepTheirDeclaredRequests) {
  ContainerDemand young = C("app", 10, 20, kMi, kMi);
  young.history = absl::Seconds(10);
  PodDemand pod = Pod("young", EvictionRanking::kLow, {young});
  pod.requests = {500, 256 * kMi};
  const NodeDemand node = Node(4000, 4 * kGi, {pod});
  NodeOptimization result = Optimize(node);
  ASSERT_EQ(result.skipped.size(), 1u);
  EXPECT_EQ(result.skipped[0].reason.code, "NoHistory");
  EXPECT_THAT(result.skipped[0].reason.message, HasSubstr("of the 24h warm-up"));
  EXPECT_EQ(result.cpu.reserved, 500);
  EXPECT_TRUE(result.containers.empty());
  // With 30 h it is sized.
  result = Optimize(
      Node(4000, 4 * kGi, {Pod("old", EvictionRanking::kLow, {C("app", 10, 20, kMi, kMi)})}));
  EXPECT_EQ(result.containers.size(), 1u);
}

TEST(NodeOptimizerTest, WithinARankingTheLargerHeadroomGoesFirstThenName) {
  const NodeDemand node =
      Node(10'000, 1100 * kMi,
           {Pod("zeta", EvictionRanking::kLow, {C("c", 1, 1, 100 * kMi, 300 * kMi)}),
            Pod("alpha", EvictionRanking::kLow, {C("c", 1, 1, 100 * kMi, 300 * kMi)}),
            Pod("big", EvictionRanking::kLow, {C("c", 1, 1, 100 * kMi, 900 * kMi)}),
            Pod("keep", EvictionRanking::kMedium, {C("c", 1, 1, 600 * kMi, 600 * kMi)})});
  // 900Mi + 800Mi > 1100Mi -> evict big (largest headroom) -> 800 + 200 = 1000Mi fits.
  NodeOptimization result = Optimize(node);
  EXPECT_THAT(Evicted(node, result), ElementsAre("big:memory"));

  // Shrink the node: after big, the tie between alpha and zeta goes by name.
  NodeDemand smaller = node;
  smaller.allocatable.memory_bytes = 950 * kMi;
  result = Optimize(smaller);
  EXPECT_THAT(Evicted(smaller, result), ElementsAre("big:memory", "alpha:memory"));
}

TEST(NodeOptimizerTest, AVictimWhoseEvictionIsNotNeededIsKept) {
  // 50 + 600 + 400 bases + 100Mi shared headroom = 1150Mi > 1000Mi. The seed's order takes
  // tiny first (ranking low), which leaves 1100Mi, then hog (1100 -> 400Mi). With hog gone
  // tiny fits again: it is kept, and only the eviction that closes the shortfall remains.
  const NodeDemand node =
      Node(10'000, 1000 * kMi,
           {Pod("tiny", EvictionRanking::kLow, {C("c", 1, 1, 50 * kMi, 50 * kMi)}),
            Pod("hog", EvictionRanking::kMedium, {C("c", 1, 1, 600 * kMi, 700 * kMi)}),
            Pod("other", EvictionRanking::kMedium, {C("c", 1, 1, 400 * kMi, 400 * kMi)})});
  const NodeOptimization result = Optimize(node);
  EXPECT_THAT(Evicted(node, result), ElementsAre("hog:memory"));
  ASSERT_EQ(result.evictions.size(), 1u);
  // The reason has the numbers of the node as it is before that eviction.
  EXPECT_THAT(result.evictions[0].reason.message, HasSubstr("base 1050Mi + shared headroom 100Mi"));
  EXPECT_TRUE(result.memory.fits);
  EXPECT_EQ(result.containers.size(), 2u);
}

TEST(NodeOptimizerTest, ProtectedPodsAreNeverEvictedAndTheShortfallIsReported) {
  const NodeDemand node =
      Node(1000, kGi,
           {Pod("ds", EvictionRanking::kLow, {C("agent", 100, 200, 800 * kMi, kGi)}, true),
            Pod("db", EvictionRanking::kNoEviction, {C("db", 100, 100, 300 * kMi, 300 * kMi)}),
            Pod("web", EvictionRanking::kHigh, {C("web", 100, 100, 100 * kMi, 100 * kMi)})});
  const NodeOptimization result = Optimize(node);
  // web goes; ds + db = 1100Mi + 224Mi headroom still exceeds 1Gi.
  EXPECT_THAT(Evicted(node, result), ElementsAre("web:memory"));
  EXPECT_FALSE(result.memory.fits);
  ASSERT_TRUE(result.memory.shortfall.has_value());
  EXPECT_EQ(result.memory.shortfall->code, "ProtectedPodsDoNotFit");
  EXPECT_THAT(result.memory.shortfall->message, HasSubstr("never evicted"));
  EXPECT_TRUE(result.cpu.fits);
  EXPECT_FALSE(result.cpu.shortfall.has_value());
  // The survivors are still sized.
  EXPECT_EQ(result.containers.size(), 2u);
}

TEST(NodeOptimizerTest, ZeroHeadroomMeansFinalEqualsBase) {
  const NodeDemand node =
      Node(4000, 4 * kGi,
           {Pod("a", EvictionRanking::kLow, {C("x", 250, 250, 100 * kMi, 100 * kMi)}),
            Pod("b", EvictionRanking::kLow, {C("y", 0, 0, 0, 0)})});
  const NodeOptimization result = Optimize(node);
  EXPECT_EQ(result.cpu.total_headroom, 0);
  EXPECT_THAT(Sizes(node, result), ElementsAre("a/x=250,104857600,209715200", "b/y=0,0,0"));
}

TEST(NodeOptimizerTest, AMultiContainerPodCombinesItsContainersHeadrooms) {
  // Pod base 1000m; container headrooms 300m and 400m: sqrt(300^2 + 400^2) = 500m, not the
  // sum (700m). The node needs 1000 + 500 = 1500m.
  const NodeDemand node =
      Node(1500, kGi,
           {Pod("multi", EvictionRanking::kLow,
                {C("a", 500, 800, 10 * kMi, 10 * kMi), C("b", 500, 900, 10 * kMi, 10 * kMi)})});
  const NodeOptimization result = Optimize(node);
  EXPECT_TRUE(result.evictions.empty());
  EXPECT_TRUE(result.cpu.fits);
  EXPECT_EQ(result.cpu.shared_headroom, 500);
  // Shares: a = 500 + ceil(500 x 300/700) = 715, b = 500 + ceil(500 x 400/700) = 786.
  EXPECT_THAT(Sizes(node, result),
              ElementsAre("multi/a=715,10485760,20971520", "multi/b=786,10485760,20971520"));
  NodeDemand short_of_headroom = node;
  short_of_headroom.allocatable.cpu_millis = 1499;
  EXPECT_FALSE(Optimize(short_of_headroom).cpu.fits);
  NodeDemand tighter = node;
  tighter.allocatable.cpu_millis = 999;  // the bases alone (1000m) no longer fit
  EXPECT_THAT(Evicted(tighter, Optimize(tighter, kCpuEvictions)), ElementsAre("multi:cpu"));
}

TEST(NodeOptimizerTest, PodsWithoutHistoryOrNotOptimisedReserveTheirRequests) {
  NodeDemand node =
      Node(1000, 2 * kGi, {Pod("a", EvictionRanking::kLow, {C("app", 200, 600, kGi, kGi)})});
  PodDemand fresh =
      Pod("fresh", EvictionRanking::kLow, {ContainerDemand{"app", {}, {}, {}, {}, {}}});
  fresh.requests = {300, 256 * kMi};
  PodDemand legacy = Pod("legacy", EvictionRanking::kLow, {});
  legacy.optimizable = false;
  legacy.requests = {200, 128 * kMi};
  node.pods.push_back(fresh);
  node.pods.push_back(legacy);
  const NodeOptimization result = Optimize(node);
  ASSERT_EQ(result.skipped.size(), 2u);
  EXPECT_EQ(result.skipped[0].reason.code, "NoHistory");
  EXPECT_THAT(result.skipped[0].reason.message, HasSubstr("container app has no cpu"));
  EXPECT_EQ(result.skipped[1].reason.code, "NotOptimizable");
  EXPECT_EQ(result.cpu.reserved, 500);
  EXPECT_EQ(result.memory.reserved, 384 * kMi);
  // 1000 - 500 reserved = 500m available; a needs 200 + 400 = 600m, but its base (200m) fits:
  // it stays, sized at base + its own headroom (600m): weights share what is short.
  EXPECT_TRUE(Evicted(node, result).empty());
  EXPECT_EQ(result.containers.size(), 1u);
}

TEST(NodeOptimizerTest, ReservationsBeyondAllocatableEvictEverythingEvictable) {
  NodeDemand node = Node(1000, kGi,
                         {Pod("a", EvictionRanking::kHigh, {C("app", 1, 1, kMi, kMi)}),
                          Pod("ds", EvictionRanking::kLow, {C("agent", 1, 1, kMi, kMi)}, true)});
  PodDemand hog = Pod("hog", EvictionRanking::kLow, {});
  hog.optimizable = false;
  hog.requests = {5000, 2 * kGi};
  node.pods.push_back(hog);
  const NodeOptimization result = Optimize(node, kCpuEvictions);
  EXPECT_THAT(Evicted(node, result), ElementsAre("a:memory"));
  EXPECT_FALSE(result.memory.fits);
  EXPECT_FALSE(result.cpu.fits);
  EXPECT_TRUE(result.cpu.shortfall.has_value());
}

TEST(NodeOptimizerTest, EmptyNodeFits) {
  const NodeOptimization result = Optimize(Node(0, 0, {}));
  EXPECT_TRUE(result.cpu.fits);
  EXPECT_TRUE(result.memory.fits);
  EXPECT_TRUE(result.containers.empty());
}

TEST(NodeOptimizerTest, OomMemoryRaisesTheLimit) {
  const NodeDemand node =
      Node(1000, 4 * kGi,
           {Pod("a", EvictionRanking::kLow,
                {C("app", 100, 100, 200 * kMi, 300 * kMi, 400 * kMi, 900 * kMi)})});
  const NodeOptimization result = Optimize(node);
  ASSERT_EQ(result.containers.size(), 1u);
  EXPECT_EQ(result.containers[0].sizing.memory_limit_bytes, 1800 * kMi);
}

TEST(NodeOptimizerTest, ResultDoesNotDependOnInputOrder) {
  std::vector<PodDemand> pods;
  for (int i = 0; i < 40; ++i) {
    pods.push_back(Pod("p" + std::to_string(i), static_cast<EvictionRanking>(i % 4),
                       {C("c", 10 * (i % 7), 10 * (i % 7) + 40 * (i % 5), kMi * (i % 9),
                          kMi * (i % 9) + kMi * (i % 4) * 16)},
                       i % 10 == 0));
  }
  const NodeDemand node = Node(1200, 150 * kMi, pods);
  const NodeOptimization reference = Optimize(node);
  ASSERT_FALSE(reference.evictions.empty());
  std::vector<std::string> expected = Evicted(node, reference);
  std::vector<std::string> expected_sizes = Sizes(node, reference);
  std::sort(expected_sizes.begin(), expected_sizes.end());
  std::mt19937 rng(7);
  for (int round = 0; round < 5; ++round) {
    NodeDemand shuffled = node;
    std::shuffle(shuffled.pods.begin(), shuffled.pods.end(), rng);
    const NodeOptimization result = Optimize(shuffled);
    EXPECT_EQ(Evicted(shuffled, result), expected);
    std::vector<std::string> sizes = Sizes(shuffled, result);
    std::sort(sizes.begin(), sizes.end());
    EXPECT_EQ(sizes, expected_sizes);
  }
}

TEST(NodeOptimizerTest, QuantitiesAtTheirLimitsDoNotOverflow) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  const NodeDemand node =
      Node(kMax, kMax,
           {Pod("a", EvictionRanking::kLow, {C("x", kMax - 1, kMax, kMax - 1, kMax)}),
            Pod("b", EvictionRanking::kLow, {C("y", kMax - 1, kMax, kMax - 1, kMax)})});
  const NodeOptimization result = Optimize(node);
  // The sum of bases is about 2^64: one pod has to go.
  EXPECT_THAT(Evicted(node, result), ElementsAre("a:memory"));
  ASSERT_EQ(result.containers.size(), 1u);
  EXPECT_EQ(result.containers[0].sizing.memory_request_bytes, kMax);
  EXPECT_EQ(result.containers[0].sizing.memory_limit_bytes, kMax);
  EXPECT_EQ(result.containers[0].sizing.cpu_request_millis, kMax);
}

struct InvalidCase {
  const char* name;
  void (*mutate)(NodeDemand&);
  const char* message;
};

class InvalidNodeTest : public ::testing::TestWithParam<InvalidCase> {};

TEST_P(InvalidNodeTest, IsRejectedNamingTheField) {
  NodeDemand node = Node(1000, kGi,
                         {Pod("a", EvictionRanking::kLow, {C("app", 100, 200, kMi, 2 * kMi)}),
                          Pod("b", EvictionRanking::kLow, {C("app", 100, 200, kMi, 2 * kMi)})});
  GetParam().mutate(node);
  EXPECT_THAT(OptimizeNode(node),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, InvalidNodeTest,
    ::testing::Values(
        InvalidCase{"peak_below_base",
                    [](NodeDemand& n) { n.pods[1].containers[0].cpu->peak_millis = 50; },
                    "pods[1].containers[0].cpu.max: peak 50m is below the base (p75) 100m"},
        InvalidCase{"memory_peak_below_base",
                    [](NodeDemand& n) { n.pods[0].containers[0].memory->peak_bytes = 1; },
                    "pods[0].containers[0].memory.max"},
        InvalidCase{"week_max_below_peak",
                    [](NodeDemand& n) { n.pods[0].containers[0].memory->max_7d_bytes = kMi; },
                    "pods[0].containers[0].memory.max7d"},
        InvalidCase{"negative",
                    [](NodeDemand& n) { n.pods[0].containers[0].cpu->base_millis = -1; },
                    "must not be negative"},
        InvalidCase{"negative_oom",
                    [](NodeDemand& n) { n.pods[0].containers[0].memory->oom_bytes = -1; },
                    "pods[0].containers[0].memory: must not be negative"},
        InvalidCase{"duplicate_pod", [](NodeDemand& n) { n.pods[1].name = "a"; },
                    "pods[1]: the same namespace/name appears twice"},
        InvalidCase{"duplicate_container",
                    [](NodeDemand& n) { n.pods[0].containers.push_back(n.pods[0].containers[0]); },
                    "pods[0].containers[1].name"},
        InvalidCase{"no_containers", [](NodeDemand& n) { n.pods[0].containers.clear(); },
                    "pods[0].containers: an optimizable pod needs at least one container"},
        InvalidCase{"negative_requests", [](NodeDemand& n) { n.pods[0].requests.cpu_millis = -5; },
                    "pods[0].requests"},
        InvalidCase{"negative_allocatable", [](NodeDemand& n) { n.allocatable.memory_bytes = -1; },
                    "node.allocatable"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace headroom
