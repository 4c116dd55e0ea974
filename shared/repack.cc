#include "shared/repack.h"

#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "shared/repack_bound.h"
#include "shared/repack_model.h"
#include "shared/repack_search.h"

namespace headroom {
namespace {

using repack_internal::Assignment;
using repack_internal::Evaluate;
using repack_internal::Floor;
using repack_internal::ImproveByNeighbourhoods;
using repack_internal::Item;
using repack_internal::kDims;
using repack_internal::Problem;
using repack_internal::RepackSubset;
using repack_internal::RequiredGroup;
using repack_internal::SearchBudget;
using repack_internal::SearchOutcome;
using repack_internal::Size;
using repack_internal::Value;

// Search-tree nodes the first exact attempt of a phase may use before the neighbourhood
// search takes over; small instances are proven within it.
constexpr int64_t kFirstExactNodes = 200000;

// Distinct priorities, highest first.
std::vector<int32_t> TierPriorities(const RepackInstance& instance) {
  std::vector<int32_t> priorities;
  for (const RepackPod& pod : instance.pods) priorities.push_back(pod.priority);
  std::sort(priorities.begin(), priorities.end(), std::greater<int32_t>());
  priorities.erase(std::unique(priorities.begin(), priorities.end()), priorities.end());
  return priorities;
}

Problem BuildProblem(const RepackInstance& instance, const std::vector<int32_t>& priorities) {
  Problem problem;
  for (const RepackNode& node : instance.nodes) {
    problem.capacity.push_back({node.cpu_milli, node.memory_bytes});
  }
  for (const RepackPod& pod : instance.pods) {
    Item item;
    item.size = {pod.cpu_milli, pod.memory_bytes};
    item.tier = static_cast<int>(std::find(priorities.begin(), priorities.end(), pod.priority) -
                                 priorities.begin());
    item.home = pod.current_node;
    problem.items.push_back(item);
  }
  const size_t n = problem.items.size();
  problem.objective.on_home.assign(n, 0);
  problem.objective.elsewhere.assign(n, 0);
  return problem;
}

bool FitsSomeNode(const Problem& problem, int item) {
  for (const Size& cap : problem.capacity) {
    bool fits = true;
    for (int d = 0; d < kDims; ++d) fits = fits && problem.items[item].size[d] <= cap[d];
    if (fits) return true;
  }
  return false;
}

// Places the items of `tier`: running ones on their node when it has room, then the rest
// largest first on the node it fills most (best fit).
void AddTier(const Problem& problem, int tier, Assignment& assignment) {
  std::vector<int> rest;
  for (size_t i = 0; i < problem.items.size(); ++i) {
    const Item& item = problem.items[i];
    if (item.tier != tier) continue;
    if (item.home >= 0 && assignment.Fits(problem, static_cast<int>(i), item.home)) {
      assignment.Place(problem, static_cast<int>(i), item.home);
    } else {
      rest.push_back(static_cast<int>(i));
    }
  }
  auto volume = [&](int i) {
    double v = 0;
    for (int d = 0; d < kDims; ++d) {
      v += static_cast<double>(problem.items[i].size[d]) /
           std::max<int64_t>(1, problem.capacity.empty() ? 1 : problem.capacity[0][d]);
    }
    return v;
  };
  std::stable_sort(rest.begin(), rest.end(), [&](int a, int b) { return volume(a) > volume(b); });
  for (int i : rest) {
    int best = -1;
    double best_fullness = -1;
    for (size_t node = 0; node < problem.capacity.size(); ++node) {
      if (!assignment.Fits(problem, i, static_cast<int>(node))) continue;
      const double fullness =
          repack_internal::FullnessAfter(problem, assignment, i, static_cast<int>(node));
      if (fullness > best_fullness) {
        best_fullness = fullness;
        best = static_cast<int>(node);
      }
    }
    if (best >= 0) assignment.Place(problem, i, best);
  }
}

Value CountOfTier(const Problem& problem, int tier) {
  Value value;
  for (const Item& item : problem.items) {
    const int w = item.tier == tier ? 1 : 0;
    value.on_home.push_back(w);
    value.elsewhere.push_back(w);
  }
  return value;
}

// 2 for a running item of `tier` or above left on its node, 1 for one moved.
Value KeepUpToTier(const Problem& problem, int tier) {
  Value value;
  for (const Item& item : problem.items) {
    const bool counted = item.tier <= tier && item.home >= 0;
    value.on_home.push_back(counted ? 2 : 0);
    value.elsewhere.push_back(counted ? 1 : 0);
  }
  return value;
}

int64_t BestPossible(const Problem& problem, const Value& value) {
  int64_t total = 0;
  for (int item : problem.active) {
    total += std::max(value.on_home[item], value.elsewhere[item]);
  }
  return total;
}

// Improves `assignment` for problem.objective until `deadline`; true when the result is proven
// optimal (it reaches `bound`, or an exact search finished).
bool SolvePhase(const Problem& problem, int64_t bound, absl::Time deadline, RepackClock& clock,
                std::mt19937_64& rng, Assignment& assignment) {
  int64_t current = Evaluate(problem, problem.objective, assignment);
  if (current >= bound) return true;
  const absl::Time start = clock.Now();
  const absl::Duration span = std::max(absl::ZeroDuration(), deadline - start);
  std::vector<int> all_nodes(problem.capacity.size());
  std::iota(all_nodes.begin(), all_nodes.end(), 0);

  SearchBudget first{&clock, start + span * 0.3, kFirstExactNodes};
  SearchOutcome exact =
      RepackSubset(problem, all_nodes, problem.active, current + 1, first, nullptr, assignment);
  if (exact.complete) return true;
  current = Evaluate(problem, problem.objective, assignment);
  if (current >= bound) return true;

  SearchBudget neighbourhoods{&clock, start + span * 0.7, 0};
  ImproveByNeighbourhoods(problem, neighbourhoods, bound, rng, assignment);
  current = Evaluate(problem, problem.objective, assignment);
  if (current >= bound) return true;

  SearchBudget last{&clock, deadline, 0};
  exact = RepackSubset(problem, all_nodes, problem.active, current + 1, last, nullptr, assignment);
  return exact.complete;
}

// (count of tier 0, keep of tiers <= 0, count of tier 1, keep of tiers <= 1, ...): the order in
// which the solver optimises, to compare a plan with leaving things as they are.
std::vector<int64_t> Lexicographic(const Problem& all, const Assignment& assignment, int tiers) {
  std::vector<int64_t> key;
  for (int t = 0; t < tiers; ++t) {
    key.push_back(Evaluate(all, CountOfTier(all, t), assignment));
    key.push_back(Evaluate(all, KeepUpToTier(all, t), assignment));
  }
  return key;
}

}  // namespace

namespace {

// `name` of list[i] is present and not seen before in the list.
absl::Status CheckName(absl::string_view list, size_t i, const std::string& name,
                       absl::flat_hash_set<std::string>& seen) {
  if (name.empty()) return absl::InvalidArgumentError(absl::StrCat(list, "[", i, "]: no name"));
  if (!seen.insert(name).second) {
    return absl::InvalidArgumentError(
        absl::StrCat(list, "[", i, "]: duplicate name \"", name, "\""));
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateRepackInstance(const RepackInstance& instance) {
  if (instance.nodes.empty()) return absl::InvalidArgumentError("repack: no nodes");
  absl::flat_hash_set<std::string> names;
  for (size_t i = 0; i < instance.nodes.size(); ++i) {
    const RepackNode& node = instance.nodes[i];
    if (absl::Status status = CheckName("nodes", i, node.name, names); !status.ok()) {
      return status;
    }
    if (node.cpu_milli < 0 || node.memory_bytes < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodes[", i, "] (", node.name, "): negative allocatable"));
    }
  }
  names.clear();
  for (size_t i = 0; i < instance.pods.size(); ++i) {
    const RepackPod& pod = instance.pods[i];
    if (absl::Status status = CheckName("pods", i, pod.name, names); !status.ok()) return status;
    if (pod.cpu_milli < 0 || pod.memory_bytes < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("pods[", i, "] (", pod.name, "): negative request"));
    }
    if (pod.current_node < -1 || pod.current_node >= static_cast<int>(instance.nodes.size())) {
      return absl::InvalidArgumentError(absl::StrCat("pods[", i, "] (", pod.name, "): node index ",
                                                     pod.current_node, " out of range"));
    }
  }
  return absl::OkStatus();
}

bool RepackAssignmentFits(const RepackInstance& instance, const std::vector<int>& assignment) {
  if (assignment.size() != instance.pods.size()) return false;
  std::vector<Size> load(instance.nodes.size(), Size{});
  for (size_t i = 0; i < assignment.size(); ++i) {
    const int node = assignment[i];
    if (node < -1 || node >= static_cast<int>(instance.nodes.size())) return false;
    if (node < 0) continue;
    load[node][0] += instance.pods[i].cpu_milli;
    load[node][1] += instance.pods[i].memory_bytes;
  }
  for (size_t n = 0; n < instance.nodes.size(); ++n) {
    if (load[n][0] > instance.nodes[n].cpu_milli) return false;
    if (load[n][1] > instance.nodes[n].memory_bytes) return false;
  }
  return true;
}

std::vector<RepackChange> RepackChanges(const RepackInstance& instance, const RepackPlan& plan) {
  std::vector<RepackChange> changes;
  for (size_t i = 0; i < instance.pods.size() && i < plan.assignment.size(); ++i) {
    const int from = instance.pods[i].current_node;
    const int to = plan.assignment[i];
    if (from == to) continue;
    RepackChange change{RepackChange::Kind::kMove, static_cast<int>(i), from, to};
    if (from < 0) change.kind = RepackChange::Kind::kPlace;
    if (to < 0) change.kind = RepackChange::Kind::kEvict;
    changes.push_back(change);
  }
  return changes;
}

absl::StatusOr<RepackPlan> SolveRepack(const RepackInstance& instance, const RepackOptions& options,
                                       RepackClock& clock) {
  if (absl::Status status = ValidateRepackInstance(instance); !status.ok()) return status;
  const absl::Time start = clock.Now();
  const absl::Time deadline = start + std::max(absl::ZeroDuration(), options.timeout);
  const std::vector<int32_t> priorities = TierPriorities(instance);
  const int tiers = static_cast<int>(priorities.size());
  Problem problem = BuildProblem(instance, priorities);
  std::mt19937_64 rng(options.seed);

  Size pool{};
  for (const Size& cap : problem.capacity) {
    for (int d = 0; d < kDims; ++d) pool[d] += cap[d];
  }

  Assignment assignment;
  assignment.node_of.assign(problem.items.size(), -1);
  assignment.load.assign(problem.capacity.size(), Size{});

  RepackPlan plan;
  std::vector<int64_t> placed_of_tier;
  for (int t = 0; t < tiers; ++t) {
    const absl::Time tier_start = clock.Now();
    const absl::Duration tier_share =
        std::max(absl::ZeroDuration(), deadline - tier_start) / (tiers - t);
    RepackTierResult result;
    result.priority = priorities[t];

    std::vector<Size> candidates;
    for (size_t i = 0; i < problem.items.size(); ++i) {
      if (problem.items[i].tier != t) continue;
      problem.active.push_back(static_cast<int>(i));
      if (FitsSomeNode(problem, static_cast<int>(i))) candidates.push_back(problem.items[i].size);
    }
    AddTier(problem, t, assignment);

    // Phase 1: place the most pods of this tier.
    std::vector<RequiredGroup> required(t);
    for (int item : problem.active) {
      const int s = problem.items[item].tier;
      if (s < t) required[s].items.push_back(problem.items[item].size);
    }
    for (int s = 0; s < t; ++s) required[s].count = static_cast<int>(placed_of_tier[s]);
    problem.objective = CountOfTier(problem, t);
    const int bound = std::min<int>(
        static_cast<int>(candidates.size()),
        std::max(0, repack_internal::SurrogateCountBound(pool, candidates, required)));
    result.placement_bound = bound;
    result.placement_optimal =
        SolvePhase(problem, bound, tier_start + tier_share / 2, clock, rng, assignment);
    const int64_t placed = Evaluate(problem, problem.objective, assignment);
    placed_of_tier.push_back(placed);
    if (result.placement_optimal) result.placement_bound = static_cast<int>(placed);
    problem.floors.push_back(Floor{problem.objective, placed});

    // Phase 2: with that many placed, disturb the running pods least.
    problem.objective = KeepUpToTier(problem, t);
    result.moves_optimal = SolvePhase(problem, BestPossible(problem, problem.objective),
                                      tier_start + tier_share, clock, rng, assignment);
    problem.floors.push_back(
        Floor{problem.objective, Evaluate(problem, problem.objective, assignment)});
    result.elapsed = clock.Now() - tier_start;
    plan.tiers.push_back(result);
  }

  // Never worse than leaving the cluster as it is (possible when time ran out mid-way).
  Assignment current;
  current.node_of.assign(problem.items.size(), -1);
  current.load.assign(problem.capacity.size(), Size{});
  std::vector<int> now(instance.pods.size());
  for (size_t i = 0; i < instance.pods.size(); ++i) now[i] = instance.pods[i].current_node;
  if (RepackAssignmentFits(instance, now)) {
    for (size_t i = 0; i < now.size(); ++i) {
      if (now[i] >= 0) current.Place(problem, static_cast<int>(i), now[i]);
    }
    if (Lexicographic(problem, current, tiers) >= Lexicographic(problem, assignment, tiers)) {
      assignment = current;
    }
  }

  plan.assignment = assignment.node_of;
  plan.optimal = true;
  for (int t = 0; t < tiers; ++t) {
    RepackTierResult& result = plan.tiers[t];
    for (size_t i = 0; i < instance.pods.size(); ++i) {
      if (problem.items[i].tier != t) continue;
      const int from = instance.pods[i].current_node;
      const int to = plan.assignment[i];
      ++result.pods;
      if (from >= 0) ++result.placed_before;
      if (to >= 0) ++result.placed_after;
      if (from < 0) continue;
      ++result.running;
      if (to == from) {
        ++result.kept;
      } else if (to >= 0) {
        ++result.moved;
      } else {
        ++result.evicted;
      }
    }
    plan.optimal = plan.optimal && result.placement_optimal && result.moves_optimal;
  }
  return plan;
}

}  // namespace headroom
