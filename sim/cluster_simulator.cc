#include "sim/cluster_simulator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <memory>
#include <thread>

#include "absl/strings/str_cat.h"
#include "shared/kubelet_eviction.h"
#include "shared/load_cordon.h"
#include "sim/cpu_share.h"
#include "sim/memory_qos.h"

namespace headroom::sim {
namespace {

// load1 is an exponentially damped average with a one-minute time constant.
double LoadAlpha(int step_minutes) { return 1 - std::exp(-static_cast<double>(step_minutes)); }
// After evicting under memory pressure, kubelet keeps the MemoryPressure condition (and the
// scheduler keeps new pods off the node) for evictionPressureTransitionPeriod, 5 minutes.
constexpr int kPressureTransitionMinutes = 5;
// The Cluster Autoscaler's scale-down defaults: --scale-down-delay-after-add,
// --scale-down-unneeded-time, --scale-down-utilization-threshold and --max-empty-bulk-delete.
constexpr int kScaleDownDelayAfterAddMinutes = 10;
constexpr int kScaleDownUnneededMinutes = 10;
constexpr double kScaleDownUtilisationThreshold = 0.5;
constexpr int kMaxEmptyBulkDelete = 10;
// How long the Karpenter model leaves a node whose pods did not fit elsewhere before trying
// it again.
constexpr int kConsolidationRetryMinutes = 10;

ResourceAmounts Add(ResourceAmounts a, const ResourceAmounts& b) {
  return {a.cpu_millis + b.cpu_millis, a.memory_bytes + b.memory_bytes};
}
ResourceAmounts Subtract(ResourceAmounts a, const ResourceAmounts& b) {
  return {a.cpu_millis - b.cpu_millis, a.memory_bytes - b.memory_bytes};
}
bool FitsIn(const ResourceAmounts& need, const ResourceAmounts& room) {
  return need.cpu_millis <= room.cpu_millis && need.memory_bytes <= room.memory_bytes;
}

class ClusterRun final : public ClusterActions {
 public:
  ClusterRun(PolicyKind kind, const std::vector<PodSpec>& pods, const UsageTraces& usage,
             const SimulationConfig& config)
      : pods_(pods),
        usage_(usage),
        config_(config),
        policy_(MakePolicy(kind, pods, config.memory_limit_ratio, config.headroom)),
        node_of_(pods.size(), -1),
        gone_(pods.size(), false),
        sizing_(pods.size()),
        step_(usage.step_minutes) {
    run_.kind = kind;
    for (int i = 0; i < config.initial_nodes; ++i) AddNode();
    for (size_t p = 0; p < pods.size(); ++p) {
      if (pods[p].start_minute <= 0) pending_.push_back(p);
    }
  }

  PolicyRun Run(const std::function<void()>& minute_done) {
    const int period =
        static_cast<int>(absl::ToInt64Minutes(policy_->period()));  // 0: the policy never acts
    PlacePending(config_.start);
    // Each step is `step_` minutes in which usage does not change; it ends at minute m.
    for (int s = 0; s < usage_.steps(); ++s) {
      const int m = s * step_;
      const absl::Time now = config_.start + absl::Minutes(m);
      minute_ = m;
      step_index_ = static_cast<size_t>(s);
      counting_ = m >= config_.warmup_minutes;
      if (m > 0) Depart(m);
      ShareAndObserve(now);
      KillOverLimit(now);
      RelieveMemoryPressure();
      if (policy_->UsesExtender()) UpdateCordons(now);
      if (period > 0 && m > 0 && Crossed(m, period)) policy_->Act(now, *this);
      if (m > 0) Arrive(m);
      PlacePending(now);
      if (config_.autoscale && m > 0) {
        if (config_.autoscaler == Autoscaler::kKarpenter) {
          Consolidate(now);
        } else {
          ScaleDown(now);
        }
      }
      Account(m);
      if (minute_done) {
        for (int k = 0; k < step_; ++k) minute_done();
      }
    }
    Summarise();
    return std::move(run_);
  }

