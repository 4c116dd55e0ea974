#include "extender/report_service.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "codec/report_codec.h"
#include "shared/log_text.h"
#include "shared/workload_key.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {
namespace {

std::vector<std::string> AuthValues(const grpc::AuthContext& auth, const char* property) {
  std::vector<std::string> values;
  for (const grpc::string_ref& value : auth.FindPropertyValues(property)) {
    values.emplace_back(value.data(), value.size());
  }
  return values;
}

std::string BearerToken(const grpc::ServerContext& context) {
  const auto& metadata = context.client_metadata();
  const auto it = metadata.find("authorization");
  if (it == metadata.end()) return "";
  const absl::string_view value(it->second.data(), it->second.size());
  constexpr absl::string_view kBearer = "Bearer ";
  return absl::StartsWith(value, kBearer) ? std::string(value.substr(kBearer.size())) : "";
}

grpc::StatusCode GrpcCode(const absl::Status& status) {
  return static_cast<grpc::StatusCode>(static_cast<int>(status.code()));
}

}  // namespace

void ReportServiceImpl::Count(const std::string& outcome) {
  if (options_.metrics != nullptr) options_.metrics->CountReport(outcome);
}

grpc::Status ReportServiceImpl::CheckCaller(grpc::ServerContext* context, const std::string& node) {
  switch (options_.auth) {
    case ReportAuth::kInsecure:
      return grpc::Status::OK;
    case ReportAuth::kCertificate: {
      const std::shared_ptr<const grpc::AuthContext> auth = context->auth_context();
      if (auth == nullptr || !auth->IsPeerAuthenticated()) {
        return {grpc::StatusCode::UNAUTHENTICATED, "a client certificate is required"};
      }
      if (!CertificateSpeaksFor(AuthValues(*auth, GRPC_X509_CN_PROPERTY_NAME),
                                AuthValues(*auth, GRPC_X509_SAN_PROPERTY_NAME), node)) {
        return {grpc::StatusCode::PERMISSION_DENIED,
                absl::StrCat("the client certificate does not name node ", node)};
      }
      return grpc::Status::OK;
    }
    case ReportAuth::kToken: {
      if (options_.tokens == nullptr) {
        return {grpc::StatusCode::INTERNAL, "no token authenticator configured"};
      }
      absl::StatusOr<std::string> caller = options_.tokens->NodeOf(BearerToken(*context));
      if (!caller.ok()) {
        return {GrpcCode(caller.status()), std::string(caller.status().message())};
      }
      if (*caller != node) {
        return {grpc::StatusCode::PERMISSION_DENIED,
                absl::StrCat("a token of node ", *caller, " may not report node ", node)};
      }
      return grpc::Status::OK;
    }
  }
  return {grpc::StatusCode::INTERNAL, "unknown report authentication mode"};
}

grpc::Status ReportServiceImpl::Report(grpc::ServerContext* context,
                                       const headroom::v1::NodeReport* request,
                                       headroom::v1::ReportReply* reply) {
  const std::string node = LogText(request->node());
  if (grpc::Status caller = CheckCaller(context, request->node()); !caller.ok()) {
    spdlog::warn("refused a report for node {} from {}: {}", node, LogText(context->peer()),
                 LogText(caller.error_message()));
    Count(caller.error_code() == grpc::StatusCode::PERMISSION_DENIED ? "forbidden"
          : caller.error_code() == grpc::StatusCode::UNAVAILABLE     ? "unavailable"
                                                                     : "unauthenticated");
    return caller;
  }
  absl::StatusOr<NodeReport> report = codec::NodeReportFromProto(*request, clock_());
  if (!report.ok()) {
    spdlog::warn("refused a report for node {}: {}", node, LogText(report.status().message()));
    Count("invalid");
    return {grpc::StatusCode::INVALID_ARGUMENT, std::string(report.status().message())};
  }
  absl::StatusOr<std::vector<UnverifiedPod>> unverified = VerifyReport(*report, options_.api);
  if (!unverified.ok()) {
    spdlog::warn("refused a report for node {}: {}", node, LogText(unverified.status().message()));
    Count("unknown_node");
    return {GrpcCode(unverified.status()), std::string(unverified.status().message())};
  }
  if (!unverified->empty()) {
    std::vector<std::string> shown;
    for (size_t i = 0; i < std::min<size_t>(unverified->size(), 3); ++i) {
      shown.push_back(absl::StrCat((*unverified)[i].pod, " (", (*unverified)[i].why, ")"));
    }
    spdlog::info(
        "report for node {}: {} of {} pods not confirmed by the API, counted but not "
        "trusted: {}{}",
        node, unverified->size(), report->pods.size(), LogText(absl::StrJoin(shown, "; ")),
        unverified->size() > shown.size() ? "; ..." : "");
    if (options_.metrics != nullptr) options_.metrics->CountUnverifiedPods(unverified->size());
  }
  if (absl::Status applied = view_.ApplyReport(*report); !applied.ok()) {
    spdlog::warn("refused a report for node {}: {}", node, LogText(applied.message()));
    Count("invalid");
    return {grpc::StatusCode::INVALID_ARGUMENT, std::string(applied.message())};
  }
  Count("accepted");
  spdlog::debug("report from node {}: {} pods", node, report->pods.size());
  reply->set_nodes_known(static_cast<int32_t>(view_.NodeCount()));
  // The union of each reported workload container's history over every node.
  for (const ReportedPod& pod : report->pods) {
    if (pod.workload_key.empty() || !pod.verified) continue;
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
    std::shared_ptr<grpc::ServerCredentials> credentials, const ReportServerLimits& limits) {
  RunningGrpcServer running;
  grpc::ServerBuilder builder;
  builder.AddListeningPort(address, std::move(credentials), &running.port);
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(limits.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE, limits.max_metadata_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, limits.max_concurrent_streams);
  // A connection that sends nothing for this long is closed.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 5 * 60 * 1000);
  grpc::ResourceQuota quota("headroom-report-server");
  quota.SetMaxThreads(limits.max_threads);
  quota.Resize(limits.max_memory_bytes);  // gRPC's own buffers, whatever clients send
  builder.SetResourceQuota(quota);
  running.server = builder.BuildAndStart();
  if (running.server == nullptr || running.port == 0) {
    return absl::UnavailableError(absl::StrCat("cannot serve gRPC on ", address));
  }
  return running;
}

}  // namespace headroom::extender
