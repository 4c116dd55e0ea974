#pragma once

// How many workload containers headroom-nri may keep statistics for, from its memory budget.
// The budget is --memory-budget, or by default 75% of the container's memory limit (the rest
// is the process itself: code, threads, the gRPC channel, the allocator's slack), or 96 MiB
// (75% of deploy/'s 128 MiB) when the process runs without a limit.
//
// What one workload container costs, measured by bench/nri_bench (BM_WorkloadContainerFootprint,
// docs/nri.md): 31.0 KiB of heap after a single sample (the rings are allocated whole), 38.9
// KiB once 48 hours of one sample a minute fill every window and profile, plus 342 bytes of
// checkpoint text while the checkpoint is written. The cap divides the budget by the worst
// case rounded up, 40 KiB: 128 MiB of limit keeps 2457 workload containers.

#include <cstdint>
#include <optional>

#include "absl/time/time.h"
#include "kubelet-hook/node_state.h"

namespace headroom::nri {

inline constexpr int64_t kBytesPerWorkloadContainer = int64_t{40} << 10;
inline constexpr double kBudgetShareOfLimit = 0.75;
inline constexpr int64_t kBudgetWithoutLimit = int64_t{96} << 20;
// Below this the node could not hold its own running containers (110 pods of a few each).
inline constexpr size_t kMinWorkloadContainers = 512;

// --memory-budget when set, else the share of `container_limit_bytes`, else the default.
int64_t MemoryBudgetBytes(std::optional<int64_t> flag_bytes,
                          std::optional<int64_t> container_limit_bytes);

// The retention for `budget_bytes` (at least kMinWorkloadContainers) and `idle`.
WorkloadRetention RetentionForBudget(int64_t budget_bytes, absl::Duration idle);

}  // namespace headroom::nri