  // ClusterActions
  const std::vector<std::vector<size_t>>& PodsByNode() const override { return pods_by_node_; }
  ResourceAmounts Allocatable(size_t node) const override { return nodes_[node].allocatable; }
  const PodSizing& Sizing(size_t pod) const override { return sizing_[pod]; }

  void Resize(size_t pod, const PodSizing& sizing) override {
    const int node = node_of_[pod];
    if (node < 0) return;
    const ResourceAmounts requested =
        Add(Subtract(requested_[node], sizing_[pod].requests), sizing.requests);
    if (FitsIn(requested, nodes_[node].allocatable)) {
      if (!(sizing.requests == sizing_[pod].requests) ||
          sizing.memory_limit_bytes != sizing_[pod].memory_limit_bytes) {
        Count(run_.summary.resizes);
        CountResizeDirection(sizing_[pod], sizing);
      }
      requested_[node] = requested;
      sizing_[pod] = sizing;
      return;
    }
    if (!policy_->RecreatesInfeasibleResizes()) {
      // The kubelet defers the resize and the pod runs on at its current requests; a higher
      // memory limit needs no room on the node (headroom-nri sets it at the runtime).
      Count(run_.summary.deferred_resizes);
      sizing_[pod].memory_limit_bytes =
          std::max(sizing_[pod].memory_limit_bytes, sizing.memory_limit_bytes);
      return;
    }
    Count(run_.summary.resize_evictions);
    Remove(pod);
  }

  void Evict(size_t pod) override {
    if (node_of_[pod] < 0) return;
    Count(run_.summary.optimizer_evictions);
    Remove(pod);
  }

 private:
  struct Node {
    ResourceAmounts allocatable;
    LoadCordonState cordon;
    double load = 0;
    int memory_pressure_until = -1;  // minute until which the node takes no new pods
    int unneeded_since = -1;         // minute since which the autoscaler finds it unneeded
    int consolidation_failed_at = -1'000'000;  // Karpenter: its pods last did not fit elsewhere
  };

  void Count(int64_t& counter) {
    if (counting_) ++counter;
  }

  // Whether a multiple of `period` minutes lies in the step ending at `m`.
  bool Crossed(int m, int period) const { return m / period != (m - step_) / period; }

  // A resize that only grows, only shrinks, or does both (across requests and the limit).
  void CountResizeDirection(const PodSizing& before, const PodSizing& after) {
    const int64_t pairs[3][2] = {{before.requests.cpu_millis, after.requests.cpu_millis},
                                 {before.requests.memory_bytes, after.requests.memory_bytes},
                                 {before.memory_limit_bytes, after.memory_limit_bytes}};
    bool up = false;
    bool down = false;
    for (const auto& [from, to] : pairs) {
      up = up || to > from;
      down = down || to < from;
    }
    Count(up && down ? run_.summary.resizes_mixed
                     : (up ? run_.summary.resizes_up : run_.summary.resizes_down));
  }

  // Pods whose usage trace has ended by minute m leave for good (not rescheduled).
  void Depart(int m) {
    for (size_t pod = 0; pod < pods_.size(); ++pod) {
      if (gone_[pod] || pods_[pod].end_minute > m) continue;
      gone_[pod] = true;
      if (node_of_[pod] >= 0) {
        Remove(pod);
      }
      std::erase(pending_, pod);
      Count(run_.summary.departures);
    }
  }

  // Pods created in the step ending at minute m join the pending queue.
  void Arrive(int m) {
    for (size_t p = 0; p < pods_.size(); ++p) {
      if (pods_[p].start_minute > m - step_ && pods_[p].start_minute <= m &&
          pods_[p].end_minute > m) {
        pending_.push_back(p);
      }
    }
  }

  void AddNode() {
    last_node_added_ = minute_;
    Node node;  // every other field at its default
    node.allocatable = config_.node_shape.allocatable;
    nodes_.push_back(node);
    pods_by_node_.emplace_back();
    requested_.push_back({});
  }

