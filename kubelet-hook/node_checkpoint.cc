#include "kubelet-hook/node_checkpoint.h"

#include "absl/strings/str_cat.h"
#include "io/atomic_file.h"
#include "nlohmann/json.hpp"
#include "shared/status_macros.h"

namespace headroom::nri {

namespace {

using nlohmann::json;

absl::StatusOr<int64_t> Int(const json& object, const char* key, const std::string& where) {
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) {
    return absl::InvalidArgumentError(absl::StrCat(where, ".", key, ": missing or not an integer"));
  }
  return it->get<int64_t>();
}

}  // namespace

std::string EncodeNodeCheckpoint(const std::map<std::string, WorkloadRecord>& records,
                                 absl::Time saved_at) {
  json workloads = json::object();
  for (const auto& [key, record] : records) {
    json entry = json::object();
    json ooms = json::array();
    for (const auto& oom : record.ooms) {
      ooms.push_back({{"atUnixMillis", absl::ToUnixMillis(oom.at)}, {"bytes", oom.memory_bytes}});
    }
    entry["ooms"] = std::move(ooms);
    if (record.sized_cpu_millis) entry["sizedCpuMillis"] = *record.sized_cpu_millis;
    if (record.last_cpu) {
      entry["cpu"] = {{"baseMillis", record.last_cpu->base_millis},
                      {"peakMillis", record.last_cpu->peak_millis}};
    }
    if (record.last_memory) {
      entry["memory"] = {{"baseBytes", record.last_memory->base_bytes},
                         {"peakBytes", record.last_memory->peak_bytes},
                         {"max7dBytes", record.last_memory->max_7d_bytes},
                         {"oomBytes", record.last_memory->oom_bytes}};
    }
    workloads[key] = std::move(entry);
  }
  json document = {{"version", 1},
                   {"savedAt", absl::FormatTime(absl::RFC3339_sec, saved_at, absl::UTCTimeZone())},
                   {"workloads", std::move(workloads)}};
  return document.dump(2) + "\n";
}

absl::StatusOr<std::map<std::string, WorkloadRecord>> DecodeNodeCheckpoint(absl::string_view text) {
  json document = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return absl::InvalidArgumentError("node checkpoint is not a JSON object");
  }
  HEADROOM_ASSIGN_OR_RETURN(int64_t version, Int(document, "version", "checkpoint"));
  if (version != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("node checkpoint version ", version, " is not supported (expected 1)"));
  }
  auto workloads = document.find("workloads");
  if (workloads == document.end() || !workloads->is_object()) {
    return absl::InvalidArgumentError("checkpoint.workloads: missing or not an object");
  }
  std::map<std::string, WorkloadRecord> out;
  for (auto it = workloads->begin(); it != workloads->end(); ++it) {
    const std::string where = absl::StrCat("workloads[\"", it.key(), "\"]");
    if (!it->is_object()) return absl::InvalidArgumentError(where + ": not an object");
    WorkloadRecord record;
    if (auto ooms = it->find("ooms"); ooms != it->end()) {
      if (!ooms->is_array()) return absl::InvalidArgumentError(where + ".ooms: not an array");
      for (const json& oom : *ooms) {
        HEADROOM_ASSIGN_OR_RETURN(int64_t at, Int(oom, "atUnixMillis", where + ".ooms[]"));
        HEADROOM_ASSIGN_OR_RETURN(int64_t bytes, Int(oom, "bytes", where + ".ooms[]"));
        record.ooms.push_back({absl::FromUnixMillis(at), bytes});
      }
    }
    if (it->contains("sizedCpuMillis")) {
      HEADROOM_ASSIGN_OR_RETURN(record.sized_cpu_millis, Int(*it, "sizedCpuMillis", where));
    }
    if (auto cpu = it->find("cpu"); cpu != it->end()) {
      CpuStats stats;
      HEADROOM_ASSIGN_OR_RETURN(stats.base_millis, Int(*cpu, "baseMillis", where + ".cpu"));
      HEADROOM_ASSIGN_OR_RETURN(stats.peak_millis, Int(*cpu, "peakMillis", where + ".cpu"));
      record.last_cpu = stats;
    }
    if (auto memory = it->find("memory"); memory != it->end()) {
      MemoryStats stats;
      const std::string at = where + ".memory";
      HEADROOM_ASSIGN_OR_RETURN(stats.base_bytes, Int(*memory, "baseBytes", at));
      HEADROOM_ASSIGN_OR_RETURN(stats.peak_bytes, Int(*memory, "peakBytes", at));
      HEADROOM_ASSIGN_OR_RETURN(stats.max_7d_bytes, Int(*memory, "max7dBytes", at));
      HEADROOM_ASSIGN_OR_RETURN(stats.oom_bytes, Int(*memory, "oomBytes", at));
      record.last_memory = stats;
    }
    out.emplace(it.key(), std::move(record));
  }
  return out;
}

absl::Status SaveNodeCheckpoint(const NodeState& state, const std::string& state_dir,
                                absl::Time now) {
  return io::WriteFileAtomically(absl::StrCat(state_dir, "/", kNodeCheckpointFile),
                                 EncodeNodeCheckpoint(state.Records(now), now));
}

absl::StatusOr<size_t> LoadNodeCheckpoint(NodeState& state, const std::string& state_dir) {
  const std::string path = absl::StrCat(state_dir, "/", kNodeCheckpointFile);
  HEADROOM_ASSIGN_OR_RETURN(std::string text, io::ReadFile(path));
  absl::StatusOr<std::map<std::string, WorkloadRecord>> records = DecodeNodeCheckpoint(text);
  if (!records.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", records.status().message()));
  }
  state.Restore(*records);
  return records->size();
}

}  // namespace headroom::nri
