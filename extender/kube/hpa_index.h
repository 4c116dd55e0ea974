#pragma once

// The cluster's HorizontalPodAutoscalers, by the workload they scale (shared/hpa.h), fed by
// a watch of autoscaling/v2 HPAs. The webhook and the actuator ask it whether a workload's
// requests are read by an HPA. Thread-safe.

#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "codec/hpa_json.h"
#include "extender/kube/list_watcher.h"
#include "nlohmann/json.hpp"
#include "shared/hpa.h"

namespace headroom::extender {

ListWatchOptions HpaWatch();

class HpaIndex {
 public:
  void Replace(const std::vector<nlohmann::json>& hpas);
  void Apply(const WatchEvent& event);

  // What the HPAs of workload "namespace/Kind/name" scale it on; nullopt: no HPA.
  std::optional<HpaScaling> For(const std::string& workload_key) const;
  size_t size() const;

 private:
  void Insert(codec::HpaObject hpa) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void Erase(const std::string& hpa_key) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, codec::HpaObject> by_hpa_ ABSL_GUARDED_BY(mu_);
  // workload key -> the keys of its HPAs.
  absl::flat_hash_map<std::string, absl::flat_hash_set<std::string>> by_workload_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::extender
