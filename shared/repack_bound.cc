#include "shared/repack_bound.h"

#include <algorithm>
#include <vector>

namespace headroom::repack_internal {
namespace {

constexpr int kGridSteps = 100;        // lambda = 0, 0.01, ..., 1
constexpr long double kSlack = 1e-12;  // keeps the bound valid under rounding

long double Combined(const Size& size, const Size& pool, long double lambda) {
  long double total = 0;
  const long double weight[kDims] = {lambda, 1 - lambda};
  for (int d = 0; d < kDims; ++d) {
    if (pool[d] > 0) {
      total += weight[d] * static_cast<long double>(size[d]) / static_cast<long double>(pool[d]);
    } else if (size[d] > 0 && weight[d] > 0) {
      return 2;  // needs a resource the pool does not have: never fits
    }
  }
  return total;
}

std::vector<long double> SortedCombined(const std::vector<Size>& items, const Size& pool,
                                        long double lambda) {
  std::vector<long double> sizes;
  sizes.reserve(items.size());
  for (const Size& size : items) sizes.push_back(Combined(size, pool, lambda));
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

}  // namespace

int SurrogateCountBound(const Size& pool, const std::vector<Size>& target,
                        const std::vector<RequiredGroup>& required) {
  int best = static_cast<int>(target.size());
  for (int step = 0; step <= kGridSteps; ++step) {
    const long double lambda = static_cast<long double>(step) / kGridSteps;
    long double used = 0;
    for (const RequiredGroup& group : required) {
      const std::vector<long double> sizes = SortedCombined(group.items, pool, lambda);
      if (group.count > static_cast<int>(sizes.size())) return -1;
      for (int i = 0; i < group.count; ++i) used += sizes[i];
    }
    if (used > 1 + kSlack) return -1;
    int fitting = 0;
    for (long double size : SortedCombined(target, pool, lambda)) {
      used += size;
      if (used > 1 + kSlack) break;
      ++fitting;
    }
    best = std::min(best, fitting);
  }
  return best;
}

}  // namespace headroom::repack_internal
