#include "kubelet-hook/sampler.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "io/atomic_file.h"
#include "kubelet-hook/container_policy.h"
#include "kubelet-hook/nri_resources.h"
#include "shared/log_text.h"
#include "shared/psi.h"
#include "shared/quantity.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

Sampler::Sampler(NodeState& state, const CgroupReader& cgroups, const GuardRailConfig& guard,
                 ResourceAmounts allocatable, OomKillSource* kills, MemoryPressureConfig pressure)
    : state_(state),
      cgroups_(cgroups),
      guard_(guard),
      allocatable_(allocatable),
      kills_(kills),
      pressure_(pressure) {}

MemoryPressureRun Sampler::ObservePressure(const TrackedContainer& container,
                                           const CgroupSample& sample, absl::Time now) {
  MemoryPressureRun run = container.memory_pressure;
  // Both reads needed, and a counter that went backwards is a recreated cgroup: no interval.
  if (!container.last_cpu_at.has_value() || !container.last_memory_waiting_micros.has_value() ||
      !sample.memory_waiting_micros.has_value() ||
      *sample.memory_waiting_micros < *container.last_memory_waiting_micros) {
    return MemoryPressureRun{};
  }
  const MemoryPressureObservation observed = ObserveMemoryPressure(
      run, *container.last_cpu_at, now,
      *sample.memory_waiting_micros - *container.last_memory_waiting_micros, pressure_);
  if (observed.sustained && sample.memory_working_set_bytes > 0) {
    state_.RecordPressure(container.stats_key, now, sample.memory_working_set_bytes);
    ++stats_.memory_pressure_records;
    spdlog::warn(
        "nri: memory pressure in {}/{} container {}: stalled {:.0f}% of the last interval, "
        "at least {:.0f}% for {}, at {} in use: recorded; its memory limit goes at least "
        "{:.0f}% above that, and its request to it",
        LogText(container.pod_namespace), LogText(container.pod_name), LogText(container.name),
        observed.stall_share * 100, pressure_.stall_share * 100,
        absl::FormatDuration(pressure_.sustained),
        FormatMemoryBytes(sample.memory_working_set_bytes), guard_.memory_pressure_step * 100);
  }
  return run;
}

bool Sampler::CheckOomCounter(const TrackedContainer& container, absl::Time now) {
  absl::StatusOr<uint64_t> kills = cgroups_.ReadOomKills(container.cgroups_path);
  if (!kills.ok()) return false;
  const bool baseline_only = !container.oom_kills_seen.has_value();
  if (!baseline_only && *kills <= *container.oom_kills_seen) return false;
  state_.Mutate(container.id, [&](TrackedContainer& c) { c.oom_kills_seen = *kills; });
  if (baseline_only) return false;  // kills from before we watched this container are not ours
  return RecordOomKill(container, now);
}

bool Sampler::RecordOomKill(const TrackedContainer& container, absl::Time now) {
  // At an OOM kill the container was at its limit; the high-water mark says the same when the
  // cgroup is still there to have one.
  int64_t memory =
      std::max(container.current.memory_limit_bytes.value_or(0), container.memory_usage_bytes);
  if (absl::StatusOr<CgroupSample> sample = cgroups_.Read(container.cgroups_path); sample.ok()) {
    memory = std::max(memory, sample->memory_max_usage_bytes);
  }
  ++ooms_;
  const OomDecision decision =
      oom_cooldown_.Evaluate(OomEvent{container.id, container.pod_name, now, memory},
                             OomGuards{false, container.excluded, false});
  if (decision.record) state_.RecordOom(container.stats_key, now, memory);
  // The node plugin records; evicting the pod (decision.evict) is the API actuator's job.
  spdlog::warn("nri: OOM kill of {}/{} container {} at {} bytes: {}",
               LogText(container.pod_namespace), LogText(container.pod_name),
               LogText(container.name), memory,
               decision.record ? "recorded; its next start gets 2 x this as memory limit"
                               : decision.reason.message);
  return decision.record;
}

SamplerStats Sampler::stats() const {
  SamplerStats stats;
  {
    absl::MutexLock lock(&mu_);
    stats = stats_;
  }
  absl::MutexLock lock(&oom_mu_);
  stats.ooms = ooms_;
  return stats;
}

int Sampler::PollOoms(absl::Time now) {
  absl::MutexLock lock(&oom_mu_);
  int recorded = std::exchange(settled_since_poll_, 0);
  if (kills_ != nullptr) return recorded + RecordLoggedKills(now);
  for (const TrackedContainer& container : state_.Containers()) {
    recorded += CheckOomCounter(container, now) ? 1 : 0;
  }
  return recorded;
}

