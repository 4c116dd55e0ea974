// extender/actuation/leader_election.h: the decision, the Lease codec, and two electors racing over
// an in-memory API that enforces resourceVersion preconditions as the API server does.

#include "extender/actuation/leader_election.h"

#include <gtest/gtest.h>

#include <map>
#include <string>

#include "absl/strings/str_cat.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;
const absl::Time kStart = absl::FromUnixSeconds(1795341600);

TEST(DecideLease, CreatesRenewsWaitsAndTakesOverOnlyAfterTheDuration) {
  const absl::Duration duration = absl::Seconds(15);
  LeaseRecord other{"b", kStart, 15, 0, "7"};
  EXPECT_EQ(DecideLease(std::nullopt, "a", kStart, kStart, duration), LeaseAction::kCreate);
  EXPECT_EQ(DecideLease(LeaseRecord{"a", kStart, 15, 0, "7"}, "a", kStart, kStart, duration),
            LeaseAction::kRenew);
  EXPECT_EQ(DecideLease(other, "a", kStart, kStart + absl::Seconds(14), duration),
            LeaseAction::kWait);
  EXPECT_EQ(DecideLease(other, "a", kStart, kStart + absl::Seconds(15), duration),
            LeaseAction::kTakeOver);
  // A holder that declared a longer duration is waited for that long.
  LeaseRecord patient{"c", kStart, 30, 0, "8"};
  EXPECT_EQ(DecideLease(patient, "a", kStart, kStart + absl::Seconds(20), duration),
            LeaseAction::kWait);
  EXPECT_EQ(DecideLease(patient, "a", kStart, kStart + absl::Seconds(30), duration),
            LeaseAction::kTakeOver);
  other.holder = "";  // released
  EXPECT_EQ(DecideLease(other, "a", kStart, kStart, duration), LeaseAction::kTakeOver);
}

TEST(LeaseCodec, RoundTripsAndNeedsAResourceVersion) {
  const LeaseRecord record{"replica-1", kStart, 15, 3, "42"};
  const json body = LeaseBody("headroom-extender", "headroom-system", record);
  EXPECT_EQ(body["spec"]["renewTime"], "2026-11-22T10:00:00.000000Z");
  absl::StatusOr<LeaseRecord> decoded = DecodeLease(body);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(decoded->holder, "replica-1");
  EXPECT_EQ(decoded->renew_time, kStart);
  EXPECT_EQ(decoded->transitions, 3);
  EXPECT_EQ(decoded->resource_version, "42");
  EXPECT_FALSE(DecodeLease(json{{"spec", {{"holderIdentity", "x"}}}}).ok());
}

// One Lease in memory, with the API server's optimistic concurrency.
struct FakeLeaseApi {
  std::optional<json> lease;
  int version = 0;
  bool down = false;

  LeaseApi Api() {
    LeaseApi api;
    api.get = [this](const std::string&) -> absl::StatusOr<json> {
      if (down) return absl::UnavailableError("connection refused");
      if (!lease) return absl::NotFoundError("no Lease");
      return *lease;
    };
    api.write = [this](const std::string& method, const std::string&,
                       const std::string& body) -> absl::StatusOr<int> {
      if (down) return absl::UnavailableError("connection refused");
      json object = json::parse(body);
      if (method == "POST") {
        if (lease) return 409;
      } else {
        if (!lease) return 404;
        if (object["metadata"].value("resourceVersion", "") !=
            (*lease)["metadata"]["resourceVersion"]) {
          return 409;
        }
      }
      object["metadata"]["resourceVersion"] = std::to_string(++version);
      lease = object;
      return method == "POST" ? 201 : 200;
    };
    return api;
  }
};

TEST(LeaderElector, ExactlyOneLeadsAndTheOtherTakesOverAfterTheLeaseDuration) {
  FakeLeaseApi api;
  absl::Time now = kStart;
  LeaderElectionConfig config;
  const auto logger = spdlog::default_logger()->clone("leader-election-test");
  config.identity = "a";
  LeaderElector a(config, api.Api(), logger, [&] { return now; });
  config.identity = "b";
  LeaderElector b(config, api.Api(), logger, [&] { return now; });
  for (int round = 0; round < 10; ++round) {
    a.Step();
    b.Step();
    EXPECT_TRUE(a.IsLeader()) << round;
    EXPECT_FALSE(b.IsLeader()) << round;
    now += config.retry_period;
  }
  // a stops renewing (it hangs or is partitioned): it stops acting after the renew deadline,
  // and b takes over only after the lease duration -- never both at once.
  const absl::Time last_renewal = now - config.retry_period;
  while (now - last_renewal < absl::Seconds(30)) {
    b.Step();
    EXPECT_FALSE(a.IsLeader() && b.IsLeader()) << absl::FormatDuration(now - last_renewal);
    if (now - last_renewal < config.renew_deadline) {
      EXPECT_TRUE(a.IsLeader());
    }
    if (now - last_renewal < config.lease_duration) {
      EXPECT_FALSE(b.IsLeader());
    }
    now += config.retry_period;
  }
  EXPECT_TRUE(b.IsLeader());
  EXPECT_EQ(api.lease->at("spec")["holderIdentity"], "b");
  EXPECT_EQ(api.lease->at("spec")["leaseTransitions"], 1);
  // a comes back: it sees b renewing and waits.
  a.Step();
  EXPECT_FALSE(a.IsLeader());
  // The API is down: b stops acting once its renew deadline passes.
  api.down = true;
  for (int i = 0; i < 6; ++i) {
    now += config.retry_period;
    b.Step();
  }
  EXPECT_FALSE(b.IsLeader());
}

TEST(LeaderElector, StoppingReleasesTheLeaseSoTheNextNeedNotWait) {
  FakeLeaseApi api;
  absl::Time now = kStart;
  LeaderElectionConfig config;
  const auto logger = spdlog::default_logger()->clone("leader-election-release");
  config.identity = "a";
  LeaderElector a(config, api.Api(), logger, [&] { return now; });
  config.identity = "b";
  LeaderElector b(config, api.Api(), logger, [&] { return now; });
  a.Step();
  b.Step();
  ASSERT_TRUE(a.IsLeader());
  a.Stop();
  a.Run();  // stopped already: no round, only the release
  EXPECT_FALSE(a.IsLeader());
  EXPECT_EQ(api.lease->at("spec")["holderIdentity"], "");
  now += config.retry_period;  // well within the lease duration
  b.Step();
  EXPECT_TRUE(b.IsLeader());
}

TEST(LeaderElector, RacingForAnExpiredLeaseOnlyOneWins) {
  FakeLeaseApi api;
  absl::Time now = kStart;
  LeaderElectionConfig config;
  const auto logger = spdlog::default_logger()->clone("leader-election-race");
  config.identity = "old";
  LeaderElector old(config, api.Api(), logger, [&] { return now; });
  old.Step();
  config.identity = "a";
  LeaderElector a(config, api.Api(), logger, [&] { return now; });
  config.identity = "b";
  LeaderElector b(config, api.Api(), logger, [&] { return now; });
  a.Step();
  b.Step();  // both observe old's record now
  now += config.lease_duration;
  // Both read the same expired record; the API accepts only the first update.
  a.Step();
  b.Step();
  EXPECT_NE(a.IsLeader(), b.IsLeader());
}

}  // namespace
}  // namespace headroom::extender
