#include "extender/judge.h"

#include <algorithm>
#include <optional>

namespace headroom::extender {

PodFootprint CandidateFootprint(const PodSpec& pod, const ClusterView& view) {
  PodFootprint footprint;
  for (const ContainerSpec& c : pod.containers) {
    const std::optional<ClusterView::ContainerStats> stats =
        view.WorkloadContainer(pod.workload_key, c.name);
    int64_t cpu_base = c.requests.cpu_millis;
    int64_t cpu_peak = std::max(c.limits.cpu_millis, c.requests.cpu_millis);
    int64_t memory_base = c.requests.memory_bytes;
    int64_t memory_peak = std::max(c.limits.memory_bytes, c.requests.memory_bytes);
    if (stats.has_value() && stats->cpu.has_value()) {
      cpu_base = stats->cpu->base_millis;
      cpu_peak = stats->cpu->peak_millis;
    }
    if (stats.has_value() && stats->memory.has_value()) {
      memory_base = stats->memory->base_bytes;
      memory_peak = stats->memory->peak_bytes;
    }
    footprint.base.cpu_millis += cpu_base;
    footprint.base.memory_bytes += memory_base;
    footprint.headroom.cpu_millis = std::max(footprint.headroom.cpu_millis, cpu_peak - cpu_base);
    footprint.headroom.memory_bytes =
        std::max(footprint.headroom.memory_bytes, memory_peak - memory_base);
  }
  return footprint;
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