  void RemoveNode(size_t node) {
    nodes_.erase(nodes_.begin() + static_cast<std::ptrdiff_t>(node));
    pods_by_node_.erase(pods_by_node_.begin() + static_cast<std::ptrdiff_t>(node));
    requested_.erase(requested_.begin() + static_cast<std::ptrdiff_t>(node));
    for (int& n : node_of_) {
      if (n > static_cast<int>(node)) --n;
    }
  }

  // Takes a running pod off its node; it waits in the pending queue.
  void Remove(size_t pod) {
    const int node = node_of_[pod];
    std::vector<size_t>& list = pods_by_node_[static_cast<size_t>(node)];
    list.erase(std::find(list.begin(), list.end(), pod));
    requested_[static_cast<size_t>(node)] =
        Subtract(requested_[static_cast<size_t>(node)], sizing_[pod].requests);
    node_of_[pod] = -1;
    pending_.push_back(pod);
    last_removal_ = minute_;
  }

  void Assign(size_t pod, size_t node, const PodSizing& sizing) {
    sizing_[pod] = sizing;
    node_of_[pod] = static_cast<int>(node);
    pods_by_node_[node].push_back(pod);
    requested_[node] = Add(requested_[node], sizing.requests);
  }

  NodeFootprint Footprint(size_t node, absl::Time now) {
    NodeFootprint footprint;
    footprint.name = absl::StrCat("node-", node);
    footprint.allocatable = nodes_[node].allocatable;
    footprint.max_pods = config_.max_pods_per_node;
    footprint.cordoned = nodes_[node].cordon.cordoned;
    footprint.cordon_reason = nodes_[node].cordon.reason;
    // Only headroom-extender scores by load; kube-scheduler's own scoring does not.
    footprint.load = policy_->UsesExtender() ? nodes_[node].load : 0;
    if (policy_->UsesExtender()) {
      policy_->CountPods(pods_by_node_[node], now, footprint);
      return footprint;
    }
    for (size_t pod : pods_by_node_[node]) footprint.Add({sizing_[pod].requests, {}});
    return footprint;
  }

  // The best node for `pod` at `sizing` (kube-scheduler's fit, and the extender's when the
  // policy uses it), skipping `exclude`; -1 when none fits.
  int FindNode(size_t pod, const PodSizing& sizing, absl::Time now, int exclude = -1) {
    const PodFootprint candidate = policy_->UsesExtender() ? policy_->Footprint(pod, sizing, now)
                                                           : PodFootprint{sizing.requests, {}};
    const ScoringConfig& scoring = config_.scoring;
    int best = -1;
    int best_score = -1;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (static_cast<int>(n) == exclude) continue;
      if (nodes_[n].memory_pressure_until > minute_) continue;
      if (static_cast<int>(pods_by_node_[n].size()) >= config_.max_pods_per_node) continue;
      if (!FitsIn(Add(requested_[n], sizing.requests), nodes_[n].allocatable)) continue;
      const NodeFootprint footprint = Footprint(n, now);
      if (policy_->UsesExtender() && !FitsProjected(footprint, candidate)) continue;
      const int score = ScoreNode(footprint, candidate, scoring);
      if (score > best_score) {
        best = static_cast<int>(n);
        best_score = score;
      }
    }
    return best;
  }

  void PlacePending(absl::Time now) {
    std::vector<size_t> still_pending;
    for (size_t pod : pending_) {
      const PodSizing sizing = policy_->Admission(pod, now);
      int node = FindNode(pod, sizing, now);
      if (node < 0 && config_.autoscale &&
          FitsIn(sizing.requests, config_.node_shape.allocatable)) {
        AddNode();
        node = static_cast<int>(nodes_.size()) - 1;
      }
      if (node < 0) {
        still_pending.push_back(pod);
        continue;
      }
      Assign(pod, static_cast<size_t>(node), sizing);
    }
    pending_ = std::move(still_pending);
  }

