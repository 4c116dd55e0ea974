#pragma once

// What headroom-nri knows on its node: the containers the runtime told it about, and per
// workload container ("ns/Kind/name#container") the usage statistics, OOM kills and the CPU
// request the last optimisation sized. Thread-safe: NRI handlers, the sampler and the reporter
// share it. Statistics are keyed by workload, not container ID, so a restarted container (or a
// new replica) inherits what its predecessors taught.

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kubelet-hook/container_policy.h"
#include "shared/eviction_ranking.h"
#include "shared/footprint.h"
#include "shared/guard_rails.h"
#include "shared/memory_pressure.h"
#include "shared/node_headroom.h"
#include "shared/usage_stats.h"

namespace headroom::nri {

struct TrackedContainer {
  std::string id;
  std::string name;
  std::string pod_id;
  std::string pod_uid;
  std::string pod_namespace;
  std::string pod_name;
  std::string workload_key;  // "ns/Kind/name"
  std::string stats_key;     // "ns/Kind/name#container"
  std::string cgroups_path;
  RuntimeResources declared;  // what kubelet asked for, before headroom (the guard rails' floor)
  RuntimeResources current;   // what the runtime has set now, our adjustments included
  bool daemonset = false;
  bool enforce = true;
  bool excluded = false;
  // The step the pod was admitted with (headroom.dev/admitted-mode, else its own mode, else
  // --default-mode); the extender's word on it now (NodeState::PodMode) comes first.
  AdoptionStep step = AdoptionStep::kInPlace;
  bool allow_below_declared = false;  // headroom.dev/allow-below-declared or the default
  WorkloadTuning tuning;              // the workload's bounds, margins and resources kept
  EvictionRanking ranking = EvictionRanking::kLow;  // from annotations and the owner kind
  ShrinkTimes last_shrink;                          // when each value last went down
  // Sampler bookkeeping (carried across re-tracking by CarrySamplerState).
  // OOM kills already accounted for; nullopt: unknown (a container first seen in Synchronize,
  // whose cgroup may count kills from before we watched), so the first reading is a baseline.
  std::optional<uint64_t> oom_kills_seen;
  std::optional<absl::Time> last_cpu_at;
  uint64_t last_cpu_nanos = 0;
  std::optional<uint64_t> last_waiting_micros;
  std::optional<uint64_t> last_memory_waiting_micros;  // memory.pressure "some" total
  MemoryPressureRun memory_pressure;                   // the current stretch of memory stalls
  int64_t memory_usage_bytes = 0;
};

// Copies the sampler's bookkeeping and the guard rails' memory (declared values, last shrinks)
// from `from` (the container as tracked so far) into `to` (the same container described afresh
// by the runtime).
void CarrySamplerState(const TrackedContainer& from, TrackedContainer& to);

// What a restarted plugin must remember of a container it adjusted: kubelet's declared values
// (the runtime shows headroom's) and when each value last shrank (the step bound).
struct ContainerRecord {
  RuntimeResources declared;
  ShrinkTimes last_shrink;

  bool operator==(const ContainerRecord&) const = default;
};

// The part of a workload container's statistics that must survive a restart.
struct WorkloadRecord {
  std::optional<absl::Time> first_sample;  // the warm-up counts from here
  // When a container of it last ran on the node (the idle retention counts from here).
  std::optional<absl::Time> last_live;
  std::vector<ContainerUsageStats::OomRecord> ooms;
  std::vector<ContainerUsageStats::OomRecord> pressures;  // sustained memory stalls
  std::optional<int64_t> sized_cpu_millis;
  std::optional<MemoryStats> last_memory;  // the last snapshot, a floor until samples return
  std::optional<CpuStats> last_cpu;
};

// How long the node keeps the statistics of a workload container none of whose containers
// runs on it (a Deployment that moved away, a finished Job's pod), and how many workload
// containers it keeps at most (workload_budget.h derives that from the memory budget). What is
// forgotten is not lost: the extender keeps each workload's history across the cluster, and a
// container the node no longer knows starts from its declared values, as a new one does.
struct WorkloadRetention {
  absl::Duration idle = absl::Hours(24);
  size_t max_workloads = 2000;
};

// What one ForgetWorkloads round dropped, and what it had to keep above the cap because a
// running container uses it.
struct ForgottenWorkloads {
  size_t idle = 0;         // idle longer than the retention
  size_t over_budget = 0;  // idle, but the oldest beyond the cap
  size_t live_over_budget = 0;

  size_t total() const { return idle + over_budget; }
};

class NodeState {
 public:
  explicit NodeState(UsageStatsConfig config = {}) : config_(config) {}

  // Tracks `container` (or updates it); another container of its name in its pod (the exited
  // one a restart replaces) is no longer tracked.
  void Upsert(const TrackedContainer& container);
  void Remove(const std::string& id);
  // Forgets every container of the pod (a RemoveContainer the plugin missed); how many.
  size_t RemovePod(const std::string& pod_id);
  std::optional<TrackedContainer> Get(const std::string& id) const;
  std::vector<TrackedContainer> Containers() const;
  // Applies `update` to the tracked container `id` if it is still there.
  template <typename F>
  void Mutate(const std::string& id, F&& update) {
    absl::MutexLock lock(&mu_);
    auto it = containers_.find(id);
    if (it != containers_.end()) update(it->second);
  }

