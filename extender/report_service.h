#pragma once

// The gRPC service through which headroom-nri reports each node to headroom-extender.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "extender/cluster_view.h"
#include "grpcpp/security/server_credentials.h"
#include "headroom/v1/report.grpc.pb.h"

namespace grpc {
class Server;
}

namespace headroom::extender {

class ReportServiceImpl final : public headroom::v1::ReportService::Service {
 public:
  explicit ReportServiceImpl(ClusterView& view, std::function<absl::Time()> clock = absl::Now)
      : view_(view), clock_(std::move(clock)) {}

  grpc::Status Report(grpc::ServerContext* context, const headroom::v1::NodeReport* request,
                      headroom::v1::ReportReply* reply) override;

 private:
  ClusterView& view_;
  std::function<absl::Time()> clock_;
};

struct RunningGrpcServer {
  std::unique_ptr<grpc::Server> server;
  int port = 0;
};

// Starts the gRPC server on `address` ("host:port"; port 0 picks a free one), plaintext
// unless `credentials` say otherwise (io/grpc_tls.h).
absl::StatusOr<RunningGrpcServer> StartReportServer(
    const std::string& address, ReportServiceImpl& service,
    std::shared_ptr<grpc::ServerCredentials> credentials = grpc::InsecureServerCredentials());

}  // namespace headroom::extender