int Sampler::SettleLoggedOoms(absl::Time now) {
  absl::MutexLock lock(&oom_mu_);
  if (kills_ == nullptr) return 0;
  const int recorded = RecordLoggedKills(now);
  settled_since_poll_ += recorded;
  return recorded;
}

int Sampler::RecordLoggedKills(absl::Time now) {
  const std::vector<std::string> killed = kills_->KilledCgroups();
  if (killed.empty()) return 0;
  int recorded = 0;
  const std::vector<TrackedContainer> containers = state_.Containers();
  for (const std::string& cgroup : killed) {
    for (const TrackedContainer& container : containers) {
      absl::StatusOr<std::string> dir = CgroupRelativeDir(container.cgroups_path);
      if (dir.ok() && *dir == cgroup) {
        recorded += RecordOomKill(container, now) ? 1 : 0;
        break;
      }
    }
    // A kill in a cgroup that is no container of ours (a host process, another runtime) is not
    // headroom's to record.
  }
  return recorded;
}

void Sampler::Sample(absl::Time now) {
  absl::MutexLock lock(&mu_);
  for (const TrackedContainer& container : state_.Containers()) {
    if (container.cgroups_path.empty()) continue;
    absl::StatusOr<CgroupSample> sample = cgroups_.Read(container.cgroups_path);
    if (!sample.ok()) {
      ++stats_.read_errors;
      spdlog::debug("nri: cannot sample {}: {}", LogText(container.id),
                    LogText(sample.status().message()));
      continue;
    }
    ++stats_.samples;
    const size_t source = static_cast<size_t>(sample->psi_source);
    if (stats_.samples_by_psi[source]++ == 0) {
      spdlog::info("nri: per-container pressure (PSI) source: {}{}",
                   std::string(PsiSourceName(sample->psi_source)),
                   sample->psi_source == PsiSource::kHybrid
                       ? " (cgroup v1 host; read from the unified hierarchy)"
                   : sample->psi_source == PsiSource::kNone ? " (CPU samples are not PSI-adjusted)"
                                                            : "");
    }
    state_.AddMemorySample(container.stats_key, now, sample->memory_working_set_bytes);
    if (container.last_cpu_at.has_value()) {
      CpuCounters previous{*container.last_cpu_at,
                           static_cast<int64_t>(container.last_cpu_nanos / 1000),
                           container.last_waiting_micros.has_value()
                               ? std::optional<int64_t>(*container.last_waiting_micros)
                               : std::nullopt};
      CpuCounters current{now, static_cast<int64_t>(sample->cpu_usage_nanos / 1000),
                          sample->cpu_waiting_micros.has_value()
                              ? std::optional<int64_t>(*sample->cpu_waiting_micros)
                              : std::nullopt};
      if (absl::StatusOr<CpuRateSample> rate = PsiAdjustedCpu(previous, current); rate.ok()) {
        state_.AddCpuSample(container.stats_key, now, rate->adjusted_millis);
      }
    }
    const MemoryPressureRun pressure = ObservePressure(container, *sample, now);
    state_.Mutate(container.id, [&](TrackedContainer& c) {
      c.last_cpu_at = now;
      c.last_cpu_nanos = sample->cpu_usage_nanos;
      c.last_waiting_micros = sample->cpu_waiting_micros;
      c.last_memory_waiting_micros = sample->memory_waiting_micros;
      c.memory_pressure = pressure;
      c.memory_usage_bytes = sample->memory_working_set_bytes;
    });
  }
}

namespace {

// A pod of the node as the optimisation reads it: each container's history and the values the
// runtime shows; optimisable once every container has CPU and memory history.
PodDemand PodDemandOf(const NodeState& state, const std::string& pod_id,
                      const std::vector<const TrackedContainer*>& members, absl::Time now) {
  PodDemand pod;
  pod.pod_namespace = members.front()->pod_namespace;
  pod.name = members.front()->pod_name.empty() ? pod_id : members.front()->pod_name;
  pod.daemonset = members.front()->daemonset;
  pod.ranking = members.front()->ranking;
  bool all_history = true;
  for (const TrackedContainer* c : members) {
    ContainerDemand demand = TrackedDemand(state, *c, now);
    if (demand.name.empty()) demand.name = c->id;
    // The optimisation sizes from memory the container used; an OOM kill alone is the report's.
    if (demand.memory.has_value() && demand.memory->peak_bytes == 0) demand.memory.reset();
    all_history = all_history && demand.cpu.has_value() && demand.memory.has_value();
    pod.requests.cpu_millis += demand.declared_requests.cpu_millis;
    pod.requests.memory_bytes += demand.declared_requests.memory_bytes;
    pod.containers.push_back(std::move(demand));
  }
  pod.optimizable = all_history && !members.front()->excluded;
  return pod;
}

}  // namespace

