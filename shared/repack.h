#pragma once

// Priority-tiered repacking (seed 002, "Priority Matters"): when pods are pending although the
// cluster has room in total, re-place running pods so that more high-priority pods fit.
//
// For each priority tier, highest first:
//   1. maximise the number of placed pods of this tier, the tiers above held at what they
//      reached (exactly if proven, at least otherwise);
//   2. then maximise sum(2 per running pod of this tier or above left on its node, 1 per such
//      pod moved to another node): fewest disruptions, a move before an eviction.
// Pods of lower tiers are not in the model while a tier is solved, so they may be evicted for
// higher ones. Each tier gets a share of the time limit and returns the best plan found when
// its share runs out, with whether it is proven optimal.
//
// The solver is our own (docs/repack.md explains why): an upper bound from a surrogate
// relaxation of the node capacities, large-neighbourhood search that re-packs a few nodes at
// a time exactly, and a complete branch and bound that proves optimality when it finishes.

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace headroom {

struct RepackNode {
  std::string name;
  int64_t cpu_milli = 0;     // allocatable CPU
  int64_t memory_bytes = 0;  // allocatable memory
};

struct RepackPod {
  std::string name;
  int64_t cpu_milli = 0;     // CPU request
  int64_t memory_bytes = 0;  // memory request
  int32_t priority = 0;      // Kubernetes convention: higher is more important
  int current_node = -1;     // index into RepackInstance::nodes; -1: pending
  std::string owner;         // optional, e.g. the ReplicaSet; carried to the plan
};

struct RepackInstance {
  std::vector<RepackNode> nodes;
  std::vector<RepackPod> pods;
};

// InvalidArgument naming the first problem: no nodes, a negative amount, a node index out of
// range, duplicate names.
absl::Status ValidateRepackInstance(const RepackInstance& instance);

// Where time comes from; the library reads no clock itself. Tests use one that advances per
// call, so a solve is deterministic.
class RepackClock {
 public:
  virtual ~RepackClock() = default;
  virtual absl::Time Now() = 0;
};

struct RepackOptions {
  absl::Duration timeout = absl::Seconds(5);  // the whole solve; shared out across tiers
  uint64_t seed = 1;                          // the search's random choices
};

struct RepackTierResult {
  int32_t priority = 0;
  int pods = 0;             // pods of this tier
  int placed_before = 0;    // placed now (running)
  int placed_after = 0;     // placed in the plan
  int placement_bound = 0;  // no plan places more of this tier (given the tiers above)
  bool placement_optimal = false;
  int running = 0;             // running pods of this tier
  int kept = 0;                // of them, left on their node
  int moved = 0;               // moved to another node
  int evicted = 0;             // not placed in the plan
  bool moves_optimal = false;  // no plan with the same placements disrupts less
  absl::Duration elapsed;
};

struct RepackPlan {
  std::vector<int> assignment;          // per pod: node index, or -1 (pending / evicted)
  std::vector<RepackTierResult> tiers;  // highest priority first
  bool optimal = false;                 // every tier's placement and moves proven
};

// Solves `instance`. InvalidArgument when it fails validation. The plan never puts more on a
// node than its allocatable, and never places fewer pods of a tier than are placed now unless
// a higher tier gains.
absl::StatusOr<RepackPlan> SolveRepack(const RepackInstance& instance, const RepackOptions& options,
                                       RepackClock& clock);

// How `plan` differs from `instance`: which pods move, which get placed, which get evicted.
struct RepackChange {
  enum class Kind { kMove, kPlace, kEvict };
  Kind kind;
  int pod;
  int from;  // -1 for kPlace
  int to;    // -1 for kEvict
};
std::vector<RepackChange> RepackChanges(const RepackInstance& instance, const RepackPlan& plan);

// True when `assignment` keeps every node within its allocatable.
bool RepackAssignmentFits(const RepackInstance& instance, const std::vector<int>& assignment);

}  // namespace headroom
