#include "shared/repack_search.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

namespace headroom::repack_internal {
namespace {

// How often (in search-tree nodes) the clock is read.
constexpr int64_t kClockEvery = 256;

// Largest number of unplaced items a neighbourhood step takes along; higher tiers first.
constexpr size_t kMaxUnplacedPerStep = 40;

// One value function seen from the subproblem: the weight of each position when placed on its
// home node, elsewhere, and the best of the two that is reachable.
struct PositionWeights {
  std::vector<int> on_home;
  std::vector<int> elsewhere;
  std::vector<int> best;
  std::vector<int64_t> suffix_best;  // sum of best over positions >= p
  int64_t needed = 0;                // what the subproblem must reach
};

class SubsetSearch {
 public:
  SubsetSearch(const Problem& problem, const std::vector<int>& nodes, const std::vector<int>& items,
               const SearchBudget& budget, std::mt19937_64* rng, Assignment& assignment)
      : problem_(problem),
        nodes_(nodes),
        budget_(budget),
        rng_(rng),
        assignment_(assignment),
        order_(items) {}

  SearchOutcome Run(int64_t min_objective) {
    SortItems();
    // Take the items off; remember where they were in case nothing is found.
    std::vector<int> before(order_.size());
    for (size_t p = 0; p < order_.size(); ++p) {
      before[p] = assignment_.node_of[order_[p]];
      assignment_.Unplace(problem_, order_[p]);
    }
    Prepare(min_objective);
    std::vector<int64_t> floor_values(floors_.size(), 0);
    placed_at_.assign(order_.size(), -1);
    Dfs(0, 0, floor_values);

    SearchOutcome outcome;
    outcome.found = found_;
    outcome.complete = !aborted_;
    outcome.nodes = visited_;
    const std::vector<int>& result = found_ ? best_ : before;
    for (size_t p = 0; p < order_.size(); ++p) {
      if (result[p] >= 0) assignment_.Place(problem_, order_[p], result[p]);
    }
    return outcome;
  }

 private:
  // Higher tiers first (their floors bind), then larger items first.
  void SortItems() {
    Size largest{};
    for (const Size& cap : problem_.capacity) {
      for (int d = 0; d < kDims; ++d) largest[d] = std::max(largest[d], cap[d]);
    }
    auto key = [&](int item) {
      double k = 0;
      for (int d = 0; d < kDims; ++d) {
        if (largest[d] > 0) {
          k = std::max(k, static_cast<double>(problem_.items[item].size[d]) / largest[d]);
        }
      }
      return k;
    };
    std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
      if (problem_.items[a].tier != problem_.items[b].tier) {
        return problem_.items[a].tier < problem_.items[b].tier;
      }
      return key(a) > key(b);
    });
  }

  void Prepare(int64_t min_objective) {
    sub_index_.assign(problem_.capacity.size(), -1);
    for (size_t s = 0; s < nodes_.size(); ++s) sub_index_[nodes_[s]] = static_cast<int>(s);

    objective_ = Weigh(problem_.objective, min_objective);
    for (const Floor& floor : problem_.floors) {
      floors_.push_back(Weigh(floor.value, floor.at_least));
    }

    // Which value functions count items (weight 0 or 1 wherever placed) on supports disjoint
    // from each other's: the objective first, then the floors in order.
    std::vector<bool> claimed(order_.size(), false);
    auto claim_if_counting = [&](const PositionWeights& w) {
      for (size_t p = 0; p < order_.size(); ++p) {
        if (w.on_home[p] != w.elsewhere[p] || w.elsewhere[p] < 0 || w.elsewhere[p] > 1) {
          return false;
        }
        if (w.elsewhere[p] == 1 && claimed[p]) return false;
      }
      for (size_t p = 0; p < order_.size(); ++p) claimed[p] = claimed[p] || w.elsewhere[p] == 1;
      return true;
    };
    objective_counts_ = claim_if_counting(objective_);
    floor_counts_.clear();
    for (const PositionWeights& w : floors_) floor_counts_.push_back(claim_if_counting(w));

    // A node is "special" at position p while some later item has it as home with a home
    // weight that differs: then it is not interchangeable with a node of equal free space.
    last_home_position_.assign(nodes_.size(), -1);
    for (size_t p = 0; p < order_.size(); ++p) {
      const int home = problem_.items[order_[p]].home;
      if (home >= 0 && sub_index_[home] >= 0 && HomeMatters(p)) {
        last_home_position_[sub_index_[home]] = static_cast<int>(p);
      }
    }

    // Consecutive identical items: placed ones come first (a symmetry of the problem).
    identical_to_previous_.assign(order_.size(), false);
    for (size_t p = 1; p < order_.size(); ++p) {
      identical_to_previous_[p] = Identical(order_[p - 1], order_[p]);
    }

    // Free space of the subproblem's nodes, and the items sorted by size per dimension, for
    // the capacity bound.
    free_.fill(0);
    for (int node : nodes_) {
      for (int d = 0; d < kDims; ++d) {
        free_[d] += problem_.capacity[node][d] - assignment_.load[node][d];
      }
    }
    for (int d = 0; d < kDims; ++d) {
      by_size_[d].resize(order_.size());
      std::iota(by_size_[d].begin(), by_size_[d].end(), 0);
      std::stable_sort(by_size_[d].begin(), by_size_[d].end(), [&](int a, int b) {
        return problem_.items[order_[a]].size[d] < problem_.items[order_[b]].size[d];
      });
    }
  }

