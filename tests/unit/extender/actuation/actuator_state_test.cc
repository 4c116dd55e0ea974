// The actuator's state as it is kept in a ConfigMap (extender/actuation/actuator_state.h): the
// shrink ledger and the recent evictions that rebuild the eviction budgets.

#include "extender/actuation/actuator_state.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace headroom::extender {
namespace {

const absl::Time kAt = absl::FromUnixSeconds(1795331119);  // 2026-11-22T07:05:19Z

TEST(ShrinkLedger, RoundTripsThroughItsText) {
  ShrinkLedger ledger;
  ledger[ShrinkKey("uid-1", "app")] = {kAt, std::nullopt, kAt - absl::Minutes(5)};
  ledger[ShrinkKey("uid-2", "sidecar")] = {std::nullopt, kAt - absl::Minutes(30), std::nullopt};
  const std::string text = EncodeShrinkLedger(ledger);
  EXPECT_THAT(text, ::testing::HasSubstr(R"("uid-1/app":{"cpuRequest":"2026-11-22T07:05:19Z")"));
  absl::StatusOr<ShrinkLedger> decoded = DecodeShrinkLedger(text);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, ledger);
  EXPECT_EQ(EncodeShrinkLedger(*decoded), text);
}

TEST(ShrinkLedger, RefusesWhatIsNotALedger) {
  for (const char* bad : {"", "[]", "{\"k\": 1}", "{\"k\": {\"cpuRequest\": 5}}",
                          "{\"k\": {\"memoryLimit\": \"yesterday\"}}",
                          "{\"k\": {\"cpuRequest\": {\"a\": {\"b\": {\"c\": {}}}}}}"}) {
    EXPECT_EQ(DecodeShrinkLedger(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_TRUE(DecodeShrinkLedger("{}").ok());
  EXPECT_TRUE(DecodeShrinkLedger("{\"k\": {\"cpuRequest\": null}}").ok());
}

TEST(ShrinkLedger, KeepsTheNewestEntriesWhenThereAreTooMany) {
  ShrinkLedger ledger;
  for (size_t i = 0; i < kMaxShrinkLedgerEntries + 10; ++i) {
    ledger[ShrinkKey("uid-" + std::to_string(i), "app")] = {
        kAt - absl::Seconds(static_cast<int64_t>(i)), std::nullopt, std::nullopt};
  }
  absl::StatusOr<ShrinkLedger> kept = DecodeShrinkLedger(EncodeShrinkLedger(ledger));
  ASSERT_TRUE(kept.ok()) << kept.status();
  EXPECT_EQ(kept->size(), kMaxShrinkLedgerEntries);
  EXPECT_TRUE(kept->contains(ShrinkKey("uid-0", "app")));
  EXPECT_FALSE(kept->contains(ShrinkKey("uid-" + std::to_string(kMaxShrinkLedgerEntries), "app")));
}

TEST(ShrinkLedger, MergingKeepsTheLaterStepOfEachValue) {
  ShrinkLedger ours;
  ours["a/app"] = {kAt, std::nullopt, kAt - absl::Hours(2)};
  ShrinkLedger stored;
  stored["a/app"] = {kAt - absl::Minutes(1), kAt, kAt - absl::Hours(1)};
  stored["b/app"] = {kAt, std::nullopt, std::nullopt};
  MergeShrinkLedger(ours, stored);
  EXPECT_EQ(ours["a/app"], (ShrinkTimes{kAt, kAt, kAt - absl::Hours(1)}));
  EXPECT_EQ(ours["b/app"], (ShrinkTimes{kAt, std::nullopt, std::nullopt}));
}

TEST(ConfigMapName, IsNamespaceSlashName) {
  absl::StatusOr<ConfigMapName> name = ParseConfigMapName("headroom-system/state");
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(name->config_namespace, "headroom-system");
  EXPECT_EQ(name->name, "state");
  EXPECT_EQ(name->Text(), "headroom-system/state");
  for (const char* bad : {"", "state", "/state", "ns/", "a/b/c"}) {
    EXPECT_EQ(ParseConfigMapName(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_THAT(ParseConfigMapName("bad").status().message(),
              ::testing::HasSubstr("\"bad\": expected NAMESPACE/NAME"));
}

TEST(RecentEvictions, RoundTripOldestFirstAndRefuseGarbage) {
  const std::vector<RecordedEviction> evictions = {{"n1", kAt - absl::Minutes(50)},
                                                   {"n2", kAt - absl::Minutes(10)}};
  const std::string text = EncodeEvictions(evictions);
  EXPECT_EQ(
      text,
      R"([{"at":"2026-11-22T06:15:19Z","node":"n1"},{"at":"2026-11-22T06:55:19Z","node":"n2"}])");
  absl::StatusOr<std::vector<RecordedEviction>> decoded = DecodeEvictions(text);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, evictions);
  // Stored out of order: read oldest first.
  decoded = DecodeEvictions(
      R"([{"node":"b","at":"2026-11-22T06:55:19Z"},{"node":"a","at":"2026-11-22T06:15:19Z"}])");
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ((*decoded)[0].node, "a");
  for (const char* bad :
       {"", "{}", "[1]", R"([{"node":"n"}])", R"([{"node":"","at":"2026-11-22T06:15:19Z"}])",
        R"([{"node":"n","at":"soon"}])"}) {
    EXPECT_EQ(DecodeEvictions(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(RecentEvictions, MergeKeepsEachOnceAndDropsTheOld) {
  // In memory with sub-second times; read back truncated to the second: the same eviction.
  const std::vector<RecordedEviction> ours = {{"n1", kAt + absl::Milliseconds(300)},
                                              {"n1", kAt - absl::Hours(2)}};
  const std::vector<RecordedEviction> stored = {{"n1", kAt}, {"n2", kAt - absl::Minutes(5)}};
  const std::vector<RecordedEviction> merged = MergeEvictions(ours, stored, kAt - absl::Hours(1));
  EXPECT_EQ(merged, (std::vector<RecordedEviction>{{"n2", kAt - absl::Minutes(5)}, {"n1", kAt}}));
}

TEST(RecentEvictions, RebuildTheBudgetsAsTheyWereSpent) {
  const EvictionBudgetConfig config{5, 2};  // 5 a minute in the cluster, 2 an hour per node
  // Node n1 spent both tokens minutes ago; n2 one (a token comes back every 30 minutes).
  EvictionBudget budget = RebuiltEvictionBudget(config, {{"n1", kAt - absl::Minutes(6)},
                                                         {"n2", kAt - absl::Minutes(5)},
                                                         {"n1", kAt - absl::Minutes(4)}});
  std::string why;
  EXPECT_FALSE(budget.TryTake("n1", kAt, &why));
  EXPECT_THAT(why, ::testing::HasSubstr("node n1"));
  EXPECT_TRUE(budget.TryTake("n2", kAt, &why));
  EXPECT_FALSE(budget.TryTake("n2", kAt, &why));
  EXPECT_TRUE(budget.TryTake("n3", kAt, &why));
  // Without the record, a restarted actuator would have had both of n1's tokens again.
  EvictionBudget fresh(config);
  EXPECT_TRUE(fresh.TryTake("n1", kAt, &why));
}

}  // namespace
}  // namespace headroom::extender
