#include "shared/workload_policy.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOkAndHolds;
using ::headroom::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(WorkloadPolicyTest, DefaultsWithoutAnnotations) {
  const WorkloadPolicy p = ResolveWorkloadPolicy({}, {}, "Deployment", 3);
  EXPECT_EQ(p.policy, SizingPolicy::kHeadroom);
  EXPECT_FALSE(p.recommend_only);
  EXPECT_FALSE(p.disabled);
  EXPECT_FALSE(p.excluded);
  EXPECT_EQ(p.ranking.ranking, EvictionRanking::kLow);
  EXPECT_FALSE(p.allowed_strategies.has_value());
  EXPECT_TRUE(p.warnings.empty());
}

TEST(WorkloadPolicyTest, PodAnnotationsOverrideTheWorkload) {
  const Annotations workload = {{"headroom.dev/policy", "vpa"},
                                {"headroom.dev/eviction-ranking", "high"}};
  const Annotations pod = {{"headroom.dev/policy", "crane"},
                           {"headroom.dev/exclude", "true"},
                           {"headroom.dev/mode", "recommend"}};
  const WorkloadPolicy p = ResolveWorkloadPolicy(workload, pod, "StatefulSet", 1);
  EXPECT_EQ(p.policy, SizingPolicy::kCrane);
  EXPECT_EQ(p.ranking.ranking, EvictionRanking::kHigh);
  EXPECT_TRUE(p.excluded);
  EXPECT_TRUE(p.recommend_only);
}

TEST(WorkloadPolicyTest, ExclusionIsPodOnly) {
  const WorkloadPolicy p =
      ResolveWorkloadPolicy({{"headroom.dev/exclude", "true"}}, {}, "Deployment", 2);
  EXPECT_FALSE(p.excluded);
}

TEST(WorkloadPolicyTest, GlobalRecommendOnlyWins) {
  PolicyDefaults defaults;
  defaults.recommend_only = true;
  const WorkloadPolicy p =
      ResolveWorkloadPolicy({{"headroom.dev/mode", "enforce"}}, {}, "Deployment", 2, defaults);
  EXPECT_TRUE(p.recommend_only);
}

TEST(WorkloadPolicyTest, TyposBecomeWarningsNotErrors) {
  const Annotations workload = {{"headroom.dev/policy", "vpaa"},
                                {"headroom.dev/disable", "yes"},
                                {"headroom.dev/mode", "dry"},
                                {"headroom.dev/eviction-ranking", "urgent"},
                                {"headroom.dev/eviction-policy", "CPUEvict"}};
  const WorkloadPolicy p = ResolveWorkloadPolicy(workload, {}, "Deployment", 1);
  EXPECT_EQ(p.policy, SizingPolicy::kHeadroom);
  EXPECT_FALSE(p.disabled);
  EXPECT_FALSE(p.recommend_only);
  EXPECT_EQ(p.ranking.ranking, EvictionRanking::kMedium);  // single replica default
  // An unreadable restriction allows nothing, rather than everything.
  ASSERT_TRUE(p.allowed_strategies.has_value());
  EXPECT_TRUE(p.allowed_strategies->empty());
  ASSERT_EQ(p.warnings.size(), 5u);
  for (const Reason& warning : p.warnings) EXPECT_EQ(warning.code, "InvalidAnnotation");
  EXPECT_THAT(p.warnings[0].message, HasSubstr("vpaa"));
}

TEST(WorkloadPolicyTest, EvictionOptIn) {
  const WorkloadPolicy p =
      ResolveWorkloadPolicy({{"headroom.dev/eviction-policy", R"(["BECPUEvict", "CPUEvict"])"}},
                            {{"headroom.dev/eviction-enabled", "TRUE"}}, "Job", std::nullopt);
  EXPECT_TRUE(p.eviction_enabled);
  ASSERT_TRUE(p.allowed_strategies.has_value());
  EXPECT_THAT(*p.allowed_strategies,
              ElementsAre(KoordStrategy::kBeCpuEvict, KoordStrategy::kCpuEvict));
}

TEST(EvictionPolicyParseTest, Table) {
  EXPECT_THAT(ParseEvictionPolicy("[]"), IsOkAndHolds(::testing::IsEmpty()));
  EXPECT_THAT(ParseEvictionPolicy(R"( ["CPUAllocatableEvict"] )"),
              IsOkAndHolds(ElementsAre(KoordStrategy::kCpuAllocatableEvict)));
  EXPECT_THAT(ParseEvictionPolicy(R"(["Nope"])"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("unknown eviction")));
  EXPECT_THAT(ParseEvictionPolicy(R"([CPUEvict])"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("quoted")));
}

TEST(SizingPolicyTest, ParsesNames) {
  EXPECT_THAT(ParseSizingPolicy(" VPA "), IsOkAndHolds(SizingPolicy::kVpa));
  EXPECT_THAT(ParseSizingPolicy("static"), IsOkAndHolds(SizingPolicy::kStatic));
  EXPECT_THAT(ParseSizingPolicy("x"), StatusIs(absl::StatusCode::kInvalidArgument,
                                               HasSubstr("headroom, vpa, crane or static")));
}

TEST(SizingBlockedByTest, NamesWhatLeavesTheResourcesAlone) {
  const struct {
    Annotations pod;
    std::string why;
  } cases[] = {
      {{}, ""},
      {{{"headroom.dev/policy", "vpa"}}, ""},
      {{{"headroom.dev/disable", "true"}}, "annotated headroom.dev/disable"},
      {{{"headroom.dev/exclude", "true"}}, "annotated headroom.dev/exclude"},
      {{{"headroom.dev/mode", "recommend"}}, "mode recommend"},
      {{{"headroom.dev/policy", "static"}}, "policy static"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(SizingBlockedBy(ResolveWorkloadPolicy({}, c.pod, "", std::nullopt)), c.why);
  }
}

}  // namespace
}  // namespace headroom
