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

NodeFootprint NodeFootprintOf(const NodeReport& report, absl::Duration min_history) {
  NodeFootprint footprint;
  footprint.name = report.node;
  footprint.allocatable = report.allocatable;
  footprint.max_pods = report.max_pods;
  for (const ReportedPod& pod : report.pods) {
    const PodFootprint one = FootprintOf(pod, min_history);
    if (report.shared_headroom.has_value() && pod.in_shared_headroom) {
      footprint.AddBase(one);
    } else {
      footprint.Add(one);
    }
  }
  if (report.shared_headroom.has_value()) footprint.ShareHeadroom(*report.shared_headroom);
  return footprint;
}

}  // namespace headroom
