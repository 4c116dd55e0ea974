#pragma once

// A thread-safe token bucket (shared/disruption.h's TokenBucket under a lock), for the
// read-only APIs: a client that floods /api/v1/status or /api/v1/explain gets 429 rather than
// the extender's CPU, which the scheduler's requests and the kubelet's probes need.

#include "absl/base/thread_annotations.h"
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
  TokenBucket bucket_ ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::extender
