#pragma once

// The two searches of the repacking solver over shared/repack_model.h:
// - RepackSubset: complete branch and bound that re-packs some items onto some nodes, the rest
//   of the assignment fixed. With every node and every active item it is the exact solver; with
//   two to four nodes it is one step of the large-neighbourhood search.
// - ImproveByNeighbourhoods: that large-neighbourhood search, until a deadline.

#include <cstdint>
#include <random>
#include <vector>

#include "absl/time/time.h"
#include "shared/repack.h"
#include "shared/repack_model.h"

namespace headroom::repack_internal {

struct SearchBudget {
  RepackClock* clock = nullptr;
  absl::Time deadline = absl::InfiniteFuture();
  int64_t max_nodes = 0;  // search-tree nodes; 0: no limit
};

struct SearchOutcome {
  bool found = false;     // `assignment` now holds the best re-packing found (value >= asked)
  bool complete = false;  // the whole space was searched: nothing better exists than the result
                          // (or, when !found, nothing reaches the value asked)
  int64_t nodes = 0;      // search-tree nodes visited
};

// Re-packs `items` onto `nodes`: every item in `items` is taken off its node and then either
// placed on one of `nodes` or left out; every other item stays where it is. Looks for the
// re-packing with the highest objective that is at least `min_objective` and keeps every floor;
// writes the best one into `assignment`, or leaves `assignment` as it was when none is found.
// `rng` (may be null) shuffles ties in the node order, for the neighbourhood search.
SearchOutcome RepackSubset(const Problem& problem, const std::vector<int>& nodes,
                           const std::vector<int>& items, int64_t min_objective,
                           const SearchBudget& budget, std::mt19937_64* rng,
                           Assignment& assignment);

struct NeighbourhoodStats {
  int64_t iterations = 0;
  int64_t improvements = 0;
};

// Large-neighbourhood search: repeatedly re-packs the active items of two to four random nodes,
// with every unplaced active item, exactly (each step bounded in search-tree nodes), keeping
// any re-packing at least as good. Stops at the deadline or once the objective reaches
// `stop_at`.
NeighbourhoodStats ImproveByNeighbourhoods(const Problem& problem, const SearchBudget& budget,
                                           int64_t stop_at, std::mt19937_64& rng,
                                           Assignment& assignment);

}  // namespace headroom::repack_internal
