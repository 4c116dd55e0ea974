#include "shared/placement.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::testing::HasSubstr;

constexpr int64_t kGi = 1LL << 30;

PodFootprint Pod(int64_t cpu_base, int64_t cpu_headroom, int64_t memory_base,
                 int64_t memory_headroom) {
  return {{cpu_base, memory_base}, {cpu_headroom, memory_headroom}};
}

NodeFootprint Node(std::vector<PodFootprint> pods) {
  NodeFootprint node;
  node.name = "n1";
  node.allocatable = {4000, 8 * kGi};
  for (const PodFootprint& pod : pods) node.Add(pod);
  return node;
}

TEST(ProjectedFitTest, PodsShareOneHeadroom) {
  // Bases 1000 + 1000 + candidate 700 = 2700m; headrooms 300, 400 and the candidate's 1200,
  // combined by root-sum-square: sqrt(300^2 + 400^2) = 500, then sqrt(500^2 + 1200^2) = 1300
  // -> 4000m, exactly allocatable. Per-pod peaks would need 1300 + 1400 + 1900 = 4600m; the
  // largest headroom alone (seed 000) 3900m.
  const NodeFootprint node = Node({Pod(1000, 300, kGi, 0), Pod(1000, 400, kGi, 0)});
  EXPECT_EQ(node.headroom.cpu_millis, 500);
  const FitDecision fit = ProjectedFit(node, Pod(700, 1200, kGi, kGi));
  EXPECT_TRUE(fit.fits) << fit.reason.message;
  EXPECT_TRUE(FitsProjected(node, Pod(700, 1200, kGi, kGi)));
  EXPECT_EQ(fit.projected.cpu_millis, 4000);
  EXPECT_EQ(fit.projected.memory_bytes, 4 * kGi);
  EXPECT_EQ(fit.reason.code, "Fits");
  const FitDecision over = ProjectedFit(node, Pod(701, 1200, kGi, 0));
  EXPECT_FALSE(over.fits);
  EXPECT_FALSE(FitsProjected(node, Pod(701, 1200, kGi, 0)));
  EXPECT_EQ(over.reason.code, "InsufficientCpu");
  EXPECT_THAT(over.reason.message, HasSubstr("projected cpu 4001m"));
}

TEST(CombineHeadroomTest, RootSumSquareRoundedUp) {
  struct Case {
    int64_t a, b, want;
  };
  const int64_t kMax = std::numeric_limits<int64_t>::max();
  for (const Case& c : std::vector<Case>{{0, 0, 0},
                                         {0, 7, 7},
                                         {7, 0, 7},
                                         {3, 4, 5},
                                         {1, 1, 2},  // sqrt(2) rounded up
                                         {1000, 800, 1281},
                                         {-5, 4, 4},  // negative counts as 0
                                         {kMax, kMax, kMax},
                                         {kMax, 1, kMax},
                                         {int64_t{1} << 62, 1, kMax},
                                         {int64_t{1} << 40, int64_t{1} << 40, 1554944255988}}) {
    EXPECT_EQ(CombineHeadroom(c.a, c.b), c.want) << c.a << ", " << c.b;
    EXPECT_EQ(CombineHeadroom(c.b, c.a), c.want) << "symmetric";
    if (c.a >= 0 && c.b >= 0) {
      EXPECT_GE(CombineHeadroom(c.a, c.b), std::max(c.a, c.b)) << "never below the larger";
    }
  }
}

TEST(CombineHeadroomTest, FitsProjectedAgreesWithProjectedFootprint) {
  // The filter's square-root-free test and the projected footprint agree at every edge.
  for (int64_t room = 0; room <= 60; ++room) {
    for (int64_t a = 0; a <= 40; a += 3) {
      for (int64_t b = 0; b <= 40; b += 7) {
        NodeFootprint node;
        node.allocatable = {100, 100};
        node.base_total = {100 - room, 0};
        node.headroom = {a, 0};
        const PodFootprint candidate{{0, 0}, {b, 0}};
        EXPECT_EQ(FitsProjected(node, candidate), ProjectedFit(node, candidate).fits)
            << room << " " << a << " " << b;
      }
    }
  }
}

