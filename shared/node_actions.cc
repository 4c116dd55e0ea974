#include "shared/node_actions.h"

#include <cmath>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "shared/quantity.h"
#include "shared/sizing.h"
#include "shared/status_macros.h"

namespace headroom {
namespace {

std::string Amount(const std::optional<int64_t>& value, bool cpu) {
  if (!value) return "none";
  return cpu ? FormatCpuMillis(*value) : FormatMemoryBytes(*value);
}

// What the guard rails are asked for one container of a pod being resized.
struct ProposedContainer {
  size_t container = 0;
  SizedValues values;
};

// The memory facts the guard rails read from a container's statistics: its 7-day max, and the
// memory at its last OOM kill and during its largest recent sustained stall.
void TakeMemoryEvidence(const MemoryStats& memory, GuardInput& input) {
  input.max_memory_bytes = memory.max_7d_bytes;
  input.oom_memory_bytes = memory.oom_bytes;
  input.pressure_memory_bytes = memory.pressure_bytes;
}

// Outside its disruption window a pod only grows: every value the guard rails would take below
// `current` stays at `current`, and its shrink step stays unspent.
void KeepShrinksBack(const SizedValues& current, const ShrinkTimes& last_shrink,
                     GuardResult& guarded) {
  const auto hold = [](const std::optional<int64_t>& now, std::optional<int64_t>& will,
                       const std::optional<absl::Time>& was_shrunk,
                       std::optional<absl::Time>& shrunk) {
    if (now.has_value() && will.has_value() && *will < *now) {
      will = now;
      shrunk = was_shrunk;
    }
  };
  SizedValues& values = guarded.values;
  ShrinkTimes& shrunk = guarded.last_shrink;
  hold(current.cpu_request_millis, values.cpu_request_millis, last_shrink.cpu_request,
       shrunk.cpu_request);
  hold(current.memory_request_bytes, values.memory_request_bytes, last_shrink.memory_request,
       shrunk.memory_request);
  hold(current.memory_limit_bytes, values.memory_limit_bytes, last_shrink.memory_limit,
       shrunk.memory_limit);
}

// Whether any container of the pod has had an OOM kill or a sustained memory stall recorded.
bool HasMemoryEvidence(const PodState& pod) {
  for (const ContainerDemand& demand : pod.demand.containers) {
    if (demand.memory.has_value() &&
        (demand.memory->oom_bytes > 0 || demand.memory->pressure_bytes > 0)) {
      return true;
    }
  }
  return false;
}

}  // namespace

bool ResizeWorthMaking(const SizedValues& before, const SizedValues& after,
                       const ResizeThreshold& threshold) {
  if (before.memory_limit_bytes && after.memory_limit_bytes &&
      *after.memory_limit_bytes > *before.memory_limit_bytes) {
    return true;
  }
  const double fraction = threshold.fraction;
  return MovedEnough(before.cpu_request_millis, after.cpu_request_millis, fraction,
                     threshold.cpu_millis) ||
         MovedEnough(before.memory_request_bytes, after.memory_request_bytes, fraction,
                     threshold.memory_bytes) ||
         MovedEnough(before.memory_limit_bytes, after.memory_limit_bytes, fraction,
                     threshold.memory_bytes);
}

absl::Status ActionConfig::Validate() const {
  HEADROOM_RETURN_IF_ERROR(guard.Validate());
  if (cpu_eviction_after < absl::ZeroDuration()) {
    return absl::InvalidArgumentError("the CPU eviction delay must not be negative");
  }
  return absl::OkStatus();
}

bool MovedEnough(const std::optional<int64_t>& before, const std::optional<int64_t>& after,
                 double fraction, int64_t at_least) {
  if (before == after) return false;
  if (!before || !after || *before == 0) return true;
  const double moved = std::fabs(static_cast<double>(*after) - static_cast<double>(*before));
  return moved >= fraction * static_cast<double>(*before) && moved >= static_cast<double>(at_least);
}

std::string DescribeChange(const SizedValues& before, const SizedValues& after) {
  return absl::StrCat("cpu request ", Amount(before.cpu_request_millis, true), " -> ",
                      Amount(after.cpu_request_millis, true), ", memory request ",
                      Amount(before.memory_request_bytes, false), " -> ",
                      Amount(after.memory_request_bytes, false), ", memory limit ",
                      Amount(before.memory_limit_bytes, false), " -> ",
                      Amount(after.memory_limit_bytes, false));
}

absl::StatusOr<NodeActions> PlanNodeActions(const std::string& node_name,
                                            ResourceAmounts allocatable,
                                            const std::vector<PodState>& pods, absl::Time now,
                                            const ActionConfig& config,
                                            SustainedConditions& cpu_over,
                                            std::optional<ResourceAmounts> shared_headroom) {
  NodeDemand node{node_name, allocatable, {}, shared_headroom};
  node.pods.reserve(pods.size());
  std::vector<size_t> index_of;  // node.pods[i] is pods[index_of[i]]
  NodeActions actions;
  for (size_t i = 0; i < pods.size(); ++i) {
    const PodState& pod = pods[i];
    if (pod.containers.size() != pod.demand.containers.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pod ", pod.demand.Key(), ": ", pod.containers.size(),
                       " container states for ", pod.demand.containers.size(), " containers"));
    }
    if (pod.disruption.terminating) {
      actions.skipped.push_back({i, "resize", "terminating"});
      continue;
    }
    node.pods.push_back(pod.demand);
    node.pods.back().protected_from_eviction = !EvictionBlockedBy(pod.disruption).empty();
    index_of.push_back(i);
  }
  OptimizeOptions options;
  options.min_history = config.guard.min_history;
  HEADROOM_ASSIGN_OR_RETURN(NodeOptimization optimization, OptimizeNode(node, options));
  // CPU is compressible: evict for it only once the bases alone have stayed over for long.
  if (cpu_over.Observe(node_name, !optimization.cpu.bases_fit, now)) {
    options.evict_for_cpu = true;
    HEADROOM_ASSIGN_OR_RETURN(optimization, OptimizeNode(node, options));
  }

  std::map<size_t, std::vector<ProposedContainer>> sized;  // by pod, in pod order
  absl::flat_hash_set<size_t> on_evidence;  // warming up, resized only to memory evidence
  for (const ContainerResult& result : optimization.containers) {
    sized[index_of[result.pod]].push_back(
        {result.container,
         {result.sizing.cpu_request_millis, result.sizing.memory_request_bytes,
          result.sizing.memory_limit_bytes}});
  }
  for (const SkippedPod& skipped : optimization.skipped) {
    // Not sized (warming up, not optimised): say why, the caller's reason first. A pod
    // warming up still grows to the evidence of an OOM kill or a memory stall: its values as
    // they are, through the guard rails, which only raise them while it warms up.
    const size_t index = index_of[skipped.pod];
    const PodState& pod = pods[index];
    if (skipped.reason.code == "NoHistory" && pod.resize_blocked_by.empty() &&
        HasMemoryEvidence(pod)) {
      for (size_t c = 0; c < pod.containers.size(); ++c) {
        sized[index].push_back({c, pod.containers[c].current});
      }
      on_evidence.insert(index);
      continue;
    }
    const std::string& blocked = pod.resize_blocked_by;
    actions.skipped.push_back(
        {index, "resize", blocked.empty() ? skipped.reason.message : blocked});
  }
  for (const auto& [index, proposals] : sized) {
    const PodState& pod = pods[index];
    if (!pod.resize_blocked_by.empty()) {
      actions.skipped.push_back({index, "resize", pod.resize_blocked_by});
      continue;
    }
    PlannedPodResize resize{index, {}, ""};
    std::vector<std::string> notes;
    for (const ProposedContainer& proposal : proposals) {
      const ContainerState& state = pod.containers[proposal.container];
      const ContainerDemand& demand = pod.demand.containers[proposal.container];
      GuardInput input;
      input.declared = state.declared;
      input.current = state.current;
      input.proposed = proposal.values;
      if (!state.manage_memory_limit) input.proposed.memory_limit_bytes.reset();
      input.history = demand.history;
      if (demand.memory.has_value()) TakeMemoryEvidence(*demand.memory, input);
      input.memory_in_use_bytes = state.memory_in_use_bytes;
      input.allow_below_declared = pod.allow_below_declared;
      input.tuning = pod.tuning;
      input.running = true;
      input.last_shrink = state.last_shrink;
      input.now = now;
      GuardResult guarded = ApplyGuardRails(input, config.guard);
      if (!pod.shrink_blocked_by.empty())
        KeepShrinksBack(state.current, state.last_shrink, guarded);
      if (!ResizeWorthMaking(state.current, guarded.values, config.guard.resize_threshold))
        continue;
      std::string note =
          absl::StrCat(demand.name, ": ", DescribeChange(state.current, guarded.values));
      for (const Reason& reason : guarded.reasons)
        absl::StrAppend(&note, " [", reason.message, "]");
      notes.push_back(std::move(note));
      resize.containers.push_back({proposal.container, state.current, guarded.values,
                                   guarded.last_shrink, std::move(guarded.reasons)});
    }
    if (resize.containers.empty() && !pod.shrink_blocked_by.empty()) {
      actions.skipped.push_back(
          {index, "resize", absl::StrCat("no shrink: ", pod.shrink_blocked_by)});
      continue;
    }
    if (resize.containers.empty()) {
      actions.skipped.push_back(
          {index, "resize",
           absl::StrCat("every value within ", DescribeThreshold(config.guard.resize_threshold),
                        " of its guarded target")});
      continue;
    }
    resize.message =
        absl::StrCat(on_evidence.contains(index) ? "memory evidence while warming up on "
                                                 : "base + shared headroom on ",
                     node_name, ": ", absl::StrJoin(notes, "; "));
    actions.resizes.push_back(std::move(resize));
  }
  // Replicas of a workload this plan already gives up: the next one is judged without them.
  absl::flat_hash_map<std::string, std::pair<int, int>> given_up;  // workload -> (pods, ready)
  for (const PodEviction& eviction : optimization.evictions) {
    const size_t index = index_of[eviction.pod];
    DisruptionFacts facts = pods[index].disruption;
    std::pair<int, int>* taken = nullptr;
    if (!facts.workload.empty()) {
      taken = &given_up[facts.workload];
      facts.workload_pods -= taken->first;
      facts.workload_ready -= taken->second;
    }
    if (std::string why = EvictionBlockedBy(facts); !why.empty()) {
      actions.skipped.push_back({index, "evict", why});
      continue;
    }
    if (taken != nullptr) {
      ++taken->first;
      if (facts.ready) ++taken->second;
    }
    actions.evictions.push_back({index, eviction.reason});
  }
  actions.optimization = std::move(optimization);
  return actions;
}