  void ShareAndObserve(absl::Time now) {
    const size_t m = step_index_;
    minute_used_cpu_ = 0;
    minute_used_memory_ = 0;
    minute_demand_ = 0;
    minute_shortfall_ = 0;
    minute_stall_ = 0;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const std::vector<size_t>& list = pods_by_node_[n];
      std::vector<int64_t> demands;
      std::vector<int64_t> weights;
      int64_t node_demand = 0;
      for (size_t pod : list) {
        demands.push_back(usage_.cpu_millis[pod][m]);
        weights.push_back(sizing_[pod].requests.cpu_millis);
        node_demand += demands.back();
      }
      const std::vector<int64_t> granted =
          ShareCpu(nodes_[n].allocatable.cpu_millis, demands, weights);
      for (size_t i = 0; i < list.size(); ++i) {
        const int64_t memory = usage_.memory_bytes[list[i]][m];
        const int64_t limit = sizing_[list[i]].memory_limit_bytes;
        const double stall = MemoryStallShare(memory,
                                              MemoryHigh(sizing_[list[i]].requests.memory_bytes,
                                                         limit, config_.memory_throttling_factor),
                                              limit);
        const auto stalled_micros = static_cast<uint64_t>(stall * 60e6);
        // One sample a minute, as headroom-nri and the recommenders' metrics take them.
        for (int k = step_ - 1; k >= 0; --k) {
          const absl::Time at = now - absl::Minutes(k);
          policy_->Observe(list[i], at, demands[i], granted[i], weights[i], memory);
          if (policy_->ObserveMemoryStall(list[i], at - absl::Minutes(1), at, stalled_micros)) {
            Count(run_.summary.memory_pressure_records);
            RaiseRuntimeLimit(list[i], at);
          }
        }
        minute_stall_ += stall;
        minute_used_cpu_ += granted[i];
        minute_used_memory_ += memory;
        minute_shortfall_ += demands[i] - granted[i];
      }
      minute_demand_ += node_demand;
      const double cpus = static_cast<double>(nodes_[n].allocatable.cpu_millis) / 1000;
      nodes_[n].load +=
          LoadAlpha(step_) * (static_cast<double>(node_demand) / 1000 / cpus - nodes_[n].load);
    }
    minute_memory_demand_ = minute_used_memory_;
    // A pending pod's demand is not served at all.
    for (size_t pod : pending_) {
      minute_demand_ += usage_.cpu_millis[pod][m];
      minute_shortfall_ += usage_.cpu_millis[pod][m];
      minute_memory_demand_ += usage_.memory_bytes[pod][m];
    }
  }

  // A memory limit raised at the runtime (no API resize, no room needed on the node): it
  // takes effect from the next minute.
  void RaiseRuntimeLimit(size_t pod, absl::Time now) {
    const std::optional<int64_t> limit = policy_->RuntimeMemoryLimit(pod, now, sizing_[pod]);
    if (limit.has_value() && *limit > sizing_[pod].memory_limit_bytes) {
      sizing_[pod].memory_limit_bytes = *limit;
    }
  }

  void KillOverLimit(absl::Time now) {
    for (size_t n = 0; n < nodes_.size(); ++n) {
      for (size_t pod : std::vector<size_t>(pods_by_node_[n])) {
        const int64_t memory = usage_.memory_bytes[pod][step_index_];
        if (memory <= sizing_[pod].memory_limit_bytes) continue;
        Count(run_.summary.oom_kills);
        Resize(pod, policy_->AfterOom(pod, now, memory, sizing_[pod]));
      }
    }
  }

