#include "shared/repack_generator.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace headroom {

RepackInstance GenerateRepackInstance(const RepackGeneratorConfig& config) {
  std::mt19937_64 rng(config.seed);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RepackInstance instance;
  const int total_pods = std::max(0, config.nodes * config.pods_per_node);
  int64_t total_cpu = 0;
  int64_t total_memory = 0;
  for (int rs = 0; static_cast<int>(instance.pods.size()) < total_pods; ++rs) {
    const int replicas = std::min(uniform(config.min_replicas, config.max_replicas),
                                  total_pods - static_cast<int>(instance.pods.size()));
    const int64_t cpu = config.cpu_unit_milli * uniform(config.min_units, config.max_units);
    const int64_t memory = config.memory_unit_bytes * uniform(config.min_units, config.max_units);
    const int32_t priority = 1000 * uniform(0, std::max(1, config.tiers) - 1);
    for (int r = 0; r < replicas; ++r) {
      RepackPod pod;
      pod.name = absl::StrCat("rs-", rs, "-", r);
      pod.owner = absl::StrCat("rs-", rs);
      pod.cpu_milli = cpu;
      pod.memory_bytes = memory;
      pod.priority = priority;
      instance.pods.push_back(pod);
      total_cpu += cpu;
      total_memory += memory;
    }
  }
  const double capacity_share = std::max(1, config.nodes) * config.target_utilisation;
  const int64_t node_cpu = static_cast<int64_t>(std::ceil(total_cpu / capacity_share));
  const int64_t node_memory = static_cast<int64_t>(std::ceil(total_memory / capacity_share));
  const int width = static_cast<int>(std::to_string(std::max(1, config.nodes - 1)).size());
  for (int n = 0; n < config.nodes; ++n) {
    instance.nodes.push_back({absl::StrFormat("node-%0*d", width, n), node_cpu, node_memory});
  }
  const std::vector<int> placement = DefaultSchedulerPlacement(instance);
  for (size_t i = 0; i < instance.pods.size(); ++i) instance.pods[i].current_node = placement[i];
  return instance;
}

std::vector<int> DefaultSchedulerPlacement(const RepackInstance& instance) {
  const size_t node_count = instance.nodes.size();
  std::vector<int64_t> cpu(node_count, 0);
  std::vector<int64_t> memory(node_count, 0);
  std::vector<int> placement(instance.pods.size(), -1);
  std::vector<int> queue;
  for (size_t i = 0; i < instance.pods.size(); ++i) {
    const int node = instance.pods[i].current_node;
    if (node >= 0 && node < static_cast<int>(node_count)) {
      placement[i] = node;
      cpu[node] += instance.pods[i].cpu_milli;
      memory[node] += instance.pods[i].memory_bytes;
    } else {
      queue.push_back(static_cast<int>(i));
    }
  }
  std::stable_sort(queue.begin(), queue.end(), [&](int a, int b) {
    return instance.pods[a].priority > instance.pods[b].priority;
  });
  std::vector<int> by_name(node_count);
  std::iota(by_name.begin(), by_name.end(), 0);
  std::stable_sort(by_name.begin(), by_name.end(),
                   [&](int a, int b) { return instance.nodes[a].name < instance.nodes[b].name; });
  auto free_share = [](int64_t capacity, int64_t used) {
    return capacity > 0 ? static_cast<double>(capacity - used) / capacity : 0.0;
  };
  for (int pod : queue) {
    const RepackPod& p = instance.pods[pod];
    int best = -1;
    double best_score = -1;
    for (int node : by_name) {
      const int64_t c = cpu[node] + p.cpu_milli;
      const int64_t m = memory[node] + p.memory_bytes;
      if (c > instance.nodes[node].cpu_milli || m > instance.nodes[node].memory_bytes) continue;
      const double score = (free_share(instance.nodes[node].cpu_milli, c) +
                            free_share(instance.nodes[node].memory_bytes, m)) /
                           2;
      if (score > best_score) {
        best_score = score;
        best = node;
      }
    }
    if (best < 0) continue;
    placement[pod] = best;
    cpu[best] += p.cpu_milli;
    memory[best] += p.memory_bytes;
  }
  return placement;
}

int PendingPods(const RepackInstance& instance) {
  return static_cast<int>(std::count_if(instance.pods.begin(), instance.pods.end(),
                                        [](const RepackPod& pod) { return pod.current_node < 0; }));
}

std::vector<RepackInstance> GenerateInstancesNeedingRepack(RepackGeneratorConfig config,
                                                           int count) {
  std::vector<RepackInstance> instances;
  const uint64_t first = config.seed;
  for (uint64_t seed = first; static_cast<int>(instances.size()) < count &&
                              seed < first + 100 * static_cast<uint64_t>(count);
       ++seed) {
    config.seed = seed;
    RepackInstance instance = GenerateRepackInstance(config);
    if (PendingPods(instance) > 0) instances.push_back(std::move(instance));
  }
  return instances;
}

}  // namespace headroom
