#pragma once

// The gRPC service through which headroom-nri reports each node to headroom-extender. A report
// is believed only from the node it is about (reporter_identity.h) and only as far as the
// Kubernetes API confirms its pods (report_verification.h); its time is never later than its
// arrival.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "extender/cluster_view.h"
#include "extender/metrics.h"
#include "extender/report_verification.h"
#include "extender/reporter_identity.h"
#include "grpcpp/security/server_credentials.h"
#include "headroom/v1/report.grpc.pb.h"

namespace grpc {
class Server;
}

namespace headroom::extender {

struct ReportServiceOptions {
  ReportAuth auth = ReportAuth::kInsecure;
  TokenAuthenticator* tokens = nullptr;  // required for ReportAuth::kToken
  ApiFacts api;                          // empty: no Kubernetes API, pods are not checked
  Metrics* metrics = nullptr;            // optional
};

class ReportServiceImpl final : public headroom::v1::ReportService::Service {
 public:
  explicit ReportServiceImpl(ClusterView& view, ReportServiceOptions options = {},
                             std::function<absl::Time()> clock = absl::Now)
      : view_(view), options_(std::move(options)), clock_(std::move(clock)) {}
  ReportServiceImpl(ClusterView& view, std::function<absl::Time()> clock)
      : ReportServiceImpl(view, {}, std::move(clock)) {}

  grpc::Status Report(grpc::ServerContext* context, const headroom::v1::NodeReport* request,
                      headroom::v1::ReportReply* reply) override;

 private:
  // OK when the caller may report `node` under options_.auth.
  grpc::Status CheckCaller(grpc::ServerContext* context, const std::string& node);
  void Count(const std::string& outcome);

  ClusterView& view_;
  ReportServiceOptions options_;
  std::function<absl::Time()> clock_;
};

struct RunningGrpcServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

// Bounds on what one client can make the report server hold.
struct ReportServerLimits {
  int max_message_bytes = 4 << 20;  // a node of 110 pods reports well under 1 MiB
  int max_metadata_bytes = 16 << 10;
  int max_concurrent_streams = 16;     // per connection
  int max_threads = 32;                // the whole server's request threads
  size_t max_memory_bytes = 16 << 20;  // gRPC's buffers (a resource quota)
};

// Starts the gRPC server on `address` ("host:port"; port 0 picks a free one), plaintext
// unless `credentials` say otherwise (io/grpc_tls.h).
absl::StatusOr<RunningGrpcServer> StartReportServer(
    const std::string& address, ReportServiceImpl& service,
    std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials(),
    const ReportServerLimits& limits = {});

}  // namespace headroom::extender
