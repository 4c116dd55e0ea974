#include "kubelet-hook/node_checkpoint.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "codec/checkpoint_json.h"
#include "codec/stats_json.h"
#include "io/atomic_file.h"
#include "nlohmann/json.hpp"
#include "shared/status_macros.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

namespace {

using nlohmann::json;

json ContainerJson(const ContainerRecord& record) {
  const RuntimeResources& declared = record.declared;
  json out = json::object();
  if (declared.cpu_shares) out["cpuShares"] = *declared.cpu_shares;
  if (declared.cpu_quota) out["cpuQuota"] = *declared.cpu_quota;
  if (declared.cpu_period) out["cpuPeriod"] = *declared.cpu_period;
  if (declared.memory_limit_bytes) out["memoryLimitBytes"] = *declared.memory_limit_bytes;
  json shrunk = json::object();
  for (const auto& [key, at] : {std::pair{"cpuRequest", record.last_shrink.cpu_request},
                                std::pair{"memoryRequest", record.last_shrink.memory_request},
                                std::pair{"memoryLimit", record.last_shrink.memory_limit}}) {
    if (at) shrunk[key] = absl::ToUnixMillis(*at);
  }
  if (!shrunk.empty()) out["lastShrinkUnixMillis"] = std::move(shrunk);
  return out;
}

absl::StatusOr<ContainerRecord> ContainerFromJson(const json& object, const std::string& where) {
  if (!object.is_object()) return absl::InvalidArgumentError(where + ": expected an object");
  ContainerRecord record;
  RuntimeResources& declared = record.declared;
  if (object.contains("cpuShares")) {
    HEADROOM_ASSIGN_OR_RETURN(int64_t shares, codec::NonNegativeInt(object, "cpuShares", where));
    declared.cpu_shares = static_cast<uint64_t>(shares);
  }
  if (object.contains("cpuQuota")) {
    // -1 is the runtime's "no quota".
    auto it = object.find("cpuQuota");
    if (!it->is_number_integer() || it->get<int64_t>() < -1) {
      return absl::InvalidArgumentError(where + ".cpuQuota: not an integer >= -1");
    }
    declared.cpu_quota = it->get<int64_t>();
  }
  if (object.contains("cpuPeriod")) {
    HEADROOM_ASSIGN_OR_RETURN(int64_t period, codec::NonNegativeInt(object, "cpuPeriod", where));
    declared.cpu_period = static_cast<uint64_t>(period);
  }
  if (object.contains("memoryLimitBytes")) {
    HEADROOM_ASSIGN_OR_RETURN(declared.memory_limit_bytes,
                              codec::NonNegativeInt(object, "memoryLimitBytes", where));
  }
  if (auto shrunk = object.find("lastShrinkUnixMillis"); shrunk != object.end()) {
    const std::string at = where + ".lastShrinkUnixMillis";
    if (!shrunk->is_object()) return absl::InvalidArgumentError(at + ": not an object");
    for (const auto& [key, slot] : {std::pair{"cpuRequest", &record.last_shrink.cpu_request},
                                    std::pair{"memoryRequest", &record.last_shrink.memory_request},
                                    std::pair{"memoryLimit", &record.last_shrink.memory_limit}}) {
      if (!shrunk->contains(key)) continue;
      HEADROOM_ASSIGN_OR_RETURN(int64_t millis, codec::NonNegativeInt(*shrunk, key, at));
      *slot = absl::FromUnixMillis(millis);
    }
  }
  return record;
}

// OOM kills and sustained memory stalls: when, and the memory then in use.
json MemoryRecordsToJson(const std::vector<ContainerUsageStats::OomRecord>& records) {
  json out = json::array();
  for (const auto& record : records) {
    out.push_back(
        {{"atUnixMillis", absl::ToUnixMillis(record.at)}, {"bytes", record.memory_bytes}});
  }
  return out;
}

// `key` of `entry` (absent: none) into `records`.
absl::Status MemoryRecordsFromJson(const json& entry, const std::string& key,
                                   const std::string& where,
                                   std::vector<ContainerUsageStats::OomRecord>& records) {
  auto found = entry.find(key);
  if (found == entry.end()) return absl::OkStatus();
  const std::string at_where = absl::StrCat(where, ".", key);
  if (!found->is_array()) return absl::InvalidArgumentError(at_where + ": not an array");
  for (const json& record : *found) {
    HEADROOM_ASSIGN_OR_RETURN(int64_t at,
                              codec::NonNegativeInt(record, "atUnixMillis", at_where + "[]"));
    HEADROOM_ASSIGN_OR_RETURN(int64_t bytes,
                              codec::NonNegativeInt(record, "bytes", at_where + "[]"));
    records.push_back({absl::FromUnixMillis(at), bytes});
  }
  return absl::OkStatus();
}

}  // namespace

