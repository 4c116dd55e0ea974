#include "kubelet-hook/nri_resources.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "shared/log_text.h"

namespace headroom::nri {

std::string DescribeContainerChange(const TrackedContainer& container,
                                    const RuntimeResources& before, const ResourcePlan& plan) {
  // The names come from pod specs: escaped, so a newline in one cannot forge a log line.
  return absl::StrCat(LogText(container.pod_namespace), "/", LogText(container.pod_name),
                      " container ", LogText(container.name), " (", LogText(container.stats_key),
                      "): ", DescribePlan(before, plan), "; ", PlanReasons(plan));
}

RuntimeResources ResourcesFrom(const napi::LinuxResources& resources) {
  RuntimeResources declared;
  if (resources.has_cpu()) {
    const napi::LinuxCPU& cpu = resources.cpu();
    if (cpu.has_shares()) declared.cpu_shares = cpu.shares().value();
    if (cpu.has_quota()) declared.cpu_quota = cpu.quota().value();
    if (cpu.has_period()) declared.cpu_period = cpu.period().value();
  }
  if (resources.has_memory() && resources.memory().has_limit() &&
      resources.memory().limit().value() > 0) {
    declared.memory_limit_bytes = resources.memory().limit().value();
  }
  for (const napi::StringEntry& entry : resources.unified()) {
    int64_t high = 0;
    // "max" (no throttling) and anything unreadable: none.
    if (entry.key() == kMemoryHighKey && absl::SimpleAtoi(entry.value(), &high) && high > 0) {
      declared.memory_high_bytes = high;
    }
  }
  return declared;
}

void ApplyPlan(const ResourcePlan& plan, napi::LinuxResources& resources) {
  if (plan.cpu_quota.has_value())
    resources.mutable_cpu()->mutable_quota()->set_value(*plan.cpu_quota);
  if (plan.cpu_shares.has_value()) {
    resources.mutable_cpu()->mutable_shares()->set_value(*plan.cpu_shares);
  }
  if (plan.memory_limit_bytes.has_value()) {
    resources.mutable_memory()->mutable_limit()->set_value(*plan.memory_limit_bytes);
  }
  if (plan.memory_high_bytes.has_value()) {
    napi::StringEntry* entry = nullptr;
    for (napi::StringEntry& existing : *resources.mutable_unified()) {
      if (existing.key() == kMemoryHighKey) entry = &existing;
    }
    if (entry == nullptr) entry = resources.add_unified();
    entry->set_key(std::string(kMemoryHighKey));
    entry->set_value(absl::StrCat(*plan.memory_high_bytes));
  }
}

RuntimeResources WithPlan(RuntimeResources declared, const ResourcePlan& plan) {
  if (plan.cpu_quota.has_value()) declared.cpu_quota = plan.cpu_quota;
  if (plan.cpu_shares.has_value()) declared.cpu_shares = plan.cpu_shares;
  if (plan.memory_limit_bytes.has_value()) declared.memory_limit_bytes = plan.memory_limit_bytes;
  if (plan.memory_high_bytes.has_value()) declared.memory_high_bytes = plan.memory_high_bytes;
  return declared;
}

RuntimeResources WithResources(RuntimeResources declared, const napi::LinuxResources& applied) {
  const RuntimeResources set = ResourcesFrom(applied);
  if (set.cpu_shares.has_value()) declared.cpu_shares = set.cpu_shares;
  if (set.cpu_quota.has_value()) declared.cpu_quota = set.cpu_quota;
  if (set.cpu_period.has_value()) declared.cpu_period = set.cpu_period;
  if (set.memory_limit_bytes.has_value()) declared.memory_limit_bytes = set.memory_limit_bytes;
  if (set.memory_high_bytes.has_value()) declared.memory_high_bytes = set.memory_high_bytes;
  return declared;
}

}  // namespace headroom::nri
