#include "sim/sizing_policies.h"

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "shared/annotations.h"
#include "shared/crane_recommender.h"
#include "shared/footprint.h"
#include "shared/guard_rails.h"
#include "shared/memory_pressure.h"
#include "shared/node_headroom.h"
#include "shared/node_optimizer.h"
#include "shared/node_report.h"
#include "shared/sizing.h"
#include "shared/usage_stats.h"
#include "shared/vpa_recommender.h"
#include "shared/workload_policy.h"

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

// The product's own functions, in the order the product runs them. Statistics are kept per
// workload, so replicas share their history as headroom-nri and the extender's merge do.
class HeadroomPolicy : public SizingPolicy {
 public:
  HeadroomPolicy(const std::vector<PodSpec>& pods, double ratio, const HeadroomOptions& options)
      : pods_(pods),
        ratio_(ratio),
        options_(options),
        budget_(options.budget),
        cpu_over_(options.actions.cpu_eviction_after),
        workload_of_(pods.size()),
        last_shrink_(pods.size()),
        memory_now_(pods.size(), 0),
        pressure_(pods.size()) {
    absl::flat_hash_map<std::string, size_t> index;
    for (size_t p = 0; p < pods.size(); ++p) {
      const std::string& key = pods[p].workload.empty() ? pods[p].name : pods[p].workload;
      workload_of_[p] = index.try_emplace(key, index.size()).first->second;
    }
    for (size_t i = 0; i < index.size(); ++i) stats_.emplace_back(options.stats);
    cache_.resize(index.size());
  }
  PolicyKind kind() const override { return PolicyKind::kHeadroom; }
  bool UsesExtender() const override { return true; }
  bool RecreatesInfeasibleResizes() const override { return false; }

  PodSizing Admission(size_t pod, absl::Time now) override {
    // The admission webhook: a new container starts from its workload's sizing.
    last_shrink_[pod] = {};
    pressure_[pod] = {};
    const GuardResult sized =
        SizeNewContainer(Snapshot(pod, now), Declared(pod), Policy(pod, 1).allow_below_declared,
                         Policy(pod, 1).tuning, options_.actions.guard);
    return ToSizing(sized.values, Declared(pod));
  }

  PodFootprint Footprint(size_t pod, const PodSizing&, absl::Time now) override {
    return PodFootprintOf({Demand(pod, now)}, options_.actions.guard.min_history);
  }

  // As the extender counts a node from headroom-nri's report: the pods headroom-nri measured
  // together share the measured headroom (node_headroom.h).
  void CountPods(const std::vector<size_t>& pods, absl::Time now,
                 NodeFootprint& footprint) override {
    const NodeMeasurement& measured = Measure(pods, now);
    NodeReport report;
    report.node = footprint.name;
    report.allocatable = footprint.allocatable;
    report.max_pods = footprint.max_pods;
    report.shared_headroom = measured.shared_headroom;
    for (size_t i = 0; i < pods.size(); ++i) {
      ReportedPod reported;
      reported.pod_namespace = "sim";
      reported.name = pods_[pods[i]].name;
      reported.requests = pods_[pods[i]].requests;
      reported.containers.push_back(Demand(pods[i], now));
      reported.in_shared_headroom = measured.measured[i];
      report.pods.push_back(std::move(reported));
    }
    const NodeFootprint counted = NodeFootprintOf(report, options_.actions.guard.min_history);
    footprint.base_total = counted.base_total;
    footprint.headroom = counted.headroom;
    footprint.pod_count = counted.pod_count;
  }

  void Observe(size_t pod, absl::Time now, int64_t demand, int64_t, int64_t,
               int64_t memory) override {
    // headroom-nri samples PSI-adjusted CPU, which approximates the demand.
    ContainerUsageStats& stats = stats_[workload_of_[pod]];
    (void)stats.AddCpu(now, demand);
    (void)stats.AddMemory(now, memory);
    memory_now_[pod] = memory;
  }

