// headroom-nri's control loop (kubelet-hook/node_loop.h) driven with fakes of the sampler, the
// runtime connection and the extender: what it sends, what it remembers, when it publishes.

#include "kubelet-hook/node_loop.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

const absl::Time kNow = absl::FromUnixSeconds(1'795'331'119);

class FakeSampler : public NodeSampling {
 public:
  int PollOoms(absl::Time) override { return ooms_to_report.exchange(0); }
  void Sample(absl::Time) override {
    absl::MutexLock lock(&mu_);
    ++samples_;
  }
  OptimizeOutcome Optimize(absl::Time) override { return outcome; }
  SamplerStats stats() const override { return {}; }
  int samples() const {
    absl::MutexLock lock(&mu_);
    return samples_;
  }

  OptimizeOutcome outcome;
  std::atomic<int> ooms_to_report{0};

 private:
  mutable absl::Mutex mu_;
  int samples_ = 0;
};

class FakeRuntime : public RuntimeUpdates {
 public:
  absl::StatusOr<napi::UpdateContainersResponse> UpdateContainers(
      const napi::UpdateContainersRequest& request, absl::Duration) override {
    requests.push_back(request);
    if (!fail_with.ok()) return fail_with;
    napi::UpdateContainersResponse response;
    for (const std::string& id : refuse) {
      napi::ContainerUpdate* failed = response.add_failed();
      failed->set_container_id(id);
    }
    return response;
  }
  std::vector<napi::UpdateContainersRequest> requests;
  std::vector<std::string> refuse;
  absl::Status fail_with;
};

class FakeReports : public ReportSink {
 public:
  absl::StatusOr<headroom::v1::ReportReply> Send(const headroom::v1::NodeReport& report,
                                                 absl::Duration) override {
    sent.push_back(report);
    if (!fail_with.ok()) return fail_with;
    return reply;
  }
  std::vector<headroom::v1::NodeReport> sent;
  headroom::v1::ReportReply reply;
  absl::Status fail_with;
};

TrackedContainer Container(const std::string& id, uint64_t shares) {
  TrackedContainer c;
  c.id = id;
  c.name = "app";
  c.pod_id = "pod-" + id;
  c.pod_namespace = "ns";
  c.pod_name = "web-" + id;
  c.workload_key = "ns/Deployment/web";
  c.stats_key = "ns/Deployment/web#app";
  c.current.cpu_shares = shares;
  c.declared.cpu_shares = shares;
  return c;
}

// An outcome that lowers both containers' CPU weight to `shares`.
OptimizeOutcome Lower(const std::vector<std::string>& ids, uint64_t shares) {
  OptimizeOutcome outcome;
  for (const std::string& id : ids) {
    napi::ContainerUpdate* update = outcome.updates.add_update();
    update->set_container_id(id);
    update->mutable_linux()->mutable_resources()->mutable_cpu()->mutable_shares()->set_value(
        shares);
    OptimizeOutcome::Change change;
    change.container_id = id;
    change.plan.last_shrink.cpu_request = kNow;
    change.description = id + ": lower";
    outcome.changes.push_back(change);
  }
  return outcome;
}

struct Loop {
  NodeState state;
  FakeSampler sampler;
  FakeRuntime runtime;
  FakeReports reports;
  std::vector<absl::Time> checkpoints;
  absl::Duration interval = absl::Milliseconds(5);
  ReportSink* sink = nullptr;  // instead of `reports`

  NodeLoop Make(bool with_reports = true) {
    NodeLoopOptions options;
    options.node_name = "node-a";
    options.allocatable = {4000, int64_t{8} << 30};
    options.interval = interval;
    options.oom_poll_interval = absl::Milliseconds(5);
    NodeLoopParts parts;
    parts.state = &state;
    parts.sampler = &sampler;
    parts.runtime = &runtime;
    parts.reports = !with_reports ? nullptr : sink != nullptr ? sink : &reports;
    parts.checkpoint = [this](absl::Time now) {
      checkpoints.push_back(now);
      return absl::OkStatus();
    };
    parts.load1 = [] { return 0.5; };
    parts.clock = [] { return kNow; };
    parts.uniform01 = [] { return 0.5; };
    return NodeLoop(options, std::move(parts));
  }
};

TEST(NodeLoop, ARoundRemembersWhatTheRuntimeAcceptedOnly) {
  Loop l;
  l.state.Upsert(Container("c1", 1024));
  l.state.Upsert(Container("c2", 1024));
  l.sampler.outcome = Lower({"c1", "c2"}, 256);
  l.runtime.refuse = {"c2"};
  NodeLoop loop = l.Make();
  loop.RunRound();

  EXPECT_EQ(l.sampler.samples(), 1);
  ASSERT_EQ(l.runtime.requests.size(), 1u);
  EXPECT_EQ(l.runtime.requests[0].update_size(), 2);
  EXPECT_EQ(l.state.Get("c1")->current.cpu_shares, 256u);
  EXPECT_EQ(l.state.Get("c1")->last_shrink.cpu_request, kNow);
  EXPECT_EQ(l.state.Get("c2")->current.cpu_shares, 1024u);  // refused: unchanged
  EXPECT_FALSE(l.state.Get("c2")->last_shrink.cpu_request.has_value());
  const NodeLoopCounters counters = loop.counters();
  EXPECT_EQ(counters.updates_sent, 1u);
  EXPECT_EQ(counters.updates_failed, 1u);
  EXPECT_EQ(counters.last_sample_unix, absl::ToUnixSeconds(kNow));
  // Then it publishes: the checkpoint and the report, with what was accepted.
  EXPECT_EQ(l.checkpoints, std::vector<absl::Time>{kNow});
  ASSERT_EQ(l.reports.sent.size(), 1u);
  EXPECT_EQ(l.reports.sent[0].node(), "node-a");
  EXPECT_EQ(l.reports.sent[0].pods_size(), 2);
  EXPECT_EQ(counters.reports_sent, 1u);
}

TEST(NodeLoop, AFailedUpdateCallChangesNothingAndCountsEveryUpdate) {
  Loop l;
  l.state.Upsert(Container("c1", 1024));
  l.sampler.outcome = Lower({"c1"}, 256);
  l.runtime.fail_with = absl::UnavailableError("not connected to the runtime");
  NodeLoop loop = l.Make();
  loop.RunRound();
  EXPECT_EQ(l.state.Get("c1")->current.cpu_shares, 1024u);
  EXPECT_EQ(loop.counters().updates_failed, 1u);
  EXPECT_EQ(loop.counters().updates_sent, 0u);
  EXPECT_EQ(l.reports.sent.size(), 1u);  // the report still goes out
}

TEST(NodeLoop, NoUpdatesNoRuntimeCall) {
  Loop l;
  NodeLoop loop = l.Make();
  loop.RunRound();
  EXPECT_TRUE(l.runtime.requests.empty());
  EXPECT_EQ(l.reports.sent.size(), 1u);
}

TEST(NodeLoop, AnOomKillIsPublishedAtOnceAndOnlyThen) {
  Loop l;
  NodeLoop loop = l.Make();
  EXPECT_EQ(loop.PollOoms(), 0);
  EXPECT_TRUE(l.reports.sent.empty());
  EXPECT_TRUE(l.checkpoints.empty());
  l.sampler.ooms_to_report = 1;
  EXPECT_EQ(loop.PollOoms(), 1);
  EXPECT_EQ(l.reports.sent.size(), 1u);
  EXPECT_EQ(l.checkpoints.size(), 1u);
  EXPECT_EQ(l.sampler.samples(), 0);  // no sampling round for it
}

TEST(NodeLoop, TheReplyGivesTheWarmUpTheClusterWideHistory) {
  Loop l;
  l.state.Upsert(Container("c1", 1024));
  l.state.AddMemorySample("ns/Deployment/web#app", kNow - absl::Hours(1), 100 << 20);
  ASSERT_EQ(l.state.History("ns/Deployment/web#app", kNow), absl::Hours(1));
  (*l.reports.reply.mutable_history_seconds())["ns/Deployment/web#app"] = 48 * 3600;
  NodeLoop loop = l.Make();
  loop.Publish(kNow, "");
  EXPECT_EQ(l.state.History("ns/Deployment/web#app", kNow), absl::Hours(48));
}

TEST(NodeLoop, AFailedReportIsCountedAndTheCheckpointStillWritten) {
  Loop l;
  l.reports.fail_with = absl::UnavailableError("extender unreachable");
  NodeLoop loop = l.Make();
  loop.Publish(kNow, "");
  EXPECT_EQ(loop.counters().reports_failed, 1u);
  EXPECT_EQ(loop.counters().reports_sent, 0u);
  EXPECT_EQ(l.checkpoints.size(), 1u);
}

TEST(NodeLoop, WithoutAnExtenderOnlyTheCheckpoint) {
  Loop l;
  NodeLoop loop = l.Make(/*with_reports=*/false);
  loop.RunRound();
  EXPECT_EQ(l.checkpoints.size(), 1u);
  EXPECT_EQ(loop.counters().reports_sent + loop.counters().reports_failed, 0u);
}

TEST(ReportRetry, DelaysDoubleUpToTheCapWithFullJitter) {
  const ReportRetryPolicy policy{absl::Seconds(1), absl::Seconds(30)};
  struct Case {
    int attempt;
    double uniform01;
    absl::Duration delay;
  };
  const std::vector<Case> cases = {
      {0, 0.0, absl::ZeroDuration()}, {0, 0.5, absl::Milliseconds(500)},
      {1, 0.5, absl::Seconds(1)},     {2, 0.5, absl::Seconds(2)},
      {4, 0.25, absl::Seconds(4)},    {5, 0.5, absl::Seconds(15)},  // 32 s capped at 30
      {60, 0.5, absl::Seconds(15)},   {1000, 1.0, absl::Seconds(30)},
      {3, 7.0, absl::Seconds(8)},  // out-of-range jitter is clamped
  };
  for (const Case& c : cases) {
    EXPECT_EQ(ReportRetryDelay(policy, c.attempt, c.uniform01), c.delay)
        << "attempt " << c.attempt << " at " << c.uniform01;
  }
}

TEST(ReportRetry, OnlyABusyOrUnreachableExtenderIsTriedAgainSoon) {
  for (absl::StatusCode code :
       {absl::StatusCode::kUnavailable, absl::StatusCode::kResourceExhausted,
        absl::StatusCode::kDeadlineExceeded, absl::StatusCode::kAborted}) {
    EXPECT_TRUE(ReportRetryable(code)) << absl::StatusCodeToString(code);
  }
  for (absl::StatusCode code :
       {absl::StatusCode::kInvalidArgument, absl::StatusCode::kPermissionDenied,
        absl::StatusCode::kUnauthenticated, absl::StatusCode::kInternal,
        absl::StatusCode::kUnimplemented}) {
    EXPECT_FALSE(ReportRetryable(code)) << absl::StatusCodeToString(code);
  }
}

TEST(NodeLoop, ABusyExtenderGetsTheReportAgainAfterAGrowingJitteredDelay) {
  Loop l;
  l.interval = absl::Minutes(1);
  l.reports.fail_with = absl::ResourceExhaustedError("the extender's report queue is full");
  NodeLoop loop = l.Make();
  loop.RunRound();
  ASSERT_EQ(loop.report_retry_at(), kNow + absl::Milliseconds(500));  // 0.5 of 1 s
  loop.RetryReport();
  ASSERT_EQ(loop.report_retry_at(), kNow + absl::Seconds(1));  // 0.5 of 2 s
  loop.RetryReport();
  ASSERT_EQ(loop.report_retry_at(), kNow + absl::Seconds(2));
  l.reports.fail_with = absl::OkStatus();
  loop.RetryReport();
  EXPECT_EQ(loop.report_retry_at(), std::nullopt);
  EXPECT_EQ(l.reports.sent.size(), 4u);
  EXPECT_EQ(l.checkpoints.size(), 1u);  // a retry sends the report only
  EXPECT_EQ(loop.counters().reports_retried, 3u);
  EXPECT_EQ(loop.counters().reports_failed, 3u);
  EXPECT_EQ(loop.counters().reports_sent, 1u);
  // A success starts the backoff again from its first step.
  l.reports.fail_with = absl::UnavailableError("connection refused");
  loop.RunRound();
  EXPECT_EQ(loop.report_retry_at(), kNow + absl::Milliseconds(500));
}

TEST(NodeLoop, ARefusedReportOrOneDueAfterTheNextRoundIsNotRetried) {
  {
    Loop l;
    l.interval = absl::Minutes(1);
    l.reports.fail_with = absl::InvalidArgumentError("pod appears twice");
    NodeLoop loop = l.Make();
    loop.RunRound();
    EXPECT_EQ(loop.report_retry_at(), std::nullopt);
  }
  {
    Loop l;
    l.interval = absl::Milliseconds(400);  // the first retry would come at 500 ms
    l.reports.fail_with = absl::UnavailableError("connection refused");
    NodeLoop loop = l.Make();
    loop.RunRound();
    EXPECT_EQ(loop.report_retry_at(), std::nullopt);
  }
}

// A sink that refuses the first `failures` reports, safe to read while the loop runs.
class FlakySink : public ReportSink {
 public:
  explicit FlakySink(int failures) : failures_(failures) {}
  absl::StatusOr<headroom::v1::ReportReply> Send(const headroom::v1::NodeReport&,
                                                 absl::Duration) override {
    if (calls_++ < failures_) return absl::ResourceExhaustedError("busy");
    return headroom::v1::ReportReply();
  }
  int calls() const { return calls_.load(); }

 private:
  const int failures_;
  std::atomic<int> calls_{0};
};

TEST(NodeLoop, RunSendsAFailedReportAgainBeforeTheNextRound) {
  Loop l;
  l.interval = absl::Hours(1);  // no round while the test runs
  FlakySink sink(2);
  l.sink = &sink;
  NodeLoop loop = l.Make();
  loop.Publish(kNow, "");  // fails: retried at 0.5 s, then fails, then 1 s later succeeds
  absl::Notification stop;
  std::thread running([&] { loop.Run(stop); });
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (sink.calls() < 3 && absl::Now() < give_up) absl::SleepFor(absl::Milliseconds(5));
  stop.Notify();
  running.join();
  EXPECT_EQ(sink.calls(), 3);
  EXPECT_EQ(loop.counters().reports_retried, 2u);
  EXPECT_EQ(loop.counters().reports_sent, 1u);
  EXPECT_EQ(loop.report_retry_at(), std::nullopt);
  EXPECT_EQ(l.sampler.samples(), 0);
}

TEST(NodeLoop, RunDoesRoundsUntilStopped) {
  Loop l;
  NodeLoop loop = l.Make(/*with_reports=*/false);
  absl::Notification stop;
  std::thread running([&] { loop.Run(stop); });
  while (l.sampler.samples() < 2) absl::SleepFor(absl::Milliseconds(1));
  stop.Notify();
  running.join();  // returns: both the round and the OOM poller stopped
  const int after = l.sampler.samples();
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(l.sampler.samples(), after);
}

}  // namespace
}  // namespace headroom::nri
