#pragma once

// The node report's wire form (proto/headroom/v1/report.proto) for the values both ends share:
// headroom-nri writes it, headroom-extender reads it (and the CLI writes it for `headroom
// report`), so each mapping lives here once.

#include "headroom/v1/report.pb.h"
#include "shared/eviction_ranking.h"
#include "shared/usage_stats.h"

namespace headroom::codec {

headroom::v1::EvictionRanking RankingToProto(EvictionRanking ranking);
// UNSPECIFIED (and any unknown value) is low, the default ranking.
EvictionRanking RankingFromProto(headroom::v1::EvictionRanking ranking);

void CpuStatsToProto(const CpuStats& stats, headroom::v1::CpuStats& proto);
void MemoryStatsToProto(const MemoryStats& stats, headroom::v1::MemoryStats& proto);
CpuStats CpuStatsFromProto(const headroom::v1::CpuStats& proto);
// max7dBytes 0 means the peak.
MemoryStats MemoryStatsFromProto(const headroom::v1::MemoryStats& proto);

}  // namespace headroom::codec
