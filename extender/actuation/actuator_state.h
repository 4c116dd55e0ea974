#pragma once

// What the actuator must remember across a restart and a change of leader for its guard rails
// to hold, kept in a ConfigMap as well as in memory:
// - the shrink ledger: when each container's CPU request, memory request and memory limit
//   last shrank (one bounded step per --shrink-interval), data key "shrinkLedger":
//     {"<pod uid>/<container>": {"cpuRequest": "2026-11-24T20:00:00Z", "memoryLimit": ...}}
// - the evictions of the last hours, each a token taken from the eviction budgets (per node
//   and cluster-wide), data key "recentEvictions": [{"node": "n1", "at": "2026-11-..."}]
// Without them a restarted extender, or one restarting in a crash loop, would start with full
// eviction budgets and no shrink steps taken. The ConfigMap is deploy/'s (the extender may get
// and patch it, not create ConfigMaps); when it is absent the actuator tries to create it.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "extender/actuation/actuation_plan.h"
#include "io/kube_client.h"
#include "shared/disruption.h"

namespace headroom::extender {

// At most this many of each are kept (the newest): a ConfigMap holds 1 MiB.
inline constexpr size_t kMaxShrinkLedgerEntries = 8000;
inline constexpr size_t kMaxRecordedEvictions = 4000;

struct RecordedEviction {
  std::string node;
  absl::Time at;

  bool operator==(const RecordedEviction&) const = default;
};

struct ActuatorState {
  ShrinkLedger shrinks;
  std::vector<RecordedEviction> evictions;  // oldest first
};

std::string EncodeShrinkLedger(const ShrinkLedger& ledger);
// InvalidArgument for anything but the shape above (bad times, too deep, too many entries).
absl::StatusOr<ShrinkLedger> DecodeShrinkLedger(absl::string_view text);
// Adds `from` to `into`, keeping the later time of each value.
void MergeShrinkLedger(ShrinkLedger& into, const ShrinkLedger& from);

std::string EncodeEvictions(const std::vector<RecordedEviction>& evictions);
absl::StatusOr<std::vector<RecordedEviction>> DecodeEvictions(absl::string_view text);
// The union of both (each eviction once), oldest first, without those before `since`.
std::vector<RecordedEviction> MergeEvictions(const std::vector<RecordedEviction>& a,
                                             const std::vector<RecordedEviction>& b,
                                             absl::Time since);

// The eviction budgets after `evictions` (oldest first), each taken at its time.
EvictionBudget RebuiltEvictionBudget(const EvictionBudgetConfig& config,
                                     const std::vector<RecordedEviction>& evictions);

struct ConfigMapName {
  std::string config_namespace;
  std::string name;

  std::string Text() const { return config_namespace + "/" + name; }  // "namespace/name"
};
// "namespace/name"; InvalidArgument ("\"text\": expected NAMESPACE/NAME") otherwise.
absl::StatusOr<ConfigMapName> ParseConfigMapName(absl::string_view text);

class ActuatorStateStore {
 public:
  ActuatorStateStore(io::KubeClient& kube, ConfigMapName configmap);

  // The stored state; empty when the ConfigMap or its keys do not exist.
  absl::StatusOr<ActuatorState> Load();
  // Stores `state` (the newest entries up to the caps), creating the ConfigMap if needed.
  absl::Status Save(const ActuatorState& state);

  const std::string& name() const { return name_; }  // "namespace/name", for logs

 private:
  std::string Path() const;

  io::KubeClient* kube_;
  ConfigMapName configmap_;
  std::string name_;
};

}  // namespace headroom::extender
