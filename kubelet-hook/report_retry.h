#pragma once

// When headroom-nri sends a failed node report again. A report refused because the extender
// is busy (its queue full), restarting or unreachable is worth another try before the next
// round; but a fleet whose reports failed together must not retry together. So retries back
// off exponentially with "full jitter" (each delay uniform between zero and the exponential
// bound, the scheme of AWS's "Exponential Backoff And Jitter" and gRPC's connection
// backoff), and stop at the next round, which reports anyway.

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace headroom::nri {

struct ReportRetryPolicy {
  absl::Duration base = absl::Seconds(1);  // the bound of the first retry's delay
  absl::Duration cap = absl::Seconds(30);  // no retry waits longer
};

// The delay before retry `attempt` (0 for the first): `uniform01` (in [0, 1)) of
// min(cap, base x 2^attempt).
absl::Duration ReportRetryDelay(const ReportRetryPolicy& policy, int attempt, double uniform01);

// Whether a report that failed with `code` may succeed if sent again soon: the extender was
// busy, unreachable, restarting or slow. A refusal of the report itself (invalid, forbidden,
// unauthenticated) waits for the next round.
bool ReportRetryable(absl::StatusCode code);

}  // namespace headroom::nri
