#pragma once

// headroom-nri's control loop, apart from the daemon's threads and flags so that a test can
// drive it with fakes:
// - every --interval, a round: sample the cgroups, run the per-node optimisation, send the
//   resulting container updates to the runtime, remember what the runtime accepted, forget
//   the statistics of workload containers idle beyond the retention or the budget's cap
//   (node_state.h's WorkloadRetention), then publish;
// - every --oom-poll-interval, collect OOM kills; a recorded kill is published at once, so
//   the extender sizes the workload's next pod from it and a restart keeps it;
// - publishing: the checkpoint, then the node report, whose reply carries each workload's
//   history across the cluster (the warm-up counts every replica, not only this node's);
//   a report the extender could not take (busy, unreachable) is sent again after a
//   jittered backoff (report_retry.h), until it is taken or the next round reports anyway.
// Publishing is serialised; every other lock belongs to the class it guards.

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "kubelet-hook/loop_ports.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/report_retry.h"
#include "kubelet-hook/sampler.h"
#include "shared/resource.h"

namespace headroom::nri {

struct NodeLoopOptions {
  std::string node_name;
  ResourceAmounts allocatable;
  absl::Duration interval = absl::Seconds(60);
  absl::Duration oom_poll_interval = absl::Seconds(1);
  absl::Duration runtime_timeout = absl::Seconds(2);
  absl::Duration report_timeout = absl::Seconds(2);
  ReportRetryPolicy report_retry;
  WorkloadRetention retention;
};

struct NodeLoopCounters {
  uint64_t updates_sent = 0;
  uint64_t updates_failed = 0;  // refused by the runtime, or the call failed
  uint64_t reports_sent = 0;
  uint64_t reports_failed = 0;
  uint64_t reports_retried = 0;  // sent again after a backoff
  int64_t last_sample_unix = 0;
  uint64_t workloads_forgotten_idle = 0;    // idle longer than the retention
  uint64_t workloads_forgotten_budget = 0;  // the longest idle beyond the budget's cap
  uint64_t checkpoints_failed = 0;
  int64_t last_checkpoint_unix = 0;
};

// The collaborators; `reports` and `checkpoint` may be empty (no extender, no --state-dir).
struct NodeLoopParts {
  NodeState* state = nullptr;
  NodeSampling* sampler = nullptr;
  RuntimeUpdates* runtime = nullptr;
  ReportSink* reports = nullptr;
  std::function<absl::Status(absl::Time now)> checkpoint;
  std::function<std::optional<double>()> load1;  // empty: the report carries no load
  std::function<absl::Time()> clock;
  std::function<double()> uniform01;  // the backoff's jitter, in [0, 1); empty: random
};

class NodeLoop {
 public:
  NodeLoop(NodeLoopOptions options, NodeLoopParts parts);

  // One periodic round at the clock's time.
  void RunRound();
  // One OOM poll; publishes at once when a kill was recorded. The kills recorded.
  int PollOoms();
  // The checkpoint and the report; `why` (e.g. "the OOM kill at once") is logged when set.
  void Publish(absl::Time now, absl::string_view why);
  // When a failed report is due to be sent again (nullopt: none is); the next round's
  // report replaces a retry due after it.
  std::optional<absl::Time> report_retry_at() const;
  // Sends the node report again (not the checkpoint), at the clock's time.
  void RetryReport();

  // Runs rounds and OOM polls (on a second thread) until `stop` is notified.
  void Run(absl::Notification& stop);

  NodeLoopCounters counters() const;

 private:
  void ApplyUpdates(const OptimizeOutcome& outcome);
  void ForgetWorkloads(absl::Time now);
  // Sends the report; on a retryable failure schedules the next try. Under publish_mu_.
  void SendReport(absl::Time now, absl::string_view why) ABSL_EXCLUSIVE_LOCKS_REQUIRED(publish_mu_);

  const NodeLoopOptions options_;
  NodeLoopParts parts_;
  mutable absl::Mutex publish_mu_;
  int failed_reports_in_a_row_ ABSL_GUARDED_BY(publish_mu_) = 0;
  std::optional<absl::Time> retry_at_ ABSL_GUARDED_BY(publish_mu_);
  std::atomic<uint64_t> updates_sent_{0};
  std::atomic<uint64_t> updates_failed_{0};
  std::atomic<uint64_t> reports_sent_{0};
  std::atomic<uint64_t> reports_failed_{0};
  std::atomic<uint64_t> reports_retried_{0};
  std::atomic<int64_t> last_sample_unix_{0};
  std::atomic<uint64_t> forgotten_idle_{0};
  std::atomic<uint64_t> forgotten_budget_{0};
  std::atomic<uint64_t> checkpoints_failed_{0};
  std::atomic<int64_t> last_checkpoint_unix_{0};
};

}  // namespace headroom::nri