OptimizeOutcome Sampler::Optimize(absl::Time now) {
  absl::MutexLock lock(&mu_);
  OptimizeOutcome outcome;
  const std::vector<TrackedContainer> containers = state_.Containers();
  // Group containers into pods, in a stable order.
  std::map<std::string, std::vector<const TrackedContainer*>> by_pod;
  for (const TrackedContainer& c : containers) by_pod[c.pod_id].push_back(&c);
  NodeDemand node;
  node.name = "local";
  node.allocatable = allocatable_;
  std::vector<std::vector<const TrackedContainer*>> pod_members;
  for (const auto& [pod_id, members] : by_pod) {
    node.pods.push_back(PodDemandOf(state_, pod_id, members, now));
    pod_members.push_back(members);
  }
  outcome.pods = node.pods.size();
  // The sized pods measured together (shared/node_headroom.h): their shared headroom.
  std::vector<std::vector<std::string>> keys(node.pods.size());
  for (size_t p = 0; p < node.pods.size(); ++p) {
    if (!node.pods[p].optimizable) continue;
    for (const TrackedContainer* c : pod_members[p]) keys[p].push_back(c->stats_key);
  }
  const NodeMeasurement measured = state_.MeasurePods(keys, now, guard_.min_history);
  node.shared_headroom = measured.shared_headroom;
  std::optional<NodeState::SharedHeadroomRecord> record;
  if (measured.shared_headroom.has_value()) {
    record = NodeState::SharedHeadroomRecord{{}, *measured.shared_headroom, now};
  }
  for (size_t p = 0; p < node.pods.size(); ++p) {
    node.pods[p].in_shared_headroom = measured.measured[p];
    if (record.has_value() && measured.measured[p]) {
      record->pod_ids.insert(pod_members[p].front()->pod_id);
    }
  }
  state_.SetSharedHeadroom(std::move(record));
  OptimizeOptions options;
  options.min_history = guard_.min_history;
  absl::StatusOr<NodeOptimization> result = OptimizeNode(node, options);
  if (!result.ok()) {
    spdlog::warn("nri: node optimisation refused its input: {}",
                 std::string(result.status().message()));
    return outcome;
  }
  for (const PodEviction& eviction : result->evictions) {
    outcome.eviction_candidates.push_back(
        absl::StrCat(node.pods[eviction.pod].Key(), ": ", eviction.reason.message));
  }
  for (const ContainerResult& sized : result->containers) {
    const TrackedContainer* c = pod_members[sized.pod][sized.container];
    state_.SetSizedCpu(c->stats_key, sized.sizing.cpu_request_millis);
    ++outcome.optimized_containers;
  }
  for (const TrackedContainer& c : containers) {
    const ResourcePlan plan = WithoutNoOps(PlanTrackedContainer(state_, c, guard_, now), c.current);
    if (!plan.changes_anything()) continue;
    napi::ContainerUpdate* update = outcome.updates.add_update();
    update->set_container_id(c.id);
    update->set_ignore_failure(true);
    ApplyPlan(plan, *update->mutable_linux()->mutable_resources());
    outcome.changes.push_back({c.id, plan, DescribeContainerChange(c, c.current, plan)});
  }
  return outcome;
}

ResourceAmounts HostCapacity() {
  ResourceAmounts capacity;
  const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
  capacity.cpu_millis = cpus > 0 ? cpus * 1000 : 0;
  if (absl::StatusOr<std::string> meminfo = io::ReadFile("/proc/meminfo"); meminfo.ok()) {
    const size_t at = meminfo->find("MemTotal:");
    if (at != std::string::npos) {
      const size_t end = meminfo->find('\n', at);
      std::string line = meminfo->substr(at + 9, end - at - 9);
      int64_t kib = 0;
      line.erase(std::remove(line.begin(), line.end(), ' '), line.end());
      if (absl::EndsWith(line, "kB")) line.resize(line.size() - 2);
      if (absl::SimpleAtoi(line, &kib)) capacity.memory_bytes = kib * 1024;
    }
  }
  return capacity;
}

}  // namespace headroom::nri
