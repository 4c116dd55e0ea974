#pragma once

// An upper bound on how many items of one tier can be placed, from a surrogate relaxation of
// the node capacities: the nodes are pooled into one bin and the two dimensions are combined
// with a weight lambda; for each lambda on a grid, the smallest items (by combined size) are
// counted until the pool is full, after the fewest-resource way of placing what the tiers
// above must keep. The minimum over the grid is the bound. Pure function, no search.

#include <utility>
#include <vector>

#include "shared/repack_model.h"

namespace headroom::repack_internal {

struct RequiredGroup {
  std::vector<Size> items;  // the candidates
  int count = 0;            // how many of them must be placed
};

// The most items of `target` that can be placed in `pool` (the summed capacity of the nodes)
// alongside `required`. Returns -1 when `required` alone does not fit the pool. Items that
// fit no single node must be left out of `target` by the caller.
int SurrogateCountBound(const Size& pool, const std::vector<Size>& target,
                        const std::vector<RequiredGroup>& required);

}  // namespace headroom::repack_internal