TEST(ProjectedFitTest, MemoryPodsAndCordon) {
  NodeFootprint node = Node({Pod(100, 0, 6 * kGi, kGi)});
  EXPECT_EQ(ProjectedFit(node, Pod(100, 0, kGi, 2 * kGi)).reason.code, "InsufficientMemory");
  node.max_pods = 1;
  EXPECT_EQ(ProjectedFit(node, Pod(1, 0, 1, 0)).reason.code, "TooManyPods");
  node.max_pods = 110;
  node.cordoned = true;
  node.cordon_reason = {"Overloaded", "load1 6.00 on 4 CPUs = 1.50 > 1.00"};
  const FitDecision cordoned = ProjectedFit(node, Pod(1, 0, 1, 0));
  EXPECT_EQ(cordoned.reason.code, "LoadCordoned");
  EXPECT_THAT(cordoned.reason.message, HasSubstr("1.50 > 1.00"));
}

TEST(ProjectedFitTest, PodsWithoutStatisticsUseTheirRequests) {
  // Declared requests as base with zero headroom: the plain requests check.
  const NodeFootprint node = Node({Pod(3000, 0, kGi, 0)});
  EXPECT_TRUE(ProjectedFit(node, Pod(1000, 0, kGi, 0)).fits);
  EXPECT_FALSE(ProjectedFit(node, Pod(1001, 0, kGi, 0)).fits);
}

TEST(ProjectedFitTest, TheVerdictAloneAgreesWithTheDecision) {
  // The scheduler's path asks FitsProjected and explains only rejections with ProjectedFit.
  NodeFootprint cordoned = Node({});
  cordoned.cordoned = true;
  NodeFootprint full_of_pods = Node({Pod(1, 0, 1, 0)});
  full_of_pods.max_pods = 1;
  const struct {
    NodeFootprint node;
    PodFootprint candidate;
  } cases[] = {
      {Node({Pod(1000, 1000, kGi, 0)}), Pod(500, 1500, kGi, kGi)},     // fits
      {Node({Pod(1000, 1000, kGi, 0)}), Pod(1501, 1500, kGi, 0)},      // cpu: 2501 + 1500
      {Node({Pod(100, 0, 6 * kGi, kGi)}), Pod(100, 0, kGi, 2 * kGi)},  // memory
      {Node({Pod(3000, 0, kGi, 0)}), Pod(1000, 0, kGi, 0)},            // exactly allocatable
      {cordoned, Pod(1, 0, 1, 0)},
      {full_of_pods, Pod(1, 0, 1, 0)},
  };
  int fitting = 0;
  for (const auto& c : cases) {
    const FitDecision decision = ProjectedFit(c.node, c.candidate);
    EXPECT_EQ(FitsProjected(c.node, c.candidate), decision.fits) << decision.reason.code;
    fitting += decision.fits ? 1 : 0;
  }
  EXPECT_EQ(fitting, 2);  // the table has both verdicts
}

TEST(ScoreNodeTest, SpreadPrefersEmptyNodesAndPackPrefersFullOnes) {
  const NodeFootprint empty = Node({});
  const NodeFootprint half = Node({Pod(2000, 0, 4 * kGi, 0)});
  const PodFootprint candidate = Pod(0, 0, 0, 0);
  EXPECT_EQ(ScoreNode(empty, candidate), 10);
  EXPECT_EQ(ScoreNode(half, candidate), 5);
  ScoringConfig pack;
  pack.strategy = ScoringStrategy::kPack;
  EXPECT_EQ(ScoreNode(empty, candidate, pack), 0);
  EXPECT_EQ(ScoreNode(half, candidate, pack), 5);
}

// A node holding `pods` of `max_pods` pods that use nothing.
NodeFootprint NodeWithPods(int pods, int max_pods) {
  NodeFootprint node = Node({});
  node.pod_count = pods;
  node.max_pods = max_pods;
  return node;
}