  bool ObserveMemoryStall(size_t pod, absl::Time from, absl::Time to,
                          uint64_t stalled_micros) override {
    // headroom-nri's sampler: a sustained stall records the memory in use then, which the
    // guard rails turn into a higher memory limit and request (shared/memory_pressure.h).
    const MemoryPressureObservation observed =
        ObserveMemoryPressure(pressure_[pod], from, to, stalled_micros, options_.memory_pressure);
    if (!observed.sustained || memory_now_[pod] <= 0) return false;
    stats_[workload_of_[pod]].RecordPressure(to, memory_now_[pod]);
    cache_[workload_of_[pod]].reset();
    return true;
  }

  std::optional<int64_t> RuntimeMemoryLimit(size_t pod, absl::Time now,
                                            const PodSizing& current) override {
    // headroom-nri's runtime limit for a running container (container_policy.h), its next
    // sample after the stall was recorded: the guard rails on its memory statistics.
    const UsageSnapshot& s = Snapshot(pod, now);
    if (!s.memory.has_value()) return std::nullopt;
    GuardInput input = RuntimeInput(pod, now, s, current, memory_now_[pod]);
    input.last_shrink = last_shrink_[pod];
    return SizeAtRuntime(input, s.memory, options_.actions.guard).values.memory_limit_bytes;
  }

  PodSizing AfterOom(size_t pod, absl::Time now, int64_t memory,
                     const PodSizing& current) override {
    // headroom-nri records the kill and gives the restarted container its memory limit.
    stats_[workload_of_[pod]].RecordOom(now, memory);
    cache_[workload_of_[pod]].reset();
    const UsageSnapshot& s = Snapshot(pod, now);
    std::optional<MemoryStats> stats = s.memory;
    if (!stats.has_value()) stats = MemoryStats{};  // an OOM kill before any sample
    stats->oom_bytes = std::max(stats->oom_bytes, memory);
    GuardInput input = RuntimeInput(pod, now, s, current, memory);
    input.running = false;  // a restarted container
    const GuardResult guarded = SizeAtRuntime(input, stats, options_.actions.guard);
    return {current.requests,
            guarded.values.memory_limit_bytes.value_or(current.memory_limit_bytes)};
  }

  absl::Duration period() const override { return absl::Minutes(5); }

