// The shrink ledger as the actuator stores it in a ConfigMap (extender/shrink_ledger_store.h).

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "extender/shrink_ledger_store.h"

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

}  // namespace
}  // namespace headroom::extender
