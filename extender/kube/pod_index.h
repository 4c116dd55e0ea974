#pragma once

// The bound, unfinished pods as the Kubernetes API last showed them, reduced to what the
// actuator needs: declared resources, annotations, owner, resize conditions (KEP-1287,
// PodResizePending / PodResizeInProgress) and OOM kills seen in container statuses. Fed by
// the extender's watch of bound pods; thread-safe.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_resources.h"
#include "extender/kube/policy_layers.h"
#include "nlohmann/json.hpp"
#include "shared/node_report.h"
#include "shared/pod_identity.h"
#include "shared/pod_level_resources.h"
#include "shared/workload_key.h"
#include "shared/workload_policy.h"

namespace headroom::extender {

struct OomKill {
  std::string container;
  std::string container_id;  // of the killed container instance
  absl::Time finished_at = absl::InfinitePast();
};

// A pod's requests as the scheduler counts them (pod-level where declared): as declared
// (headroom.dev/declared and declared-pod, where the webhook changed them) and now.
struct PodRequests {
  ResourceAmounts declared;
  ResourceAmounts now;
};

struct ApiPod : PodIdentity {
  std::string node;
  std::string owner_kind;  // the controller's kind; "" without one
  std::string owner_name;
  PodLabels key_labels;  // the labels the workload key reads (shared/workload_key.h)
  // Only the annotations headroom reads (IsReadAnnotation): a pod's others -- a service
  // mesh's status, a tool's last-applied configuration, kilobytes each -- would be kept for
  // every pod of the cluster and never read.
  Annotations annotations;
  std::vector<DeclaredResources> containers;
  std::vector<DeclaredResources> init_containers;
  PodLevelResources pod_level;  // spec.resources (Kubernetes 1.34+); zeros: none declared
  std::string resize_pending;   // "Deferred" or "Infeasible" while PodResizePending is set
  bool resize_in_progress = false;
  std::string resize_message;  // the conditions' message, if any
  bool terminating = false;    // deletionTimestamp set
  bool ready = false;          // the Ready condition is True
  bool mirror = false;         // a static pod's mirror (kubernetes.io/config.mirror)
  std::vector<OomKill> oom_kills;
  // Worked out once when the pod is decoded (pod_facts.h's RequestsOfPod), for the sums over
  // every pod that the status page makes.
  PodRequests requests;

  std::string Key() const { return pod_namespace + "/" + name; }
};

// Pods and Ready pods of one controller (a workload's replicas as the API shows them).
struct WorkloadCount {
  int pods = 0;
  int ready = 0;
};
// "namespace/Kind/name" of the pod's controller; "" without one.
std::string ControllerKey(const ApiPod& pod);

// The pod's workload key as the webhook decides it (shared/workload_key.h): a Deployment's
// ReplicaSet is the Deployment.
std::string WorkloadKeyOf(const ApiPod& pod);

// The count of the pod's controller in `counts` (zero without a controller or an entry).
WorkloadCount CountOf(const absl::flat_hash_map<std::string, WorkloadCount>& counts,
                      const ApiPod& pod);

// The pod's policy from its annotations and its Namespace's (docs/annotations.md), its owner's
// kind and, for a pod with a controller, its workload's replica count (the default eviction
// ranking).
WorkloadPolicy PolicyOf(const ApiPod& pod, const WorkloadCount& count,
                        const PolicyDefaults& defaults = {}, const PolicyLayers& layers = {});

// Whether headroom reads the pod annotation `key`: its own (headroom.dev/, policy and the
// webhook's records) and karpenter.sh/do-not-disrupt.
bool IsReadAnnotation(absl::string_view key);

// InvalidArgument for an object without metadata.name/namespace/uid or with bad resources.
absl::StatusOr<ApiPod> DecodeApiPod(const nlohmann::json& pod);

class PodIndex {
 public:
  void Replace(const std::vector<nlohmann::json>& pods);
  void Apply(const WatchEvent& event);

  std::optional<ApiPod> Find(const std::string& pod_namespace, const std::string& name) const;
  // The same without a copy: the pod as indexed (replaced whole when it changes, never
  // changed in place), null when the index does not know it.
  std::shared_ptr<const ApiPod> Get(const std::string& pod_namespace,
                                    const std::string& name) const;
  // The requests of each of `pods` (by namespace and name; nullopt for a pod the index does
  // not know), in their order: one lock for all of them and no copy of a pod.
  std::vector<std::optional<PodRequests>> RequestsOf(const std::vector<ReportedPod>& pods) const;
  // The pod's annotation `key` ("" when it has none) if the pod's UID is `uid`; nullopt when no
  // such pod is known. A lookup without a copy of the pod, for every pod of every report.
  std::optional<std::string> AnnotationOf(const std::string& pod_namespace, const std::string& name,
                                          const std::string& uid, absl::string_view key) const;
  // Every pod with at least one OOM kill in its container statuses.
  std::vector<ApiPod> WithOomKills() const;
  // Pods and Ready pods per controller (ControllerKey), for an actuation round.
  absl::flat_hash_map<std::string, WorkloadCount> WorkloadCounts() const;
  // The count of `pod`'s controller alone (zero without a controller): a lookup, kept up to
  // date as pods come and go, so explaining one pod does not count the cluster's.
  WorkloadCount CountFor(const ApiPod& pod) const;
  size_t size() const;

 private:
  // Adds (`sign` 1) or removes (-1) `pod`'s part of its controller's count.
  void CountLocked(const ApiPod& pod, int sign) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  mutable absl::Mutex mu_;
  // By "ns/name"; shared, so that a reader keeps a pod without a copy (Get).
  absl::flat_hash_map<std::string, std::shared_ptr<const ApiPod>> pods_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, WorkloadCount> counts_ ABSL_GUARDED_BY(mu_);  // by controller
};

}  // namespace headroom::extender
