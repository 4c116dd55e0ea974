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

// The wall clock until `cancelled` is set, then the end of time: the solver sees its time
// limit passed at its next check and returns the best plan so far (a shutdown need not wait
// for a solve of up to a minute).
class CancellableRepackClock : public RepackClock {
 public:
  explicit CancellableRepackClock(const std::atomic<bool>& cancelled) : cancelled_(cancelled) {}
  absl::Time Now() override { return cancelled_.load() ? absl::InfiniteFuture() : absl::Now(); }

 private:
  const std::atomic<bool>& cancelled_;
};

}  // namespace headroom
