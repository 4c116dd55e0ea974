#pragma once

// Container updates outside of an NRI event, as the node loop asks for them
// (kubelet-hook/loop_ports.h) and the plugin runner sends them (plugin_runner.h).

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "nri/v1alpha1/api.pb.h"

namespace headroom::nri {

namespace napi = ::nri::pkg::api::v1alpha1;

// Container updates outside of an NRI event (plugin_runner.h sends them).
class RuntimeUpdates {
 public:
  virtual ~RuntimeUpdates() = default;
  virtual absl::StatusOr<napi::UpdateContainersResponse> UpdateContainers(
      const napi::UpdateContainersRequest& request, absl::Duration timeout) = 0;
};

}  // namespace headroom::nri
