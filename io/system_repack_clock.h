#pragma once

// The wall clock for the repacking solver (shared/repack.h reads no clock itself).

#include <atomic>

#include "absl/time/clock.h"
#include "shared/repack.h"

namespace headroom {

class SystemRepackClock : public RepackClock {
 public:
  absl::Time Now() override { return absl::Now(); }
};

// The wall clock until `cancelled` (or `also`, when given) is set, then the end of time: the
// solver sees its time limit passed at its next check and returns the best plan so far (a
// shutdown, or a caller that went away, need not wait for a solve of up to a minute).
class CancellableRepackClock : public RepackClock {
 public:
  explicit CancellableRepackClock(const std::atomic<bool>& cancelled,
                                  const std::atomic<bool>* also = nullptr)
      : cancelled_(cancelled), also_(also) {}
  absl::Time Now() override {
    const bool stop = cancelled_.load() || (also_ != nullptr && also_->load());
    return stop ? absl::InfiniteFuture() : absl::Now();
  }

 private:
  const std::atomic<bool>& cancelled_;
  const std::atomic<bool>* also_;
};

}  // namespace headroom
