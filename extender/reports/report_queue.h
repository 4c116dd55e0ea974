#pragma once

// Where node reports wait for a worker. A fleet's reports arrive in bursts (every node after
// an extender restart, a rollout of headroom-nri): a short wait is better than a refusal the
// node can only retry. The wait is bounded by entries and by bytes held (beyond either,
// Submit refuses at once, so memory stays inside the budget) and by time, twice: while the
// oldest waiting report has waited longer than max_sojourn, new ones are refused at once (a
// queue that drains slower than its work's deadlines would otherwise serve only reports
// whose senders have given up: CoDel's lesson), and work whose deadline passed while it
// waited is told so, not done.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace headroom::extender {

struct ReportQueueLimits {
  int workers = 16;             // reports handled at once (token reviews block a worker)
  size_t max_entries = 8192;    // reports waiting
  size_t max_bytes = 64 << 20;  // their size in memory, together
  // Refuse new work while the oldest has waited this long: headroom-nri gives a report 2 s.
  absl::Duration max_sojourn = absl::Milliseconds(500);
  absl::Duration max_wait = absl::Seconds(10);  // for work without an earlier deadline
};

class ReportQueue {
 public:
  // `run(expired)`: expired is true when the work's deadline passed before a worker reached
  // it (answer it, do not do it).
  using Work = std::function<void(bool expired)>;

  explicit ReportQueue(ReportQueueLimits limits, std::function<absl::Time()> clock = absl::Now);
  ~ReportQueue();  // Stop()
  ReportQueue(const ReportQueue&) = delete;
  ReportQueue& operator=(const ReportQueue&) = delete;

  // Queues `work` of `bytes` to run by `deadline` (at most max_wait from now). False, and
  // nothing queued, when the queue is at its entries or bytes, when its oldest entry has
  // waited max_sojourn, or when it is stopped.
  bool Submit(size_t bytes, absl::Time deadline, Work work);

  // From now on refuses new work, and answers what is queued as expired. Returns at once.
  void BeginStop();
  // BeginStop, then joins the workers. Idempotent.
  void Stop();

  struct Counts {
    size_t queued = 0;            // waiting now
    size_t queued_bytes = 0;      // their bytes
    uint64_t refused = 0;         // Submit said no
    uint64_t expired = 0;         // reached after their deadline
    absl::Duration longest_wait;  // of the work a worker took, since the start
  };
  Counts counts() const;

 private:
  struct Entry {
    size_t bytes;
    absl::Time deadline;
    absl::Time queued_at;
    Work work;
  };
  void RunWorker();

  const ReportQueueLimits limits_;
  const std::function<absl::Time()> clock_;
  mutable absl::Mutex mu_;
  std::deque<Entry> entries_ ABSL_GUARDED_BY(mu_);
  size_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  uint64_t refused_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t expired_ ABSL_GUARDED_BY(mu_) = 0;
  absl::Duration longest_wait_ ABSL_GUARDED_BY(mu_);
  absl::Mutex stop_mu_;
  std::vector<std::thread> workers_ ABSL_GUARDED_BY(stop_mu_);
};

}  // namespace headroom::extender