  bool HomeMatters(size_t p) const {
    const int item = order_[p];
    if (problem_.objective.on_home[item] != problem_.objective.elsewhere[item]) return true;
    for (const Floor& floor : problem_.floors) {
      if (floor.value.on_home[item] != floor.value.elsewhere[item]) return true;
    }
    return false;
  }

  bool HomeReachable(int item) const {
    const int home = problem_.items[item].home;
    return home >= 0 && sub_index_[home] >= 0;
  }

  bool Identical(int a, int b) const {
    const Item& x = problem_.items[a];
    const Item& y = problem_.items[b];
    if (x.size != y.size || x.tier != y.tier) return false;
    if (HomeReachable(a) || HomeReachable(b)) return false;
    auto same = [&](const Value& v) { return v.elsewhere[a] == v.elsewhere[b]; };
    if (!same(problem_.objective)) return false;
    for (const Floor& floor : problem_.floors) {
      if (!same(floor.value)) return false;
    }
    return true;
  }

  // The weights of `value` per position, and what the subproblem must reach so that the whole
  // assignment reaches `target` (the items outside it are fixed).
  PositionWeights Weigh(const Value& value, int64_t target) const {
    PositionWeights w;
    const size_t n = order_.size();
    w.on_home.resize(n);
    w.elsewhere.resize(n);
    w.best.resize(n);
    w.suffix_best.assign(n + 1, 0);
    for (size_t p = 0; p < n; ++p) {
      const int item = order_[p];
      w.on_home[p] = value.on_home[item];
      w.elsewhere[p] = value.elsewhere[item];
      w.best[p] = std::max(
          0, HomeReachable(item) ? std::max(w.on_home[p], w.elsewhere[p]) : w.elsewhere[p]);
    }
    for (size_t p = n; p-- > 0;) w.suffix_best[p] = w.suffix_best[p + 1] + w.best[p];
    int64_t outside = 0;
    std::vector<bool> in_subproblem(problem_.items.size(), false);
    for (int item : order_) in_subproblem[item] = true;
    for (int item : problem_.active) {
      if (in_subproblem[item]) continue;
      outside += ItemValue(value, item, assignment_.node_of[item], problem_.items[item].home);
    }
    w.needed = target - outside;
    return w;
  }

  // How many of the undecided items (positions >= p), smallest first in dimension d, fit in
  // `free`; counting stops at `limit`.
  int64_t SmallestFitting(size_t p, int d, int64_t free, int64_t limit) const {
    int64_t used = 0;
    int64_t fitting = 0;
    for (int position : by_size_[d]) {
      if (fitting >= limit) break;
      if (static_cast<size_t>(position) < p) continue;
      used += problem_.items[order_[position]].size[d];
      if (used > free) break;
      ++fitting;
    }
    return fitting;
  }

  // At most how many of the items at positions >= p fit in the free space, by each dimension.
  int64_t CapacityCount(size_t p) const {
    int64_t count = static_cast<int64_t>(order_.size() - p);
    for (int d = 0; d < kDims; ++d) count = SmallestFitting(p, d, free_[d], count);
    return count;
  }

  // At most how many of the items at positions >= p fit, node by node: on each node, no more
  // than the smallest of them that fit its free space in each dimension.
  int64_t PerNodeCount(size_t p) const {
    int64_t total = 0;
    for (int node : nodes_) {
      int64_t on_node = static_cast<int64_t>(order_.size() - p);
      for (int d = 0; d < kDims; ++d) {
        on_node =
            SmallestFitting(p, d, problem_.capacity[node][d] - assignment_.load[node][d], on_node);
      }
      total += on_node;
    }
    return total;
  }