  void RelieveMemoryPressure() {
    const int m = minute_;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      std::vector<MemoryPressurePod> candidates;
      int64_t total = 0;
      for (size_t pod : pods_by_node_[n]) {
        const int64_t memory = usage_.memory_bytes[pod][step_index_];
        total += memory;
        // OpenB's latency-sensitive pods get a higher priority than best-effort ones.
        candidates.push_back({{"sim", pods_[pod].name, ""},
                              pods_[pod].qos == "BE" ? 0 : 1000,
                              memory,
                              sizing_[pod].requests.memory_bytes});
      }
      if (total <= nodes_[n].allocatable.memory_bytes) continue;
      nodes_[n].memory_pressure_until = m + kPressureTransitionMinutes;
      const std::vector<size_t> list = pods_by_node_[n];
      for (size_t index : RankForMemoryPressure(candidates)) {
        if (total <= nodes_[n].allocatable.memory_bytes) break;
        total -= candidates[index].memory_usage_bytes;
        Count(run_.summary.pressure_evictions);
        Remove(list[index]);
      }
    }
  }

  void UpdateCordons(absl::Time now) {
    static const LoadCordonConfig kCordon;
    for (Node& node : nodes_) {
      const int cpus = static_cast<int>(node.allocatable.cpu_millis / 1000);
      node.cordon = NextLoadCordonState(node.cordon, LoadObservation{now, node.load * cpus, cpus},
                                        now, kCordon);
    }
  }

  // The larger of the node's CPU and memory shares in requests (the autoscaler's utilisation).
  double RequestShare(size_t node) const {
    return std::max(static_cast<double>(requested_[node].cpu_millis) /
                        static_cast<double>(nodes_[node].allocatable.cpu_millis),
                    static_cast<double>(requested_[node].memory_bytes) /
                        static_cast<double>(nodes_[node].allocatable.memory_bytes));
  }

  // The Cluster Autoscaler's scale-down with its defaults, checked every minute (its scan
  // interval is 10 s): a node is unneeded while its requests use less than half of its CPU and
  // memory; once unneeded for 10 minutes, an empty node goes (up to 10 at once) and the least
  // used non-empty node is drained (one at a time) if all its pods fit elsewhere, as they would
  // be recreated (at their admission sizing); a node whose pods do not fit starts over. Nothing
  // goes while pods are pending or for 10 minutes after a scale-up.
  void ScaleDown(absl::Time now) {
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (RequestShare(n) >= kScaleDownUtilisationThreshold) {
        nodes_[n].unneeded_since = -1;
      } else if (nodes_[n].unneeded_since < 0) {
        nodes_[n].unneeded_since = minute_;
      }
    }
    if (!pending_.empty() || minute_ - last_node_added_ < kScaleDownDelayAfterAddMinutes) return;
    const size_t floor = static_cast<size_t>(config_.initial_nodes);
    const auto removable = [&](size_t n) {
      return nodes_[n].unneeded_since >= 0 &&
             minute_ - nodes_[n].unneeded_since >= kScaleDownUnneededMinutes;
    };
    RemoveEmptyNodes(kMaxEmptyBulkDelete, removable);
    if (nodes_.size() <= floor) return;
    int candidate = -1;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      if (removable(n) && (candidate < 0 || RequestShare(n) < RequestShare(candidate))) {
        candidate = static_cast<int>(n);
      }
    }
    if (candidate < 0) return;
    if (!Drain(static_cast<size_t>(candidate), now)) {
      nodes_[static_cast<size_t>(candidate)].unneeded_since = -1;
    }
  }

  // Karpenter's consolidation with a NodePool's defaults (consolidationPolicy
  // WhenEmptyOrUnderutilized, consolidateAfter 0s, a disruption budget of 10% of the nodes),
  // its disruption controller's pass every minute here (every 10 s there): empty nodes go
  // together within the budget; otherwise one non-empty node is drained if all its pods fit on
  // the others (as the Cluster Autoscaler's drain above), trying the nodes by disruption cost —
  // about one per pod, so the fewest pods first, then the oldest node. No utilisation threshold:
  // any node whose pods fit elsewhere is a candidate. A node whose pods did not fit is not tried
  // again for 10 minutes, or until a pod leaves a node (a bound on the simulator's work; Karpenter
  // skips a pass while the cluster has not changed). With one node shape there is no replacement by
  // a cheaper node. Nothing goes while pods are pending.
  void Consolidate(absl::Time now) {
    if (!pending_.empty()) return;
    const size_t floor = static_cast<size_t>(config_.initial_nodes);
    if (nodes_.size() <= floor) return;
    const int budget =
        std::max(1, static_cast<int>(std::ceil(0.1 * static_cast<double>(nodes_.size()))));
    const int removed = RemoveEmptyNodes(budget, [](size_t) { return true; });
    if (removed > 0 || nodes_.size() <= floor) return;
    std::vector<size_t> order;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      const int failed_at = nodes_[n].consolidation_failed_at;
      if (minute_ - failed_at >= kConsolidationRetryMinutes || last_removal_ >= failed_at) {
        order.push_back(n);
      }
    }
    std::stable_sort(order.begin(), order.end(), [this](size_t a, size_t b) {
      return pods_by_node_[a].size() < pods_by_node_[b].size();
    });
    for (size_t n : order) {
      if (Drain(n, now)) return;
      nodes_[n].consolidation_failed_at = minute_;
    }
  }

  // Removes up to `limit` empty nodes that `eligible` accepts, the newest first, keeping the
  // configured initial nodes; returns how many went.
  int RemoveEmptyNodes(int limit, const std::function<bool(size_t)>& eligible) {
    const size_t floor = static_cast<size_t>(config_.initial_nodes);
    int removed = 0;
    for (size_t n = nodes_.size(); n-- > 0;) {
      if (pods_by_node_[n].empty() && eligible(n) && nodes_.size() > floor && removed < limit) {
        RemoveNode(n);
        ++removed;
      }
    }
    return removed;
  }

  // Moves every pod of `node` elsewhere, recreated at its admission sizing, one by one, and
  // removes the node; undoes everything and returns false if one does not fit.
  bool Drain(size_t node, absl::Time now) {
    std::vector<std::pair<size_t, PodSizing>> moved;  // pod, its sizing before the move
    for (size_t pod : std::vector<size_t>(pods_by_node_[node])) {
      const PodSizing recreated = policy_->Admission(pod, now);
      const int target = FindNode(pod, recreated, now, static_cast<int>(node));
      if (target < 0) {
        for (auto it = moved.rbegin(); it != moved.rend(); ++it) {
          MoveTo(it->first, node, it->second);
        }
        return false;
      }
      moved.push_back({pod, sizing_[pod]});
      MoveTo(pod, static_cast<size_t>(target), recreated);
    }
    for (size_t i = 0; i < moved.size(); ++i) Count(run_.summary.consolidation_moves);
    RemoveNode(node);
    return true;
  }

  void MoveTo(size_t pod, size_t node, const PodSizing& sizing) {
    const size_t from = static_cast<size_t>(node_of_[pod]);
    std::vector<size_t>& list = pods_by_node_[from];
    list.erase(std::find(list.begin(), list.end(), pod));
    requested_[from] = Subtract(requested_[from], sizing_[pod].requests);
    Assign(pod, node, sizing);
  }

  void Account(int m) {
    TimePoint point;
    point.minute = m;
    for (size_t n = 0; n < nodes_.size(); ++n) {
      point.requested_cpu_millis += requested_[n].cpu_millis;
      point.requested_memory_bytes += requested_[n].memory_bytes;
      point.allocatable_cpu_millis += nodes_[n].allocatable.cpu_millis;
      point.allocatable_memory_bytes += nodes_[n].allocatable.memory_bytes;
    }
    point.used_cpu_millis = minute_used_cpu_;
    point.used_memory_bytes = minute_used_memory_;
    point.demand_cpu_millis = minute_demand_;
    point.demand_memory_bytes = minute_memory_demand_;
    point.nodes = static_cast<int>(nodes_.size());
    point.pending = static_cast<int>(pending_.size());
    if (m == 0 || Crossed(m, config_.series_every_minutes)) run_.series.push_back(point);
    if (!counting_) return;
    PolicySummary& s = run_.summary;
    // Every sum is weighted by the step's minutes.
    const double w = step_;
    counted_minutes_ += step_;
    s.requested_cpu_millis += w * static_cast<double>(point.requested_cpu_millis);
    s.requested_memory_bytes += w * static_cast<double>(point.requested_memory_bytes);
    s.used_cpu_millis += w * static_cast<double>(point.used_cpu_millis);
    s.used_memory_bytes += w * static_cast<double>(point.used_memory_bytes);
    s.demand_cpu_millis += w * static_cast<double>(point.demand_cpu_millis);
    s.allocatable_cpu_millis += w * static_cast<double>(point.allocatable_cpu_millis);
    s.allocatable_memory_bytes += w * static_cast<double>(point.allocatable_memory_bytes);
    s.nodes_average += w * point.nodes;
    s.nodes_max = std::max(s.nodes_max, point.nodes);
    s.cpu_shortfall_core_hours += w * static_cast<double>(minute_shortfall_) / 1000 / 60;
    s.memory_stall_pod_hours += w * minute_stall_ / 60;
    s.pending_pod_hours += w * static_cast<double>(point.pending) / 60;
  }

  void Summarise() {
    PolicySummary& s = run_.summary;
    s.nodes_final = static_cast<int>(nodes_.size());
    const double shortfall_core_minutes = s.cpu_shortfall_core_hours * 60;
    s.cpu_utilisation = s.requested_cpu_millis > 0 ? s.used_cpu_millis / s.requested_cpu_millis : 0;
    s.memory_utilisation =
        s.requested_memory_bytes > 0 ? s.used_memory_bytes / s.requested_memory_bytes : 0;
    s.cpu_shortfall_fraction =
        s.demand_cpu_millis > 0 ? shortfall_core_minutes * 1000 / s.demand_cpu_millis : 0;
    if (counted_minutes_ > 0) {
      const double minutes = static_cast<double>(counted_minutes_);
      for (double* average :
           {&s.requested_cpu_millis, &s.requested_memory_bytes, &s.used_cpu_millis,
            &s.used_memory_bytes, &s.demand_cpu_millis, &s.allocatable_cpu_millis,
            &s.allocatable_memory_bytes, &s.nodes_average}) {
        *average /= minutes;
      }
    }
  }

  const std::vector<PodSpec>& pods_;
  const UsageTraces& usage_;
  const SimulationConfig& config_;
  std::unique_ptr<SizingPolicy> policy_;
  std::vector<Node> nodes_;
  std::vector<std::vector<size_t>> pods_by_node_;
  std::vector<ResourceAmounts> requested_;  // per node
  std::vector<int> node_of_;                // per pod; -1 when pending
  std::vector<bool> gone_;                  // per pod: its trace has ended
  std::vector<PodSizing> sizing_;           // per pod
  std::vector<size_t> pending_;
  PolicyRun run_;
  const int step_;         // minutes per step
  size_t step_index_ = 0;  // the step being simulated
  int minute_ = 0;
  int last_node_added_ = -1'000'000;
  int last_removal_ = -1'000'000;  // minute a pod last left a node
  bool counting_ = false;
  int64_t counted_minutes_ = 0;
  int64_t minute_used_cpu_ = 0;
  int64_t minute_used_memory_ = 0;
  int64_t minute_demand_ = 0;
  int64_t minute_memory_demand_ = 0;
  int64_t minute_shortfall_ = 0;
  double minute_stall_ = 0;  // the step's pods' memory stall shares, summed
};

}  // namespace

