#include "kubelet-hook/workload_budget.h"

#include <algorithm>

namespace headroom::nri {

int64_t MemoryBudgetBytes(std::optional<int64_t> flag_bytes,
                          std::optional<int64_t> container_limit_bytes) {
  if (flag_bytes.has_value()) return *flag_bytes;
  if (container_limit_bytes.has_value()) {
    return static_cast<int64_t>(static_cast<double>(*container_limit_bytes) * kBudgetShareOfLimit);
  }
  return kBudgetWithoutLimit;
}

WorkloadRetention RetentionForBudget(int64_t budget_bytes, absl::Duration idle) {
  WorkloadRetention retention;
  retention.idle = idle;
  retention.max_workloads = std::max(
      kMinWorkloadContainers,
      static_cast<size_t>(std::max<int64_t>(0, budget_bytes) / kBytesPerWorkloadContainer));
  return retention;
}

}  // namespace headroom::nri
