#include "extender/view/workload_checkpoint.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "codec/checkpoint_json.h"
#include "codec/stats_json.h"
#include "io/atomic_file.h"
#include "nlohmann/json.hpp"
#include "shared/status_macros.h"

namespace headroom::extender {
namespace {

using nlohmann::json;

std::string CheckpointPath(const std::string& state_dir) {
  return (std::filesystem::path(state_dir) / kWorkloadCheckpointFile).string();
}

}  // namespace

std::string EncodeWorkloads(const std::map<std::string, ClusterView::ContainerStats>& workloads,
                            absl::Time saved_at) {
  // Written entry by entry: a JSON tree of every workload first would take many times the
  // file's size in memory.
  std::string out = absl::StrCat("{\n \"version\": 1,\n \"savedAt\": \"",
                                 codec::CheckpointTime(saved_at), "\",\n \"workloads\": {");
  bool first = true;
  for (const auto& [key, stats] : workloads) {
    json entry = json::object();
    entry["historySeconds"] = absl::ToInt64Seconds(stats.history);
    if (stats.cpu.has_value()) entry["cpu"] = codec::CpuStatsToJson(*stats.cpu);
    if (stats.memory.has_value()) entry["memory"] = codec::MemoryStatsToJson(*stats.memory);
    absl::StrAppend(&out, first ? "\n  " : ",\n  ",
                    json(key).dump(-1, ' ', false, json::error_handler_t::replace), ": ",
                    entry.dump(-1, ' ', false, json::error_handler_t::replace));
    first = false;
  }
  absl::StrAppend(&out, "\n }\n}\n");
  return out;
}

absl::StatusOr<std::map<std::string, ClusterView::ContainerStats>> DecodeWorkloads(
    absl::string_view text) {
  HEADROOM_ASSIGN_OR_RETURN(const json document,
                            codec::ParseCheckpoint(text, "workload checkpoint"));
  const auto workloads = document.find("workloads");
  if (workloads == document.end() || !workloads->is_object()) {
    return absl::InvalidArgumentError("workloads: expected an object");
  }
  std::map<std::string, ClusterView::ContainerStats> out;
  for (const auto& [key, entry] : workloads->items()) {
    const std::string where = absl::StrCat("workloads[\"", key, "\"]");
    if (!entry.is_object()) return absl::InvalidArgumentError(where + ": expected an object");
    ClusterView::ContainerStats stats;
    HEADROOM_ASSIGN_OR_RETURN(const int64_t history,
                              codec::OptionalNonNegativeInt(entry, "historySeconds", where));
    stats.history = std::min(absl::Seconds(history), kMaxHistory);
    if (const auto cpu = entry.find("cpu"); cpu != entry.end()) {
      HEADROOM_ASSIGN_OR_RETURN(stats.cpu, codec::CpuStatsFromJson(*cpu, where + ".cpu"));
    }
    if (const auto memory = entry.find("memory"); memory != entry.end()) {
      HEADROOM_ASSIGN_OR_RETURN(stats.memory,
                                codec::MemoryStatsFromJson(*memory, where + ".memory"));
    }
    out[key] = stats;
  }
  return out;
}

absl::Status SaveWorkloads(const ClusterView& view, const std::string& state_dir, absl::Time now) {
  return io::WriteFileAtomically(CheckpointPath(state_dir),
                                 EncodeWorkloads(view.ExportWorkloads(), now));
}

absl::StatusOr<size_t> LoadWorkloads(ClusterView& view, const std::string& state_dir) {
  const std::string path = CheckpointPath(state_dir);
  absl::StatusOr<std::string> text = io::ReadFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::map<std::string, ClusterView::ContainerStats>> workloads =
      DecodeWorkloads(*text);
  if (!workloads.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": ", workloads.status().message()));
  }
  view.ImportWorkloads(*workloads);
  return workloads->size();
}

}  // namespace headroom::extender