  // Whether every counting function's deficit can still be covered by its undecided items that
  // fit the free space of at least one node.
  bool CountingDeficitsCoverable(size_t p, int64_t objective,
                                 const std::vector<int64_t>& floors) const {
    std::vector<int64_t>& available = available_scratch_;
    available.assign(floors_.size() + 1, 0);
    for (size_t q = p; q < order_.size(); ++q) {
      const int item = order_[q];
      if (std::none_of(nodes_.begin(), nodes_.end(),
                       [&](int node) { return assignment_.Fits(problem_, item, node); })) {
        continue;
      }
      if (objective_counts_) available[0] += objective_.elsewhere[q];
      for (size_t k = 0; k < floors_.size(); ++k) {
        if (floor_counts_[k]) available[k + 1] += floors_[k].elsewhere[q];
      }
    }
    if (objective_counts_ && objective + available[0] < objective_.needed) return false;
    for (size_t k = 0; k < floors_.size(); ++k) {
      if (floor_counts_[k] && floors[k] + available[k + 1] < floors_[k].needed) return false;
    }
    return true;
  }

  // The most `w` can gain from positions >= p when at most `count` of them are placed.
  int64_t TopWeights(const PositionWeights& w, size_t p, int64_t count) const {
    if (count >= static_cast<int64_t>(order_.size() - p)) return w.suffix_best[p];
    scratch_.assign(w.best.begin() + static_cast<std::ptrdiff_t>(p), w.best.end());
    std::nth_element(scratch_.begin(), scratch_.begin() + count, scratch_.end(),
                     std::greater<int>());
    int64_t sum = 0;
    for (int64_t i = 0; i < count; ++i) sum += scratch_[i];
    return sum;
  }

  bool OutOfBudget() {
    if (aborted_) return true;
    if (budget_.max_nodes > 0 && visited_ > budget_.max_nodes) aborted_ = true;
    if (visited_ % kClockEvery == 0 && budget_.clock != nullptr &&
        budget_.clock->Now() >= budget_.deadline) {
      aborted_ = true;
    }
    return aborted_;
  }

  bool Pruned(size_t p, int64_t objective, const std::vector<int64_t>& floors) const {
    if (objective + objective_.suffix_best[p] < objective_.needed) return true;
    for (size_t k = 0; k < floors_.size(); ++k) {
      if (floors[k] + floors_[k].suffix_best[p] < floors_[k].needed) return true;
    }
    const int64_t remaining = static_cast<int64_t>(order_.size() - p);
    int64_t count = CapacityCount(p);
    if (count < remaining) count = std::min(count, PerNodeCount(p));
    if (count >= remaining) return false;
    // Counting functions with disjoint supports each need their own items: together they need
    // more slots than there are.
    int64_t slots_needed = 0;
    if (objective_counts_) slots_needed += std::max<int64_t>(0, objective_.needed - objective);
    for (size_t k = 0; k < floors_.size(); ++k) {
      if (floor_counts_[k]) slots_needed += std::max<int64_t>(0, floors_[k].needed - floors[k]);
    }
    if (slots_needed > count) return true;
    // Each counting function can only gain from its items that still fit on some node.
    if (slots_needed > 0 && !CountingDeficitsCoverable(p, objective, floors)) return true;
    if (objective + TopWeights(objective_, p, count) < objective_.needed) return true;
    for (size_t k = 0; k < floors_.size(); ++k) {
      if (floors[k] + TopWeights(floors_[k], p, count) < floors_[k].needed) return true;
    }
    return false;
  }

  void Record(int64_t objective) {
    found_ = true;
    best_ = placed_at_;
    objective_.needed = objective + 1;  // from now on, only better
  }

