#pragma once

// Sends this node's state to headroom-extender's ReportService (proto/headroom/v1/report.proto):
// allocatable, load, CPUs and every pod with its workload key and per-container statistics.

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/security/credentials.h"
#include "headroom/v1/report.grpc.pb.h"
#include "kubelet-hook/loop_ports.h"
#include "kubelet-hook/node_state.h"
#include "shared/resource.h"

namespace headroom::nri {

// The report as the extender expects it; pure apart from reading `state`.
headroom::v1::NodeReport BuildNodeReport(const NodeState& state, const std::string& node_name,
                                         ResourceAmounts allocatable, std::optional<double> load1,
                                         int cpus, absl::Time now);

class NodeReporter : public ReportSink {
 public:
  // Plaintext unless `credentials` say otherwise (io/grpc_tls.h); `token_file` set: its
  // bearer token goes with every report (io/bearer_token.h).
  explicit NodeReporter(
      const std::string& extender_address,
      std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials(),
      std::string token_file = "");
  // The extender's reply, with the cluster-wide history of the reported workload containers.
  absl::StatusOr<headroom::v1::ReportReply> Send(const headroom::v1::NodeReport& report,
                                                 absl::Duration timeout) override;

 private:
  std::unique_ptr<headroom::v1::ReportService::Stub> stub_;
  std::string token_file_;
};

// /proc/loadavg's 1-minute value; nullopt when unreadable.
std::optional<double> ReadLoad1();

}  // namespace headroom::nri
