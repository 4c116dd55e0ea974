#pragma once

// The actuator's shrink ledger -- when each container's CPU request, memory request and
// memory limit last shrank, the guard rails' one-step-per-interval bound -- kept in a
// ConfigMap as well as in memory, so that a restarted extender or a new Lease holder does not
// take a second step within the interval. Key "shrinkLedger" of the ConfigMap's data:
//   {"<pod uid>/<container>": {"cpuRequest": "2026-11-24T20:00:00Z", "memoryLimit": ...}, ...}
// The ConfigMap is deploy/'s (the extender may get and patch it, not create ConfigMaps); when
// it is absent the actuator tries to create it and, refused, keeps the ledger in memory only.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "extender/actuation_plan.h"
#include "io/kube_client.h"

namespace headroom::extender {

// At most this many entries are kept (the newest): a ConfigMap holds 1 MiB.
inline constexpr size_t kMaxShrinkLedgerEntries = 8000;

std::string EncodeShrinkLedger(const ShrinkLedger& ledger);
// InvalidArgument for anything but the shape above (bad times, too deep, too many entries).
absl::StatusOr<ShrinkLedger> DecodeShrinkLedger(absl::string_view text);
// Adds `from` to `into`, keeping the later time of each value.
void MergeShrinkLedger(ShrinkLedger& into, const ShrinkLedger& from);

class ShrinkLedgerStore {
 public:
  // `configmap` is "namespace/name"; InvalidArgument otherwise.
  static absl::StatusOr<ShrinkLedgerStore> Create(io::KubeClient& kube,
                                                  absl::string_view configmap);

  // The stored ledger; empty when the ConfigMap or its key does not exist.
  absl::StatusOr<ShrinkLedger> Load();
  // Stores `ledger` (its newest kMaxShrinkLedgerEntries), creating the ConfigMap if needed.
  absl::Status Save(const ShrinkLedger& ledger);

  const std::string& name() const { return name_; }  // "namespace/name", for logs

 private:
  ShrinkLedgerStore(io::KubeClient& kube, std::string configmap_namespace, std::string name);
  std::string Path() const;

  io::KubeClient* kube_;
  std::string namespace_;
  std::string configmap_;
  std::string name_;
};

}  // namespace headroom::extender
