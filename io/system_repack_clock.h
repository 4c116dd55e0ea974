#pragma once

// The wall clock for the repacking solver (shared/repack.h reads no clock itself).

#include "absl/time/clock.h"
#include "shared/repack.h"

namespace headroom {

class SystemRepackClock : public RepackClock {
 public:
  absl::Time Now() override { return absl::Now(); }
};

}  // namespace headroom