// Target scoring (Trimaran's TargetLoadPacking formula) on the fullest of the node's projected
// CPU, memory and pod-slot shares, target 0.75: from 7.5 at empty up to 10 at the target, then
// down to 0 at full.
TEST(ScoreNodeTest, TargetFillsNodesToTheTargetThenSpreads) {
  struct Case {
    const char* name;
    NodeFootprint node;
    PodFootprint candidate;
    int score;
  };
  const std::vector<Case> cases = {
      {"at the target by pod slots", NodeWithPods(2, 4), Pod(0, 0, 0, 0), 10},  // 3 of 4
      {"full of pods that use nothing", NodeWithPods(3, 4), Pod(0, 0, 0, 0), 0},
      {"half the pod slots", NodeWithPods(9, 20), Pod(0, 0, 0, 0), 9},
      {"empty", Node({}), Pod(0, 0, 0, 0), 8},                        // 7.5, rounded
      {"half full", Node({Pod(2000, 0, 0, 0)}), Pod(0, 0, 0, 0), 9},  // 7.5 + 2.5 x 0.5/0.75
      {"at the target", Node({Pod(2000, 0, 0, 0)}), Pod(500, 500, 0, 0), 10},
      {"at the target by memory", Node({Pod(0, 0, 5 * kGi, 0)}), Pod(0, 0, kGi, 0), 10},
      {"above the target", Node({Pod(3000, 0, 0, 0)}), Pod(500, 0, 0, 0), 4},  // 7.5 x 0.125/0.25
      {"full", Node({Pod(3000, 0, 0, 0)}), Pod(0, 1000, 0, 0), 0},
  };
  ScoringConfig target;
  target.strategy = ScoringStrategy::kTarget;
  for (const Case& c : cases) {
    EXPECT_EQ(ScoreNode(c.node, c.candidate, target), c.score) << c.name;
  }
  // A lower target packs less: half full is already above 0.4.
  target.target_share = 0.4;
  EXPECT_EQ(ScoreNode(Node({Pod(2000, 0, 0, 0)}), Pod(0, 0, 0, 0), target), 3);  // 4 x 0.5/0.6
  EXPECT_EQ(ScoreNode(Node({}), Pod(0, 0, 0, 0), target), 4);
}

TEST(ScoringStrategyTest, NamesRoundTripAndTheTargetIsBounded) {
  for (ScoringStrategy strategy :
       {ScoringStrategy::kSpread, ScoringStrategy::kPack, ScoringStrategy::kTarget}) {
    absl::StatusOr<ScoringStrategy> parsed = ParseScoringStrategy(ScoringStrategyName(strategy));
    ASSERT_THAT(parsed.status(), IsOk());
    EXPECT_EQ(*parsed, strategy);
  }
  EXPECT_THAT(ParseScoringStrategy("binpack").status().message(),
              HasSubstr("spread, pack or target, not \"binpack\""));
  ScoringConfig config;
  for (double bad : {0.0, 1.0, -0.5, 1.5}) {
    config.target_share = bad;
    EXPECT_THAT(config.Validate().message(), HasSubstr("target share")) << bad;
  }
  config.target_share = 0.9;
  EXPECT_THAT(config.Validate(), IsOk());
  // What both binaries' flags go through: the error names the flag.
  absl::StatusOr<ScoringConfig> flags = ScoringFromFlags("target", 0.6);
  ASSERT_THAT(flags.status(), IsOk());
  EXPECT_EQ(flags->strategy, ScoringStrategy::kTarget);
  EXPECT_EQ(flags->target_share, 0.6);
  EXPECT_THAT(ScoringFromFlags("binpack", 0.6).status().message(), HasSubstr("--scoring: "));
  EXPECT_THAT(ScoringFromFlags("pack", 1.0).status().message(), HasSubstr("--scoring-target: "));
}

// The rounding agrees with std::lround (half away from zero) after clamping: at the halves,
// the doubles either side of them, and a fine sweep of the range and beyond it.
TEST(RoundedScoreTest, RoundsAsLroundWithinZeroToTen) {
  std::vector<double> values = {-1e300,
                                -3.7,
                                -0.5,
                                -0.0,
                                0.0,
                                9.999999,
                                10.0,
                                10.5,
                                11,
                                1e300,
                                std::numeric_limits<double>::infinity()};
  for (int half = 0; half <= 20; ++half) {
    const double at = half / 2.0;
    values.push_back(at);
    values.push_back(std::nextafter(at, -1.0));
    values.push_back(std::nextafter(at, 11.0));
  }
  for (int step = -100; step <= 1100; ++step) values.push_back(step / 100.0 + 0.003);
  for (const double value : values) {
    EXPECT_EQ(RoundedScore(value), std::lround(std::clamp(value, 0.0, 10.0))) << value;
  }
  EXPECT_EQ(RoundedScore(std::nan("")), 0);
}

TEST(ScoreNodeTest, LoadedNodesArePenalised) {
  NodeFootprint node = Node({});
  node.load = 0.9;  // halfway from 0.8 to 1.0: -2.5 points
  EXPECT_EQ(ScoreNode(node, Pod(0, 0, 0, 0)), 8);
  node.load = 1.2;  // full penalty
  EXPECT_EQ(ScoreNode(node, Pod(0, 0, 0, 0)), 5);
  EXPECT_THAT(ScoringConfig{}.Validate(), IsOk());
}

}  // namespace
}  // namespace headroom
