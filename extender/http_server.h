#pragma once

// headroom-extender's HTTP endpoints, served by io/http_server.h (bounded and asynchronous):
//   POST <prefix>/filter, POST <prefix>/prioritize   the kube-scheduler extender protocol
//   GET /healthz, GET /readyz                        liveness and readiness
//   GET /metrics                                     Prometheus text
//   POST <prefix>/repack                             a repacking plan (dry run; docs/repack.md);
//                                                    only with an authorizer (admin_authorizer.h)
//   GET /api/v1/status, GET /api/v1/explain?pod=NS/NAME, GET /ui (page, app.js, app.css)
//                                                    what headroom sees and would do (status.h,
//                                                    status_page.h); only with a status board;
//                                                    status 10/s, explain 20/s (429 beyond)
//   POST /admission/pods                             the mutating admission webhook
//                                                    (admission.h; docs/actuation.md); only when
//                                                    serve_admission (main: HTTPS listeners)
// Malformed bodies get 400 and oversized ones 413 (the webhook's at 4 MiB: an AdmissionReview
// of the largest Pod the API server stores, 1.5 MiB; GET routes take none), a body that does
// not fit beside those in flight 503, all with {"error": "..."}; any other error status also
// carries a JSON reason. Only HTTP 200 counts as success to kube-scheduler.

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "extender/admission/admission.h"
#include "extender/admission/admission_metrics.h"
#include "extender/repack/repack_endpoint.h"
#include "extender/scheduler/scheduler_metrics.h"
#include "extender/serving/admin_authorizer.h"
#include "extender/serving/metrics.h"
#include "extender/serving/rate_limit.h"
#include "extender/status/readiness.h"
#include "extender/status/status.h"
#include "extender/view/cluster_view.h"
#include "shared/placement.h"

namespace headroom::io {
class HttpServer;
struct HttpRequest;
struct HttpResponse;
}  // namespace headroom::io

namespace headroom::extender {

class ReloadingCertificate;

struct ServerOptions {
  std::string url_prefix;  // "" or e.g. "/scheduler"
  // HTTPS with this certificate (reloaded when its files change); nullptr: plain HTTP.
  ReloadingCertificate* tls = nullptr;
  // /filter, /prioritize and /repack: 5000 Node objects as kubelet writes them (22 KB each
  // with its 50 images, managed fields and conditions: 106 MiB) fit, for a scheduler without
  // nodeCacheCapable and with percentageOfNodesToScore 100 (with nodeCacheCapable, 5000
  // names take about 200 KB).
  size_t max_body_bytes = 128ULL << 20;
  // All bodies in flight together (503 beyond): one of the largest at a time.
  size_t max_bodies_in_flight_bytes = 128ULL << 20;
  size_t max_header_bytes = 16 << 10;
  absl::Duration read_timeout = absl::Seconds(10);  // one request, from its first byte
  absl::Duration idle_timeout = absl::Seconds(90);  // a keep-alive connection between requests
  size_t max_connections = 1024;
  int threads = 4;  // event loops, at most one per core
  ScoringConfig scoring;
  AdmissionOptions admission;
  // Serve POST /admission/pods (the API server calls webhooks over TLS only: main sets this
  // for HTTPS listeners).
  bool serve_admission = false;
  // Serve POST <prefix>/repack, to callers this authorizes (nullptr: not served).
  const AdminAuthorizer* repack_authorizer = nullptr;
  // Whether the webhook's patch is returned: false in dry run or while the kill switch is
  // engaged (the decision is still logged and counted). nullptr: always.
  std::function<bool()> mutation_enabled;
  // /readyz's answer; nullptr: ready, with the count of reported nodes.
  std::function<Readiness()> readiness;
  // Adds gauges the server does not own (the pod watch) to /metrics; optional.
  std::function<void(Metrics::ClusterGauges&)> add_gauges;
  // Records the webhook's sizings (status page); nullptr: not recorded.
  ActionJournal* journal = nullptr;
  // Serves GET /api/v1/status, /api/v1/explain and the page under /ui; nullptr: not served.
  StatusBoard* status = nullptr;
};

class ExtenderHttpServer {
 public:
  ExtenderHttpServer(ClusterView& view, Metrics& metrics, ServerOptions options,
                     std::function<absl::Time()> clock = absl::Now);
  ~ExtenderHttpServer();

  // Binds `host`:`port` (port 0: any free port) and returns the port.
  absl::StatusOr<int> Bind(const std::string& host, int port);
  // Serves until Stop(); call after Bind.
  absl::Status Serve();
  void Stop();
  // True once Serve() is accepting connections.
  bool serving() const;

 private:
  void Route();

  // The routes (Route() holds the table).
  void Filter(const io::HttpRequest& request, io::HttpResponse& response);
  void Prioritize(const io::HttpRequest& request, io::HttpResponse& response);
  void Repack(const io::HttpRequest& request, io::HttpResponse& response);  // repack_endpoint.h
  void Admit(const io::HttpRequest& request, io::HttpResponse& response);   // admission_endpoint.h
  void Healthy(const io::HttpRequest& request, io::HttpResponse& response);
  void Ready(const io::HttpRequest& request, io::HttpResponse& response);
  void Scrape(const io::HttpRequest& request, io::HttpResponse& response);
  void Status(const io::HttpRequest& request, io::HttpResponse& response);   // status.h
  void Explain(const io::HttpRequest& request, io::HttpResponse& response);  // status.h
  void Page(const io::HttpRequest& request, io::HttpResponse& response);     // status_page.h

  std::unique_ptr<RepackEndpoint> repack_;  // with a repack authorizer

  ClusterView& view_;
  Metrics& metrics_;
  SchedulerMetrics scheduler_metrics_{metrics_};
  AdmissionMetrics admission_metrics_{metrics_};
  ServerOptions options_;
  std::function<absl::Time()> clock_;
  std::unique_ptr<io::HttpServer> server_;
  // The read-only APIs, each its own budget (429 beyond): the status page polls every few
  // seconds per viewer, explain answers one person's question.
  RateLimit status_limit_{10, 20};
  RateLimit explain_limit_{20, 40};
};

}  // namespace headroom::extender
