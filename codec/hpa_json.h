#pragma once

// autoscaling/v2 HorizontalPodAutoscaler objects, as the API serves them, reduced to what
// shared/hpa.h needs: which workload the HPA scales and whether it targets CPU or memory
// utilisation (a Resource or ContainerResource metric with target.type Utilization).

#include <string>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "shared/hpa.h"

namespace headroom::codec {

struct HpaObject {
  std::string key;           // "namespace/name" of the HPA
  std::string workload_key;  // "namespace/Kind/name" of spec.scaleTargetRef
  HpaScaling scaling;
};

// InvalidArgument for an object without metadata.namespace/name or spec.scaleTargetRef
// kind/name. An HPA without metrics scales on CPU utilisation (the API's default of 80%).
absl::StatusOr<HpaObject> DecodeHpa(const nlohmann::json& object);

}  // namespace headroom::codec
