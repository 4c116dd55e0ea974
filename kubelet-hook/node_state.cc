#include "kubelet-hook/node_state.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "shared/footprint.h"

namespace headroom::nri {

void CarrySamplerState(const TrackedContainer& from, TrackedContainer& to) {
  to.oom_kills_seen = from.oom_kills_seen;
  to.last_cpu_at = from.last_cpu_at;
  to.last_cpu_nanos = from.last_cpu_nanos;
  to.last_waiting_micros = from.last_waiting_micros;
  to.last_memory_waiting_micros = from.last_memory_waiting_micros;
  to.memory_pressure = from.memory_pressure;
  to.memory_usage_bytes = from.memory_usage_bytes;
  to.declared = from.declared;
  to.last_shrink = from.last_shrink;
}

void NodeState::Upsert(const TrackedContainer& container) {
  absl::MutexLock lock(&mu_);
  // A pod runs one container of a name at a time: a new one (a restart) replaces the exited
  // one, which the runtime keeps until the kubelet removes it.
  for (auto it = containers_.begin(); it != containers_.end();) {
    const TrackedContainer& other = it->second;
    if (other.id != container.id && other.pod_id == container.pod_id &&
        other.name == container.name) {
      containers_.erase(it++);
    } else {
      ++it;
    }
  }
  containers_[container.id] = container;
  // The workload's own base percentile, if any (a workload with statistics follows its pods'
  // current annotation; none is created only to hold the default).
  if (const auto it = workloads_.find(container.stats_key); it != workloads_.end()) {
    it->second.base_percentile = container.tuning.base_percentile;
  } else if (container.tuning.base_percentile.has_value()) {
    WorkloadFor(container.stats_key).base_percentile = container.tuning.base_percentile;
  }
}

void NodeState::Remove(const std::string& id) {
  absl::MutexLock lock(&mu_);
  containers_.erase(id);
  restored_containers_.erase(id);
}

size_t NodeState::RemovePod(const std::string& pod_id) {
  absl::MutexLock lock(&mu_);
  size_t removed = 0;
  for (auto it = containers_.begin(); it != containers_.end();) {
    if (it->second.pod_id == pod_id) {
      containers_.erase(it++);
      ++removed;
    } else {
      ++it;
    }
  }
  return removed;
}

std::optional<TrackedContainer> NodeState::Get(const std::string& id) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = containers_.find(id);
  if (it == containers_.end()) return std::nullopt;
  return it->second;
}

std::vector<TrackedContainer> NodeState::Containers() const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<TrackedContainer> out;
  out.reserve(containers_.size());
  for (const auto& [id, container] : containers_) out.push_back(container);
  std::sort(out.begin(), out.end(),
            [](const TrackedContainer& a, const TrackedContainer& b) { return a.id < b.id; });
  return out;
}

NodeState::Workload& NodeState::WorkloadFor(const std::string& stats_key) {
  auto it = workloads_.find(stats_key);
  if (it == workloads_.end()) it = workloads_.emplace(stats_key, Workload(config_)).first;
  return it->second;
}

void NodeState::AddCpuSample(const std::string& stats_key, absl::Time at, int64_t millis) {
  absl::MutexLock lock(&mu_);
  // Out-of-order samples are refused by the statistics; nothing to do about them here.
  WorkloadFor(stats_key).stats.AddCpu(at, millis).IgnoreError();
}

void NodeState::AddMemorySample(const std::string& stats_key, absl::Time at, int64_t bytes) {
  absl::MutexLock lock(&mu_);
  WorkloadFor(stats_key).stats.AddMemory(at, bytes).IgnoreError();
}

void NodeState::RecordOom(const std::string& stats_key, absl::Time at, int64_t bytes) {
  absl::MutexLock lock(&mu_);
  WorkloadFor(stats_key).stats.RecordOom(at, bytes);
}

void NodeState::RecordPressure(const std::string& stats_key, absl::Time at, int64_t bytes) {
  absl::MutexLock lock(&mu_);
  WorkloadFor(stats_key).stats.RecordPressure(at, bytes);
}

void NodeState::SetSizedCpu(const std::string& stats_key, int64_t millis) {
  absl::MutexLock lock(&mu_);
  WorkloadFor(stats_key).sized_cpu_millis = millis;
}

std::optional<MemoryStats> NodeState::MemoryHistoryLocked(const Workload& workload,
                                                          absl::Time now) const {
  const UsageSnapshot snapshot = workload.stats.Snapshot(now, workload.base_percentile);
  std::optional<MemoryStats> memory = snapshot.memory;
  if (!memory.has_value()) memory = workload.restored_memory;
  int64_t oom = 0;
  for (const auto& record : workload.stats.oom_records()) oom = std::max(oom, record.memory_bytes);
  if (oom > 0) {
    if (!memory.has_value()) memory = MemoryStats{};
    memory->oom_bytes = std::max(memory->oom_bytes, oom);
  }
  // A recent sustained memory stall counts before the workload's next sample too (a Job's
  // next run, a restart), within the records' retention.
  if (const std::optional<int64_t> pressure = workload.stats.RecentPressure(now);
      pressure.has_value()) {
    if (!memory.has_value()) memory = MemoryStats{};
    memory->pressure_bytes = std::max(memory->pressure_bytes, *pressure);
  }
  return memory;
}

