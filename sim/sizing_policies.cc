#include "sim/sizing_policies.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "shared/crane_recommender.h"
#include "shared/node_optimizer.h"
#include "shared/sizing.h"
#include "shared/usage_stats.h"
#include "shared/vpa_recommender.h"

namespace headroom::sim {
namespace {

int64_t Scaled(int64_t bytes, double ratio) {
  return RoundUpAmount(static_cast<double>(bytes) * ratio);
}

// Declared requests, with the declared limit ratio.
PodSizing Declared(const PodSpec& pod, double ratio) {
  return {pod.requests, Scaled(pod.requests.memory_bytes, ratio)};
}

class StaticPolicy : public SizingPolicy {
 public:
  StaticPolicy(const std::vector<PodSpec>& pods, double ratio) : pods_(pods), ratio_(ratio) {}
  PolicyKind kind() const override { return PolicyKind::kStatic; }
  PodSizing Admission(size_t pod, absl::Time) override { return Declared(pods_[pod], ratio_); }
  void Observe(size_t, absl::Time, int64_t, int64_t, int64_t, int64_t) override {}
  PodSizing AfterOom(size_t, absl::Time, int64_t, const PodSizing& current) override {
    return current;
  }

 private:
  const std::vector<PodSpec>& pods_;
  double ratio_;
};

class VpaPolicy : public SizingPolicy {
 public:
  VpaPolicy(const std::vector<PodSpec>& pods, double ratio)
      : pods_(pods), ratio_(ratio), models_(pods.size()) {}
  PolicyKind kind() const override { return PolicyKind::kVpa; }

  PodSizing Admission(size_t pod, absl::Time) override {
    const std::optional<VpaRecommendation> r = models_[pod].Recommend();
    if (!r.has_value()) return Declared(pods_[pod], ratio_);
    return {r->target, Scaled(r->target.memory_bytes, ratio_)};
  }
  void Observe(size_t pod, absl::Time now, int64_t, int64_t granted, int64_t request,
               int64_t memory) override {
    // VPA weighs CPU samples by the request at the time (at least 0.1 cores).
    models_[pod].AddCpuSample(now, granted, request);
    models_[pod].AddMemorySample(now, memory);
  }
  PodSizing AfterOom(size_t pod, absl::Time now, int64_t memory,
                     const PodSizing& current) override {
    (void)models_[pod].RecordOom(now, memory);
    return current;  // VPA reacts through its next recommendation
  }
  absl::Duration period() const override { return absl::Minutes(5); }
  void Act(absl::Time, ClusterActions& cluster) override {
    for (size_t index = 0; index < cluster.PodsByNode().size(); ++index) {
      for (size_t pod : std::vector<size_t>(cluster.PodsByNode()[index])) {
        const std::optional<VpaRecommendation> r = models_[pod].Recommend();
        if (!r.has_value()) continue;
        const ResourceAmounts& current = cluster.Sizing(pod).requests;
        const bool outside = current.cpu_millis < r->lower_bound.cpu_millis ||
                             current.cpu_millis > r->upper_bound.cpu_millis ||
                             current.memory_bytes < r->lower_bound.memory_bytes ||
                             current.memory_bytes > r->upper_bound.memory_bytes;
        if (outside) cluster.Resize(pod, {r->target, Scaled(r->target.memory_bytes, ratio_)});
      }
    }
  }

 private:
  const std::vector<PodSpec>& pods_;
  double ratio_;
  std::vector<VpaContainerModel> models_;
};

class CranePolicy : public SizingPolicy {
 public:
  CranePolicy(const std::vector<PodSpec>& pods, double ratio)
      : pods_(pods), ratio_(ratio), models_(pods.size()) {}
  PolicyKind kind() const override { return PolicyKind::kCrane; }

  PodSizing Admission(size_t pod, absl::Time now) override {
    const std::optional<CraneRecommendation> r = models_[pod].Recommend(now);
    if (!r.has_value()) return Declared(pods_[pod], ratio_);
    return {r->request, Scaled(r->request.memory_bytes, ratio_)};
  }
  void Observe(size_t pod, absl::Time now, int64_t, int64_t granted, int64_t,
               int64_t memory) override {
    models_[pod].AddSample({now, granted, memory});
  }
  PodSizing AfterOom(size_t pod, absl::Time now, int64_t memory,
                     const PodSizing& current) override {
    models_[pod].AddOom({now, memory});
    return current;
  }
  absl::Duration period() const override { return absl::Hours(1); }
  void Act(absl::Time now, ClusterActions& cluster) override {
    for (size_t index = 0; index < cluster.PodsByNode().size(); ++index) {
      for (size_t pod : std::vector<size_t>(cluster.PodsByNode()[index])) {
        const std::optional<CraneRecommendation> r = models_[pod].Recommend(now);
        if (!r.has_value()) continue;
        if (r->request == cluster.Sizing(pod).requests) continue;
        cluster.Resize(pod, {r->request, Scaled(r->request.memory_bytes, ratio_)});
      }
    }
  }

 private:
  const std::vector<PodSpec>& pods_;
  double ratio_;
  std::vector<CraneContainerModel> models_;
};

class HeadroomPolicy : public SizingPolicy {
 public:
  HeadroomPolicy(const std::vector<PodSpec>& pods, double ratio)
      : pods_(pods), ratio_(ratio), stats_(pods.size()), cache_(pods.size()) {}
  PolicyKind kind() const override { return PolicyKind::kHeadroom; }
  bool UsesExtender() const override { return true; }