absl::Status SimulationConfig::Validate(int minutes) const {
  if (minutes <= 0) return absl::InvalidArgumentError("the simulation needs at least one minute");
  if (warmup_minutes < 0 || warmup_minutes >= minutes) {
    return absl::InvalidArgumentError(absl::StrCat(
        "warm-up (", warmup_minutes, " min) must be shorter than the run (", minutes, " min)"));
  }
  if (node_shape.allocatable.cpu_millis < 1000 || node_shape.allocatable.memory_bytes <= 0) {
    return absl::InvalidArgumentError("the node shape needs at least one CPU and some memory");
  }
  if (initial_nodes < 0) return absl::InvalidArgumentError("initial nodes must not be negative");
  if (!autoscale && initial_nodes == 0) {
    return absl::InvalidArgumentError("without autoscaling the cluster needs initial nodes");
  }
  if (!(memory_limit_ratio >= 1 && memory_limit_ratio <= 100)) {
    return absl::InvalidArgumentError("the memory limit ratio must be between 1 and 100");
  }
  if (!(memory_throttling_factor >= 0 && memory_throttling_factor <= 1)) {
    return absl::InvalidArgumentError("the memory throttling factor must be between 0 and 1");
  }
  if (series_every_minutes < 1 || max_pods_per_node < 1 || policies.empty()) {
    return absl::InvalidArgumentError("series interval, pods per node and policies must be set");
  }
  return absl::OkStatus();
}

