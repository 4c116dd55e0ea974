#include "shared/psi.h"

#include <limits>

#include "absl/strings/str_cat.h"
#include "shared/wide_int.h"

namespace headroom {
namespace {

// std::numeric_limits is not specialised for __int128 in strict mode.
constexpr WideInt kWideMax =
    (static_cast<WideInt>(1) << 126) - 1 + (static_cast<WideInt>(1) << 126);

// ceil(numerator / denominator) for non-negative numerator, positive denominator.
WideInt CeilDiv(WideInt numerator, WideInt denominator) {
  return (numerator + denominator - 1) / denominator;
}

absl::StatusOr<int64_t> ToMillis(WideInt value) {
  if (value > std::numeric_limits<int64_t>::max()) {
    return absl::OutOfRangeError("CPU rate does not fit in 64 bits of millicores");
  }
  return static_cast<int64_t>(value);
}

}  // namespace

absl::StatusOr<CpuRateSample> PsiAdjustedCpu(const CpuCounters& previous,
                                             const CpuCounters& current) {
  const int64_t elapsed_usec = absl::ToInt64Microseconds(current.read_at - previous.read_at);
  if (elapsed_usec <= 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "CPU counters were not read at increasing times (elapsed ", elapsed_usec, "us)"));
  }
  const int64_t usage_delta = current.usage_usec - previous.usage_usec;
  if (usage_delta < 0) {
    return absl::FailedPreconditionError(absl::StrCat("CPU usage counter went backwards by ",
                                                      -usage_delta, "us (cgroup recreated?)"));
  }
  CpuRateSample sample;
  // Millicores used = usage_delta / elapsed x 1000.
  absl::StatusOr<int64_t> usage =
      ToMillis(CeilDiv(static_cast<WideInt>(usage_delta) * 1000, elapsed_usec));
  if (!usage.ok()) return usage.status();
  sample.usage_millis = *usage;
  sample.adjusted_millis = *usage;
  if (!previous.some_stall_usec.has_value() || !current.some_stall_usec.has_value()) {
    return sample;
  }
  const int64_t stall_delta = *current.some_stall_usec - *previous.some_stall_usec;
  if (stall_delta < 0) {
    return absl::FailedPreconditionError(
        absl::StrCat("CPU pressure counter went backwards by ", -stall_delta, "us"));
  }
  sample.psi_available = true;
  sample.waiting_rate = static_cast<double>(stall_delta) / static_cast<double>(elapsed_usec);
  // usage x (1 + stall/elapsed) in millicores
  //   = usage_delta x (elapsed + stall_delta) x 1000 / elapsed^2, rounded up once.
  // Both deltas are below 2^63, so the numerator stays below 2^127 / 2 only when the
  // interval is sane; guard the product against overflow all the same.
  const WideInt factor = static_cast<WideInt>(elapsed_usec) + stall_delta;
  const WideInt limit = kWideMax / 1000;
  if (usage_delta != 0 && factor > limit / usage_delta) {
    return absl::OutOfRangeError("PSI-adjusted CPU rate does not fit in 128-bit arithmetic");
  }
  const WideInt numerator = static_cast<WideInt>(usage_delta) * factor * 1000;
  const WideInt denominator = static_cast<WideInt>(elapsed_usec) * elapsed_usec;
  absl::StatusOr<int64_t> adjusted = ToMillis(CeilDiv(numerator, denominator));
  if (!adjusted.ok()) return adjusted.status();
  sample.adjusted_millis = *adjusted;
  return sample;
}

}  // namespace headroom
