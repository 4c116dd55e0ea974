#pragma once

// The layers of a pod's policy the API shows beyond the pod itself (shared/workload_policy.h:
// pod > owner > namespace > cluster): the headroom.dev/ annotations of its owning workload
// (Deployment, StatefulSet, DaemonSet, CronJob) and of its Namespace, each fed by a watch.
// This is how an operator tunes a whole workload without touching its pod template, or puts a
// whole namespace on one step of the adoption ladder (headroom.dev/mode: observe | admission |
// in-place). Only headroom.dev/ keys are kept, so a cluster's objects cost a few bytes each.

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

// The owner kinds whose annotations are read, and where the API lists them.
struct OwnerKind {
  const char* kind;  // as in a workload key: "Deployment"
  const char* path;  // "/apis/apps/v1/deployments"
};
inline constexpr OwnerKind kOwnerKinds[] = {
    {"Deployment", "/apis/apps/v1/deployments"},
    {"StatefulSet", "/apis/apps/v1/statefulsets"},
    {"DaemonSet", "/apis/apps/v1/daemonsets"},
    {"CronJob", "/apis/batch/v1/cronjobs"},
};

ListWatchOptions NamespacesWatch();
ListWatchOptions OwnersWatch(const OwnerKind& kind);

// The annotations of a pod's Namespace; nullopt while the Namespaces are not listed yet.
using NamespaceLookup = std::function<std::optional<Annotations>(const std::string& name)>;
// The annotations of a workload ("namespace/Kind/name"); empty for a kind not read; nullopt
// while that kind is not listed yet.
using OwnerLookup = std::function<std::optional<Annotations>(const std::string& workload_key)>;

// Null functions: no Kubernetes API, no such layer.
struct PolicyLayers {
  NamespaceLookup namespaces;
  OwnerLookup owners;
};

// The policy of a pod in `pod_namespace` of workload `workload_key` ("" when unknown), with
// its owner's and its Namespace's annotations as the second and third layers. Until a layer is
// listed, a pod whose own annotations set no mode is observed only (step_from says why): a
// namespace or workload the operator put in observe is never sized by an extender that has
// just started.
WorkloadPolicy ResolvePodPolicy(const Annotations& pod, absl::string_view kind,
                                std::optional<int> replicas, const PolicyDefaults& defaults,
                                const std::string& pod_namespace, const std::string& workload_key,
                                const PolicyLayers& layers);

using ObjectKey = std::function<std::string(const nlohmann::json& object)>;

// The key of a Namespace (its name) and of a workload of `kind` ("namespace/Kind/name");
// "" for an object without them.
ObjectKey NamespaceKey();
ObjectKey OwnerKey(absl::string_view kind);

// The headroom.dev/ annotations of objects of one kind, by a key of each object (the
// Namespace's name, a workload's "namespace/Kind/name"). Thread-safe.
class AnnotationIndex {
 public:
  explicit AnnotationIndex(ObjectKey key_of) : key_of_(std::move(key_of)) {}

  void Replace(const std::vector<nlohmann::json>& objects);
  void Apply(const WatchEvent& event);

  // The object's headroom.dev/ annotations (empty for an unknown object).
  Annotations For(const std::string& key) const;
  // How many objects have at least one.
  size_t annotated() const;

 private:
  ObjectKey key_of_;
  mutable absl::Mutex mu_;
  absl::flat_hash_map<std::string, Annotations> annotated_ ABSL_GUARDED_BY(mu_);
};

}  // namespace headroom::extender
