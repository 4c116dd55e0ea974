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
  // crane wins over vpa, and is refused: no running component sizes with it.
  EXPECT_EQ(p.policy, SizingPolicy::kHeadroom);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_THAT(p.warnings[0].message, HasSubstr("crane is compared in `headroom simulate`"));
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

TEST(WorkloadPolicyTest, TuningFromAnnotations) {
  const Annotations pod = {
      {"headroom.dev/min-cpu", "100m"},        {"headroom.dev/max-cpu", "2"},
      {"headroom.dev/min-memory", "64Mi"},     {"headroom.dev/max-memory", "1Gi"},
      {"headroom.dev/cpu-margin", "20%"},      {"headroom.dev/memory-margin", "0.5"},
      {"headroom.dev/keep-declared", "memory"}};
  const WorkloadPolicy p = ResolveWorkloadPolicy({}, pod, "Deployment", 3);
  EXPECT_TRUE(p.warnings.empty());
  WorkloadTuning want;
  want.min_cpu_millis = 100;
  want.max_cpu_millis = 2000;
  want.min_memory_bytes = int64_t{64} << 20;
  want.max_memory_bytes = int64_t{1} << 30;
  want.cpu_margin = 0.2;
  want.memory_margin = 0.5;
  want.keep_memory = true;
  EXPECT_EQ(p.tuning, want);
}

TEST(WorkloadPolicyTest, BadTuningIsIgnoredWithAReason) {
  const struct {
    Annotations pod;
    std::string warning;
  } cases[] = {
      {{{"headroom.dev/min-cpu", "lots"}}, "headroom.dev/min-cpu: "},
      {{{"headroom.dev/max-memory", "-1Gi"}}, "headroom.dev/max-memory: "},
      {{{"headroom.dev/min-cpu", "2"}, {"headroom.dev/max-cpu", "1"}},
       "headroom.dev/min-cpu: 2 is above headroom.dev/max-cpu 1; both ignored"},
      {{{"headroom.dev/cpu-margin", "2000%"}}, "outside 0% to 1000%"},
      {{{"headroom.dev/memory-margin", "x"}}, "is not a margin such as 20% or 0.2"},
      {{{"headroom.dev/keep-declared", "cpu,gpu"}}, "\"gpu\" is not a resource"},
  };
  for (const auto& c : cases) {
    const WorkloadPolicy p = ResolveWorkloadPolicy({}, c.pod, "Deployment", 3);
    EXPECT_EQ(p.tuning, WorkloadTuning{}) << c.warning;
    ASSERT_EQ(p.warnings.size(), 1u) << c.warning;
    EXPECT_EQ(p.warnings[0].code, "InvalidAnnotation");
    EXPECT_THAT(p.warnings[0].message, HasSubstr(c.warning));
  }
}

TEST(WorkloadPolicyTest, UnknownKeysAreReportedWithTheNearestKnownOne) {
  const Annotations pod = {{"headroom.dev/max-cpus", "2"},
                           {"headroom.dev/zzzzzzzzzz", "1"},
                           {"example.com/max-cpus", "2"},
                           {"headroom.dev/workload", "ns/Deployment/web"}};
  const WorkloadPolicy p = ResolveWorkloadPolicy({}, pod, "Deployment", 3);
  ASSERT_EQ(p.warnings.size(), 2u);
  EXPECT_EQ(p.warnings[0].code, "UnknownAnnotation");
  EXPECT_EQ(p.warnings[0].message,
            "headroom.dev/max-cpus is not a key headroom reads (did you mean "
            "headroom.dev/max-cpu?); ignored");
  EXPECT_EQ(p.warnings[1].message, "headroom.dev/zzzzzzzzzz is not a key headroom reads; ignored");
  EXPECT_FALSE(p.tuning.max_cpu_millis.has_value());
}

TEST(BasePercentileParseTest, Table) {
  EXPECT_THAT(ParseBasePercentile("90"), IsOkAndHolds(0.9));
  EXPECT_THAT(ParseBasePercentile("P95"), IsOkAndHolds(0.95));
  EXPECT_THAT(ParseBasePercentile(" 0.8 "), IsOkAndHolds(0.8));
  EXPECT_THAT(ParseBasePercentile("100%"), IsOkAndHolds(1.0));
  EXPECT_THAT(ParseBasePercentile("40"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("outside 50 to 100")));
  EXPECT_THAT(ParseBasePercentile("high"), StatusIs(absl::StatusCode::kInvalidArgument));
  const WorkloadPolicy p =
      ResolveWorkloadPolicy({}, {{"headroom.dev/base-percentile", "P90"}}, "Deployment", 2);
  EXPECT_TRUE(p.warnings.empty());
  EXPECT_EQ(p.tuning.base_percentile, 0.9);
}

