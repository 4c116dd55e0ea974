#pragma once

// The repacking solver's internal model (shared/repack.h is the public one): items with a
// two-dimensional size and a home node, linear "value" functions over an assignment, and the
// assignment itself with per-node loads.

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace headroom::repack_internal {

inline constexpr int kDims = 2;  // CPU, memory
using Size = std::array<int64_t, kDims>;

struct Item {
  Size size{};
  int tier = 0;   // 0 is the highest priority
  int home = -1;  // the node it runs on now; -1: pending
};

// value(assignment) = sum over placed items i of (node == home ? on_home[i] : elsewhere[i]).
struct Value {
  std::vector<int> on_home;
  std::vector<int> elsewhere;
};

// A lower bound the search must keep: value >= at_least.
struct Floor {
  Value value;
  int64_t at_least = 0;
};

struct Problem {
  std::vector<Size> capacity;  // per node
  std::vector<Item> items;
  std::vector<int> active;    // the items in play (tiers solved so far and the current one)
  std::vector<Floor> floors;  // what earlier phases reached
  Value objective;            // maximised
};

struct Assignment {
  std::vector<int> node_of;  // per item; -1: not placed
  std::vector<Size> load;    // per node

  bool Fits(const Problem& problem, int item, int node) const {
    for (int d = 0; d < kDims; ++d) {
      if (load[node][d] + problem.items[item].size[d] > problem.capacity[node][d]) return false;
    }
    return true;
  }
  void Place(const Problem& problem, int item, int node) {
    node_of[item] = node;
    for (int d = 0; d < kDims; ++d) load[node][d] += problem.items[item].size[d];
  }
  void Unplace(const Problem& problem, int item) {
    const int node = node_of[item];
    if (node < 0) return;
    for (int d = 0; d < kDims; ++d) load[node][d] -= problem.items[item].size[d];
    node_of[item] = -1;
  }
};

// The fullest dimension of `node` once `item` is added to it, as a share of its capacity (0
// for dimensions without capacity): best fit prefers the node this makes fullest.
inline double FullnessAfter(const Problem& problem, const Assignment& assignment, int item,
                            int node) {
  double fullness = 0;
  for (int d = 0; d < kDims; ++d) {
    if (problem.capacity[node][d] > 0) {
      fullness = std::max(
          fullness, static_cast<double>(assignment.load[node][d] + problem.items[item].size[d]) /
                        problem.capacity[node][d]);
    }
  }
  return fullness;
}

inline int ItemValue(const Value& value, int item, int node, int home) {
  if (node < 0) return 0;
  return node == home ? value.on_home[item] : value.elsewhere[item];
}

// The value of `assignment` over the active items.
inline int64_t Evaluate(const Problem& problem, const Value& value, const Assignment& assignment) {
  int64_t total = 0;
  for (int item : problem.active) {
    total += ItemValue(value, item, assignment.node_of[item], problem.items[item].home);
  }
  return total;
}

}  // namespace headroom::repack_internal
