#include "extender/kube/pod_level_sizing.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "shared/quantity.h"
#include "shared/wide_int.h"

namespace headroom::extender {
namespace {

// One resource's fields of a DeclaredResources.
struct Fields {
  std::optional<int64_t> DeclaredResources::*request;
  std::optional<int64_t> DeclaredResources::*limit;
  Resource resource;
};
constexpr Fields kCpu{&DeclaredResources::cpu_request_millis, &DeclaredResources::cpu_limit_millis,
                      Resource::kCpu};
constexpr Fields kMemory{&DeclaredResources::memory_request_bytes,
                         &DeclaredResources::memory_limit_bytes, Resource::kMemory};

int64_t Sum(const std::vector<DeclaredResources>& containers, const Fields& f) {
  int64_t sum = 0;
  for (const DeclaredResources& c : containers)
    sum = SaturatingAdd(sum, (c.*f.request).value_or(0));
  return sum;
}

void BoundResource(const Fields& f, const DeclaredResources& declared_pod,
                   const std::vector<DeclaredResources>& before,
                   std::vector<DeclaredResources>& after, bool allow_below_declared,
                   DeclaredResources& pod, std::vector<std::vector<Reason>>& container_reasons,
                   std::vector<Reason>& pod_reasons) {
  const std::optional<int64_t> limit = pod.*f.limit;
  if (limit.has_value()) {
    for (size_t i = 0; i < after.size(); ++i) {
      DeclaredResources& c = after[i];
      if ((c.*f.limit).has_value() && *(c.*f.limit) > *limit) {
        const Reason capped{
            "CappedAtPodLimit",
            absl::StrCat(c.name, ": ", ResourceName(f.resource), " limit ",
                         FormatAmount(f.resource, *(c.*f.limit)), " capped at the pod-level limit ",
                         FormatAmount(f.resource, *limit))};
        container_reasons[i].push_back(capped);
        pod_reasons.push_back(capped);
        c.*f.limit = limit;
      }
    }
  }
  const std::optional<int64_t> declared = declared_pod.*f.request;
  if (!declared.has_value()) return;  // the containers' requests are the pod's
  int64_t sum = Sum(after, f);
  if (limit.has_value() && sum > *limit) {
    const Reason bound{
        "PodLimitBound",
        absl::StrCat(ResourceName(f.resource), " requests kept as declared: sized, they sum to ",
                     FormatAmount(f.resource, sum), ", above the pod-level limit ",
                     FormatAmount(f.resource, *limit))};
    pod_reasons.push_back(bound);
    for (size_t i = 0; i < after.size(); ++i) {
      after[i].*f.request = before[i].*f.request;
      container_reasons[i].push_back(bound);
    }
    sum = Sum(after, f);
  }
  int64_t request = sum > 0 ? sum : *declared;  // nothing sized: as declared
  if (!allow_below_declared) request = std::max(request, *declared);
  if (limit.has_value()) request = std::min(request, *limit);
  pod.*f.request = request;
}

}  // namespace

DeclaredResources SizePodLevel(const DeclaredResources& declared_pod,
                               const std::vector<DeclaredResources>& before,
                               std::vector<DeclaredResources>& after, const PodLevelBounds& bounds,
                               std::vector<std::vector<Reason>>& container_reasons,
                               std::vector<Reason>& pod_reasons) {
  DeclaredResources pod = declared_pod;
  if (bounds.strip_cpu_limits) DropCpuLimit(pod);
  const DeclaredResources declared = pod;  // its requests are the floors
  for (const Fields& f : {kCpu, kMemory}) {
    BoundResource(f, declared, before, after, bounds.allow_below_declared, pod, container_reasons,
                  pod_reasons);
  }
  return pod;
}

}  // namespace headroom::extender
