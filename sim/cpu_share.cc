#include "sim/cpu_share.h"

#include <algorithm>
#include <numeric>

namespace headroom::sim {

std::vector<int64_t> ShareCpu(int64_t capacity_millis, const std::vector<int64_t>& demands,
                              const std::vector<int64_t>& weights) {
  const size_t n = demands.size();
  std::vector<int64_t> granted(n, 0);
  int64_t total_demand = 0;
  for (int64_t d : demands) total_demand += std::max<int64_t>(0, d);
  if (total_demand <= capacity_millis) {
    for (size_t i = 0; i < n; ++i) granted[i] = std::max<int64_t>(0, demands[i]);
    return granted;
  }
  // Water-filling: repeatedly satisfy every pod whose demand is below its weighted share of
  // what is left, until the remaining pods all want more than their share.
  std::vector<size_t> open(n);
  std::iota(open.begin(), open.end(), size_t{0});
  long double left = static_cast<long double>(std::max<int64_t>(0, capacity_millis));
  while (!open.empty()) {
    long double weight_sum = 0;
    for (size_t i : open) weight_sum += std::max<int64_t>(2, weights[i]);
    std::vector<size_t> still_open;
    long double satisfied = 0;
    for (size_t i : open) {
      const long double share = left * std::max<int64_t>(2, weights[i]) / weight_sum;
      if (static_cast<long double>(demands[i]) <= share) {
        granted[i] = std::max<int64_t>(0, demands[i]);
        satisfied += granted[i];
      } else {
        still_open.push_back(i);
      }
    }
    if (still_open.size() == open.size()) {
      // Everyone wants more than its share: each gets exactly its share.
      for (size_t i : open) {
        granted[i] = static_cast<int64_t>(left * std::max<int64_t>(2, weights[i]) / weight_sum);
      }
      break;
    }
    left -= satisfied;
    open = std::move(still_open);
  }
  return granted;
}

}  // namespace headroom::sim
