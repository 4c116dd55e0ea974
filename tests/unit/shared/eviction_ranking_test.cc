#include "shared/eviction_ranking.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOkAndHolds;
using ::headroom::testing::StatusIs;

TEST(EvictionRankingTest, ParsesEveryNameCaseInsensitively) {
  EXPECT_THAT(ParseEvictionRanking("low"), IsOkAndHolds(EvictionRanking::kLow));
  EXPECT_THAT(ParseEvictionRanking("Medium"), IsOkAndHolds(EvictionRanking::kMedium));
  EXPECT_THAT(ParseEvictionRanking("HIGH"), IsOkAndHolds(EvictionRanking::kHigh));
  EXPECT_THAT(ParseEvictionRanking("no-eviction"), IsOkAndHolds(EvictionRanking::kNoEviction));
  EXPECT_THAT(ParseEvictionRanking("never"),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("never")));
  EXPECT_THAT(ParseEvictionRanking(""),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("no-eviction")));
}

TEST(EvictionRankingTest, OrderIsLowMediumHighNoEviction) {
  EXPECT_LT(EvictionRanking::kLow, EvictionRanking::kMedium);
  EXPECT_LT(EvictionRanking::kMedium, EvictionRanking::kHigh);
  EXPECT_LT(EvictionRanking::kHigh, EvictionRanking::kNoEviction);
}

struct DefaultCase {
  const char* name;
  WorkloadFacts facts;
  EvictionRanking ranking;
  const char* code;
};

class DefaultRankingTest : public ::testing::TestWithParam<DefaultCase> {};

TEST_P(DefaultRankingTest, FollowsTheSeed) {
  const RankingDecision decision = DecideEvictionRanking(GetParam().facts);
  EXPECT_EQ(decision.ranking, GetParam().ranking);
  EXPECT_EQ(decision.reason.code, GetParam().code);
  EXPECT_FALSE(decision.reason.message.empty());
}

INSTANTIATE_TEST_SUITE_P(Seed000, DefaultRankingTest,
                         ::testing::Values(DefaultCase{"replicated_deployment",
                                                       {"Deployment", 3, std::nullopt},
                                                       EvictionRanking::kLow,
                                                       "Default"},
                                           DefaultCase{"single_replica",
                                                       {"Deployment", 1, std::nullopt},
                                                       EvictionRanking::kMedium,
                                                       "SingleReplicaDefault"},
                                           DefaultCase{"statefulset",
                                                       {"StatefulSet", 5, std::nullopt},
                                                       EvictionRanking::kMedium,
                                                       "StatefulSetDefault"},
                                           DefaultCase{"job_without_replicas",
                                                       {"Job", std::nullopt, std::nullopt},
                                                       EvictionRanking::kLow,
                                                       "Default"},
                                           DefaultCase{"annotation_wins",
                                                       {"StatefulSet", 1, "no-eviction"},
                                                       EvictionRanking::kNoEviction,
                                                       "RankingAnnotation"},
                                           DefaultCase{"annotation_lowers",
                                                       {"Deployment", 1, "low"},
                                                       EvictionRanking::kLow,
                                                       "RankingAnnotation"},
                                           DefaultCase{"bad_annotation_falls_back",
                                                       {"Deployment", 1, "urgent"},
                                                       EvictionRanking::kMedium,
                                                       "InvalidRankingAnnotation"}),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(EvictionRankingTest, InvalidAnnotationIsExplained) {
  const RankingDecision decision = DecideEvictionRanking({"Deployment", 4, "urgent"});
  EXPECT_THAT(decision.reason.message, ::testing::HasSubstr("urgent"));
  EXPECT_THAT(decision.reason.message, ::testing::HasSubstr(kEvictionRankingAnnotation));
}

}  // namespace
}  // namespace headroom