GuardResult SizeAtRuntime(GuardInput input, const std::optional<MemoryStats>& memory,
                          const GuardRailConfig& config) {
  input.proposed.memory_request_bytes.reset();  // the runtime has no memory request
  input.proposed.memory_limit_bytes.reset();
  if (memory.has_value()) {
    input.proposed.memory_limit_bytes = MemoryLimitBytes(*memory, memory->peak_bytes);
    TakeMemoryEvidence(*memory, input);
  }
  return ApplyGuardRails(input, config);
}

GuardResult SizeNewContainer(const UsageSnapshot& stats, const SizedValues& declared,
                             bool allow_below_declared, const WorkloadTuning& tuning,
                             const GuardRailConfig& config) {
  GuardInput input;
  input.declared = declared;
  input.current = declared;
  input.proposed = declared;
  input.history = stats.history;
  input.allow_below_declared = allow_below_declared;
  input.tuning = tuning;
  input.running = false;
  if (stats.memory.has_value()) TakeMemoryEvidence(*stats.memory, input);
  if (stats.cpu.has_value() && stats.memory.has_value()) {
    const ContainerSizing sizing = SizeForAdmission(*stats.cpu, *stats.memory);
    input.proposed = {sizing.cpu_request_millis, sizing.memory_request_bytes,
                      sizing.memory_limit_bytes};
  }
  return ApplyGuardRails(input, config);
}

}  // namespace headroom