OracleSummary OracleNodes(const std::vector<PodSpec>& pods, const UsageTraces& usage,
                          const SimulationConfig& config) {
  OracleSummary oracle;
  const int step = usage.step_minutes;
  const ResourceAmounts& node = config.node_shape.allocatable;
  double counted = 0;
  for (int s = 0; s < usage.steps(); ++s) {
    const int m = s * step;
    int64_t cpu = 0;
    int64_t memory = 0;
    int alive = 0;
    for (size_t p = 0; p < pods.size(); ++p) {
      if (pods[p].start_minute > m || pods[p].end_minute <= m) continue;
      ++alive;
      cpu += usage.cpu_millis[p][static_cast<size_t>(s)];
      memory += usage.memory_bytes[p][static_cast<size_t>(s)];
    }
    // A node holds at most max_pods_per_node pods, however little they use.
    const int64_t nodes =
        std::max({(cpu + node.cpu_millis - 1) / node.cpu_millis,
                  (memory + node.memory_bytes - 1) / node.memory_bytes,
                  int64_t{(alive + config.max_pods_per_node - 1) / config.max_pods_per_node}});
    if (m < config.warmup_minutes) continue;
    counted += step;
    oracle.nodes_average += static_cast<double>(nodes) * step;
    oracle.nodes_max = std::max(oracle.nodes_max, static_cast<int>(nodes));
    oracle.pod_days += static_cast<double>(alive) * step / (24 * 60);
  }
  if (counted > 0) oracle.nodes_average /= counted;
  return oracle;
}

