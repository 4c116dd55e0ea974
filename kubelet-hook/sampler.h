#pragma once

// headroom-nri's periodic work, off the NRI handlers' path:
// - PollOoms (every second by default): takes the OOM kills the kernel logged (kernel_oom_log.h)
//   or, without access to the kernel log, reads each container's oom_kill counter (which misses
//   a container whose cgroup is deleted between two polls); each kill records the memory at OOM
//   for its workload container, so the restarted container's CreateContainer gets
//   limit = 2 x max(7-day max, memory at OOM); SettleLoggedOoms does the kernel-log half at
//   once, for the plugin to call before it replaces or forgets a container (a restart is often
//   created within a second of the kill, before the next poll);
// - Sample (every 60 s by default): reads every container's cgroup and feeds the statistics
//   (CPU PSI-adjusted where the cgroup has cpu.pressure), and records a container's memory in
//   use when its memory stall (memory.pressure) stayed high (shared/memory_pressure.h): the
//   guard rails then raise its memory limit a step above it before an OOM kill;
// - Optimize: runs the per-node optimisation (shared/node_optimizer.h) over the node's pods,
//   stores each container's sized CPU request, and returns the updates (CPU weight, no quota,
//   memory limit; through the guard rails) that differ from what the runtime has, for
//   UpdateContainers.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "kubelet-hook/cgroup_reader.h"
#include "kubelet-hook/kernel_oom_log.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "shared/guard_rails.h"
#include "shared/memory_pressure.h"
#include "shared/node_optimizer.h"
#include "shared/oom_policy.h"

namespace headroom::nri {

struct SamplerStats {
  uint64_t samples = 0;
  // Of those, by where their pressure came from (cgroup_reader.h's PsiSource: none, v2, hybrid).
  uint64_t samples_by_psi[3] = {0, 0, 0};
  uint64_t read_errors = 0;
  uint64_t ooms = 0;
  uint64_t memory_pressure_records = 0;  // sustained memory stalls recorded
};

struct OptimizeOutcome {
  napi::UpdateContainersRequest updates;
  // One per update, in the same order: the plan (its shrink times are remembered once the
  // runtime accepts it) and "ns/pod container c: old -> new; reasons" for the log.
  struct Change {
    std::string container_id;
    ResourcePlan plan;
    std::string description;
  };
  std::vector<Change> changes;
  size_t pods = 0;
  size_t optimized_containers = 0;
  // "ns/name: reason"; the extender's actuator decides, with the disruption policy.
  std::vector<std::string> eviction_candidates;
};

// What the node loop (node_loop.h) asks of the sampler; a fake in tests.
class NodeSampling {
 public:
  virtual ~NodeSampling() = default;
  // The number of OOM kills recorded since the last poll.
  virtual int PollOoms(absl::Time now) = 0;
  virtual void Sample(absl::Time now) = 0;
  virtual OptimizeOutcome Optimize(absl::Time now) = 0;
  virtual SamplerStats stats() const = 0;
};

// Thread-safe: the OOM poller and the periodic round call it from two threads.
class Sampler : public NodeSampling {
 public:
  // `kills` may be null: then OOM kills come from the cgroups' counters.
  Sampler(NodeState& state, const CgroupReader& cgroups, const GuardRailConfig& guard,
          ResourceAmounts allocatable, OomKillSource* kills = nullptr,
          MemoryPressureConfig pressure = {});

  // The number of OOM kills recorded (a kill within the cooldown of the last one is logged,
  // not recorded), counting those SettleLoggedOoms recorded since the last poll: the caller
  // reports them at once.
  int PollOoms(absl::Time now) override;
  // The kills the kernel has logged so far, recorded now (none without a kernel log: a cgroup
  // counter is read by PollOoms only). The NRI plugin calls it before it replaces a container's
  // record (a restart) or forgets one, so a kill is matched to the container it killed.
  int SettleLoggedOoms(absl::Time now);
  void Sample(absl::Time now) override;
  OptimizeOutcome Optimize(absl::Time now) override;
  SamplerStats stats() const override;

 private:
  // Each: whether an OOM kill was recorded.
  bool CheckOomCounter(const TrackedContainer& container, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(oom_mu_);
  bool RecordOomKill(const TrackedContainer& container, absl::Time now)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(oom_mu_);
  // Folds a sample's memory stall into the container's stretch (shared/memory_pressure.h);
  // records the memory in use when the stretch is sustained. Returns the updated stretch.
  MemoryPressureRun ObservePressure(const TrackedContainer& container, const CgroupSample& sample,
                                    absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  int RecordLoggedKills(absl::Time now) ABSL_EXCLUSIVE_LOCKS_REQUIRED(oom_mu_);

  NodeState& state_;
  const CgroupReader& cgroups_;
  const GuardRailConfig guard_;
  ResourceAmounts allocatable_;
  OomKillSource* kills_;
  const MemoryPressureConfig pressure_;
  // Two locks, so that an NRI handler settling OOM kills never waits behind a whole sample.
  mutable absl::Mutex oom_mu_;
  OomCooldownTracker oom_cooldown_ ABSL_GUARDED_BY(oom_mu_);
  uint64_t ooms_ ABSL_GUARDED_BY(oom_mu_) = 0;
  int settled_since_poll_ ABSL_GUARDED_BY(oom_mu_) = 0;
  mutable absl::Mutex mu_;
  SamplerStats stats_ ABSL_GUARDED_BY(mu_);  // all but ooms
};

// The node's allocatable from /proc (CPUs online x 1000 millicores, MemTotal); the flags
// override it with kubelet's real allocatable when known.
ResourceAmounts HostCapacity();

}  // namespace headroom::nri
