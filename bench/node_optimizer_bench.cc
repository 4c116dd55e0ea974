// Per-node optimisation cost at kubelet's default maximum of 110 pods per node, 3 containers
// each. Two shapes: a node that fits (sizing only) and an overcommitted one that must evict
// many pods (sorting and the eviction loops dominate).

#include <cstdint>
#include <random>
#include <string>

#include "benchmark/benchmark.h"
#include "shared/node_optimizer.h"
#include "shared/usage_stats.h"

namespace headroom {
namespace {

constexpr int64_t kMi = 1 << 20;

NodeDemand MakeNode(int pods, int containers, int64_t cpu_millis, int64_t memory_bytes) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<int64_t> cpu_base(10, 400);
  std::uniform_int_distribution<int64_t> cpu_spike(0, 1500);
  std::uniform_int_distribution<int64_t> memory_base(16, 512);
  std::uniform_int_distribution<int64_t> memory_spike(0, 256);
  NodeDemand node{"bench-node", {cpu_millis, memory_bytes}, {}};
  for (int p = 0; p < pods; ++p) {
    PodDemand pod;
    pod.pod_namespace = "ns-" + std::to_string(p % 7);
    pod.name = "pod-" + std::to_string(p);
    pod.daemonset = p < 5;
    pod.ranking = static_cast<EvictionRanking>(p % 4);
    for (int c = 0; c < containers; ++c) {
      const int64_t cb = cpu_base(rng);
      const int64_t mb = memory_base(rng) * kMi;
      const int64_t mp = mb + memory_spike(rng) * kMi;
      pod.containers.push_back({"c" + std::to_string(c), CpuStats{cb, cb + cpu_spike(rng)},
                                MemoryStats{mb, mp, mp + 10 * kMi, 0}});
    }
    node.pods.push_back(std::move(pod));
  }
  return node;
}

void BM_OptimizeNodeFits(benchmark::State& state) {
  const NodeDemand node = MakeNode(110, 3, 256'000, 512LL << 30);
  for (auto _ : state) {
    auto result = OptimizeNode(node);
    benchmark::DoNotOptimize(result);
  }
  state.SetLabel("110 pods x 3 containers, no eviction");
}
BENCHMARK(BM_OptimizeNodeFits)->Unit(benchmark::kMicrosecond);

void BM_OptimizeNodeEvicts(benchmark::State& state) {
  // Roughly half the pods' base fits: dozens of evictions across both passes.
  const NodeDemand node = MakeNode(110, 3, 32'000, 64LL << 30);
  size_t evictions = 0;
  for (auto _ : state) {
    auto result = OptimizeNode(node);
    evictions = result->evictions.size();
    benchmark::DoNotOptimize(result);
  }
  state.counters["evictions"] = static_cast<double>(evictions);
  state.SetLabel("110 pods x 3 containers, overcommitted");
}
BENCHMARK(BM_OptimizeNodeEvicts)->Unit(benchmark::kMicrosecond);

// The per-container statistics cost at a one-minute sampling period: one CPU and one memory
// sample, then a snapshot, as the node plugin does every period.
void BM_UsageStatsSampleAndSnapshot(benchmark::State& state) {
  ContainerUsageStats stats;
  absl::Time now = absl::FromUnixSeconds(1'700'000'000);
  for (int i = 0; i < 7 * 24 * 60; ++i) {  // a week of history first
    now += absl::Minutes(1);
    (void)stats.AddCpu(now, i % 500);
    (void)stats.AddMemory(now, (i % 300) * kMi);
  }
  int64_t i = 0;
  for (auto _ : state) {
    now += absl::Minutes(1);
    (void)stats.AddCpu(now, ++i % 500);
    (void)stats.AddMemory(now, (i % 300) * kMi);
    benchmark::DoNotOptimize(stats.Snapshot(now));
  }
}
BENCHMARK(BM_UsageStatsSampleAndSnapshot)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace headroom

BENCHMARK_MAIN();
