#include "extender/scheduler/judge.h"

#include <algorithm>
#include <optional>

#include "extender/kube/pod_footprint.h"
#include "shared/footprint.h"

namespace headroom::extender {

namespace {

std::vector<absl::string_view> Names(const ExtenderArgs& args) {
  std::vector<absl::string_view> names;
  names.reserve(args.nodes.size());
  for (const NodeSpec& node : args.nodes) names.push_back(node.name);
  return names;
}

}  // namespace

FilterOutcome FilterNodes(const ExtenderArgs& args, ClusterView& view, absl::Time now) {
  FilterOutcome outcome;
  const PodFootprint candidate = CandidateFootprint(args.pod, view);
  outcome.result.passed.reserve(args.nodes.size());
  view.VisitNodes(Names(args), now, [&](size_t i, const NodeFootprint* known) {
    const std::string& name = args.nodes[i].name;
    if (known == nullptr) {
      ++outcome.unknown_nodes;
      outcome.result.passed.push_back(name);
      return;
    }
    if (FitsProjected(*known, candidate)) {
      outcome.result.passed.push_back(name);
      return;
    }
    FitDecision fit = ProjectedFit(*known, candidate);  // to explain the rejection
    outcome.result.failed[name] = std::move(fit.reason.message);
    outcome.rejection_codes.push_back(std::move(fit.reason.code));
  });
  return outcome;
}

std::vector<HostPriority> PrioritizeNodes(const ExtenderArgs& args, ClusterView& view,
                                          absl::Time now, const ScoringConfig& scoring) {
  const PodFootprint candidate = CandidateFootprint(args.pod, view);
  std::vector<HostPriority> out;
  out.reserve(args.nodes.size());
  view.VisitNodes(Names(args), now, [&](size_t i, const NodeFootprint* known) {
    out.push_back({args.nodes[i].name,
                   known != nullptr ? ScoreNode(*known, candidate, scoring) : kUnknownNodeScore});
  });
  return out;
}

}  // namespace headroom::extender
