#pragma once

// The JSON form of CPU and memory statistics in the daemons' checkpoints (headroom-extender's
// workload checkpoint, headroom-nri's node checkpoint), so both write and read one shape:
//   cpu:    {"baseMillis", "peakMillis", "dailyBaseMillis", "dailyPeakMillis"}
//   memory: {"baseBytes", "peakBytes", "max7dBytes", "oomBytes", "dailyBaseBytes",
//            "dailyPeakBytes"}
// Every value is a non-negative integer; the daily values were added later and read as 0 when
// absent. Decoding refuses anything else with InvalidArgument naming the field under `where`.

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "shared/usage_stats.h"

namespace headroom::codec {

nlohmann::json CpuStatsToJson(const CpuStats& stats);
nlohmann::json MemoryStatsToJson(const MemoryStats& stats);
absl::StatusOr<CpuStats> CpuStatsFromJson(const nlohmann::json& object, const std::string& where);
absl::StatusOr<MemoryStats> MemoryStatsFromJson(const nlohmann::json& object,
                                                const std::string& where);

}  // namespace headroom::codec
