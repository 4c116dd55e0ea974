#include "extender/kube/pod_footprint.h"

#include <optional>
#include <utility>
#include <vector>

#include "shared/footprint.h"

namespace headroom::extender {

PodFootprint CandidateFootprint(const PodSpec& pod, const ClusterView& view) {
  std::vector<ContainerDemand> containers;
  containers.reserve(pod.containers.size());
  for (const ContainerSpec& c : pod.containers) {
    ContainerDemand demand;
    demand.name = c.name;
    if (const std::optional<ClusterView::ContainerStats> stats =
            view.WorkloadContainer(pod.workload_key, c.name)) {
      demand.cpu = stats->cpu;
      demand.memory = stats->memory;
      demand.history = stats->history;
    }
    demand.declared_requests = c.requests;
    demand.declared_limits = c.limits;
    containers.push_back(std::move(demand));
  }
  return PodFootprintOf(containers, view.min_history(), pod.pod_level);
}

}  // namespace headroom::extender
