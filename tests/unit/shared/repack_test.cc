#include "shared/repack.h"

#include <algorithm>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shared/repack_bound.h"
#include "shared/repack_generator.h"

namespace headroom {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kGi = int64_t{1} << 30;

// Advances a microsecond per reading: a solve is deterministic and, for these sizes, finishes
// long before any time limit.
class StepClock : public RepackClock {
 public:
  absl::Time Now() override {
    now_ += absl::Microseconds(1);
    return now_;
  }

 private:
  absl::Time now_ = absl::UnixEpoch();
};

RepackPlan Solve(const RepackInstance& instance, absl::Duration timeout = absl::Seconds(600)) {
  StepClock clock;
  RepackOptions options;
  options.timeout = timeout;
  absl::StatusOr<RepackPlan> plan = SolveRepack(instance, options, clock);
  EXPECT_TRUE(plan.ok()) << plan.status();
  return plan.ok() ? *plan : RepackPlan{};
}

RepackPod Pod(const char* name, int64_t cpu, int64_t memory, int32_t priority, int node) {
  RepackPod pod;
  pod.name = name;
  pod.cpu_milli = cpu;
  pod.memory_bytes = memory;
  pod.priority = priority;
  pod.current_node = node;
  return pod;
}

// The order the solver optimises in: (placed of tier 0, keep of tiers <= 0, placed of tier 1,
// ...), where keep counts 2 per running pod left in place and 1 per running pod moved.
std::vector<int64_t> Key(const RepackInstance& instance, const std::vector<int>& assignment) {
  std::vector<int32_t> priorities;
  for (const RepackPod& pod : instance.pods) priorities.push_back(pod.priority);
  std::sort(priorities.begin(), priorities.end(), std::greater<int32_t>());
  priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
  std::vector<int64_t> key;
  for (size_t t = 0; t < priorities.size(); ++t) {
    int64_t placed = 0;
    int64_t keep = 0;
    for (size_t i = 0; i < instance.pods.size(); ++i) {
      const RepackPod& pod = instance.pods[i];
      const bool up_to = pod.priority >= priorities[t];
      if (pod.priority == priorities[t] && assignment[i] >= 0) ++placed;
      if (up_to && pod.current_node >= 0 && assignment[i] >= 0) {
        keep += assignment[i] == pod.current_node ? 2 : 1;
      }
    }
    key.push_back(placed);
    key.push_back(keep);
  }
  return key;
}

// Every assignment of every pod to a node or to nothing; the best key.
std::vector<int64_t> BruteForceBest(const RepackInstance& instance) {
  std::vector<int> assignment(instance.pods.size(), -1);
  std::vector<int64_t> best;
  std::function<void(size_t)> visit = [&](size_t i) {
    if (i == assignment.size()) {
      if (!RepackAssignmentFits(instance, assignment)) return;
      best = std::max(best, Key(instance, assignment));
      return;
    }
    for (int node = -1; node < static_cast<int>(instance.nodes.size()); ++node) {
      assignment[i] = node;
      visit(i + 1);
    }
  };
  visit(0);
  return best;
}

TEST(RepackTest, PaperFigureOneMovesOnePodToPlaceTheThird) {
  // Seed 002, Figure 1: two 4 GB nodes, pods of 2 and 2 GB spread out, a 3 GB pod pending.
  RepackInstance instance;
  instance.nodes = {{"a", 4000, 4 * kGi}, {"b", 4000, 4 * kGi}};
  instance.pods = {Pod("p1", 100, 2 * kGi, 0, 0), Pod("p2", 100, 2 * kGi, 0, 1),
                   Pod("p3", 100, 3 * kGi, 0, -1)};
  const RepackPlan plan = Solve(instance);
  ASSERT_EQ(plan.tiers.size(), 1u);
  EXPECT_EQ(plan.tiers[0].placed_before, 2);
  EXPECT_EQ(plan.tiers[0].placed_after, 3);
  EXPECT_EQ(plan.tiers[0].moved, 1);
  EXPECT_EQ(plan.tiers[0].kept, 1);
  EXPECT_EQ(plan.tiers[0].evicted, 0);
  EXPECT_TRUE(plan.optimal);
  EXPECT_TRUE(RepackAssignmentFits(instance, plan.assignment));
  const std::vector<RepackChange> changes = RepackChanges(instance, plan);
  ASSERT_EQ(changes.size(), 2u);
  int moves = 0, places = 0;
  for (const RepackChange& change : changes) {
    moves += change.kind == RepackChange::Kind::kMove;
    places += change.kind == RepackChange::Kind::kPlace;
  }
  EXPECT_EQ(moves, 1);
  EXPECT_EQ(places, 1);
}

TEST(RepackTest, HigherPriorityPendingPodEvictsALowerOneWhenNothingCanMove) {
  RepackInstance instance;
  instance.nodes = {{"a", 1000, 1 * kGi}};
  instance.pods = {Pod("low", 800, kGi / 2, 0, 0), Pod("high", 800, kGi / 2, 100, -1)};
  const RepackPlan plan = Solve(instance);
  ASSERT_EQ(plan.tiers.size(), 2u);
  EXPECT_EQ(plan.tiers[0].priority, 100);
  EXPECT_EQ(plan.tiers[0].placed_after, 1);
  EXPECT_EQ(plan.tiers[1].evicted, 1);
  EXPECT_EQ(plan.assignment, (std::vector<int>{-1, 0}));
  EXPECT_TRUE(plan.optimal);
}

TEST(RepackTest, LowerPriorityPendingPodNeverDisplacesAHigherOne) {
  RepackInstance instance;
  instance.nodes = {{"a", 1000, 1 * kGi}};
  instance.pods = {Pod("high", 800, kGi / 2, 100, 0), Pod("low", 800, kGi / 2, 0, -1)};
  const RepackPlan plan = Solve(instance);
  EXPECT_EQ(plan.assignment, (std::vector<int>{0, -1}));
  EXPECT_TRUE(RepackChanges(instance, plan).empty());
}

TEST(RepackTest, NothingPendingMeansNoChanges) {
  RepackInstance instance;
  instance.nodes = {{"a", 2000, 2 * kGi}, {"b", 2000, 2 * kGi}};
  instance.pods = {Pod("p1", 500, kGi, 0, 0), Pod("p2", 500, kGi, 10, 1)};
  const RepackPlan plan = Solve(instance);
  EXPECT_TRUE(RepackChanges(instance, plan).empty());
  EXPECT_TRUE(plan.optimal);
}

TEST(RepackTest, MatchesBruteForceOnSmallInstances) {
  std::mt19937_64 rng(7);
  int proven = 0;
  for (int round = 0; round < 40; ++round) {
    RepackInstance instance;
    const int nodes = 2 + static_cast<int>(rng() % 2);
    for (int n = 0; n < nodes; ++n) {
      instance.nodes.push_back({"n" + std::to_string(n), 1000, 1000});
    }
    const int pods = 4 + static_cast<int>(rng() % 3);
    std::vector<int64_t> cpu(nodes, 0), memory(nodes, 0);
    for (int i = 0; i < pods; ++i) {
      RepackPod pod = Pod("", 100 * (1 + rng() % 7), 100 * (1 + rng() % 7),
                          static_cast<int32_t>(rng() % 2), -1);
      pod.name = "p" + std::to_string(i);
      // Placed where it fits, first fit in a random order, as a scheduler might have.
      const int start = static_cast<int>(rng() % nodes);
      for (int k = 0; k < nodes; ++k) {
        const int n = (start + k) % nodes;
        if (rng() % 4 != 0 && cpu[n] + pod.cpu_milli <= 1000 &&
            memory[n] + pod.memory_bytes <= 1000) {
          pod.current_node = n;
          cpu[n] += pod.cpu_milli;
          memory[n] += pod.memory_bytes;
          break;
        }
      }
      instance.pods.push_back(pod);
    }
    const RepackPlan plan = Solve(instance);
    ASSERT_TRUE(RepackAssignmentFits(instance, plan.assignment)) << "round " << round;
    std::vector<int> now;
    for (const RepackPod& pod : instance.pods) now.push_back(pod.current_node);
    EXPECT_GE(Key(instance, plan.assignment), Key(instance, now)) << "round " << round;
    if (plan.optimal) {
      ++proven;
      EXPECT_EQ(Key(instance, plan.assignment), BruteForceBest(instance)) << "round " << round;
    }
  }
  EXPECT_EQ(proven, 40);  // with this much time every small instance is proven
}

TEST(RepackTest, GeneratedInstancesStayWithinCapacityAndNeverGetWorse) {
  RepackGeneratorConfig config;
  config.nodes = 8;
  config.pods_per_node = 4;
  config.tiers = 2;
  config.target_utilisation = 1.05;
  for (const RepackInstance& instance : GenerateInstancesNeedingRepack(config, 6)) {
    const RepackPlan plan = Solve(instance, absl::Milliseconds(5));
    ASSERT_TRUE(RepackAssignmentFits(instance, plan.assignment));
    std::vector<int> now;
    for (const RepackPod& pod : instance.pods) now.push_back(pod.current_node);
    EXPECT_GE(Key(instance, plan.assignment), Key(instance, now));
    for (const RepackTierResult& tier : plan.tiers) {
      EXPECT_LE(tier.placed_after, tier.placement_bound) << "a plan beats its own upper bound";
      EXPECT_EQ(tier.kept + tier.moved + tier.evicted, tier.running);
    }
  }
}

TEST(RepackTest, ZeroTimeoutStillReturnsAValidPlan) {
  RepackGeneratorConfig config;
  config.nodes = 16;
  config.target_utilisation = 1.05;
  const RepackInstance instance = GenerateRepackInstance(config);
  const RepackPlan plan = Solve(instance, absl::ZeroDuration());
  EXPECT_TRUE(RepackAssignmentFits(instance, plan.assignment));
  EXPECT_EQ(plan.assignment.size(), instance.pods.size());
}

TEST(RepackTest, RejectsBadInstances) {
  StepClock clock;
  struct Case {
    const char* name;
    std::function<void(RepackInstance&)> edit;
    const char* message;
  };
  const Case cases[] = {
      {"no nodes", [](RepackInstance& i) { i.nodes.clear(); }, "no nodes"},
      {"node out of range", [](RepackInstance& i) { i.pods[0].current_node = 5; }, "out of range"},
      {"duplicate pod", [](RepackInstance& i) { i.pods[1].name = i.pods[0].name; }, "duplicate"},
      {"negative request", [](RepackInstance& i) { i.pods[0].cpu_milli = -1; }, "negative"},
      {"duplicate node", [](RepackInstance& i) { i.nodes.push_back(i.nodes[0]); }, "duplicate"},
  };
  for (const Case& c : cases) {
    RepackInstance instance;
    instance.nodes = {{"a", 1000, kGi}};
    instance.pods = {Pod("p1", 1, 1, 0, 0), Pod("p2", 1, 1, 0, -1)};
    c.edit(instance);
    absl::StatusOr<RepackPlan> plan = SolveRepack(instance, RepackOptions{}, clock);
    ASSERT_FALSE(plan.ok()) << c.name;
    EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
    EXPECT_THAT(plan.status().message(), HasSubstr(c.message)) << c.name;
  }
}

TEST(RepackBoundTest, SurrogateCountBound) {
  using repack_internal::RequiredGroup;
  using repack_internal::Size;
  struct Case {
    const char* name;
    Size pool;
    std::vector<Size> target;
    std::vector<RequiredGroup> required;
    int want;
  };
  const Case cases[] = {
      {"all fit", {10, 10}, {{1, 1}, {2, 2}, {3, 3}}, {}, 3},
      {"cpu binds", {5, 100}, {{2, 1}, {2, 1}, {2, 1}}, {}, 2},
      {"memory binds", {100, 4}, {{1, 3}, {1, 3}}, {}, 1},
      {"both bind", {5, 5}, {{4, 1}, {4, 1}, {1, 4}, {1, 4}}, {}, 2},
      {"required first", {10, 10}, {{5, 5}}, {{{{6, 6}, {9, 9}}, 1}}, 0},
      {"required does not fit", {10, 10}, {{1, 1}}, {{{{11, 1}}, 1}}, -1},
      {"none", {10, 10}, {}, {}, 0},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(repack_internal::SurrogateCountBound(c.pool, c.target, c.required), c.want) << c.name;
  }
}

TEST(RepackGeneratorTest, FollowsThePapersSetup) {
  RepackGeneratorConfig config;
  config.nodes = 16;
  config.pods_per_node = 8;
  config.tiers = 4;
  config.target_utilisation = 0.95;
  config.seed = 11;
  const RepackInstance instance = GenerateRepackInstance(config);
  ASSERT_EQ(instance.nodes.size(), 16u);
  ASSERT_EQ(instance.pods.size(), 128u);
  int64_t cpu = 0, memory = 0;
  std::map<std::string, int> replicas;
  std::set<int32_t> priorities;
  for (const RepackPod& pod : instance.pods) {
    cpu += pod.cpu_milli;
    memory += pod.memory_bytes;
    ++replicas[pod.owner];
    priorities.insert(pod.priority);
    EXPECT_GE(pod.cpu_milli, 100);
    EXPECT_LE(pod.cpu_milli, 1000);
  }
  for (const auto& [owner, count] : replicas) {
    EXPECT_GE(count, 1) << owner;
    EXPECT_LE(count, 4) << owner;
  }
  EXPECT_LE(priorities.size(), 4u);
  for (const RepackNode& node : instance.nodes) {
    EXPECT_EQ(node.cpu_milli, instance.nodes[0].cpu_milli);
    EXPECT_EQ(node.memory_bytes, instance.nodes[0].memory_bytes);
  }
  // The pods are 95% of the cluster, to rounding.
  EXPECT_NEAR(static_cast<double>(cpu) / (16 * instance.nodes[0].cpu_milli), 0.95, 0.01);
  EXPECT_NEAR(static_cast<double>(memory) / (16 * instance.nodes[0].memory_bytes), 0.95, 0.01);
  std::vector<int> placed;
  for (const RepackPod& pod : instance.pods) placed.push_back(pod.current_node);
  EXPECT_TRUE(RepackAssignmentFits(instance, placed));
}

TEST(RepackGeneratorTest, SchedulerModelPrefersTheEmptierNodeAndTheLowerName) {
  RepackInstance instance;
  instance.nodes = {{"b", 1000, 1000}, {"a", 1000, 1000}};
  instance.pods = {Pod("first", 500, 500, 0, -1), Pod("second", 100, 100, 0, -1),
                   Pod("urgent", 100, 100, 5, -1)};
  // "urgent" goes first (priority), to "a" (same score, lower name); "first" to "b" (emptier);
  // "second" to "a" (emptier then).
  EXPECT_EQ(DefaultSchedulerPlacement(instance), (std::vector<int>{0, 1, 1}));
}

TEST(RepackGeneratorTest, KeepsOnlyInstancesWithPendingPods) {
  RepackGeneratorConfig config;
  config.nodes = 4;
  config.target_utilisation = 1.0;
  const std::vector<RepackInstance> instances = GenerateInstancesNeedingRepack(config, 3);
  ASSERT_EQ(instances.size(), 3u);
  for (const RepackInstance& instance : instances) EXPECT_GT(PendingPods(instance), 0);
}

}  // namespace
}  // namespace headroom
