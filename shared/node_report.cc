#include "shared/node_report.h"

#include <algorithm>

namespace headroom {

PodFootprint FootprintOf(const ReportedPod& pod, absl::Duration min_history) {
  PodFootprint footprint = PodFootprintOf(pod.containers, min_history);
  bool warm = !pod.containers.empty();
  for (const ContainerDemand& c : pod.containers) warm = warm && HasTrustedHistory(c, min_history);
  if (!warm) {
    // Reports that give the declared amounts only per pod are judged at them as before.
    footprint.base.cpu_millis = std::max(footprint.base.cpu_millis, pod.requests.cpu_millis);
    footprint.base.memory_bytes = std::max(footprint.base.memory_bytes, pod.requests.memory_bytes);
  }
  return footprint;
}

}  // namespace headroom
