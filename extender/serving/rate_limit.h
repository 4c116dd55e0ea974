#pragma once

// Thread-safe token buckets (shared/disruption.h's TokenBucket under a lock): for the
// read-only APIs, so a client that floods /api/v1/status or /api/v1/explain gets 429 rather
// than the extender's CPU, which the scheduler's requests and the kubelet's probes need; and
// for log lines an attacker can cause, so a flood of them cannot flood the log.

#include <cstdint>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "shared/disruption.h"

namespace headroom::extender {

class RateLimit {
 public:
  RateLimit(double per_second, double burst) : bucket_(per_second * 3600, burst) {}
  // Takes a token if one is available at `now`.
  bool Allow(absl::Time now) {
    absl::MutexLock lock(&mu_);
    return bucket_.TryTake(now);
  }

 private:
  absl::Mutex mu_;
  ::headroom::TokenBucket bucket_ ABSL_GUARDED_BY(mu_);
};

// Log lines under a rate: at most `per_second` (burst `burst`); the lines held back are
// counted, so the next line written can say how many there were.
class LineBudget {
 public:
  LineBudget(double per_second, double burst) : bucket_(per_second * 3600, burst) {}
  // Whether to write a line at `now`; when it is, `suppressed` gets how many were held back
  // since the last one written.
  bool Allow(absl::Time now, uint64_t& suppressed) {
    absl::MutexLock lock(&mu_);
    if (!bucket_.TryTake(now)) {
      ++held_back_;
      return false;
    }
    suppressed = held_back_;
    held_back_ = 0;
    return true;
  }

 private:
  absl::Mutex mu_;
  ::headroom::TokenBucket bucket_ ABSL_GUARDED_BY(mu_);
  uint64_t held_back_ ABSL_GUARDED_BY(mu_) = 0;
};

// The tail of a line LineBudget let through: " (N more [<what> ]not logged)", or nothing.
inline std::string HeldBack(uint64_t suppressed, absl::string_view what = "") {
  if (suppressed == 0) return "";
  return absl::StrCat(" (", suppressed, " more ", what, what.empty() ? "" : " ", "not logged)");
}

}  // namespace headroom::extender