  void AddCpuSample(const std::string& stats_key, absl::Time at, int64_t millis);
  void AddMemorySample(const std::string& stats_key, absl::Time at, int64_t bytes);
  void RecordOom(const std::string& stats_key, absl::Time at, int64_t bytes);
  // The memory in use at the end of a sustained memory stall (shared/memory_pressure.h).
  void RecordPressure(const std::string& stats_key, absl::Time at, int64_t bytes);
  void SetSizedCpu(const std::string& stats_key, int64_t millis);

  // Memory history: the live statistics, else the checkpointed snapshot, each raised by OOM
  // kills; nullopt when the workload container has none of these.
  std::optional<MemoryStats> MemoryHistory(const std::string& stats_key, absl::Time now) const;
  std::optional<CpuStats> CpuHistory(const std::string& stats_key, absl::Time now) const;
  std::optional<int64_t> SizedCpu(const std::string& stats_key) const;
  // How long the workload container has been observed (zero when never).
  absl::Duration History(const std::string& stats_key, absl::Time now) const;
  // The extender says the workload has been observed for `history` across its replicas:
  // the warm-up counts from the earlier of that and this node's first sample. Only workload
  // containers this node already tracks are touched.
  void MergeClusterHistory(const std::string& stats_key, absl::Duration history, absl::Time now);

  // Checkpoint support: the workload records, and per tracked container what kubelet declared
  // and when its values last shrank (so a restarted plugin keeps the floors and the step
  // bound of containers it already adjusted).
  std::map<std::string, WorkloadRecord> Records(absl::Time now) const;
  std::map<std::string, ContainerRecord> ContainerRecords() const;
  void Restore(const std::map<std::string, WorkloadRecord>& records);
  void RestoreContainers(std::map<std::string, ContainerRecord> containers);
  // What was remembered of container `id` before a restart; nullopt when nothing.
  std::optional<ContainerRecord> RestoredContainer(const std::string& id) const;
  // After a whole Synchronize every running container is tracked: the records of the others
  // (containers gone while the plugin was down) are dropped. Returns how many.
  size_t ForgetRestoredContainers();

  size_t workload_count() const;

  // The extender's word on each reported pod's adoption step (ReportReply.pod_modes), by pod
  // UID; every reply replaces the last. A pod it does not name keeps its admitted step.
  void SetPodModes(absl::flat_hash_map<std::string, AdoptionStep> modes);
  std::optional<AdoptionStep> PodMode(const std::string& pod_uid) const;

  // Marks the workload containers of the tracked containers live at `now`, then drops those
  // idle for longer than `retention.idle`, then the longest idle until at most
  // `retention.max_workloads` remain (one a running container uses is never dropped).
  ForgottenWorkloads ForgetWorkloads(absl::Time now, const WorkloadRetention& retention);

  // The node's pods measured together (shared/node_headroom.h): `pods[i]` lists the stats
  // keys of pod i's containers, empty for a pod that is not sized. A pod whose container has
  // been observed for less than `min_history` is not measured.
  NodeMeasurement MeasurePods(const std::vector<std::vector<std::string>>& pods, absl::Time now,
                              absl::Duration min_history) const;

  // The last measurement of the sized pods, for the report: the pod IDs in it and their
  // shared headroom.
  struct SharedHeadroomRecord {
    std::set<std::string> pod_ids;
    ResourceAmounts shared_headroom;
    absl::Time at;
  };
  void SetSharedHeadroom(std::optional<SharedHeadroomRecord> record);
  std::optional<SharedHeadroomRecord> SharedHeadroom() const;

 private:
  struct Workload {
    explicit Workload(const UsageStatsConfig& config) : stats(config) {}
    ContainerUsageStats stats;
    std::optional<int64_t> sized_cpu_millis;
    std::optional<MemoryStats> restored_memory;
    std::optional<CpuStats> restored_cpu;
    // headroom.dev/base-percentile of the workload's pods (the last container tracked).
    std::optional<double> base_percentile;
    // When a tracked container last used it; nullopt until the first ForgetWorkloads (a new
    // workload container, or one restored from a checkpoint without the field).
    std::optional<absl::Time> last_live;
  };
  Workload& WorkloadFor(const std::string& stats_key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::optional<MemoryStats> MemoryHistoryLocked(const Workload& workload, absl::Time now) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  UsageStatsConfig config_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, TrackedContainer> containers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, Workload> workloads_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, ContainerRecord> restored_containers_ ABSL_GUARDED_BY(mu_);
  std::optional<SharedHeadroomRecord> shared_headroom_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, AdoptionStep> pod_modes_ ABSL_GUARDED_BY(mu_);
};

// `container` as the node's optimisation and its report read it: its workload's history on
// this node, the CPU request the runtime shows (from shares) and the memory limit standing in
// for the memory request (the runtime shows none), the memory in use. Memory statistics are
// present once the container peaked or was OOM-killed (an OOM kill in its first seconds still
// sizes the workload's next pod).
ContainerDemand TrackedDemand(const NodeState& state, const TrackedContainer& container,
                              absl::Time now);

// The plan for `container` from its workload's statistics on this node (container_policy.h),
// against its current resources; `running` is false for a container being created (no shrink
// steps). The plugin plans at NRI events, the sampler in the periodic round.
ResourcePlan PlanTrackedContainer(const NodeState& state, const TrackedContainer& container,
                                  const GuardRailConfig& guard, absl::Time now,
                                  bool running = true);

}  // namespace headroom::nri
