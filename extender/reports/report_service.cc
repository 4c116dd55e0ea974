#include "extender/reports/report_service.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/server_posix.h>
#include <unistd.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "app/flag_args.h"
#include "codec/report_codec.h"
#include "extender/serving/tls_certificate.h"
#include "shared/log_text.h"
#include "shared/status_macros.h"
#include "shared/workload_key.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {

size_t GrpcMemoryQuota(const ReportServerLimits& limits) {
  return std::max(limits.max_memory_bytes, limits.max_connections * kGrpcBytesPerConnection);
}

namespace {

std::string BearerToken(const grpc::ServerContextBase& context) {
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

ReportServiceImpl::ReportServiceImpl(ClusterView& view, ReportServiceOptions options,
                                     std::function<absl::Time()> clock)
    : view_(view),
      options_(std::move(options)),
      clock_(std::move(clock)),
      queue_(options_.queue, clock_) {
  if (options_.metrics != nullptr) metrics_.emplace(*options_.metrics);
}

std::string ReportServiceImpl::PeerAddress(const grpc::ServerContextBase* context) const {
  if (context == nullptr) return "(no peer)";
  const std::optional<FrontDoorPeer> peer = peers_.Find(context->peer());
  return LogText(peer ? peer->address : context->peer());
}

void ReportServiceImpl::Count(const std::string& outcome) {
  if (metrics_.has_value()) metrics_->CountReport(outcome);
}

grpc::Status ReportServiceImpl::CheckCaller(const grpc::ServerContextBase* context,
                                            const std::string& node) {
  if (options_.auth == ReportAuth::kInsecure) return grpc::Status::OK;
  if (context == nullptr) return {grpc::StatusCode::UNAUTHENTICATED, "no caller"};
  switch (options_.auth) {
    case ReportAuth::kInsecure:
      return grpc::Status::OK;
    case ReportAuth::kCertificate: {
      // The front door verified the certificate at the TLS handshake and recorded it by the
      // connection gRPC names as this call's peer.
      const std::optional<FrontDoorPeer> peer = peers_.Find(context->peer());
      if (!peer || !peer->certificate) {
        return {grpc::StatusCode::UNAUTHENTICATED, "a client certificate is required"};
      }
      if (!CertificateSpeaksFor(peer->certificate->common_names, peer->certificate->alt_names,
                                node)) {
        return {grpc::StatusCode::PERMISSION_DENIED,
                absl::StrCat("the client certificate does not name node ", node)};
      }
      return grpc::Status::OK;
    }
    case ReportAuth::kToken: {
      if (options_.tokens == nullptr) {
        return {grpc::StatusCode::INTERNAL, "no token authenticator configured"};
      }
      const std::optional<FrontDoorPeer> peer = peers_.Find(context->peer());
      absl::StatusOr<std::string> caller =
          options_.tokens->NodeOf(BearerToken(*context), peer ? peer->address : context->peer());
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

grpc::ServerUnaryReactor* ReportServiceImpl::Report(grpc::CallbackServerContext* context,
                                                    const headroom::v1::NodeReport* request,
                                                    headroom::v1::ReportReply* reply) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  const absl::Time deadline = absl::FromChrono(context->deadline());
  const bool queued = queue_.Submit(
      request->SpaceUsedLong(), deadline, [this, context, request, reply, reactor](bool expired) {
        if (expired) {
          Count("expired");
          reactor->Finish({grpc::StatusCode::UNAVAILABLE,
                           "the report waited past its deadline for a worker; retry later"});
          return;
        }
        reactor->Finish(Handle(context, *request, reply));
      });
  if (!queued) {
    Count("busy");
    if (uint64_t suppressed = 0; busy_lines_.Allow(clock_(), suppressed)) {
      spdlog::warn("refused a report for node {}: the report queue is full{}",
                   LogText(request->node()), HeldBack(suppressed));
    }
    reactor->Finish({grpc::StatusCode::RESOURCE_EXHAUSTED,
                     "the extender's report queue is full; retry after a backoff"});
  }
  return reactor;
}

grpc::Status ReportServiceImpl::RefuseOverLimit(const std::string& node, const absl::Status& why) {
  // Beyond a bound of the view (nodes, pods across the cluster) every report of a new node
  // is refused alike: a few lines a second say so.
  if (uint64_t suppressed = 0; refusal_lines_.Allow(clock_(), suppressed)) {
    spdlog::warn("refused a report for node {}: {}{}", node, LogText(why.message()),
                 HeldBack(suppressed, "refusals"));
  }
  Count("over_limit");
  return {GrpcCode(why), std::string(why.message())};
}

grpc::Status ReportServiceImpl::Handle(const grpc::ServerContextBase* context,
                                       const headroom::v1::NodeReport& request,
                                       headroom::v1::ReportReply* reply) {
  const std::string node = LogText(request.node());
  if (grpc::Status caller = CheckCaller(context, request.node()); !caller.ok()) {
    // Anyone who can connect can cause this line: at most a few a second, with a count.
    if (uint64_t suppressed = 0; refusal_lines_.Allow(clock_(), suppressed)) {
      spdlog::warn("refused a report for node {} from {}: {}{}", node, PeerAddress(context),
                   LogText(caller.error_message()), HeldBack(suppressed, "refusals"));
    }
    Count(caller.error_code() == grpc::StatusCode::PERMISSION_DENIED    ? "forbidden"
          : caller.error_code() == grpc::StatusCode::UNAVAILABLE        ? "unavailable"
          : caller.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ? "throttled"
                                                                        : "unauthenticated");
    return caller;
  }
  // A report the view has no room for is refused before it is decoded and verified: a fleet
  // beyond the bounds costs no more than the refusal.
  if (absl::Status room = view_.CheckRoom(request.node(), request.pods_size()); !room.ok()) {
    return RefuseOverLimit(node, room);
  }
  absl::StatusOr<NodeReport> report = codec::NodeReportFromProto(request, clock_());
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
    if (metrics_.has_value()) metrics_->CountUnverifiedPods(unverified->size());
  }
  if (absl::Status applied = view_.ApplyReport(*report); !applied.ok()) {
    if (applied.code() == absl::StatusCode::kResourceExhausted) {
      return RefuseOverLimit(node, applied);
    }
    spdlog::warn("refused a report for node {}: {}", node, LogText(applied.message()));
    Count("invalid");
    return {GrpcCode(applied), std::string(applied.message())};
  }
  Count("accepted");
  spdlog::debug("report from node {}: {} pods", node, report->pods.size());
  reply->set_nodes_known(static_cast<int32_t>(view_.NodeCount()));
  if (options_.mode_of) {
    for (const ReportedPod& pod : report->pods) {
      if (pod.uid.empty() || !pod.verified) continue;
      if (const std::optional<AdoptionStep> step = options_.mode_of(pod)) {
        (*reply->mutable_pod_modes())[pod.uid] = std::string(AdoptionStepName(*step));
      }
    }
  }
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

RunningGrpcServer::RunningGrpcServer() = default;
RunningGrpcServer::RunningGrpcServer(RunningGrpcServer&&) noexcept = default;
RunningGrpcServer& RunningGrpcServer::operator=(RunningGrpcServer&& other) noexcept {
  if (this == &other) return *this;
  Shutdown(absl::ZeroDuration());
  server = std::move(other.server);
  certificate = std::move(other.certificate);
  door = std::move(other.door);
  port = other.port;
  return *this;
}
RunningGrpcServer::~RunningGrpcServer() { Shutdown(absl::ZeroDuration()); }

void RunningGrpcServer::Shutdown(absl::Duration grace) {
  if (door != nullptr) door->StopAccepting();
  if (server != nullptr) {
    server->Shutdown(std::chrono::system_clock::now() +
                     std::chrono::microseconds(absl::ToInt64Microseconds(grace)));
  }
  if (door != nullptr) door->Stop();
  door.reset();
  server.reset();
}

absl::StatusOr<RunningGrpcServer> StartReportServer(const std::string& address,
                                                    ReportServiceImpl& service,
                                                    const io::GrpcServerTls& tls,
                                                    const ReportServerLimits& limits,
                                                    Metrics* metrics) {
  HEADROOM_ASSIGN_OR_RETURN(app::HostPort host_port, app::ParseHostPort(address, "--grpc-address"));
  if (host_port.host.size() >= 2 && host_port.host.front() == '[' && host_port.host.back() == ']') {
    host_port.host = host_port.host.substr(1, host_port.host.size() - 2);  // "[::]:9090"
  }
  if (host_port.host.empty()) host_port.host = "0.0.0.0";
  RunningGrpcServer running;
  if (tls.cert_file.empty() != tls.key_file.empty()) {
    return absl::InvalidArgumentError(
        "--grpc-tls-cert-file and --grpc-tls-key-file go together (and --grpc-client-ca-file "
        "needs them)");
  }
  if (!tls.client_ca_file.empty() && tls.cert_file.empty()) {
    return absl::InvalidArgumentError(
        "--grpc-client-ca-file needs --grpc-tls-cert-file and --grpc-tls-key-file");
  }
  if (!tls.cert_file.empty()) {
    running.certificate = std::make_unique<ReloadingCertificate>(tls.cert_file, tls.key_file);
    if (absl::Status loaded = running.certificate->Load(); !loaded.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--grpc-tls-cert-file/--grpc-tls-key-file: ", loaded.message()));
    }
  }
  // gRPC listens on no port: every connection comes through the front door.
  grpc::ServerBuilder builder;
  builder.RegisterService(&service);
  builder.SetMaxReceiveMessageSize(limits.max_message_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_METADATA_SIZE, limits.max_metadata_bytes);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS, limits.max_concurrent_streams);
  // A connection that sends nothing for this long is closed.
  builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_IDLE_MS, 5 * 60 * 1000);
  grpc::ResourceQuota quota("headroom-report-server");
  quota.Resize(GrpcMemoryQuota(limits));  // gRPC's own buffers, whatever clients send
  builder.SetResourceQuota(quota);
  running.server = builder.BuildAndStart();
  if (running.server == nullptr) {
    return absl::UnavailableError(absl::StrCat("cannot start the gRPC server for ", address));
  }
  FrontDoorOptions door;
  door.host = host_port.host;
  door.port = host_port.port;
  door.certificate = running.certificate.get();
  door.client_ca_file = tls.client_ca_file;
  door.peers = &service.peers();
  door.limits = limits.http2;
  door.max_connections = limits.max_connections;
  door.max_connections_per_address = limits.max_connections_per_address;
  door.handshake_timeout = limits.handshake_timeout;
  if (metrics != nullptr) {
    door.on_refused = [counts =
                           std::make_shared<ReportMetrics>(*metrics)](absl::string_view reason) {
      counts->CountRefusedConnection(std::string(reason));
    };
  }
  grpc::Server* server = running.server.get();
  absl::StatusOr<std::unique_ptr<ReportFrontDoor>> started = ReportFrontDoor::Start(
      std::move(door), [server](int fd) { grpc::AddInsecureChannelFromFd(server, fd); });
  if (!started.ok()) {
    running.server->Shutdown();
    return started.status();
  }
  running.door = std::move(*started);
  running.port = running.door->port();
  return running;
}

}  // namespace headroom::extender