  PodSizing Admission(size_t pod, absl::Time now) override {
    const UsageSnapshot& s = Snapshot(pod, now);
    if (!s.cpu.has_value() || !s.memory.has_value()) return Declared(pods_[pod], ratio_);
    const ContainerSizing sizing = SizeForAdmission(*s.cpu, *s.memory);
    return {{sizing.cpu_request_millis, sizing.memory_request_bytes}, sizing.memory_limit_bytes};
  }

  PodFootprint Footprint(size_t pod, const PodSizing& current, absl::Time now) override {
    const UsageSnapshot& s = Snapshot(pod, now);
    if (!s.cpu.has_value() || !s.memory.has_value()) return {current.requests, {}};
    return {{s.cpu->base_millis, s.memory->base_bytes},
            {s.cpu->peak_millis - s.cpu->base_millis, s.memory->peak_bytes - s.memory->base_bytes}};
  }

  void Observe(size_t pod, absl::Time now, int64_t demand, int64_t, int64_t,
               int64_t memory) override {
    // The node plugin samples PSI-adjusted CPU, which approximates the demand.
    (void)stats_[pod].AddCpu(now, demand);
    (void)stats_[pod].AddMemory(now, memory);
  }

  PodSizing AfterOom(size_t pod, absl::Time now, int64_t memory,
                     const PodSizing& current) override {
    stats_[pod].RecordOom(now, memory);
    cache_[pod].reset();
    const UsageSnapshot& s = Snapshot(pod, now);
    if (!s.memory.has_value()) {
      // No history yet: the plugin raises the limit from the memory at the OOM.
      return {current.requests, std::max(current.memory_limit_bytes, 2 * memory)};
    }
    return {current.requests, MemoryLimitBytes(*s.memory, current.requests.memory_bytes)};
  }

  absl::Duration period() const override { return absl::Minutes(5); }

  void Act(absl::Time now, ClusterActions& cluster) override {
    for (size_t index = 0; index < cluster.PodsByNode().size(); ++index) {
      // A copy: evictions below shrink the cluster's list.
      const std::vector<size_t> node_pods = cluster.PodsByNode()[index];
      if (node_pods.empty()) continue;
      NodeDemand node{absl::StrCat("node-", index), cluster.Allocatable(index), {}};
      node.pods.reserve(node_pods.size());
      for (size_t pod : node_pods) {
        PodDemand demand;
        demand.pod_namespace = "sim";
        demand.name = pods_[pod].name;
        // OpenB's latency-sensitive pods rank medium; best-effort ones low.
        demand.ranking = pods_[pod].qos == "BE" ? EvictionRanking::kLow : EvictionRanking::kMedium;
        demand.requests = cluster.Sizing(pod).requests;
        const UsageSnapshot& s = Snapshot(pod, now);
        demand.containers.push_back({"main", s.cpu, s.memory});
        node.pods.push_back(std::move(demand));
      }
      // Pod names are unique (the reader refuses duplicates), so the input is valid.
      const absl::StatusOr<NodeOptimization> result = OptimizeNode(node);
      if (!result.ok()) continue;
      // Evictions first, then shrinking pods, then growing ones: the node holds the new sizes
      // together, but not necessarily every order of applying them.
      for (const PodEviction& eviction : result->evictions) cluster.Evict(node_pods[eviction.pod]);
      std::vector<std::pair<size_t, PodSizing>> resizes;
      for (const ContainerResult& c : result->containers) {
        resizes.push_back({node_pods[c.pod],
                           {{c.sizing.cpu_request_millis, c.sizing.memory_request_bytes},
                            c.sizing.memory_limit_bytes}});
      }
      const auto growth = [&cluster](const std::pair<size_t, PodSizing>& r) {
        const ResourceAmounts& current = cluster.Sizing(r.first).requests;
        return (r.second.requests.cpu_millis > current.cpu_millis) +
               (r.second.requests.memory_bytes > current.memory_bytes);
      };
      std::stable_sort(resizes.begin(), resizes.end(),
                       [&growth](const auto& a, const auto& b) { return growth(a) < growth(b); });
      for (const auto& [pod, sizing] : resizes) cluster.Resize(pod, sizing);
    }
  }

 private:
  // Snapshots are cached for the minute: placement asks for the same pods many times.
  const UsageSnapshot& Snapshot(size_t pod, absl::Time now) {
    std::optional<std::pair<absl::Time, UsageSnapshot>>& entry = cache_[pod];
    if (!entry.has_value() || entry->first != now) entry.emplace(now, stats_[pod].Snapshot(now));
    return entry->second;
  }

  const std::vector<PodSpec>& pods_;
  double ratio_;
  std::vector<ContainerUsageStats> stats_;
  std::vector<std::optional<std::pair<absl::Time, UsageSnapshot>>> cache_;
};

}  // namespace

absl::string_view PolicyName(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::kStatic:
      return "static";
    case PolicyKind::kVpa:
      return "vpa";
    case PolicyKind::kCrane:
      return "crane";
    case PolicyKind::kHeadroom:
      return "headroom";
  }
  return "unknown";
}

PodFootprint SizingPolicy::Footprint(size_t, const PodSizing& current, absl::Time) {
  return {current.requests, {}};
}

std::unique_ptr<SizingPolicy> MakePolicy(PolicyKind kind, const std::vector<PodSpec>& pods,
                                         double memory_limit_ratio) {
  switch (kind) {
    case PolicyKind::kStatic:
      return std::make_unique<StaticPolicy>(pods, memory_limit_ratio);
    case PolicyKind::kVpa:
      return std::make_unique<VpaPolicy>(pods, memory_limit_ratio);
    case PolicyKind::kCrane:
      return std::make_unique<CranePolicy>(pods, memory_limit_ratio);
    case PolicyKind::kHeadroom:
      return std::make_unique<HeadroomPolicy>(pods, memory_limit_ratio);
  }
  return nullptr;
}

}  // namespace headroom::sim
