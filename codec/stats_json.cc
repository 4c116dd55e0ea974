#include "codec/stats_json.h"

#include "absl/strings/str_cat.h"
#include "shared/status_macros.h"

namespace headroom::codec {
namespace {

using nlohmann::json;

absl::StatusOr<int64_t> NonNegative(const json& object, const char* key, const std::string& where) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer() || it->get<int64_t>() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ".", key, ": expected a non-negative integer"));
  }
  return it->get<int64_t>();
}

// Fields added after the first version: 0 when absent.
absl::StatusOr<int64_t> OptionalNonNegative(const json& object, const char* key,
                                            const std::string& where) {
  return object.contains(key) ? NonNegative(object, key, where) : 0;
}

absl::Status ObjectAt(const json& object, const std::string& where) {
  if (!object.is_object()) return absl::InvalidArgumentError(where + ": expected an object");
  return absl::OkStatus();
}

}  // namespace

json CpuStatsToJson(const CpuStats& stats) {
  return {{"baseMillis", stats.base_millis},
          {"peakMillis", stats.peak_millis},
          {"dailyBaseMillis", stats.daily_base_millis},
          {"dailyPeakMillis", stats.daily_peak_millis}};
}

json MemoryStatsToJson(const MemoryStats& stats) {
  return {{"baseBytes", stats.base_bytes},
          {"peakBytes", stats.peak_bytes},
          {"max7dBytes", stats.max_7d_bytes},
          {"oomBytes", stats.oom_bytes},
          {"dailyBaseBytes", stats.daily_base_bytes},
          {"dailyPeakBytes", stats.daily_peak_bytes}};
}

absl::StatusOr<CpuStats> CpuStatsFromJson(const json& object, const std::string& where) {
  HEADROOM_RETURN_IF_ERROR(ObjectAt(object, where));
  CpuStats stats;
  HEADROOM_ASSIGN_OR_RETURN(stats.base_millis, NonNegative(object, "baseMillis", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.peak_millis, NonNegative(object, "peakMillis", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_base_millis,
                            OptionalNonNegative(object, "dailyBaseMillis", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_peak_millis,
                            OptionalNonNegative(object, "dailyPeakMillis", where));
  return stats;
}

absl::StatusOr<MemoryStats> MemoryStatsFromJson(const json& object, const std::string& where) {
  HEADROOM_RETURN_IF_ERROR(ObjectAt(object, where));
  MemoryStats stats;
  HEADROOM_ASSIGN_OR_RETURN(stats.base_bytes, NonNegative(object, "baseBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.peak_bytes, NonNegative(object, "peakBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.max_7d_bytes, NonNegative(object, "max7dBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.oom_bytes, NonNegative(object, "oomBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_base_bytes,
                            OptionalNonNegative(object, "dailyBaseBytes", where));
  HEADROOM_ASSIGN_OR_RETURN(stats.daily_peak_bytes,
                            OptionalNonNegative(object, "dailyPeakBytes", where));
  return stats;
}

}  // namespace headroom::codec
