#pragma once

// What the node loop (node_loop.h) needs from the runtime connection and the extender: small
// interfaces that plugin_runner.h and node_reporter.h implement and tests fake.

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "headroom/v1/report.pb.h"
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

// Where node reports go (node_reporter.h sends them to the extender).
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual absl::StatusOr<headroom::v1::ReportReply> Send(const headroom::v1::NodeReport& report,
                                                         absl::Duration timeout) = 0;
};

}  // namespace headroom::nri
