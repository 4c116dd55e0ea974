#pragma once

// Disruption policy: which pods headroom may evict, how many, and when CPU justifies it
// (docs/algorithm.md, "Disruption policy"). The actuator and the simulator both go through it.
//
// Never evicted: DaemonSet pods, static pods' mirrors, pods already terminating, pods
// annotated headroom.dev/do-not-disrupt or karpenter.sh/do-not-disrupt, workloads annotated
// disable or a mode below in-place, and eviction ranking no-eviction. Unless the workload opts in
// with headroom.dev/allow-disruption: "true", also never: a pod without a controller (nothing
// would recreate it), a StatefulSet pod, a single-replica workload's pod, or the last ready
// replica of a workload. PodDisruptionBudgets are the Eviction API's to enforce.
//
// Budgets: at most `per_node_per_hour` evictions on one node and `cluster_per_minute` across
// the cluster (token buckets), so even a wrong statistic cannot drain a node or a cluster.

#include <cstddef>
#include <optional>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "shared/eviction_ranking.h"

namespace headroom {

struct DisruptionFacts {
  bool verified = true;    // false: not seen in the Kubernetes API, never acted on
  std::string workload;    // the controller ("namespace/Kind/name"); "" for none
  std::string owner_kind;  // the controller's kind; "" for a pod without one
  int workload_pods = 1;   // pods of the workload headroom knows of, this one included
  int workload_ready = 1;  // of those, the Ready ones
  bool ready = true;       // this pod is Ready
  bool mirror = false;
  bool terminating = false;
  bool do_not_disrupt = false;  // headroom.dev/do-not-disrupt or karpenter.sh/do-not-disrupt
  bool disabled = false;        // headroom.dev/disable
  bool recommend_only = false;  // headroom.dev/mode below in-place (or the global switch)
  EvictionRanking ranking = EvictionRanking::kLow;
  bool allow_disruption = false;  // headroom.dev/allow-disruption: "true"
  // Why now is outside the pod's disruption windows (OutsideDisruptionWindow); "": inside.
  std::string outside_window;
};

// Why headroom must not evict the pod ("" when it may).
std::string EvictionBlockedBy(const DisruptionFacts& facts);

// A token bucket: `per_hour` tokens an hour, at most `burst` saved; full at first use.
class TokenBucket {
 public:
  TokenBucket(double per_hour, double burst) : per_hour_(per_hour), burst_(burst) {}
  bool Available(absl::Time now) const;
  // Takes a token if one is available.
  bool TryTake(absl::Time now);

 private:
  double Tokens(absl::Time now) const;

  double per_hour_;
  double burst_;
  double tokens_ = -1;  // full at first use
  absl::Time last_ = absl::InfinitePast();
};

struct EvictionBudgetConfig {
  double cluster_per_minute = 5;
  double per_node_per_hour = 2;

  absl::Status Validate() const;
  // How long a node's bucket takes to refill from empty (burst / rate): an eviction older
  // than this no longer counts against the node.
  absl::Duration NodeRefill() const;
};

// Not thread-safe: one actuation loop owns it.
class EvictionBudget {
 public:
  explicit EvictionBudget(const EvictionBudgetConfig& config = {});
  // Takes one eviction on `node` from both budgets if both allow it; otherwise takes nothing
  // and says which budget is spent in `why`.
  bool TryTake(absl::string_view node, absl::Time now, std::string* why);
  // Drops the buckets of nodes whose budget has been full for a while (bounded memory).
  void Forget(absl::Time now);
  size_t tracked_nodes() const { return nodes_.size(); }

 private:
  EvictionBudgetConfig config_;
  TokenBucket cluster_;
  absl::flat_hash_map<std::string, std::pair<TokenBucket, absl::Time>> nodes_;  // last take
};

// Whether a condition (say, a node's CPU bases above its available CPU) has held without a
// break for `period`. Keyed by node; an entry lives only while its condition holds. A gap in
// the observations longer than `period` is a break too: what was not seen did not hold.
class SustainedConditions {
 public:
  explicit SustainedConditions(absl::Duration period) : period_(period) {}
  // Records what was observed on `node` at `now`; true when it has held for at least `period`.
  bool Observe(absl::string_view node, bool holds, absl::Time now);
  // Drops the nodes not observed for longer than `period` (nodes that stopped reporting).
  void Prune(absl::Time now);
  size_t tracked() const { return held_.size(); }
  absl::Duration period() const { return period_; }

 private:
  struct Held {
    absl::Time since;
    absl::Time last_seen;
  };
  absl::Duration period_;
  absl::flat_hash_map<std::string, Held> held_;
};

}  // namespace headroom
