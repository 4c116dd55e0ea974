#include "codec/stats_json.h"

#include "absl/strings/str_cat.h"
#include "codec/checkpoint_json.h"
#include "shared/status_macros.h"

namespace headroom::codec {
namespace {

using nlohmann::json;

absl::Status ObjectAt(const json& object, const std::string& where) {
  if (!object.is_object()) return absl::InvalidArgumentError(where + ": expected an object");
  return absl::OkStatus();
}

}  // namespace

json CpuStatsToJson(const CpuStats& stats) {
  return {{"baseMillis", stats.base_millis},
          {"peakMillis", stats.peak_millis},
          {"dailyBaseMillis", stats.daily_base_millis},
          {"dailyPeakMillis", stats.daily_peak_millis},
          {"spikeMillis", stats.spike_millis}};
}

json MemoryStatsToJson(const MemoryStats& stats) {
  return {{"baseBytes", stats.base_bytes},
          {"peakBytes", stats.peak_bytes},
          {"max7dBytes", stats.max_7d_bytes},
          {"oomBytes", stats.oom_bytes},
          {"dailyBaseBytes", stats.daily_base_bytes},
          {"dailyPeakBytes", stats.daily_peak_bytes},
          {"spikeBytes", stats.spike_bytes},
          {"pressureBytes", stats.pressure_bytes}};
}

absl::StatusOr<CpuStats> CpuStatsFromJson(const json& object, const std::string& where) {
  HEADROOM_RETURN_IF_ERROR(ObjectAt(object, where));
  CpuStats stats;
  HEADROOM_ASSIGN_OR_RETURN(stats.base_millis, NonNegativeInt(object, "baseMillis", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.peak_millis, NonNegativeInt(object, "peakMillis", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_base_millis,
                            OptionalNonNegativeInt(object, "dailyBaseMillis", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_peak_millis,
                            OptionalNonNegativeInt(object, "dailyPeakMillis", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.spike_millis,
                            OptionalNonNegativeInt(object, "spikeMillis", where));
  return stats;
}

absl::StatusOr<MemoryStats> MemoryStatsFromJson(const json& object, const std::string& where) {
  HEADROOM_RETURN_IF_ERROR(ObjectAt(object, where));
  MemoryStats stats;
  HEADROOM_ASSIGN_OR_RETURN(stats.base_bytes, NonNegativeInt(object, "baseBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.peak_bytes, NonNegativeInt(object, "peakBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.max_7d_bytes, NonNegativeInt(object, "max7dBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.oom_bytes, NonNegativeInt(object, "oomBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_base_bytes,
                            OptionalNonNegativeInt(object, "dailyBaseBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_peak_bytes,
                            OptionalNonNegativeInt(object, "dailyPeakBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.spike_bytes, OptionalNonNegativeInt(object, "spikeBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.pressure_bytes,
                            OptionalNonNegativeInt(object, "pressureBytes", where));
  return stats;
}

}  // namespace headroom::codec
