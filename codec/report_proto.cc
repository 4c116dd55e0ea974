#include "codec/report_proto.h"

namespace headroom::codec {

headroom::v1::EvictionRanking RankingToProto(EvictionRanking ranking) {
  switch (ranking) {
    case EvictionRanking::kLow:
      return headroom::v1::EVICTION_RANKING_LOW;
    case EvictionRanking::kMedium:
      return headroom::v1::EVICTION_RANKING_MEDIUM;
    case EvictionRanking::kHigh:
      return headroom::v1::EVICTION_RANKING_HIGH;
    case EvictionRanking::kNoEviction:
      return headroom::v1::EVICTION_RANKING_NO_EVICTION;
  }
  return headroom::v1::EVICTION_RANKING_UNSPECIFIED;
}

EvictionRanking RankingFromProto(headroom::v1::EvictionRanking ranking) {
  switch (ranking) {
    case headroom::v1::EVICTION_RANKING_MEDIUM:
      return EvictionRanking::kMedium;
    case headroom::v1::EVICTION_RANKING_HIGH:
      return EvictionRanking::kHigh;
    case headroom::v1::EVICTION_RANKING_NO_EVICTION:
      return EvictionRanking::kNoEviction;
    default:
      return EvictionRanking::kLow;
  }
}

void CpuStatsToProto(const CpuStats& stats, headroom::v1::CpuStats& proto) {
  proto.set_base_millis(stats.base_millis);
  proto.set_peak_millis(stats.peak_millis);
  proto.set_daily_base_millis(stats.daily_base_millis);
  proto.set_daily_peak_millis(stats.daily_peak_millis);
  proto.set_spike_millis(stats.spike_millis);
}

void MemoryStatsToProto(const MemoryStats& stats, headroom::v1::MemoryStats& proto) {
  proto.set_base_bytes(stats.base_bytes);
  proto.set_peak_bytes(stats.peak_bytes);
  proto.set_max_7d_bytes(stats.max_7d_bytes);
  proto.set_oom_bytes(stats.oom_bytes);
  proto.set_daily_base_bytes(stats.daily_base_bytes);
  proto.set_daily_peak_bytes(stats.daily_peak_bytes);
  proto.set_spike_bytes(stats.spike_bytes);
  proto.set_pressure_bytes(stats.pressure_bytes);
}

CpuStats CpuStatsFromProto(const headroom::v1::CpuStats& proto) {
  return {proto.base_millis(), proto.peak_millis(), proto.daily_base_millis(),
          proto.daily_peak_millis(), proto.spike_millis()};
}

MemoryStats MemoryStatsFromProto(const headroom::v1::MemoryStats& proto) {
  const int64_t peak = proto.peak_bytes();
  return {proto.base_bytes(),
          peak,
          proto.max_7d_bytes() > 0 ? proto.max_7d_bytes() : peak,
          proto.oom_bytes(),
          proto.daily_base_bytes(),
          proto.daily_peak_bytes(),
          proto.spike_bytes(),
          proto.pressure_bytes()};
}

}  // namespace headroom::codec