  void Act(absl::Time now, ClusterActions& cluster) override {
    // Running replicas per workload, for the disruption policy.
    std::vector<int> running(stats_.size(), 0);
    for (const std::vector<size_t>& node_pods : cluster.PodsByNode()) {
      for (size_t pod : node_pods) ++running[workload_of_[pod]];
    }
    for (size_t index = 0; index < cluster.PodsByNode().size(); ++index) {
      // A copy: evictions below shrink the cluster's list.
      const std::vector<size_t> node_pods = cluster.PodsByNode()[index];
      if (node_pods.empty()) continue;
      const std::string node = absl::StrCat("node-", index);
      // headroom-nri's measurement of the node's pods, as its report carries it.
      const NodeMeasurement& measured = Measure(node_pods, now);
      std::vector<PodState> states;
      states.reserve(node_pods.size());
      for (size_t i = 0; i < node_pods.size(); ++i) {
        states.push_back(State(node_pods[i], running[workload_of_[node_pods[i]]], now,
                               cluster.Sizing(node_pods[i])));
        states.back().demand.in_shared_headroom = measured.measured[i];
      }
      absl::StatusOr<NodeActions> actions =
          PlanNodeActions(node, cluster.Allocatable(index), states, now, options_.actions,
                          cpu_over_, measured.shared_headroom);
      if (!actions.ok()) continue;
      for (const PlannedPodEviction& eviction : actions->evictions) {
        std::string why;
        if (!budget_.TryTake(node, now, &why)) continue;
        cluster.Evict(node_pods[eviction.pod]);
        --running[workload_of_[node_pods[eviction.pod]]];
      }
      // Shrinking pods first, then growing ones: the node holds the new sizes together, but
      // not necessarily every order of applying them.
      std::vector<std::pair<size_t, PodSizing>> resizes;
      for (const PlannedPodResize& resize : actions->resizes) {
        const size_t pod = node_pods[resize.pod];
        // One container per simulated pod.
        const ContainerChange& change = resize.containers.front();
        last_shrink_[pod] = change.last_shrink;
        resizes.push_back({pod, ToSizing(change.after, Values(cluster.Sizing(pod)))});
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
    budget_.Forget(now);
  }

 private:
  // What headroom-nri's runtime sizing of a running container asks the guard rails
  // (SizeAtRuntime): its memory limit, declared and current, with `memory` in use.
  GuardInput RuntimeInput(size_t pod, absl::Time now, const UsageSnapshot& s,
                          const PodSizing& current, int64_t memory) const {
    GuardInput input;
    input.declared.memory_limit_bytes = Declared(pod).memory_limit_bytes;
    input.current.memory_limit_bytes = current.memory_limit_bytes;
    input.memory_in_use_bytes = memory;
    input.history = s.history;
    input.allow_below_declared = Policy(pod, 1).allow_below_declared;
    input.tuning = Policy(pod, 1).tuning;
    input.running = true;
    input.now = now;
    return input;
  }

  SizedValues Declared(size_t pod) const {
    return {pods_[pod].requests.cpu_millis, pods_[pod].requests.memory_bytes,
            Scaled(pods_[pod].requests.memory_bytes, ratio_)};
  }
  static SizedValues Values(const PodSizing& sizing) {
    return {sizing.requests.cpu_millis, sizing.requests.memory_bytes, sizing.memory_limit_bytes};
  }
  static PodSizing ToSizing(const SizedValues& values, const SizedValues& fallback) {
    return {{values.cpu_request_millis.value_or(fallback.cpu_request_millis.value_or(0)),
             values.memory_request_bytes.value_or(fallback.memory_request_bytes.value_or(0))},
            values.memory_limit_bytes.value_or(fallback.memory_limit_bytes.value_or(0))};
  }

  // The pod's policy as the product resolves it: OpenB's latency-sensitive pods are annotated
  // eviction-ranking medium by their (simulated) operator; every workload opted in below the
  // declared requests when the options say so.
  WorkloadPolicy Policy(size_t pod, int replicas) const {
    Annotations annotations = options_.pod_annotations;
    if (options_.allow_disruption) {
      annotations.try_emplace(std::string(kAllowDisruptionAnnotation), "true");
    }
    if (pods_[pod].qos != "BE") annotations[std::string(kEvictionRankingAnnotation)] = "medium";
    PolicyDefaults defaults;
    defaults.allow_below_declared = options_.allow_below_declared;
    defaults.disruption_windows = options_.disruption_windows;
    return ResolveWorkloadPolicy({}, annotations, "ReplicaSet", replicas, defaults);
  }

  ContainerDemand Demand(size_t pod, absl::Time now) {
    const UsageSnapshot& s = Snapshot(pod, now);
    const SizedValues declared = Declared(pod);
    return {"main",
            s.cpu,
            s.memory,
            s.history,
            {*declared.cpu_request_millis, *declared.memory_request_bytes},
            {0, *declared.memory_limit_bytes}};
  }

  PodState State(size_t pod, int replicas, absl::Time now, const PodSizing& current) {
    const WorkloadPolicy policy = Policy(pod, replicas);
    PodState state;
    state.demand.pod_namespace = "sim";
    state.demand.name = pods_[pod].name;
    state.demand.ranking = policy.ranking.ranking;
    state.demand.requests = current.requests;
    state.demand.containers.push_back(Demand(pod, now));
    state.containers.push_back(
        {Declared(pod), Values(current), last_shrink_[pod], memory_now_[pod], true});
    state.allow_below_declared = policy.allow_below_declared;
    state.tuning = policy.tuning;
    state.disruption = DisruptionFactsOf(policy);
    state.disruption.owner_kind = "ReplicaSet";
    state.disruption.workload = pods_[pod].workload.empty() ? pods_[pod].name : pods_[pod].workload;
    state.disruption.workload_pods = replicas;
    state.disruption.workload_ready = replicas;
    // As the actuator (actuation_plan.cc): outside its window a pod is neither evicted nor
    // shrunk in place.
    state.disruption.outside_window = OutsideDisruptionWindow(policy, now);
    state.shrink_blocked_by = state.disruption.outside_window;
    return state;
  }

  // headroom-nri's measurement of a node running `pods` (node_headroom.h): the pods past the
  // warm-up, measured together. Cached for the minute by pod list: placement asks for the
  // same nodes many times.
  const NodeMeasurement& Measure(const std::vector<size_t>& pods, absl::Time now) {
    if (measured_at_ != now) {
      measured_.clear();
      measured_at_ = now;
    }
    auto [it, added] = measured_.try_emplace(pods);
    if (!added) return it->second;
    std::vector<std::vector<ProfiledContainer>> containers(pods.size());
    for (size_t i = 0; i < pods.size(); ++i) {
      const ContainerDemand demand = Demand(pods[i], now);
      if (!HasTrustedHistory(demand, options_.actions.guard.min_history)) continue;
      containers[i].push_back({&stats_[workload_of_[pods[i]]],
                               {PlanningBase(*demand.cpu), PlanningBase(*demand.memory)}});
    }
    it->second = MeasureNode(containers, now, options_.actions.guard.min_history, options_.stats);
    return it->second;
  }

  // Snapshots are cached for the minute: placement asks for the same workloads many times.
  const UsageSnapshot& Snapshot(size_t pod, absl::Time now) {
    const size_t workload = workload_of_[pod];
    std::optional<std::pair<absl::Time, UsageSnapshot>>& entry = cache_[workload];
    if (!entry.has_value() || entry->first != now) {
      entry.emplace(now, stats_[workload].Snapshot(now, Policy(pod, 1).tuning.base_percentile));
    }
    return entry->second;
  }

  const std::vector<PodSpec>& pods_;
  double ratio_;
  HeadroomOptions options_;
  EvictionBudget budget_;
  SustainedConditions cpu_over_;
  std::vector<size_t> workload_of_;          // per pod
  std::vector<ShrinkTimes> last_shrink_;     // per pod
  std::vector<int64_t> memory_now_;          // per pod, the last minute's
  std::vector<MemoryPressureRun> pressure_;  // per pod, its current stretch of memory stall
  std::vector<ContainerUsageStats> stats_;   // per workload
  std::vector<std::optional<std::pair<absl::Time, UsageSnapshot>>> cache_;  // per workload
  absl::Time measured_at_ = absl::InfinitePast();
  absl::flat_hash_map<std::vector<size_t>, NodeMeasurement>
      measured_;  // by pod list, for the minute
};

}  // namespace

PodFootprint SizingPolicy::Footprint(size_t, const PodSizing& current, absl::Time) {
  return {current.requests, {}};
}

void SizingPolicy::CountPods(const std::vector<size_t>&, absl::Time, NodeFootprint&) {}

std::unique_ptr<SizingPolicy> MakePolicy(PolicyKind kind, const std::vector<PodSpec>& pods,
                                         double memory_limit_ratio,
                                         const HeadroomOptions& headroom) {
  switch (kind) {
    case PolicyKind::kStatic:
      return std::make_unique<StaticPolicy>(pods, memory_limit_ratio);
    case PolicyKind::kVpa:
      return std::make_unique<VpaPolicy>(pods, memory_limit_ratio);
    case PolicyKind::kCrane:
      return std::make_unique<CranePolicy>(pods, memory_limit_ratio);
    case PolicyKind::kHeadroom:
      return std::make_unique<HeadroomPolicy>(pods, memory_limit_ratio, headroom);
  }
  return nullptr;
}

}  // namespace headroom::sim