std::optional<MemoryStats> NodeState::MemoryHistory(const std::string& stats_key,
                                                    absl::Time now) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = workloads_.find(stats_key);
  if (it == workloads_.end()) return std::nullopt;
  return MemoryHistoryLocked(it->second, now);
}

std::optional<CpuStats> NodeState::CpuHistory(const std::string& stats_key, absl::Time now) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = workloads_.find(stats_key);
  if (it == workloads_.end()) return std::nullopt;
  std::optional<CpuStats> cpu = it->second.stats.Snapshot(now, it->second.base_percentile).cpu;
  return cpu.has_value() ? cpu : it->second.restored_cpu;
}

absl::Duration NodeState::History(const std::string& stats_key, absl::Time now) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = workloads_.find(stats_key);
  if (it == workloads_.end()) return absl::ZeroDuration();
  return it->second.stats.History(now);
}

void NodeState::SetPodModes(absl::flat_hash_map<std::string, AdoptionStep> modes) {
  absl::MutexLock lock(&mu_);
  pod_modes_ = std::move(modes);
}

std::optional<AdoptionStep> NodeState::PodMode(const std::string& pod_uid) const {
  absl::ReaderMutexLock lock(&mu_);
  const auto it = pod_modes_.find(pod_uid);
  if (it == pod_modes_.end()) return std::nullopt;
  return it->second;
}

void NodeState::MergeClusterHistory(const std::string& stats_key, absl::Duration history,
                                    absl::Time now) {
  if (history <= absl::ZeroDuration()) return;
  absl::MutexLock lock(&mu_);
  auto it = workloads_.find(stats_key);
  if (it == workloads_.end()) return;
  it->second.stats.RestoreFirstSample(now - std::min(history, kMaxHistory));
}

std::optional<int64_t> NodeState::SizedCpu(const std::string& stats_key) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = workloads_.find(stats_key);
  if (it == workloads_.end()) return std::nullopt;
  return it->second.sized_cpu_millis;
}

std::map<std::string, WorkloadRecord> NodeState::Records(absl::Time now) const {
  absl::ReaderMutexLock lock(&mu_);
  std::map<std::string, WorkloadRecord> out;
  for (const auto& [key, workload] : workloads_) {
    WorkloadRecord record;
    record.first_sample = workload.stats.first_sample();
    record.last_live = workload.last_live;
    record.ooms.assign(workload.stats.oom_records().begin(), workload.stats.oom_records().end());
    record.pressures.assign(workload.stats.pressure_records().begin(),
                            workload.stats.pressure_records().end());
    record.sized_cpu_millis = workload.sized_cpu_millis;
    const UsageSnapshot snapshot = workload.stats.Snapshot(now, workload.base_percentile);
    record.last_memory = snapshot.memory.has_value() ? snapshot.memory : workload.restored_memory;
    record.last_cpu = snapshot.cpu.has_value() ? snapshot.cpu : workload.restored_cpu;
    out.emplace(key, std::move(record));
  }
  return out;
}

void NodeState::Restore(const std::map<std::string, WorkloadRecord>& records) {
  absl::MutexLock lock(&mu_);
  for (const auto& [key, record] : records) {
    Workload& workload = WorkloadFor(key);
    if (record.first_sample.has_value()) workload.stats.RestoreFirstSample(*record.first_sample);
    workload.last_live = record.last_live;
    for (const auto& oom : record.ooms) workload.stats.RecordOom(oom.at, oom.memory_bytes);
    for (const auto& stall : record.pressures) {
      workload.stats.RecordPressure(stall.at, stall.memory_bytes);
    }
    workload.sized_cpu_millis = record.sized_cpu_millis;
    workload.restored_memory = record.last_memory;
    workload.restored_cpu = record.last_cpu;
  }
}

std::map<std::string, ContainerRecord> NodeState::ContainerRecords() const {
  absl::ReaderMutexLock lock(&mu_);
  std::map<std::string, ContainerRecord> out;
  for (const auto& [id, container] : containers_) {
    out.emplace(id, ContainerRecord{container.declared, container.last_shrink});
  }
  return out;
}

void NodeState::RestoreContainers(std::map<std::string, ContainerRecord> containers) {
  absl::MutexLock lock(&mu_);
  restored_containers_ = std::move(containers);
}

std::optional<ContainerRecord> NodeState::RestoredContainer(const std::string& id) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = restored_containers_.find(id);
  if (it == restored_containers_.end()) return std::nullopt;
  return it->second;
}

