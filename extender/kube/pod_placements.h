#pragma once

// Feeds the cluster view with pods the moment they are bound to a node, from a watch of bound,
// unfinished pods (fieldSelector spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed).
// A pod newly seen bound counts on its node at its projected footprint (sized like a filter
// candidate) until the node's next report covers it or the placement expires, so two pods
// scheduled between two reports cannot both take the same last headroom. A (re)list counts
// the pods it has not seen before the same way -- at start-up every bound pod, so a restarted
// extender does not see full nodes as empty until their next reports -- and forgets the ones
// gone; a pod a node's report already lists is not counted twice.

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "extender/kube/list_watcher.h"
#include "extender/view/cluster_view.h"
#include "nlohmann/json.hpp"

namespace headroom::extender {

// The watch the tracker and the pod index (pod_index.h) share, cut to BoundPodFields().
ListWatchOptions BoundPodsWatch();

// The members of a Pod that the tracker (DecodePodObject) and the pod index (DecodeApiPod)
// read, and the resourceVersion the watch resumes from; nothing else of a bound pod is
// parsed into a tree (json_projection.h). Reading another member of the pod means listing
// it here; BoundPodFieldsTest checks both decoders see the same pod either way.
const FieldMask& BoundPodFields();

class PodPlacementTracker {
 public:
  explicit PodPlacementTracker(ClusterView& view);

  // After a (re)list: these are the bound pods now; those not seen before are recorded on
  // their nodes at `now`, those no longer listed are forgotten.
  void Replace(const std::vector<nlohmann::json>& pods, absl::Time now);
  // A watch event: a bound pod not seen before is recorded on its node at `now`; a deleted
  // one (or one that left the selector by finishing) is forgotten.
  void Apply(const WatchEvent& event, absl::Time now);

  size_t known_pods() const;
  int64_t placements_recorded() const;

 private:
  ClusterView& view_;
  mutable absl::Mutex mu_;
  absl::flat_hash_set<std::string> bound_ ABSL_GUARDED_BY(mu_);  // pod UIDs
  int64_t recorded_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace headroom::extender
