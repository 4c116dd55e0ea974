#include "extender/workload_checkpoint.h"

#include <algorithm>
#include <filesystem>

#include "absl/strings/str_cat.h"
#include "codec/stats_json.h"
#include "io/atomic_file.h"
#include "nlohmann/json.hpp"
#include "shared/json_nesting.h"

namespace headroom::extender {
namespace {

using nlohmann::json;

std::string CheckpointPath(const std::string& state_dir) {
  return (std::filesystem::path(state_dir) / kWorkloadCheckpointFile).string();
}

int64_t NonNegative(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer() || it->get<int64_t>() < 0) {
    throw std::invalid_argument(absl::StrCat(where, ".", key, ": expected a non-negative integer"));
  }
  return it->get<int64_t>();
}

// Fields added after version 1 shipped: 0 when absent.
int64_t OptionalNonNegative(const json& object, const char* key, const std::string& where) {
  return object.contains(key) ? NonNegative(object, key, where) : 0;
}

}  // namespace

std::string EncodeWorkloads(const std::map<std::string, ClusterView::ContainerStats>& workloads,
                            absl::Time saved_at) {
  // Written entry by entry: a JSON tree of every workload first would take many times the
  // file's size in memory.
  std::string out = absl::StrCat("{\n \"version\": 1,\n \"savedAt\": \"",
                                 absl::FormatTime(absl::RFC3339_sec, saved_at, absl::UTCTimeZone()),
                                 "\",\n \"workloads\": {");
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
  if (absl::Status nesting = CheckJsonNesting(text); !nesting.ok()) return nesting;
  try {
    const json document = json::parse(text.begin(), text.end());
    // Exactly the integer 1 (a huge float read as int would be undefined behaviour; the
    // checkpoint fuzzer found it).
    const auto version = document.is_object() ? document.find("version") : document.end();
    if (!document.is_object() || version == document.end() || !version->is_number_integer() ||
        version->get<int64_t>() != 1) {
      return absl::InvalidArgumentError("not a version-1 workload checkpoint");
    }
    const auto workloads = document.find("workloads");
    if (workloads == document.end() || !workloads->is_object()) {
      return absl::InvalidArgumentError("workloads: expected an object");
    }
    std::map<std::string, ClusterView::ContainerStats> out;
    for (const auto& [key, entry] : workloads->items()) {
      const std::string where = absl::StrCat("workloads[\"", key, "\"]");
      ClusterView::ContainerStats stats;
      stats.history =
          std::min(absl::Seconds(OptionalNonNegative(entry, "historySeconds", where)), kMaxHistory);
      if (const auto cpu = entry.find("cpu"); cpu != entry.end()) {
        absl::StatusOr<CpuStats> decoded = codec::CpuStatsFromJson(*cpu, where + ".cpu");
        if (!decoded.ok()) return decoded.status();
        stats.cpu = *decoded;
      }
      if (const auto memory = entry.find("memory"); memory != entry.end()) {
        absl::StatusOr<MemoryStats> decoded =
            codec::MemoryStatsFromJson(*memory, where + ".memory");
        if (!decoded.ok()) return decoded.status();
        stats.memory = *decoded;
      }
      out[key] = stats;
    }
    return out;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("unreadable workload checkpoint: ", e.what()));
  }
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
