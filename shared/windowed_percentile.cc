#include "shared/windowed_percentile.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"

namespace headroom {

WindowedPercentile::WindowedPercentile(absl::Duration window, size_t max_samples)
    : window_(window), max_samples_(std::max<size_t>(1, max_samples)) {}

absl::Status WindowedPercentile::Add(absl::Time at, int64_t value) {
  if (!samples_.empty() && at < samples_.back().at) {
    return absl::InvalidArgumentError(absl::StrCat("sample at ", absl::FormatTime(at),
                                                   " is older than the newest sample (",
                                                   absl::FormatTime(samples_.back().at), ")"));
  }
  samples_.push_back({at, value});
  // Drop what has left the window as seen from the newest sample, then enforce the bound.
  while (!samples_.empty() && samples_.front().at <= at - window_) samples_.pop_front();
  while (samples_.size() > max_samples_) samples_.pop_front();
  return absl::OkStatus();
}

std::optional<int64_t> WindowedPercentile::Percentile(double q, absl::Time now) const {
  std::vector<int64_t> values;
  values.reserve(samples_.size());
  for (const Sample& sample : samples_) {
    if (sample.at > now - window_ && sample.at <= now) values.push_back(sample.value);
  }
  return InterpolatedPercentile(values, q);
}

std::optional<int64_t> InterpolatedPercentile(std::vector<int64_t>& values, double q) {
  if (values.empty()) return std::nullopt;
  q = std::clamp(q, 0.0, 1.0);
  const double rank = q * static_cast<double>(values.size() - 1);
  const size_t lower = static_cast<size_t>(std::floor(rank));
  const size_t upper = std::min(lower + 1, values.size() - 1);
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(lower),
                   values.end());
  const int64_t low_value = values[lower];
  if (upper == lower) return low_value;
  // The upper neighbour is the smallest value after the lower rank.
  const int64_t high_value =
      *std::min_element(values.begin() + static_cast<std::ptrdiff_t>(upper), values.end());
  const double fraction = rank - static_cast<double>(lower);
  if (fraction <= 0) return low_value;
  // Interpolate in long double and round up; the gap fits int64 for non-negative samples.
  const long double interpolated =
      static_cast<long double>(low_value) +
      static_cast<long double>(fraction) * static_cast<long double>(high_value - low_value);
  return static_cast<int64_t>(std::ceil(interpolated - 1e-9L));
}

std::optional<int64_t> ReserveForShortfall(std::vector<int64_t>& values, double fraction) {
  if (values.empty()) return std::nullopt;
  for (int64_t& v : values) v = std::max<int64_t>(v, 0);
  std::sort(values.begin(), values.end(), std::greater<>());
  long double total = 0;
  for (int64_t v : values) total += static_cast<long double>(v);
  const long double allowed = std::max(0.0, fraction) * total;
  // With R in [values[k], values[k - 1]] the k largest are above it: excess(R) = top_k - k R,
  // falling as R rises. Find the first k whose lowest admissible R stays above values[k].
  long double top = 0;
  for (size_t k = 1; k <= values.size(); ++k) {
    top += static_cast<long double>(values[k - 1]);
    const long double reserve = (top - allowed) / static_cast<long double>(k);
    const long double floor = k < values.size() ? static_cast<long double>(values[k]) : 0.0L;
    if (reserve >= floor) {
      return static_cast<int64_t>(std::ceil(std::max(reserve, floor) - 1e-9L));
    }
  }
  return 0;
}

}  // namespace headroom