PolicyRun SimulatePolicy(PolicyKind kind, const std::vector<PodSpec>& pods,
                         const UsageTraces& usage, const SimulationConfig& config,
                         std::function<void()> minute_done) {
  ClusterRun run(kind, pods, usage, config);
  return run.Run(minute_done);
}

SimulationResult Simulate(const std::vector<PodSpec>& pods, const UsageTraces& usage,
                          const SimulationConfig& config,
                          const std::function<void(double)>& progress) {
  SimulationResult result;
  result.pods = static_cast<int>(pods.size());
  result.minutes = usage.minutes;
  result.oracle = OracleNodes(pods, usage, config);
  result.runs.resize(config.policies.size());
  std::atomic<int64_t> done{0};
  const int64_t total = static_cast<int64_t>(usage.minutes) * config.policies.size();
  // Two workers share the policies (the project's machines have two cores).
  std::atomic<size_t> next{0};
  const auto worker = [&] {
    for (size_t i = next++; i < config.policies.size(); i = next++) {
      result.runs[i] = SimulatePolicy(config.policies[i], pods, usage, config,
                                      [&done] { done.fetch_add(1, std::memory_order_relaxed); });
    }
  };
  const size_t threads = std::min<size_t>(2, config.policies.size());
  std::vector<std::thread> workers;
  for (size_t t = 0; t < threads; ++t) workers.emplace_back(worker);
  while (progress) {
    const int64_t finished = done.load(std::memory_order_relaxed);
    progress(static_cast<double>(finished) / static_cast<double>(total));
    if (finished >= total) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  for (std::thread& t : workers) t.join();
  return result;
}

}  // namespace headroom::sim
