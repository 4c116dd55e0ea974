// The actuator's request bodies, how it backs off a refused resize and how it writes a
// round's resizes side by side (actuator.h).

#include "extender/actuation/actuator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

namespace headroom::extender {
namespace {

using json = nlohmann::json;

TEST(ActuatorBodies, EvictionCarriesAUidPreconditionAndEventsNameThePod) {
  const PlannedEviction eviction{"shop", "web-1", "u1", "n1", "OOMKilled", "container app"};
  const json body = EvictionBody(eviction);
  EXPECT_EQ(body["apiVersion"], "policy/v1");
  EXPECT_EQ(body["kind"], "Eviction");
  EXPECT_EQ(body["deleteOptions"]["preconditions"]["uid"], "u1");
  const json event = PodEvent("shop", "web-1", "u1", "Warning", "EvictionBlocked", "why",
                              absl::FromUnixSeconds(0));
  EXPECT_EQ(event["involvedObject"]["name"], "web-1");
  EXPECT_EQ(event["involvedObject"]["uid"], "u1");
  EXPECT_EQ(event["metadata"]["namespace"], "shop");
  EXPECT_EQ(event["lastTimestamp"], "1970-01-01T00:00:00Z");
}

TEST(RefusedResizeBackoff, DoublesUpToSixteenTimes) {
  struct Case {
    int refusals;
    absl::Duration want;
  };
  for (const Case& c :
       {Case{0, absl::Minutes(10)}, Case{1, absl::Minutes(10)}, Case{2, absl::Minutes(20)},
        Case{3, absl::Minutes(40)}, Case{5, absl::Minutes(160)}, Case{6, absl::Minutes(160)},
        Case{1000, absl::Minutes(160)}}) {
    EXPECT_EQ(RefusedResizeBackoff(absl::Minutes(10), c.refusals), c.want) << c.refusals;
  }
}

TEST(ResizeRefusal, OnlyAnswersARetryWouldMeetAgain) {
  struct Case {
    int status;
    bool refusal;
  };
  for (const Case& c :
       {Case{200, false}, Case{400, true}, Case{403, true}, Case{404, false}, Case{409, false},
        Case{422, true}, Case{429, true}, Case{500, false}, Case{503, false}}) {
    EXPECT_EQ(ResizeRefusal(c.status), c.refusal) << c.status;
  }
}

// Every index once, never more than `concurrency` at a time, and none started after a stop.
TEST(ForEachSideBySide, EachOnceAtMostConcurrencyAtATime) {
  for (const size_t count : {0, 1, 3, 40}) {
    for (const int concurrency : {1, 4, 16}) {
      std::vector<std::atomic<int>> runs(count);
      std::atomic<int> active{0};
      std::atomic<int> most{0};
      ForEachSideBySide(
          count, concurrency, [] { return false; },
          [&](size_t i) {
            const int now = ++active;
            int seen = most.load();
            while (now > seen && !most.compare_exchange_weak(seen, now)) {
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
            ++runs[i];
            --active;
          });
      for (size_t i = 0; i < count; ++i) {
        EXPECT_EQ(runs[i].load(), 1) << i << " of " << count << ", concurrency " << concurrency;
      }
      EXPECT_LE(most.load(), concurrency) << count << " items";
      if (count >= 40 && concurrency == 4) {
        EXPECT_GT(most.load(), 1);  // side by side indeed
      }
    }
  }
}

TEST(ForEachSideBySide, NothingStartsAfterTheStop) {
  std::atomic<int> done{0};
  std::vector<std::atomic<int>> runs(100);
  ForEachSideBySide(
      100, 4, [&] { return done.load() >= 10; },
      [&](size_t i) {
        ++runs[i];
        ++done;
      });
  // At most one item per thread was already past its check when the tenth finished.
  EXPECT_GE(done.load(), 10);
  EXPECT_LE(done.load(), 10 + 3);
  for (const std::atomic<int>& r : runs) EXPECT_LE(r.load(), 1);
}

TEST(MaxRoundWriting, TheIntervalAtLeastThirtySeconds) {
  EXPECT_EQ(MaxRoundWriting(absl::Seconds(1)), absl::Seconds(30));
  EXPECT_EQ(MaxRoundWriting(absl::Seconds(30)), absl::Seconds(30));
  EXPECT_EQ(MaxRoundWriting(absl::Minutes(2)), absl::Minutes(2));
}

}  // namespace
}  // namespace headroom::extender
