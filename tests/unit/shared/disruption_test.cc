// The disruption policy (shared/disruption.h): protections, budgets, sustained conditions.

#include "shared/disruption.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom {
namespace {

const absl::Time kT0 = absl::FromUnixSeconds(1'795'331'119);

DisruptionFacts Replica() {
  DisruptionFacts facts;
  facts.owner_kind = "ReplicaSet";
  facts.workload_pods = 3;
  facts.workload_ready = 3;
  return facts;
}

TEST(EvictionBlockedBy, Table) {
  struct Case {
    std::string name;
    DisruptionFacts facts;
    std::string why;  // "" : may be evicted
  };
  std::vector<Case> cases;
  cases.push_back({"one of three ready replicas", Replica(), ""});
  DisruptionFacts f = Replica();
  f.verified = false;
  cases.push_back({"not in the API", f, "not in the Kubernetes API"});
  f = Replica();
  f.owner_kind = "DaemonSet";
  cases.push_back({"DaemonSet", f, "DaemonSet"});
  f = Replica();
  f.ranking = EvictionRanking::kNoEviction;
  f.allow_disruption = true;  // the opt-in does not lift a no-eviction ranking
  cases.push_back({"no-eviction", f, "no-eviction"});
  f = Replica();
  f.owner_kind = "StatefulSet";
  cases.push_back({"StatefulSet", f, "StatefulSet"});
  f.allow_disruption = true;
  cases.push_back({"StatefulSet opted in", f, ""});
  f = Replica();
  f.workload_pods = 1;
  f.workload_ready = 1;
  cases.push_back({"single replica", f, "only replica"});
  f = Replica();
  f.workload_ready = 1;
  cases.push_back({"the last ready replica", f, "last ready replica"});
  f.ready = false;
  cases.push_back({"an unready replica while one other is ready", f, ""});
  f = Replica();
  f.owner_kind = "";
  cases.push_back({"no controller", f, "without a controller"});
  f = Replica();
  f.do_not_disrupt = true;
  f.allow_disruption = true;
  cases.push_back({"do-not-disrupt wins over the opt-in", f, "do-not-disrupt"});
  for (const Case& c : cases) {
    const std::string why = EvictionBlockedBy(c.facts);
    if (c.why.empty()) {
      EXPECT_EQ(why, "") << c.name;
    } else {
      EXPECT_NE(why.find(c.why), std::string::npos) << c.name << ": " << why;
    }
  }
}

TEST(TokenBucket, AllowsABurstThenTheRate) {
  TokenBucket bucket(/*per_hour=*/120, /*burst=*/2);
  EXPECT_TRUE(bucket.TryTake(kT0));
  EXPECT_TRUE(bucket.TryTake(kT0));
  EXPECT_FALSE(bucket.TryTake(kT0 + absl::Seconds(10)));
  EXPECT_TRUE(bucket.TryTake(kT0 + absl::Seconds(40)));  // 40 s at 2/min: one more token
  EXPECT_FALSE(bucket.TryTake(kT0 + absl::Seconds(41)));
}

TEST(EvictionBudget, PerNodeAndClusterWide) {
  EvictionBudget budget({/*cluster_per_minute=*/3, /*per_node_per_hour=*/2});
  std::string why;
  EXPECT_TRUE(budget.TryTake("a", kT0, &why));
  EXPECT_TRUE(budget.TryTake("a", kT0, &why));
  EXPECT_FALSE(budget.TryTake("a", kT0, &why));  // node a spent its two
  EXPECT_NE(why.find("node a"), std::string::npos) << why;
  EXPECT_TRUE(budget.TryTake("b", kT0, &why));
  EXPECT_FALSE(budget.TryTake("c", kT0, &why));  // the cluster spent its three
  EXPECT_NE(why.find("cluster"), std::string::npos) << why;
  // Half an hour later node a has one token again.
  EXPECT_TRUE(budget.TryTake("a", kT0 + absl::Minutes(30), &why));
  budget.Forget(kT0 + absl::Hours(3));
  EXPECT_EQ(budget.tracked_nodes(), 0u);
}

TEST(EvictionBudget, ANodesBucketRefillsInBurstOverRate) {
  // Two an hour, two saved: an hour from empty; half an hour at 0.5/h (one saved): 2 h.
  EXPECT_EQ((EvictionBudgetConfig{5, 2}.NodeRefill()), absl::Hours(1));
  EXPECT_EQ((EvictionBudgetConfig{5, 0.5}.NodeRefill()), absl::Hours(2));
  EXPECT_EQ((EvictionBudgetConfig{5, 4}.NodeRefill()), absl::Hours(1));
}

TEST(SustainedConditions, HoldsOnlyAfterThePeriodWithoutABreak) {
  SustainedConditions over(absl::Minutes(15));
  EXPECT_FALSE(over.Observe("n", true, kT0));
  EXPECT_FALSE(over.Observe("n", true, kT0 + absl::Minutes(14)));
  EXPECT_TRUE(over.Observe("n", true, kT0 + absl::Minutes(15)));
  EXPECT_FALSE(over.Observe("n", false, kT0 + absl::Minutes(16)));  // a break starts afresh
  EXPECT_EQ(over.tracked(), 0u);
  EXPECT_FALSE(over.Observe("n", true, kT0 + absl::Minutes(17)));
  EXPECT_FALSE(over.Observe("other", true, kT0 + absl::Minutes(40)));
  // A node that stops reporting while over and comes back over an hour later starts afresh.
  EXPECT_FALSE(over.Observe("other", true, kT0 + absl::Minutes(100)));
  EXPECT_TRUE(over.Observe("other", true, kT0 + absl::Minutes(115)));
  over.Prune(kT0 + absl::Minutes(200));
  EXPECT_EQ(over.tracked(), 0u);
}

}  // namespace
}  // namespace headroom