  // The nodes to try for the item at position p, best first, one per class of equal free space.
  std::vector<int> Candidates(size_t p) {
    const int item = order_[p];
    const Item& it = problem_.items[item];
    std::vector<std::pair<double, int>> ranked;
    for (size_t s = 0; s < nodes_.size(); ++s) {
      const int node = nodes_[s];
      if (!assignment_.Fits(problem_, item, node)) continue;
      double fullness = FullnessAfter(problem_, assignment_, item, node);
      // A little noise in the neighbourhood search, so equal re-packings differ.
      if (rng_ != nullptr) fullness += std::uniform_real_distribution<double>(0, 0.15)(*rng_);
      if (node == it.home) fullness = 2.0;  // home first
      ranked.emplace_back(fullness, node);
    }
    std::stable_sort(ranked.begin(), ranked.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<int> result;
    std::vector<Size> seen_free;
    for (const auto& [fullness, node] : ranked) {
      const bool special =
          node == it.home || last_home_position_[sub_index_[node]] > static_cast<int>(p);
      if (!special) {
        Size free{};
        for (int d = 0; d < kDims; ++d) {
          free[d] = problem_.capacity[node][d] - assignment_.load[node][d];
        }
        if (std::find(seen_free.begin(), seen_free.end(), free) != seen_free.end()) continue;
        seen_free.push_back(free);
      }
      result.push_back(node);
    }
    return result;
  }

  void Dfs(size_t p, int64_t objective, std::vector<int64_t>& floors) {
    ++visited_;
    if (OutOfBudget()) return;
    if (p == order_.size()) {
      if (objective < objective_.needed) return;
      for (size_t k = 0; k < floors_.size(); ++k) {
        if (floors[k] < floors_[k].needed) return;
      }
      Record(objective);
      return;
    }
    if (Pruned(p, objective, floors)) return;

    const int item = order_[p];
    const bool must_skip = identical_to_previous_[p] && placed_at_[p - 1] < 0;
    if (!must_skip) {
      for (int node : Candidates(p)) {
        const int home = problem_.items[item].home;
        const bool at_home = node == home;
        assignment_.Place(problem_, item, node);
        for (int d = 0; d < kDims; ++d) free_[d] -= problem_.items[item].size[d];
        placed_at_[p] = node;
        for (size_t k = 0; k < floors_.size(); ++k) {
          floors[k] += at_home ? floors_[k].on_home[p] : floors_[k].elsewhere[p];
        }
        Dfs(p + 1, objective + (at_home ? objective_.on_home[p] : objective_.elsewhere[p]), floors);
        for (size_t k = 0; k < floors_.size(); ++k) {
          floors[k] -= at_home ? floors_[k].on_home[p] : floors_[k].elsewhere[p];
        }
        placed_at_[p] = -1;
        for (int d = 0; d < kDims; ++d) free_[d] += problem_.items[item].size[d];
        assignment_.Unplace(problem_, item);
        if (aborted_) return;
      }
    }
    Dfs(p + 1, objective, floors);
  }

  const Problem& problem_;
  const std::vector<int>& nodes_;
  const SearchBudget& budget_;
  std::mt19937_64* rng_;
  Assignment& assignment_;

  std::vector<int> order_;      // position -> item
  std::vector<int> sub_index_;  // node -> index in nodes_, or -1
  PositionWeights objective_;
  std::vector<PositionWeights> floors_;
  bool objective_counts_ = false;
  std::vector<bool> floor_counts_;
  std::vector<int> last_home_position_;
  std::vector<bool> identical_to_previous_;
  Size free_{};
  std::array<std::vector<int>, kDims> by_size_;
  mutable std::vector<int> scratch_;
  mutable std::vector<int64_t> available_scratch_;

  std::vector<int> placed_at_;  // position -> node during the search
  std::vector<int> best_;
  bool found_ = false;
  bool aborted_ = false;
  int64_t visited_ = 0;
};

}  // namespace

SearchOutcome RepackSubset(const Problem& problem, const std::vector<int>& nodes,
                           const std::vector<int>& items, int64_t min_objective,
                           const SearchBudget& budget, std::mt19937_64* rng,
                           Assignment& assignment) {
  SubsetSearch search(problem, nodes, items, budget, rng, assignment);
  return search.Run(min_objective);
}

NeighbourhoodStats ImproveByNeighbourhoods(const Problem& problem, const SearchBudget& budget,
                                           int64_t stop_at, std::mt19937_64& rng,
                                           Assignment& assignment) {
  NeighbourhoodStats stats;
  const int node_count = static_cast<int>(problem.capacity.size());
  if (node_count == 0) return stats;
  std::vector<int> all_nodes(node_count);
  std::iota(all_nodes.begin(), all_nodes.end(), 0);
  int64_t current = Evaluate(problem, problem.objective, assignment);
  SearchBudget step = budget;
  step.max_nodes = 2000;
  while (current < stop_at && budget.clock->Now() < budget.deadline) {
    ++stats.iterations;
    const int k = std::min(node_count, 2 + static_cast<int>(rng() % 3));
    std::shuffle(all_nodes.begin(), all_nodes.end(), rng);
    std::vector<int> picked(all_nodes.begin(), all_nodes.begin() + k);
    std::vector<bool> is_picked(node_count, false);
    for (int node : picked) is_picked[node] = true;

    std::vector<int> items;
    std::vector<int> unplaced;
    for (int item : problem.active) {
      const int node = assignment.node_of[item];
      if (node >= 0 && is_picked[node]) {
        items.push_back(item);
      } else if (node < 0) {
        unplaced.push_back(item);
      }
    }
    if (unplaced.size() > kMaxUnplacedPerStep) {
      std::shuffle(unplaced.begin(), unplaced.end(), rng);
      std::stable_sort(unplaced.begin(), unplaced.end(),
                       [&](int a, int b) { return problem.items[a].tier < problem.items[b].tier; });
      unplaced.resize(kMaxUnplacedPerStep);
    }
    items.insert(items.end(), unplaced.begin(), unplaced.end());
    const SearchOutcome outcome =
        RepackSubset(problem, picked, items, current, step, &rng, assignment);
    if (outcome.found) {
      const int64_t value = Evaluate(problem, problem.objective, assignment);
      if (value > current) ++stats.improvements;
      current = value;
    }
  }
  return stats;
}

}  // namespace headroom::repack_internal
