// The actuator's request bodies and how it backs off a refused resize (actuator.h).

#include "extender/actuation/actuator.h"

#include <gtest/gtest.h>

#include <string>

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

}  // namespace
}  // namespace headroom::extender
