#include "shared/pod_level_resources.h"

namespace headroom {
namespace {

int64_t& Amount(ResourceAmounts& amounts, Resource resource) {
  return resource == Resource::kCpu ? amounts.cpu_millis : amounts.memory_bytes;
}

}  // namespace

ResourceAmounts EffectivePodRequests(const ResourceAmounts& containers,
                                     const PodLevelResources& pod) {
  ResourceAmounts effective = containers;
  for (const Resource resource : {Resource::kCpu, Resource::kMemory}) {
    if (pod.requests.Get(resource) > 0) Amount(effective, resource) = pod.requests.Get(resource);
  }
  return effective;
}

PodLevelResources WithDefaultedRequests(PodLevelResources pod, const ResourceAmounts& containers) {
  // Only a pod with some pod-level limit is defaulted.
  if (pod.limits.cpu_millis <= 0 && pod.limits.memory_bytes <= 0) return pod;
  for (const Resource resource : {Resource::kCpu, Resource::kMemory}) {
    int64_t& request = Amount(pod.requests, resource);
    if (request > 0) continue;
    request = containers.Get(resource) > 0 ? containers.Get(resource) : pod.limits.Get(resource);
  }
  return pod;
}

}  // namespace headroom
