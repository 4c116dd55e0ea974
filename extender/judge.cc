#include "extender/judge.h"

#include <algorithm>
#include <optional>

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
  return PodFootprintOf(containers, view.min_history());
}

namespace {

std::vector<std::optional<NodeFootprint>> Lookup(const ExtenderArgs& args, ClusterView& view,
                                                 absl::Time now) {
  std::vector<absl::string_view> names;
  names.reserve(args.nodes.size());
  for (const NodeSpec& node : args.nodes) names.push_back(node.name);
  return view.Nodes(names, now);
}

}  // namespace

FilterOutcome FilterNodes(const ExtenderArgs& args, ClusterView& view, absl::Time now) {
  FilterOutcome outcome;
  const PodFootprint candidate = CandidateFootprint(args.pod, view);
  const std::vector<std::optional<NodeFootprint>> nodes = Lookup(args, view, now);
  outcome.result.passed.reserve(args.nodes.size());
  for (size_t i = 0; i < args.nodes.size(); ++i) {
    const NodeSpec& node = args.nodes[i];
    const std::optional<NodeFootprint>& known = nodes[i];
    if (!known.has_value()) {
      ++outcome.unknown_nodes;
      outcome.result.passed.push_back(node.name);
      continue;
    }
    const FitDecision fit = ProjectedFit(*known, candidate);
    if (fit.fits) {
      outcome.result.passed.push_back(node.name);
    } else {
      outcome.result.failed[node.name] = fit.reason.message;
      outcome.rejection_codes.push_back(fit.reason.code);
    }
  }
  return outcome;
}

std::vector<HostPriority> PrioritizeNodes(const ExtenderArgs& args, ClusterView& view,
                                          absl::Time now, const ScoringConfig& scoring) {
  const PodFootprint candidate = CandidateFootprint(args.pod, view);
  const std::vector<std::optional<NodeFootprint>> nodes = Lookup(args, view, now);
  std::vector<HostPriority> out;
  out.reserve(args.nodes.size());
  for (size_t i = 0; i < args.nodes.size(); ++i) {
    out.push_back({args.nodes[i].name, nodes[i].has_value()
                                           ? ScoreNode(*nodes[i], candidate, scoring)
                                           : kUnknownNodeScore});
  }
  return out;
}

}  // namespace headroom::extender
