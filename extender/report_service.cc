#include "extender/report_service.h"

#include <grpcpp/grpcpp.h>

#include "absl/strings/str_cat.h"
#include "extender/report_codec.h"
#include "shared/workload_key.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {

grpc::Status ReportServiceImpl::Report(grpc::ServerContext*,
                                       const headroom::v1::NodeReport* request,
                                       headroom::v1::ReportReply* reply) {
  absl::StatusOr<NodeReport> report = FromProto(*request, clock_());
  absl::Status applied = report.ok() ? view_.ApplyReport(*report) : report.status();
  if (!applied.ok()) {
    spdlog::warn("refused a report for node \"{}\": {}", request->node(),
                 std::string(applied.message()));
    return {grpc::StatusCode::INVALID_ARGUMENT, std::string(applied.message())};
  }
  spdlog::debug("report from node {}: {} pods", report->node, report->pods.size());
  reply->set_nodes_known(static_cast<int32_t>(view_.NodeCount()));
  // The union of each reported workload container's history over every node.
  for (const ReportedPod& pod : report->pods) {
    if (pod.workload_key.empty()) continue;
    for (const ContainerDemand& container : pod.containers) {
      if (std::optional<ClusterView::ContainerStats> stats =
              view_.WorkloadContainer(pod.workload_key, container.name)) {
        (*reply
              ->mutable_history_seconds())[WorkloadContainerKey(pod.workload_key, container.name)] =
            absl::ToInt64Seconds(stats->history);
      }
    }
  }
  return grpc::Status::OK;
}

absl::StatusOr<RunningGrpcServer> StartReportServer(
    const std::string& address, ReportServiceImpl& service,
    std::shared_ptr<grpc::ServerCredentials> credentials) {
  RunningGrpcServer running;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, std::move(credentials), &running.port);
  builder.RegisterService(&service);
  running.server = builder.BuildAndStart();
  if (running.server == nullptr || running.port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot serve gRPC on ", address));
  }
  return running;
}

}  // namespace headroom::extender