TEST(MarginParseTest, Table) {
  EXPECT_THAT(ParseMargin("20%"), IsOkAndHolds(0.2));
  EXPECT_THAT(ParseMargin(" 0.5 "), IsOkAndHolds(0.5));
  EXPECT_THAT(ParseMargin("0"), IsOkAndHolds(0.0));
  EXPECT_THAT(ParseMargin("-1%"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseMargin("nan"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseMargin(""), StatusIs(absl::StatusCode::kInvalidArgument));
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
      {{{"headroom.dev/mode", "recommend"}}, "mode observe (pod)"},
      {{{"headroom.dev/policy", "static"}}, "policy static"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(SizingBlockedBy(ResolveWorkloadPolicy({}, c.pod, "", std::nullopt)), c.why);
  }
}

TEST(AdoptionStepTest, ParsesNamesAndTheOlderValues) {
  const struct {
    const char* text;
    AdoptionStep step;
  } cases[] = {
      {"observe", AdoptionStep::kObserve},     {" Recommend ", AdoptionStep::kObserve},
      {"admission", AdoptionStep::kAdmission}, {"admission-only", AdoptionStep::kAdmission},
      {"in-place", AdoptionStep::kInPlace},    {"INPLACE", AdoptionStep::kInPlace},
      {"enforce", AdoptionStep::kInPlace},
  };
  for (const auto& c : cases)
    EXPECT_THAT(ParseAdoptionStep(c.text), IsOkAndHolds(c.step)) << c.text;
  EXPECT_THAT(ParseAdoptionStep("apply"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("want observe, admission or in-place")));
  for (AdoptionStep step :
       {AdoptionStep::kObserve, AdoptionStep::kAdmission, AdoptionStep::kInPlace}) {
    EXPECT_THAT(ParseAdoptionStep(AdoptionStepName(step)), IsOkAndHolds(step));
  }
  EXPECT_EQ(NextAdoptionStep(AdoptionStep::kObserve), AdoptionStep::kAdmission);
  EXPECT_EQ(NextAdoptionStep(AdoptionStep::kAdmission), AdoptionStep::kInPlace);
  EXPECT_EQ(NextAdoptionStep(AdoptionStep::kInPlace), AdoptionStep::kInPlace);
}

// pod > owner > namespace > cluster, for the mode and for every other key.
TEST(AdoptionStepTest, PrecedencePodOwnerNamespaceCluster) {
  const Annotations none;
  const auto mode = [](const char* value) { return Annotations{{"headroom.dev/mode", value}}; };
  const struct {
    const char* name;
    Annotations pod, owner, ns;
    AdoptionStep cluster;
    AdoptionStep want;
    const char* from;
  } cases[] = {
      {"cluster default", none, none, none, AdoptionStep::kAdmission, AdoptionStep::kAdmission,
       "cluster default"},
      {"namespace over cluster", none, none, mode("observe"), AdoptionStep::kInPlace,
       AdoptionStep::kObserve, "namespace"},
      {"owner over namespace", none, mode("in-place"), mode("observe"), AdoptionStep::kObserve,
       AdoptionStep::kInPlace, "owner"},
      {"pod over owner", mode("admission"), mode("in-place"), mode("observe"),
       AdoptionStep::kInPlace, AdoptionStep::kAdmission, "pod"},
      // An unreadable value falls through to the next layer, not to the cluster's step.
      {"typo falls through", mode("inplace-please"), none, mode("observe"), AdoptionStep::kInPlace,
       AdoptionStep::kObserve, "namespace"},
  };
  for (const auto& c : cases) {
    PolicyDefaults defaults;
    defaults.step = c.cluster;
    const WorkloadPolicy p = ResolveWorkloadPolicy(c.owner, c.pod, "Deployment", 2, defaults, c.ns);
    EXPECT_EQ(p.step, c.want) << c.name;
    EXPECT_EQ(p.step_from, c.from) << c.name;
    EXPECT_EQ(p.recommend_only, c.want == AdoptionStep::kObserve) << c.name;
  }
  // Any other key: a namespace's margin applies unless the owner or the pod sets one.
  const Annotations ns = {{"headroom.dev/cpu-margin", "30%"},
                          {"headroom.dev/allow-below-declared", "true"}};
  WorkloadPolicy p = ResolveWorkloadPolicy({}, {}, "Deployment", 2, {}, ns);
  EXPECT_DOUBLE_EQ(p.tuning.cpu_margin, 0.3);
  EXPECT_TRUE(p.allow_below_declared);
  p = ResolveWorkloadPolicy({{"headroom.dev/cpu-margin", "10%"}}, {}, "Deployment", 2, {}, ns);
  EXPECT_DOUBLE_EQ(p.tuning.cpu_margin, 0.1);
  // Exclusion stays the pod's own.
  p = ResolveWorkloadPolicy({}, {}, "Deployment", 2, {}, {{"headroom.dev/exclude", "true"}});
  EXPECT_FALSE(p.excluded);
}

TEST(AdoptionStepTest, WhatEachStepAllows) {
  const struct {
    const char* mode;
    bool sized;     // at admission
    bool in_place;  // resized while running
    bool observing;
  } cases[] = {
      {"observe", false, false, true},
      {"admission", true, false, false},
      {"in-place", true, true, false},
  };
  for (const auto& c : cases) {
    const WorkloadPolicy p =
        ResolveWorkloadPolicy({}, {}, "Deployment", 2, {}, {{"headroom.dev/mode", c.mode}});
    EXPECT_EQ(SizingBlockedBy(p).empty(), c.sized) << c.mode;
    EXPECT_EQ(InPlaceBlockedBy(p).empty(), c.in_place) << c.mode << ": " << InPlaceBlockedBy(p);
    EXPECT_EQ(OnlyObserving(p), c.observing) << c.mode;
    // Evictions come with the in-place step only.
    EXPECT_EQ(DisruptionFactsOf(p).recommend_only, !c.in_place) << c.mode;
  }
  EXPECT_EQ(InPlaceBlockedBy(ResolveWorkloadPolicy({}, {}, "", std::nullopt, {},
                                                   {{"headroom.dev/mode", "admission"}})),
            "mode admission (namespace): sized when created, never resized in place");
  // A disabled workload is not "observing": nothing is recommended for it.
  EXPECT_FALSE(
      OnlyObserving(ResolveWorkloadPolicy({}, {{"headroom.dev/disable", "true"}}, "", std::nullopt,
                                          {}, {{"headroom.dev/mode", "observe"}})));
}

TEST(DisruptionWindowPolicy, PodOverNamespaceOverClusterAndUnreadableMeansNever) {
  PolicyDefaults defaults;
  defaults.disruption_windows = *ParseDisruptionWindows("Sat,Sun 00:00-24:00");
  const Annotations ns = {{"headroom.dev/disruption-window", "Mon-Fri 22:00-06:00"}};
  // 2026-11-25 is a Wednesday.
  const absl::Time wednesday_noon =
      absl::FromCivil(absl::CivilSecond(2026, 11, 25, 12, 0, 0), absl::UTCTimeZone());
  const absl::Time wednesday_night =
      absl::FromCivil(absl::CivilSecond(2026, 11, 25, 23, 0, 0), absl::UTCTimeZone());
  WorkloadPolicy p = ResolveWorkloadPolicy({}, {}, "Deployment", 2, defaults);
  EXPECT_THAT(OutsideDisruptionWindow(p, wednesday_night),
              HasSubstr("outside its disruption window (Sat,Sun 00:00-24:00 UTC)"));
  p = ResolveWorkloadPolicy({}, {}, "Deployment", 2, defaults, ns);
  EXPECT_EQ(OutsideDisruptionWindow(p, wednesday_night), "");
  EXPECT_NE(OutsideDisruptionWindow(p, wednesday_noon), "");
  p = ResolveWorkloadPolicy({}, {{"headroom.dev/disruption-window", "12:00-13:00"}}, "Deployment",
                            2, defaults, ns);
  EXPECT_EQ(OutsideDisruptionWindow(p, wednesday_noon), "");
  // Evictions follow (DisruptionFacts), through the shared rule.
  DisruptionFacts facts = DisruptionFactsOf(p);
  facts.outside_window = OutsideDisruptionWindow(p, wednesday_night);
  facts.workload_pods = 3;
  facts.owner_kind = "ReplicaSet";
  EXPECT_THAT(EvictionBlockedBy(facts), HasSubstr("outside its disruption window"));
  // Unreadable: a warning, and never.
  p = ResolveWorkloadPolicy({}, {{"headroom.dev/disruption-window", "nights"}}, "Deployment", 2,
                            defaults);
  EXPECT_TRUE(p.windows_unreadable);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_THAT(p.warnings[0].message, HasSubstr("no eviction or shrink until it is fixed"));
  EXPECT_THAT(OutsideDisruptionWindow(p, wednesday_noon), HasSubstr("unreadable"));
}

}  // namespace
}  // namespace headroom
