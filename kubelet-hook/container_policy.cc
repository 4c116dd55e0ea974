#include "kubelet-hook/container_policy.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "shared/resource.h"
#include "shared/sizing.h"

namespace headroom::nri {

namespace {

constexpr uint64_t kMinShares = 2;
constexpr uint64_t kMaxShares = 262144;

std::string Mem(int64_t bytes) { return FormatAmount(Resource::kMemory, bytes); }

}  // namespace

uint64_t CpuSharesForMillis(int64_t millis) {
  if (millis <= 0) return kMinShares;
  const uint64_t shares = static_cast<uint64_t>(millis) * 1024 / 1000;
  return std::clamp(shares, kMinShares, kMaxShares);
}

int64_t MillisForCpuShares(uint64_t shares) {
  return static_cast<int64_t>(std::min<uint64_t>(shares, kMaxShares) * 1000 / 1024);
}

ResourcePlan PlanContainerResources(const ContainerPolicyInput& input) {
  ResourcePlan plan;
  if (input.declared.cpu_quota.has_value() && *input.declared.cpu_quota > 0) {
    plan.cpu_quota = kRemoveCpuQuota;
    plan.reasons.push_back(
        {"cpu-quota-removed", absl::StrCat("CPU quota ", *input.declared.cpu_quota, "us per ",
                                           input.declared.cpu_period.value_or(100000),
                                           "us removed: CPU is shared by weight, not capped")});
  }
  if (input.cpu_request_millis.has_value()) {
    plan.cpu_shares = CpuSharesForMillis(*input.cpu_request_millis);
    plan.reasons.push_back(
        {"cpu-weight", absl::StrCat("CPU shares ", *plan.cpu_shares, " from the sized request ",
                                    FormatAmount(Resource::kCpu, *input.cpu_request_millis))});
  }
  if (input.memory.has_value()) {
    const MemoryStats& memory = *input.memory;
    const int64_t formula = MemoryLimitBytes(memory, memory.peak_bytes);
    const int64_t limit = std::max(formula, input.memory_usage_bytes);
    plan.memory_limit_bytes = limit;
    plan.reasons.push_back(
        {"memory-limit",
         absl::StrCat("memory limit ", Mem(limit), " = 2 x max(7-day max ",
                      Mem(memory.max_7d_bytes), ", memory at OOM ", Mem(memory.oom_bytes), ")",
                      limit > formula ? absl::StrCat(", raised to the usage ", Mem(limit)) : "")});
  } else {
    plan.reasons.push_back(
        {"memory-no-history",
         input.declared.memory_limit_bytes.has_value()
             ? absl::StrCat("no memory history: declared limit ",
                            Mem(*input.declared.memory_limit_bytes), " kept")
             : std::string("no memory history and no declared limit: left unlimited")});
  }
  if (!input.enforce || input.excluded) {
    plan.reasons.push_back({input.excluded ? "excluded" : "recommend-only",
                            input.excluded ? "headroom is disabled for this container: nothing set"
                                           : "recommend-only (dry run): nothing set"});
    plan.cpu_quota.reset();
    plan.cpu_shares.reset();
    plan.memory_limit_bytes.reset();
  }
  return plan;
}

ResourcePlan WithoutNoOps(ResourcePlan plan, const DeclaredResources& current) {
  if (plan.cpu_quota.has_value() && current.cpu_quota.has_value() &&
      *current.cpu_quota == *plan.cpu_quota) {
    plan.cpu_quota.reset();
  }
  if (plan.cpu_shares.has_value() && current.cpu_shares == plan.cpu_shares) {
    plan.cpu_shares.reset();
  }
  if (plan.memory_limit_bytes.has_value() &&
      current.memory_limit_bytes == plan.memory_limit_bytes) {
    plan.memory_limit_bytes.reset();
  }
  return plan;
}

}  // namespace headroom::nri
