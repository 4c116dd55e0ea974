#pragma once

// Instances for the repacking benchmark, as seed 002 ("Priority Matters", Evaluation)
// describes them: pods come in ReplicaSets of 1-4 identical replicas with a random priority
// tier and random CPU and memory; all nodes are identical and sized so that the pods' total is
// the target utilisation of the cluster; the pods are then placed by a model of
// kube-scheduler without preemption. Only instances where that leaves pods pending are worth
// repacking.
//
// The seed's text lost the interval for the random sizes; we draw whole units of 100m CPU and
// 128Mi memory from [1, 10] (independently), which gives pods of 1/40 to 1/2 of a node at 4
// pods per node. Both are settable.

#include <cstdint>
#include <vector>

#include "shared/repack.h"

namespace headroom {

struct RepackGeneratorConfig {
  int nodes = 8;
  int pods_per_node = 4;
  int tiers = 2;                    // distinct priorities
  double target_utilisation = 1.0;  // pods' total / cluster capacity, per resource
  int min_replicas = 1;
  int max_replicas = 4;
  int64_t cpu_unit_milli = 100;
  int64_t memory_unit_bytes = int64_t{128} << 20;
  int min_units = 1;
  int max_units = 10;
  uint64_t seed = 1;
};

// One instance, pods placed by DefaultSchedulerPlacement. Pod names are "rs-<i>-<r>" with
// owner "rs-<i>"; node names "node-<i>" (zero-padded, so name order is index order);
// priorities are 1000 x tier, tier 0 lowest.
RepackInstance GenerateRepackInstance(const RepackGeneratorConfig& config);

// kube-scheduler's placement without preemption: pods in queue order (priority, highest first,
// then input order), each on the feasible node scoring highest by LeastAllocated (mean over CPU
// and memory of the free share after placing), ties to the lower node name; -1 when none fits.
// Pods already on a node stay there.
std::vector<int> DefaultSchedulerPlacement(const RepackInstance& instance);

// The first `count` instances, from seeds config.seed, config.seed + 1, ..., on which the
// placement above leaves at least one pod pending. Gives up after 100 x count seeds.
std::vector<RepackInstance> GenerateInstancesNeedingRepack(RepackGeneratorConfig config, int count);

// Number of pods without a node.
int PendingPods(const RepackInstance& instance);

}  // namespace headroom
