#include "kubelet-hook/container_policy.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shared/node_actions.h"
#include "shared/resource.h"
#include "shared/sizing.h"

namespace headroom::nri {

namespace {

constexpr uint64_t kMinShares = 2;
constexpr uint64_t kMaxShares = 262144;

std::string Mem(int64_t bytes) { return FormatAmount(Resource::kMemory, bytes); }

std::optional<int64_t> Millis(const std::optional<uint64_t>& shares) {
  if (!shares.has_value()) return std::nullopt;
  return MillisForCpuShares(*shares);
}

// Shares for the guarded request, keeping the runtime's own number where the request is the
// declared or the current one (shares -> millis -> shares does not always round-trip).
uint64_t SharesFor(int64_t millis, const ContainerPolicyInput& input) {
  if (input.current.cpu_shares.has_value() && Millis(input.current.cpu_shares) == millis) {
    return *input.current.cpu_shares;
  }
  if (input.declared.cpu_shares.has_value() && Millis(input.declared.cpu_shares) == millis) {
    return *input.declared.cpu_shares;
  }
  return CpuSharesForMillis(millis);
}

// Guard rail 5 at the runtime (guard_rails.h): a running container's CPU weight or memory limit
// that would move by less than the resize threshold stays as it is -- unless the memory limit
// must rise -- and a shrink it would have been keeps the value's shrink step unspent.
void HoldSmallChanges(const ContainerPolicyInput& input, ResourcePlan& plan) {
  const ResizeThreshold& threshold = input.guard.resize_threshold;
  const std::string within = absl::StrCat("within ", DescribeThreshold(threshold));
  if (plan.cpu_shares.has_value() && plan.cpu_shares != input.current.cpu_shares) {
    const std::optional<int64_t> now = Millis(input.current.cpu_shares);
    const int64_t wanted = MillisForCpuShares(*plan.cpu_shares);
    if (!MovedEnough(now, wanted, threshold.fraction, threshold.cpu_millis)) {
      plan.reasons.push_back({"below-resize-threshold",
                              absl::StrCat("CPU shares ", *input.current.cpu_shares, " kept: ",
                                           FormatAmount(Resource::kCpu, wanted), " is ", within,
                                           " of ", FormatAmount(Resource::kCpu, now.value_or(0)))});
      plan.cpu_shares = input.current.cpu_shares;
      plan.last_shrink.cpu_request = input.last_shrink.cpu_request;
    }
  }
  if (plan.memory_limit_bytes.has_value() && input.current.memory_limit_bytes.has_value() &&
      *plan.memory_limit_bytes < *input.current.memory_limit_bytes &&
      !MovedEnough(input.current.memory_limit_bytes, plan.memory_limit_bytes, threshold.fraction,
                   threshold.memory_bytes)) {
    plan.reasons.push_back(
        {"below-resize-threshold",
         absl::StrCat("memory limit ", Mem(*input.current.memory_limit_bytes),
                      " kept: ", Mem(*plan.memory_limit_bytes), " is ", within)});
    plan.memory_limit_bytes = input.current.memory_limit_bytes;
    plan.last_shrink.memory_limit = input.last_shrink.memory_limit;
  }
}

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
  plan.last_shrink = input.last_shrink;
  if (input.current.cpu_quota.has_value() && *input.current.cpu_quota > 0) {
    plan.cpu_quota = kRemoveCpuQuota;
    plan.reasons.push_back(
        {"cpu-quota-removed", absl::StrCat("CPU quota ", *input.current.cpu_quota, "us per ",
                                           input.current.cpu_period.value_or(100000),
                                           "us removed: CPU is shared by weight, not capped")});
  }

  // The algorithm's proposal through the guard rails (shared with the simulator).
  GuardInput guard;
  guard.declared = {Millis(input.declared.cpu_shares), std::nullopt,
                    input.declared.memory_limit_bytes};
  guard.current = {Millis(input.current.cpu_shares), std::nullopt,
                   input.current.memory_limit_bytes};
  guard.proposed.cpu_request_millis = input.cpu_request_millis;
  guard.memory_in_use_bytes = input.memory_usage_bytes;
  guard.history = input.history;
  guard.allow_below_declared = input.allow_below_declared;
  guard.tuning = input.tuning;
  guard.running = input.running;
  guard.last_shrink = input.last_shrink;
  guard.now = input.now;
  const GuardResult guarded = SizeAtRuntime(guard, input.memory, input.guard);
  plan.last_shrink = guarded.last_shrink;
  std::string formula;
  if (input.memory.has_value()) {
    const MemoryStats& memory = *input.memory;
    formula = absl::StrCat("2 x max(7-day max ", Mem(memory.max_7d_bytes), ", memory at OOM ",
                           Mem(memory.oom_bytes),
                           ") = ", Mem(MemoryLimitBytes(memory, memory.peak_bytes)));
  }

