#pragma once

// A fleet of headroom-nri reporters against headroom-extender's report port, for the load
// tools (report_load, cluster_reporter): each node on its own connection from its own loopback
// address (loopback_socket.h, `per_address` nodes an address, so the front door's per-address
// cap is not what is measured), each report retried as headroom-nri retries it (full-jitter
// backoff, kubelet-hook/report_retry.h) until accepted or its round ends, on a new connection
// when the old one failed (a channel made from a socket cannot reconnect by itself, as
// headroom-nri's channel does).

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/random/random.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "bench/due_timer.h"
#include "headroom/v1/report.grpc.pb.h"

namespace headroom::bench {

// What a fleet's reports came to.
struct ReportTally {
  uint64_t reports = 0;  // started (each counts once, however many attempts it took)
  uint64_t first_try = 0, after_retry = 0, lost = 0, attempts = 0, reconnects = 0;
  std::map<std::string, uint64_t> codes;             // every attempt's gRPC code ("OK", "14")
  std::map<std::string, std::string> first_message;  // by code
  std::map<std::string, uint64_t> lost_codes;        // the last failure of each report lost
  std::vector<double> latencies_ms;                  // every attempt's

  uint64_t accepted() const { return first_try + after_retry; }
};

// The `q` quantile (0..1, nearest rank) of `values`; 0 when empty.
inline double Percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1, static_cast<size_t>(q * values.size()))];
}

// The port of `target` "127.0.0.1:PORT"; nullopt for anything else.
std::optional<int> LoopbackTargetPort(const std::string& target);

// Raises the process's open-file limit to its hard limit (a fleet holds a socket per node).
void RaiseOpenFileLimit();

class ReportFleet {
 public:
  // `target` "127.0.0.1:PORT"; `stopping` (may be null): while it reads true, failed reports are
  // not retried.
  ReportFleet(std::string target, int port, size_t nodes, int per_address, absl::Duration deadline,
              const std::atomic<bool>* stopping = nullptr);

  // A new connection for `node` from its source address; false when it cannot connect.
  bool Connect(size_t node);
  // The report `node` sends from now on (its attempts in flight keep theirs).
  void SetReport(size_t node, std::shared_ptr<const headroom::v1::NodeReport> report);
  // One report of `node`: its first attempt now; retries until `round_end`.
  void Start(size_t node, absl::Time round_end);
  // Runs the retries as they fall due, until `stop`.
  void RunTimer(const std::atomic<bool>& stop) { timer_.Run(stop); }

  int64_t outstanding() const { return outstanding_; }
  size_t size() const { return nodes_.size(); }
  ReportTally Tally() const;

 private:
  struct Node {
    absl::Mutex mu;
    std::shared_ptr<grpc::Channel> channel ABSL_GUARDED_BY(mu);
    std::shared_ptr<headroom::v1::ReportService::Stub> stub ABSL_GUARDED_BY(mu);
    std::shared_ptr<const headroom::v1::NodeReport> report ABSL_GUARDED_BY(mu);
  };

  void Send(size_t node, int attempt, absl::Time round_end);

  const std::string target_;
  const int port_;
  const int per_address_;
  const absl::Duration deadline_;
  const std::atomic<bool>* stopping_;
  std::vector<Node> nodes_;
  mutable absl::Mutex mu_;
  ReportTally tally_ ABSL_GUARDED_BY(mu_);
  absl::BitGen gen_ ABSL_GUARDED_BY(mu_);
  DueTimer timer_;
  std::atomic<int64_t> outstanding_{0};
};

}  // namespace headroom::bench