size_t NodeState::ForgetRestoredContainers() {
  absl::MutexLock lock(&mu_);
  const size_t count = restored_containers_.size();
  restored_containers_.clear();
  return count;
}

size_t NodeState::workload_count() const {
  absl::ReaderMutexLock lock(&mu_);
  return workloads_.size();
}

ForgottenWorkloads NodeState::ForgetWorkloads(absl::Time now, const WorkloadRetention& retention) {
  absl::MutexLock lock(&mu_);
  absl::flat_hash_set<absl::string_view> live;
  for (const auto& [id, container] : containers_) live.insert(container.stats_key);
  ForgottenWorkloads forgotten;
  // Idle since: a workload container not yet seen by a round counts from this one.
  std::vector<std::pair<absl::Time, std::string>> idle;
  for (auto it = workloads_.begin(); it != workloads_.end();) {
    Workload& workload = it->second;
    const bool running = live.contains(it->first);
    if (running || !workload.last_live.has_value()) workload.last_live = now;
    if (running) {
      ++it;
    } else if (now - *workload.last_live > retention.idle) {
      it = workloads_.erase(it);
      ++forgotten.idle;
    } else {
      idle.emplace_back(*workload.last_live, it->first);
      ++it;
    }
  }
  if (workloads_.size() <= retention.max_workloads) return forgotten;
  std::sort(idle.begin(), idle.end());
  for (const auto& [since, key] : idle) {
    if (workloads_.size() <= retention.max_workloads) break;
    workloads_.erase(key);
    ++forgotten.over_budget;
  }
  if (workloads_.size() > retention.max_workloads) {
    forgotten.live_over_budget = workloads_.size() - retention.max_workloads;
  }
  return forgotten;
}

NodeMeasurement NodeState::MeasurePods(const std::vector<std::vector<std::string>>& pods,
                                       absl::Time now, absl::Duration min_history) const {
  absl::ReaderMutexLock lock(&mu_);
  std::vector<std::vector<ProfiledContainer>> containers(pods.size());
  for (size_t p = 0; p < pods.size(); ++p) {
    for (const std::string& key : pods[p]) {
      auto it = workloads_.find(key);
      if (it == workloads_.end() || it->second.stats.History(now) < min_history) {
        containers[p].clear();
        break;
      }
      const UsageSnapshot snapshot = it->second.stats.Snapshot(now, it->second.base_percentile);
      if (!snapshot.cpu.has_value() || !snapshot.memory.has_value()) {
        containers[p].clear();
        break;
      }
      containers[p].push_back(
          {&it->second.stats, {PlanningBase(*snapshot.cpu), PlanningBase(*snapshot.memory)}});
    }
  }
  return MeasureNode(containers, now, min_history, config_);
}

void NodeState::SetSharedHeadroom(std::optional<SharedHeadroomRecord> record) {
  absl::MutexLock lock(&mu_);
  shared_headroom_ = std::move(record);
}

std::optional<NodeState::SharedHeadroomRecord> NodeState::SharedHeadroom() const {
  absl::ReaderMutexLock lock(&mu_);
  return shared_headroom_;
}

ContainerDemand TrackedDemand(const NodeState& state, const TrackedContainer& container,
                              absl::Time now) {
  ContainerDemand demand;
  demand.name = container.name;
  demand.history = state.History(container.stats_key, now);
  demand.declared_requests = RuntimeRequests(container.declared);
  demand.declared_limits.memory_bytes = container.declared.memory_limit_bytes.value_or(0);
  demand.memory_in_use_bytes = container.memory_usage_bytes;
  demand.cpu = state.CpuHistory(container.stats_key, now);
  if (std::optional<MemoryStats> memory = state.MemoryHistory(container.stats_key, now);
      memory.has_value() && (memory->peak_bytes > 0 || memory->oom_bytes > 0)) {
    demand.memory = memory;
  }
  return demand;
}

ResourcePlan PlanTrackedContainer(const NodeState& state, const TrackedContainer& container,
                                  const GuardRailConfig& guard, absl::Time now, bool running) {
  ContainerPolicyInput input;
  input.declared = container.declared;
  input.current = container.current;
  input.memory = state.MemoryHistory(container.stats_key, now);
  input.cpu_request_millis = state.SizedCpu(container.stats_key);
  input.memory_usage_bytes = container.memory_usage_bytes;
  input.history = state.History(container.stats_key, now);
  input.allow_below_declared = container.allow_below_declared;
  input.tuning = container.tuning;
  input.running = running;
  input.last_shrink = container.last_shrink;
  input.now = now;
  input.enforce = container.enforce;
  input.excluded = container.excluded;
  input.step = state.PodMode(container.pod_uid).value_or(container.step);
  input.guard = guard;
  return PlanContainerResources(input);
}

}  // namespace headroom::nri
