#pragma once

// What the node loop (node_loop.h) needs from the runtime connection and the extender: small
// interfaces that transport/plugin_runner.h (RuntimeUpdates, transport/runtime_updates.h) and
// node_reporter.h implement and tests fake.

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "headroom/v1/report.pb.h"
#include "kubelet-hook/transport/runtime_updates.h"

namespace headroom::nri {

// Where node reports go (node_reporter.h sends them to the extender).
class ReportSink {
 public:
  virtual ~ReportSink() = default;
  virtual absl::StatusOr<headroom::v1::ReportReply> Send(const headroom::v1::NodeReport& report,
                                                         absl::Duration timeout) = 0;
};

}  // namespace headroom::nri