  if (input.cpu_request_millis.has_value() && guarded.values.cpu_request_millis.has_value()) {
    plan.cpu_shares = SharesFor(*guarded.values.cpu_request_millis, input);
    plan.reasons.push_back(
        {"cpu-weight",
         absl::StrCat("CPU shares ", *plan.cpu_shares, " for a request of ",
                      FormatAmount(Resource::kCpu, *guarded.values.cpu_request_millis), " (sized ",
                      FormatAmount(Resource::kCpu, *input.cpu_request_millis), ")")});
  }
  if (input.memory.has_value()) {
    if (guarded.values.memory_limit_bytes.has_value()) {
      plan.memory_limit_bytes = *guarded.values.memory_limit_bytes;
      plan.reasons.push_back(
          {"memory-limit",
           absl::StrCat("memory limit ", Mem(*plan.memory_limit_bytes), " (", formula, ")")});
    } else {
      plan.reasons.push_back(
          {"memory-unlimited", "no declared memory limit: left unlimited while warming up"});
    }
  } else {
    plan.reasons.push_back(
        {"memory-no-history",
         input.current.memory_limit_bytes.has_value()
             ? absl::StrCat("no memory history: limit ", Mem(*input.current.memory_limit_bytes),
                            " kept")
             : std::string("no memory history and no declared limit: left unlimited")});
  }
  for (const Reason& reason : guarded.reasons) plan.reasons.push_back(reason);
  if (input.running) HoldSmallChanges(input, plan);

  const bool step_holds = input.step == AdoptionStep::kObserve ||
                          (input.running && input.step == AdoptionStep::kAdmission);
  if (!input.enforce || input.excluded || step_holds) {
    if (input.excluded) {
      plan.reasons.push_back({"excluded", "headroom is disabled for this container: nothing set"});
    } else if (!input.enforce) {
      plan.reasons.push_back({"recommend-only", "recommend-only (dry run): nothing set"});
    } else if (input.step == AdoptionStep::kObserve) {
      plan.reasons.push_back({"mode-observe", "mode observe: nothing set"});
    } else {
      plan.reasons.push_back(
          {"mode-admission", "mode admission: a running container is not changed"});
    }
    plan.cpu_quota.reset();
    plan.cpu_shares.reset();
    plan.memory_limit_bytes.reset();
    plan.last_shrink = input.last_shrink;
  }
  if (plan.memory_limit_bytes.has_value() && input.current.memory_high_bytes.has_value() &&
      plan.memory_limit_bytes != input.current.memory_limit_bytes) {
    plan.memory_high_bytes =
        MemoryHighFor(*input.current.memory_high_bytes,
                      input.current.memory_limit_bytes.value_or(0), *plan.memory_limit_bytes);
    plan.reasons.push_back(
        {"memory-high", absl::StrCat("memory.high ", Mem(*plan.memory_high_bytes),
                                     ": the kubelet's Memory QoS throttling point moves with the "
                                     "limit (it was ",
                                     Mem(*input.current.memory_high_bytes), ")")});
  }
  return plan;
}

int64_t MemoryHighFor(int64_t memory_high, int64_t old_limit, int64_t new_limit) {
  double high = 0;
  if (old_limit > 0) {
    high = static_cast<double>(memory_high) * (static_cast<double>(new_limit) / old_limit);
  } else {
    high = std::min(static_cast<double>(memory_high),
                    kKubeletMemoryThrottlingFactor * static_cast<double>(new_limit));
  }
  int64_t pages = static_cast<int64_t>(high / kMemoryPageBytes);
  const int64_t below_limit = (new_limit - 1) / kMemoryPageBytes;
  pages = std::clamp<int64_t>(pages, 1, std::max<int64_t>(1, below_limit));
  return pages * kMemoryPageBytes;
}

ResourceAmounts RuntimeRequests(const RuntimeResources& resources) {
  return {resources.cpu_shares.has_value() ? MillisForCpuShares(*resources.cpu_shares) : 0,
          resources.memory_limit_bytes.value_or(0)};
}

ResourcePlan WithoutNoOps(ResourcePlan plan, const RuntimeResources& current) {
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
  if (plan.memory_high_bytes.has_value() && current.memory_high_bytes == plan.memory_high_bytes) {
    plan.memory_high_bytes.reset();
  }
  return plan;
}

std::string DescribePlan(const RuntimeResources& before, const ResourcePlan& plan) {
  std::vector<std::string> parts;
  const auto value = [](const auto& optional, auto format) {
    return optional.has_value() ? format(*optional) : std::string("unset");
  };
  if (plan.cpu_quota.has_value()) {
    parts.push_back(absl::StrCat("cpu quota ",
                                 value(before.cpu_quota, [](int64_t q) { return absl::StrCat(q); }),
                                 " -> ", *plan.cpu_quota == kRemoveCpuQuota ? "none" : "set"));
  }
  if (plan.cpu_shares.has_value()) {
    parts.push_back(absl::StrCat(
        "cpu shares ", value(before.cpu_shares, [](uint64_t s) { return absl::StrCat(s); }), " -> ",
        *plan.cpu_shares));
  }
  if (plan.memory_high_bytes.has_value()) {
    parts.push_back(absl::StrCat("memory.high ", value(before.memory_high_bytes, Mem), " -> ",
                                 Mem(*plan.memory_high_bytes)));
  }
  if (plan.memory_limit_bytes.has_value()) {
    parts.push_back(absl::StrCat("memory limit ", value(before.memory_limit_bytes, Mem), " -> ",
                                 Mem(*plan.memory_limit_bytes)));
  }
  return parts.empty() ? std::string("no change") : absl::StrJoin(parts, ", ");
}

std::string PlanReasons(const ResourcePlan& plan) {
  std::vector<std::string> parts;
  parts.reserve(plan.reasons.size());
  for (const Reason& reason : plan.reasons) parts.push_back(reason.message);
  return absl::StrJoin(parts, "; ");
}

}  // namespace headroom::nri
