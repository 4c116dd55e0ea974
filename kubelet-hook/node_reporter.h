#pragma once

// Sends this node's state to headroom-extender's ReportService (proto/headroom/v1/report.proto):
// allocatable, load, CPUs and every pod with its workload key and per-container statistics.

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
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

// The IP addresses `host` resolves to (numeric hosts as they are), sorted; Unavailable when
// it resolves to none.
absl::StatusOr<std::vector<std::string>> ResolveAddresses(const std::string& host);

// The pods' adoption steps of a reply (ReportReply.pod_modes), by pod UID; a value that is not
// a step is left out (the pod keeps its admitted step).
absl::flat_hash_map<std::string, AdoptionStep> PodModesOf(const headroom::v1::ReportReply& reply);

// One reply from the replies of several extender replicas: OK when one replica at least took
// the report; the most nodes any replica knows; each workload container's longest history.
// Unavailable, naming each replica's error, when none took it.
absl::StatusOr<headroom::v1::ReportReply> MergeReplicaReplies(
    const std::vector<std::pair<std::string, absl::StatusOr<headroom::v1::ReportReply>>>& replies);

struct ReplicaOptions {
  // Report to every address the extender's host resolves to (a headless Service names every
  // replica's pod), resolved anew for each report, instead of to one connection. TLS is
  // verified against the host name.
  bool all_replicas = false;
  std::function<absl::StatusOr<std::vector<std::string>>(const std::string& host)> resolve =
      ResolveAddresses;
};

class NodeReporter : public ReportSink {
 public:
  // Plaintext unless `credentials` say otherwise (io/grpc_tls.h); `token_file` set: its
  // bearer token goes with every report (io/bearer_token.h).
  explicit NodeReporter(
      const std::string& extender_address,
      std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials(),
      std::string token_file = "", ReplicaOptions replicas = {});
  // The extender's reply, with the cluster-wide history of the reported workload containers
  // (with all_replicas, MergeReplicaReplies of every replica's).
  absl::StatusOr<headroom::v1::ReportReply> Send(const headroom::v1::NodeReport& report,
                                                 absl::Duration timeout) override;

 private:
  absl::StatusOr<headroom::v1::ReportReply> SendToEveryReplica(
      const headroom::v1::NodeReport& report, absl::Duration timeout);
  headroom::v1::ReportService::Stub& ReplicaStub(const std::string& ip);

  std::string address_;
  std::shared_ptr<grpc::ChannelCredentials> credentials_;
  std::unique_ptr<headroom::v1::ReportService::Stub> stub_;
  std::string token_file_;
  ReplicaOptions replicas_;
  std::string host_;
  std::string port_;
  std::map<std::string, std::unique_ptr<headroom::v1::ReportService::Stub>> replica_stubs_;
};

// /proc/loadavg's 1-minute value; nullopt when unreadable.
std::optional<double> ReadLoad1();

}  // namespace headroom::nri
