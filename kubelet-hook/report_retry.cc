#include "kubelet-hook/report_retry.h"

#include <algorithm>

namespace headroom::nri {

absl::Duration ReportRetryDelay(const ReportRetryPolicy& policy, int attempt, double uniform01) {
  absl::Duration bound = policy.base;
  for (int i = 0; i < attempt && bound < policy.cap; ++i) bound *= 2;
  bound = std::min(bound, policy.cap);
  return bound * std::clamp(uniform01, 0.0, 1.0);
}

bool ReportRetryable(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kUnavailable:
    case absl::StatusCode::kResourceExhausted:
    case absl::StatusCode::kDeadlineExceeded:
    case absl::StatusCode::kAborted:
      return true;
    default:
      return false;
  }
}

}  // namespace headroom::nri
