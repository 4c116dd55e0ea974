#pragma once

// A pod's footprint as the cluster view projects it, by shared/footprint.h's rule: its
// workload's statistics once they are trusted (observed for the warm-up), otherwise its
// declared requests (base) and limits (peak). The scheduler judges a candidate by it and the
// pod watch records a new placement with it, so both read one rule.

#include "extender/kube/pod_decoder.h"
#include "extender/view/cluster_view.h"
#include "shared/placement.h"

namespace headroom::extender {

PodFootprint CandidateFootprint(const PodSpec& pod, const ClusterView& view);

}  // namespace headroom::extender
