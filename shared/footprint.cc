#include "shared/footprint.h"

#include <algorithm>

#include "shared/wide_int.h"

namespace headroom {

// The daily base when known; a short-window base above it is a spike, headroom's to share.
int64_t PlanningBase(const CpuStats& cpu) {
  return cpu.daily_base_millis > 0 ? cpu.daily_base_millis : cpu.base_millis;
}
int64_t PlanningBase(const MemoryStats& memory) {
  return memory.daily_base_bytes > 0 ? memory.daily_base_bytes : memory.base_bytes;
}
int64_t PlanningPeak(const CpuStats& cpu) {
  return std::max({cpu.peak_millis, cpu.daily_peak_millis, PlanningBase(cpu)});
}
int64_t PlanningPeak(const MemoryStats& memory) {
  return std::max({memory.peak_bytes, memory.daily_peak_bytes, PlanningBase(memory)});
}

int64_t PlanningSpike(const CpuStats& cpu) {
  return std::max(cpu.spike_millis > 0 ? cpu.spike_millis : PlanningPeak(cpu), PlanningBase(cpu));
}
int64_t PlanningSpike(const MemoryStats& memory) {
  return std::max(memory.spike_bytes > 0 ? memory.spike_bytes : PlanningPeak(memory),
                  PlanningBase(memory));
}

bool HasTrustedHistory(const ContainerDemand& container, absl::Duration min_history) {
  return container.cpu.has_value() && container.memory.has_value() &&
         container.history >= min_history;
}

ResourceFootprint ContainerFootprint(const ContainerDemand& container, Resource resource,
                                     absl::Duration min_history) {
  const bool cpu = resource == Resource::kCpu;
  std::optional<ResourceFootprint> observed;
  if (cpu && container.cpu.has_value()) {
    const int64_t base = PlanningBase(*container.cpu);
    observed = ResourceFootprint{base, PlanningSpike(*container.cpu) - base};
  } else if (!cpu && container.memory.has_value()) {
    const int64_t base = PlanningBase(*container.memory);
    observed = ResourceFootprint{base, PlanningSpike(*container.memory) - base};
  }
  if (observed.has_value() && HasTrustedHistory(container, min_history)) return *observed;
  const int64_t request = std::max<int64_t>(0, container.declared_requests.Get(resource));
  const int64_t limit = container.declared_limits.Get(resource);
  ResourceFootprint declared{request, limit > request ? limit - request : 0};
  if (!observed.has_value()) return declared;
  // Still warming up: never judged below what it declares, but usage seen above that counts.
  const int64_t base = std::max(declared.base, observed->base);
  const int64_t peak = std::max(SaturatingAdd(declared.base, declared.headroom),
                                SaturatingAdd(observed->base, observed->headroom));
  return {base, std::max<int64_t>(0, peak - base)};
}

PodFootprint PodFootprintOf(const std::vector<ContainerDemand>& containers,
                            absl::Duration min_history, const PodLevelResources& pod_level) {
  PodFootprint pod;
  bool all_trusted = true;
  for (const ContainerDemand& container : containers) {
    const ResourceFootprint cpu = ContainerFootprint(container, Resource::kCpu, min_history);
    const ResourceFootprint memory = ContainerFootprint(container, Resource::kMemory, min_history);
    pod.base.cpu_millis = SaturatingAdd(pod.base.cpu_millis, cpu.base);
    pod.base.memory_bytes = SaturatingAdd(pod.base.memory_bytes, memory.base);
    pod.headroom = CombineHeadroom(pod.headroom, {cpu.headroom, memory.headroom});
    all_trusted = all_trusted && HasTrustedHistory(container, min_history);
  }
  if (all_trusted && !containers.empty()) return pod;
  const auto floor = [&](int64_t& base, int64_t& headroom, Resource resource) {
    const int64_t request = pod_level.requests.Get(resource);
    const int64_t limit = pod_level.limits.Get(resource);
    // The API defaults a pod-level request to the limit when nothing else declares one.
    const int64_t declared_base = request > 0 ? request : (base > 0 ? 0 : limit);
    base = std::max(base, declared_base);
    if (limit > base) headroom = std::max(headroom, limit - base);
  };
  floor(pod.base.cpu_millis, pod.headroom.cpu_millis, Resource::kCpu);
  floor(pod.base.memory_bytes, pod.headroom.memory_bytes, Resource::kMemory);
  return pod;
}

}  // namespace headroom
