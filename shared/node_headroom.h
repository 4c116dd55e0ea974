#pragma once

// The node's shared headroom, measured: what the containers of one node need above their
// bases *together*, from their usage profiles (usage_stats.h: the max of each 5-minute slot
// of the last 48 hours, aligned to the epoch):
//
//   shared headroom = max(0, R(sum of the containers' profiles, slot by slot) - sum of bases)
//
// with R the smallest reserve above which the summed usage of the window is at most the
// spike shortfall (0.75% for CPU; 0 for memory: the max; windowed_percentile.h's
// ReserveForShortfall): the CPU the node would have been short of with that reserve, as a
// share of its usage -- the harm CPU contention does, bounded directly. Seed 000 reserved the
// node's single largest headroom, a worst case that holds only while spikes never coincide and
// costs the whole largest spike when they rarely do; this is the node's own distribution of
// coincident usage: spikes that never overlapped in the last two days share one reserve,
// spikes that did (a cluster-wide peak hour) are reserved together.
//
// headroom-nri measures it over the pods it sizes and reports it; the per-node optimisation
// shares it out (node_optimizer.h), the extender judges the node by it (placement.h) and adds
// the pods placed since by root-sum-square (footprint.h's CombineHeadroom). A slot none of the
// containers recorded does not count; too few recorded slots and the node is not measured.

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/time/time.h"
#include "shared/bucketed_max.h"
#include "shared/resource.h"
#include "shared/usage_stats.h"

namespace headroom {

// One container as the measurement sees it: its profile and its base (footprint.h's planning
// base) for one resource.
struct ProfiledAmount {
  const BucketedMax* profile = nullptr;
  int64_t base = 0;
};

// The shared headroom of `containers` for one resource, for a spike `shortfall`: nullopt
// when fewer than `min_slots` slots of the window were recorded by any of them.
std::optional<int64_t> MeasuredSharedHeadroom(const std::vector<ProfiledAmount>& containers,
                                              absl::Time now, absl::Duration window,
                                              double shortfall, int min_slots);

// A container's statistics and planning bases, for a node's measurement.
struct ProfiledContainer {
  const ContainerUsageStats* stats = nullptr;
  ResourceAmounts base;
};

// A node's pods measured together, with the spike shortfalls and window of `config`: a pod
// is in the measurement when it has containers and every container's CPU and memory profile
// recorded at least half of min(`min_history`, the window) (a pod the caller does not size
// passes no containers). `shared_headroom` covers the pods marked `measured`; nullopt when
// none is.
struct NodeMeasurement {
  std::optional<ResourceAmounts> shared_headroom;
  std::vector<bool> measured;  // per pod
};
NodeMeasurement MeasureNode(const std::vector<std::vector<ProfiledContainer>>& pods, absl::Time now,
                            absl::Duration min_history, const UsageStatsConfig& config);

// Whether `profile` recorded enough of the window to be measured (see above).
bool ProfileMeasured(const BucketedMax& profile, absl::Time now, absl::Duration min_history,
                     const UsageStatsConfig& config);

}  // namespace headroom
