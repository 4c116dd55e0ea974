#pragma once

// Work due later (a report's retry after its backoff), run in time order by one thread that
// calls Run until `stop` (report_load, cluster_reporter).

#include <atomic>
#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace headroom::bench {

class DueTimer {
 public:
  void At(absl::Time when, std::function<void()> fn) {
    absl::MutexLock lock(&mu_);
    due_.push({when, seq_++, std::move(fn)});
  }
  void Run(const std::atomic<bool>& stop) {
    while (!stop) {
      std::function<void()> fn;
      {
        absl::MutexLock lock(&mu_);
        if (!due_.empty() && due_.top().when <= absl::Now()) {
          fn = due_.top().fn;
          due_.pop();
        }
      }
      if (fn) {
        fn();
      } else {
        absl::SleepFor(absl::Milliseconds(2));
      }
    }
  }

 private:
  struct Entry {
    absl::Time when;
    uint64_t seq;
    std::function<void()> fn;
    bool operator>(const Entry& o) const { return when != o.when ? when > o.when : seq > o.seq; }
  };
  absl::Mutex mu_;
  uint64_t seq_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> due_;
};

}  // namespace headroom::bench
