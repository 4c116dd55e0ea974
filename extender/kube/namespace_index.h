#pragma once

// The Namespaces' headroom.dev/ annotations, fed by a watch of Namespaces: the namespace layer
// of the workload policy (shared/workload_policy.h: pod > owner > namespace > cluster), which
// is how an operator puts a whole namespace on one step of the adoption ladder
// (headroom.dev/mode: observe | admission | in-place). Only headroom.dev/ keys are kept, so a
// cluster's namespaces cost a few bytes each. Thread-safe.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "extender/kube/list_watcher.h"
#include "nlohmann/json.hpp"
#include "shared/workload_policy.h"

namespace headroom::extender {

ListWatchOptions NamespacesWatch();

// The annotations of a pod's Namespace; nullopt while the Namespaces are not listed yet.
// A null function: no Kubernetes API, no namespace layer.
using NamespaceLookup = std::function<std::optional<Annotations>(const std::string& name)>;

// The policy of a pod in `pod_namespace` with its Namespace's annotations as the third layer.
// Until the Namespaces are listed, a pod whose own or owner's annotations set no mode is
// observed only (step_from says why): a namespace the operator put in observe is never sized
// by an extender that has just started.
WorkloadPolicy ResolvePodPolicy(const Annotations& owner, const Annotations& pod,
                                absl::string_view kind, std::optional<int> replicas,
                                const PolicyDefaults& defaults, const std::string& pod_namespace,
                                const NamespaceLookup& namespaces);

class NamespaceIndex {
 public:
  void Replace(const std::vector<nlohmann::json>& namespaces);
  void Apply(const WatchEvent& event);

  // The Namespace's headroom.dev/ annotations (empty for an unknown Namespace).
  Annotations For(const std::string& name) const;
  // Namespaces with at least one headroom.dev/ annotation.
  std::vector<std::pair<std::string, Annotations>> Annotated() const;

 private:
  mutable absl::Mutex mu_;
  // Only Namespaces with headroom.dev/ annotations.
  absl::flat_hash_map<std::string, Annotations> annotated_ ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::extender
