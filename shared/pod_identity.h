#pragma once

// A pod as the Kubernetes API names it. Every struct that describes one pod (the node report's
// ReportedPod, the optimiser's PodDemand, the extender's decoded PodSpec and watched ApiPod, a
// planned resize or eviction, the eviction rankings' inputs) derives from it, so the identity
// is declared once and a function that needs only the name takes a PodIdentity.

#include <string>

namespace headroom {

struct PodIdentity {
  std::string pod_namespace;
  std::string name;
  std::string uid;  // metadata.uid; "" where the source does not carry it

  bool operator==(const PodIdentity&) const = default;
};

}  // namespace headroom
