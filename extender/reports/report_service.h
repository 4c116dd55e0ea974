#pragma once

// The gRPC service through which headroom-nri reports each node to headroom-extender. A report
// is believed only from the node it is about (reporter_identity.h) and only as far as the
// Kubernetes API confirms its pods (report_verification.h); its time is never later than its
// arrival. Reports wait briefly for a worker (report_queue.h) rather than being refused when
// many arrive at once; beyond the queue's bound they are refused with RESOURCE_EXHAUSTED,
// which headroom-nri retries after a jittered backoff.

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "extender/reports/report_front_door.h"
#include "extender/reports/report_metrics.h"
#include "extender/reports/report_queue.h"
#include "extender/reports/report_verification.h"
#include "extender/reports/reporter_identity.h"
#include "extender/serving/metrics.h"
#include "extender/serving/rate_limit.h"
#include "extender/view/cluster_view.h"
#include "headroom/v1/report.grpc.pb.h"
#include "io/grpc_tls.h"
#include "shared/workload_policy.h"

namespace grpc {
class Server;
}

namespace headroom::extender {

struct ReportServiceOptions {
  ReportAuth auth = ReportAuth::kInsecure;
  TokenAuthenticator* tokens = nullptr;  // required for ReportAuth::kToken
  ApiFacts api;                          // empty: no Kubernetes API, pods are not checked
  Metrics* metrics = nullptr;            // optional
  ReportQueueLimits queue;
  // The adoption step of a reported pod, for ReportReply.pod_modes; nullopt: unknown (not in
  // the API). Unset: no steps are sent.
  std::function<std::optional<AdoptionStep>(const ReportedPod& pod)> mode_of;
};

class ReportServiceImpl final : public headroom::v1::ReportService::CallbackService {
 public:
  explicit ReportServiceImpl(ClusterView& view, ReportServiceOptions options = {},
                             std::function<absl::Time()> clock = absl::Now);
  ReportServiceImpl(ClusterView& view, std::function<absl::Time()> clock)
      : ReportServiceImpl(view, {}, std::move(clock)) {}

  // gRPC's entry: queues the report for Handle, or refuses it when the queue is full.
  grpc::ServerUnaryReactor* Report(grpc::CallbackServerContext* context,
                                   const headroom::v1::NodeReport* request,
                                   headroom::v1::ReportReply* reply) override;

  // One report, start to end. `context` may be null (no caller to check: insecure mode).
  grpc::Status Handle(const grpc::ServerContextBase* context,
                      const headroom::v1::NodeReport& request, headroom::v1::ReportReply* reply);

  ReportQueue::Counts queue_counts() const { return queue_.counts(); }

  // The client certificates of the connections the front door admitted (report_front_door.h).
  FrontDoorPeers& peers() { return peers_; }

 private:
  // OK when the caller may report `node` under options_.auth.
  grpc::Status CheckCaller(const grpc::ServerContextBase* context, const std::string& node);
  void Count(const std::string& outcome);
  // Logs (a few a second) and counts a report beyond the view's bounds; its status.
  grpc::Status RefuseOverLimit(const std::string& node, const absl::Status& why);
  // The client's address, for logs.
  std::string PeerAddress(const grpc::ServerContextBase* context) const;

  ClusterView& view_;
  ReportServiceOptions options_;
  std::optional<ReportMetrics> metrics_;  // when options_.metrics
  std::function<absl::Time()> clock_;
  FrontDoorPeers peers_;
  LineBudget refusal_lines_{5, 20};  // refused callers' log lines a second
  LineBudget busy_lines_{1, 5};      // "the queue is full" lines a second
  ReportQueue queue_;                // last: its workers stop before the rest goes
};

// The report server: gRPC, reached only through its front door.
struct RunningGrpcServer {
  RunningGrpcServer();
  RunningGrpcServer(RunningGrpcServer&&) noexcept;
  RunningGrpcServer& operator=(RunningGrpcServer&&) noexcept;
  ~RunningGrpcServer();  // Shutdown(no grace)

  // Stops admitting connections, gives the reports in flight `grace`, then closes every
  // connection. Idempotent.
  void Shutdown(absl::Duration grace);

  std::unique_ptr<grpc::Server> server;
  std::unique_ptr<ReloadingCertificate> certificate;  // null: plaintext
  std::unique_ptr<ReportFrontDoor> door;
  int port = 0;
};

// Bounds on what one client can make the report server hold.
struct ReportServerLimits {
  int max_message_bytes = 4 << 20;  // a node of 110 pods reports well under 1 MiB
  int max_metadata_bytes = 16 << 10;
  int max_concurrent_streams = 16;     // per connection
  size_t max_memory_bytes = 64 << 20;  // gRPC's buffers (a resource quota), at least
  // What the front door admits (report_front_door.h).
  H2Limits http2;
  size_t max_connections = 8192;
  size_t max_connections_per_address = 64;
  absl::Duration handshake_timeout = absl::Seconds(10);
};

// What gRPC reserves for each idle connection, about 16 KiB, with room to spare. Under its
// resource quota gRPC closes idle connections to make room: with 64 MiB, 5000 nodes' report
// connections were cut every 20 s and each node's next report failed "Transport closed"
// (docs/security.md).
inline constexpr size_t kGrpcBytesPerConnection = 24 << 10;
// gRPC's resource quota: max_memory_bytes, or enough for every connection the front door
// admits (192 MiB for 8192) if that is more.
size_t GrpcMemoryQuota(const ReportServerLimits& limits);

// Starts the gRPC server behind its front door on `address` ("host:port"; port 0 picks a
// free one): plaintext when `tls` is empty, else TLS with the certificate reloaded when its
// files change, and mutual TLS with a client CA. InvalidArgument names the flag at fault.
absl::StatusOr<RunningGrpcServer> StartReportServer(const std::string& address,
                                                    ReportServiceImpl& service,
                                                    const io::GrpcServerTls& tls = {},
                                                    const ReportServerLimits& limits = {},
                                                    Metrics* metrics = nullptr);

}  // namespace headroom::extender
