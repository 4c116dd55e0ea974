#pragma once

// How a node's CPU is shared under contention, for the simulator: the kernel's CFS gives each
// cgroup CPU in proportion to its weight (set from the CPU request), and time a cgroup does
// not use goes to the others (work-conserving). With no CPU limits this is weighted max-min
// fairness, computed by water-filling: a pod gets min(demand, its weighted share), and what
// it leaves is shared again among the rest.

#include <cstdint>
#include <vector>

namespace headroom::sim {

// CPU granted to each pod (millicores). `weights` are made at least 2 (the smallest CPU weight
// kubelet sets). Sum of grants <= capacity; a pod never gets more than its demand.
std::vector<int64_t> ShareCpu(int64_t capacity_millis, const std::vector<int64_t>& demands,
                              const std::vector<int64_t>& weights);

}  // namespace headroom::sim