// Written entry by entry: the text is the only copy of the statistics (a document tree of
// thousands of workload containers would cost several times the text).
std::string EncodeNodeCheckpoint(const NodeCheckpoint& checkpoint, absl::Time saved_at) {
  std::string out = absl::StrCat(
      "{\n\"version\": 1,\n\"savedAt\": ", json(codec::CheckpointTime(saved_at)).dump(),
      ",\n\"workloads\": {");
  const char* separator = "\n";
  for (const auto& [key, record] : checkpoint.workloads) {
    json entry = json::object();
    if (record.first_sample) {
      entry["firstSampleUnixMillis"] = absl::ToUnixMillis(*record.first_sample);
    }
    if (record.last_live) entry["lastLiveUnixMillis"] = absl::ToUnixMillis(*record.last_live);
    entry["ooms"] = MemoryRecordsToJson(record.ooms);
    if (!record.pressures.empty()) entry["pressures"] = MemoryRecordsToJson(record.pressures);
    if (record.sized_cpu_millis) entry["sizedCpuMillis"] = *record.sized_cpu_millis;
    if (record.last_cpu) entry["cpu"] = codec::CpuStatsToJson(*record.last_cpu);
    if (record.last_memory) entry["memory"] = codec::MemoryStatsToJson(*record.last_memory);
    absl::StrAppend(&out, separator, json(key).dump(), ": ", entry.dump());
    separator = ",\n";
  }
  absl::StrAppend(&out, "\n},\n\"containers\": {");
  separator = "\n";
  for (const auto& [id, record] : checkpoint.containers) {
    absl::StrAppend(&out, separator, json(id).dump(), ": ", ContainerJson(record).dump());
    separator = ",\n";
  }
  absl::StrAppend(&out, "\n}\n}\n");
  return out;
}

absl::StatusOr<NodeCheckpoint> DecodeNodeCheckpoint(absl::string_view text) {
  HEADROOM_ASSIGN_OR_RETURN(const json document, codec::ParseCheckpoint(text, "node checkpoint"));
  auto workloads = document.find("workloads");
  if (workloads == document.end() || !workloads->is_object()) {
    return absl::InvalidArgumentError("checkpoint.workloads: missing or not an object");
  }
  NodeCheckpoint out;
  for (auto it = workloads->begin(); it != workloads->end(); ++it) {
    const std::string where = absl::StrCat("workloads[\"", it.key(), "\"]");
    if (!it->is_object()) return absl::InvalidArgumentError(where + ": expected an object");
    WorkloadRecord record;
    if (it->contains("firstSampleUnixMillis")) {
      HEADROOM_ASSIGN_OR_RETURN(int64_t first,
                                codec::NonNegativeInt(*it, "firstSampleUnixMillis", where));
      record.first_sample = absl::FromUnixMillis(first);
    }
    if (it->contains("lastLiveUnixMillis")) {
      HEADROOM_ASSIGN_OR_RETURN(int64_t live,
                                codec::NonNegativeInt(*it, "lastLiveUnixMillis", where));
      record.last_live = absl::FromUnixMillis(live);
    }
    HEADROOM_RETURN_IF_ERROR(MemoryRecordsFromJson(*it, "ooms", where, record.ooms));
    HEADROOM_RETURN_IF_ERROR(MemoryRecordsFromJson(*it, "pressures", where, record.pressures));
    if (it->contains("sizedCpuMillis")) {
      HEADROOM_ASSIGN_OR_RETURN(record.sized_cpu_millis,
                                codec::NonNegativeInt(*it, "sizedCpuMillis", where));
    }
    if (auto cpu = it->find("cpu"); cpu != it->end()) {
      HEADROOM_ASSIGN_OR_RETURN(record.last_cpu, codec::CpuStatsFromJson(*cpu, where + ".cpu"));
    }
    if (auto memory = it->find("memory"); memory != it->end()) {
      HEADROOM_ASSIGN_OR_RETURN(record.last_memory,
                                codec::MemoryStatsFromJson(*memory, where + ".memory"));
    }
    out.workloads.emplace(it.key(), std::move(record));
  }
  if (auto containers = document.find("containers"); containers != document.end()) {
    if (!containers->is_object()) {
      return absl::InvalidArgumentError("checkpoint.containers: not an object");
    }
    for (auto it = containers->begin(); it != containers->end(); ++it) {
      HEADROOM_ASSIGN_OR_RETURN(
          ContainerRecord record,
          ContainerFromJson(*it, absl::StrCat("containers[\"", it.key(), "\"]")));
      out.containers.emplace(it.key(), record);
    }
  }
  return out;
}

size_t KeepLastLiveWorkloads(std::map<std::string, WorkloadRecord>& workloads, size_t max) {
  if (workloads.size() <= max) return 0;
  std::vector<std::pair<absl::Time, std::string>> by_age;
  by_age.reserve(workloads.size());
  for (const auto& [key, record] : workloads) {
    by_age.emplace_back(record.last_live.value_or(record.first_sample.value_or(absl::UnixEpoch())),
                        key);
  }
  std::sort(by_age.begin(), by_age.end());
  const size_t drop = workloads.size() - max;
  for (size_t i = 0; i < drop; ++i) workloads.erase(by_age[i].second);
  return drop;
}

absl::Status SaveNodeCheckpoint(const NodeState& state, const std::string& state_dir,
                                absl::Time now) {
  return io::WriteFileAtomically(
      absl::StrCat(state_dir, "/", kNodeCheckpointFile),
      EncodeNodeCheckpoint({state.Records(now), state.ContainerRecords()}, now));
}

absl::StatusOr<size_t> LoadNodeCheckpoint(NodeState& state, const std::string& state_dir,
                                          size_t max_workloads) {
  const std::string path = absl::StrCat(state_dir, "/", kNodeCheckpointFile);
  HEADROOM_ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  absl::StatusOr<NodeCheckpoint> checkpoint = DecodeNodeCheckpoint(text);
  if (!checkpoint.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", checkpoint.status().message()));
  }
  if (const size_t dropped = KeepLastLiveWorkloads(checkpoint->workloads, max_workloads)) {
    spdlog::warn(
        "{}: {} workload containers beyond the budget's {} not restored (the longest idle)", path,
        dropped, max_workloads);
  }
  state.Restore(checkpoint->workloads);
  state.RestoreContainers(std::move(checkpoint->containers));
  return checkpoint->workloads.size();
}

}  // namespace headroom::nri
