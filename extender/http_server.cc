#include "extender/http_server.h"

#include <algorithm>
#include <string>
#include <string_view>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "app/metrics.h"
#include "extender/admission/admission_endpoint.h"
#include "extender/scheduler/judge.h"
#include "extender/serving/tls_certificate.h"
#include "extender/status/status_page.h"
#include "io/http_server.h"
#include "shared/log_text.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {
ExtenderHttpServer::ExtenderHttpServer(ClusterView& view, Metrics& metrics, ServerOptions options,
                                       std::function<absl::Time()> clock)
    : view_(view), metrics_(metrics), options_(std::move(options)), clock_(std::move(clock)) {
  io::HttpServerOptions http;
  http.max_body_bytes = options_.max_body_bytes;
  http.max_bodies_in_flight_bytes = options_.max_bodies_in_flight_bytes;
  http.max_header_bytes = options_.max_header_bytes;
  http.request_timeout = options_.read_timeout;
  http.write_timeout = options_.read_timeout;
  http.idle_timeout = options_.idle_timeout;
  http.max_connections = options_.max_connections;
  // filter and prioritize bodies larger than this are decoded on the blocking pool: a 60 MiB
  // body held its event loop, and every connection on it, for a tenth of a second and more;
  // at 10 MB (5000 Node objects) the hand-off cost 9-26% of a cycle (bench-extender), so
  // bodies that size stay on the loop.
  http.large_body_bytes = 16 << 20;
  // More event loops than cores only add context switches (wrk, 500 names, 2 cores: 4 loops
  // 21.9k requests/s, 2 loops 25.2k).
  http.threads = std::max(
      1, std::min(options_.threads, static_cast<int>(std::thread::hardware_concurrency())));
  http.error = [](int status, const std::string& reason) {
    if (status == 413) return io::JsonError(status, reason + " (see --max-body-bytes)");
    if (status == 503) return io::JsonError(status, reason + " (see --max-body-bytes-in-flight)");
    return io::JsonError(status, reason);
  };
  if (options_.tls != nullptr) {
    ReloadingCertificate* certificate = options_.tls;
    http.tls = [certificate](SSL_CTX& ctx) { certificate->Install(ctx); };
  }
  server_ = std::make_unique<io::HttpServer>(std::move(http));
  if (options_.repack_authorizer != nullptr) {
    repack_ = std::make_unique<RepackEndpoint>(*options_.repack_authorizer);
  }
  Route();
}

ExtenderHttpServer::~ExtenderHttpServer() { Stop(); }

void ExtenderHttpServer::Healthy(const io::HttpRequest&, io::HttpResponse& response) {
  response.content_type = "text/plain";
  response.body = "ok\n";
}

void ExtenderHttpServer::Admit(const io::HttpRequest& request, io::HttpResponse& response) {
  const bool apply = !options_.mutation_enabled || options_.mutation_enabled();
  response = ServeAdmission(request.body, view_, options_.admission, apply, admission_metrics_,
                            options_.journal);
}

namespace {

// Each event loop's decoded request, kept between requests so that the node list and the
// names reuse their storage, as long as KeepForReuse (extender_wire.h) allows.
class ThreadArgs {
 public:
  ThreadArgs() : args_(Kept()) {}
  ~ThreadArgs() {
    if (!KeepForReuse(args_, body_bytes_)) args_ = ExtenderArgs();
  }
  ThreadArgs(const ThreadArgs&) = delete;
  ThreadArgs& operator=(const ThreadArgs&) = delete;
  ExtenderArgs* operator->() { return &args_; }
  ExtenderArgs& operator*() { return args_; }

  // Decodes the scheduler's request; false after answering a malformed one with 400 (and a
  // log line naming `verb`).
  bool Decode(const char* verb, const io::HttpRequest& request, bool keep_node_objects,
              io::HttpResponse& response) {
    body_bytes_ = request.body.size();
    const absl::Status decoded = DecodeExtenderArgsInto(request.body, keep_node_objects, args_);
    if (decoded.ok()) return true;
    spdlog::warn("{}: rejected a malformed request: {}", verb, LogText(decoded.message()));
    response = io::JsonError(400, decoded.message());
    return false;
  }

 private:
  static ExtenderArgs& Kept() {
    thread_local ExtenderArgs kept;
    return kept;
  }
  ExtenderArgs& args_;
  size_t body_bytes_ = 0;
};

}  // namespace

void ExtenderHttpServer::Filter(const io::HttpRequest& request, io::HttpResponse& response) {
  ThreadArgs args;
  if (!args.Decode("filter", request, /*keep_node_objects=*/true, response)) return;
  const FilterOutcome outcome = FilterNodes(*args, view_, clock_());
  for (const std::string& code : outcome.rejection_codes) scheduler_metrics_.CountRejection(code);
  scheduler_metrics_.CountUnknownNodes(outcome.unknown_nodes);
  for (const auto& [node, reason] : outcome.result.failed) {
    spdlog::debug("filter {}/{}: {} rejected: {}", LogText(args->pod.pod_namespace),
                  LogText(args->pod.name), LogText(node), LogText(reason));
  }
  response.body = EncodeFilterResult(*args, outcome.result);
}

void ExtenderHttpServer::Prioritize(const io::HttpRequest& request, io::HttpResponse& response) {
  ThreadArgs args;
  if (!args.Decode("prioritize", request, /*keep_node_objects=*/false, response)) return;
  response.body = EncodeHostPriorities(PrioritizeNodes(*args, view_, clock_(), options_.scoring));
}

void ExtenderHttpServer::Repack(const io::HttpRequest& request, io::HttpResponse& response) {
  repack_->Serve(request, response);
}

void ExtenderHttpServer::Ready(const io::HttpRequest&, io::HttpResponse& response) {
  response.content_type = "text/plain";
  if (options_.readiness) {
    Readiness readiness = options_.readiness();
    response.status = readiness.ready ? 200 : 503;
    response.body = std::move(readiness.message);
  } else {
    response.body = absl::StrCat("ok: ", view_.NodeCount(), " nodes reported\n");
  }
}

void ExtenderHttpServer::Scrape(const io::HttpRequest&, io::HttpResponse& response) {
  const auto [oldest, newest] = view_.ReportAges(clock_());
  Metrics::ClusterGauges gauges;
  gauges.nodes_reported = view_.NodeCount();
  gauges.reported_pods = view_.ReportedPodCount();
  gauges.oldest_report_age = oldest;
  gauges.newest_report_age = newest;
  gauges.pending_placements = view_.PlacementCount();
  gauges.http_connections = server_->connections();
  gauges.http_refused_busy = server_->refused_busy();
  if (options_.add_gauges) options_.add_gauges(gauges);
  response.content_type = "text/plain; version=0.0.4";
  response.body = metrics_.Render(gauges);
}

namespace {

// 429 for a read-only API over its rate.
io::HttpResponse TooManyRequests(absl::string_view what) {
  io::HttpResponse response = io::JsonError(429, absl::StrCat("too many ", what, " requests"));
  response.headers.emplace_back("Retry-After", "1");
  return response;
}
}  // namespace

void ExtenderHttpServer::Status(const io::HttpRequest&, io::HttpResponse& response) {
  if (!status_limit_.Allow(clock_())) {
    response = TooManyRequests("status");
    return;
  }
  response.body = options_.status->StatusJson();
}

void ExtenderHttpServer::Explain(const io::HttpRequest& request, io::HttpResponse& response) {
  if (!explain_limit_.Allow(clock_())) {
    response = TooManyRequests("explain");
    return;
  }
  const std::string pod = request.QueryParam("pod");
  const size_t slash = pod.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == pod.size() ||
      pod.find('/', slash + 1) != std::string::npos || pod.size() > 317) {
    response = io::JsonError(400, "want ?pod=NAMESPACE/NAME");
    return;
  }
  absl::StatusOr<nlohmann::json> explained =
      options_.status->Explain(pod.substr(0, slash), pod.substr(slash + 1));
  if (!explained.ok()) {
    response = io::JsonError(absl::IsNotFound(explained.status()) ? 404 : 500,
                             explained.status().message());
    return;
  }
  response.body = explained->dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void ExtenderHttpServer::Page(const io::HttpRequest& request, io::HttpResponse& response) {
  response.headers = {{"Content-Security-Policy", kStatusPagePolicy},
                      {"X-Content-Type-Options", "nosniff"},
                      {"Cache-Control", "no-cache"}};
  if (request.path == "/ui/app.js") {
    response.content_type = "text/javascript; charset=utf-8";
    response.body = std::string(StatusPageScript());
  } else if (request.path == "/ui/app.css") {
    response.content_type = "text/css; charset=utf-8";
    response.body = std::string(StatusPageStyle());
  } else {
    response.content_type = "text/html; charset=utf-8";
    response.body = std::string(StatusPageHtml());
  }
}

void ExtenderHttpServer::Route() {
  using Member = void (ExtenderHttpServer::*)(const io::HttpRequest&, io::HttpResponse&);
  // The route table. Every route with a verb is timed and counted under it
  // (headroom_extender_requests_total, _request_duration_seconds); malformed bodies answer
  // 400 with a JSON reason in the handler, the listener's limits (413, 408, ...) answer
  // JSON through io::HttpServerOptions::error.
  struct Entry {
    bool enabled;
    const char* method;
    std::string path;
    const char* verb;  // nullptr: not timed (probes, scrapes)
    Member handler;
    io::HttpServer::Blocking blocking;
    size_t max_body = 0;  // the route's body limit; 0: --max-body-bytes (4 KiB for a GET)
  };
  constexpr size_t kAdmissionBodyBytes = 4 << 20;  // an AdmissionReview of a 1.5 MiB Pod
  constexpr size_t kGetBodyBytes = 4 << 10;        // a GET carries none
  const std::string& prefix = options_.url_prefix;
  const Entry table[] = {
      {true, "POST", prefix + "/filter", "filter", &ExtenderHttpServer::Filter,
       io::HttpServer::Blocking::kLargeBodies},
      {true, "POST", prefix + "/prioritize", "prioritize", &ExtenderHttpServer::Prioritize,
       io::HttpServer::Blocking::kLargeBodies},
      {options_.repack_authorizer != nullptr, "POST", prefix + "/repack", "repack",
       &ExtenderHttpServer::Repack, io::HttpServer::Blocking::kYes},
      {options_.serve_admission, "POST", "/admission/pods", "admission", &ExtenderHttpServer::Admit,
       io::HttpServer::Blocking::kNo, kAdmissionBodyBytes},
      {true, "GET", "/healthz", nullptr, &ExtenderHttpServer::Healthy,
       io::HttpServer::Blocking::kNo},
      {true, "GET", "/readyz", nullptr, &ExtenderHttpServer::Ready, io::HttpServer::Blocking::kNo},
      {true, "GET", "/metrics", nullptr, &ExtenderHttpServer::Scrape,
       io::HttpServer::Blocking::kNo},
      {options_.status != nullptr, "GET", "/api/v1/status", "status", &ExtenderHttpServer::Status,
       io::HttpServer::Blocking::kYes},
      // An index lookup (ClusterView::FindReportedPod): cheap enough for the event loops, and
      // so it never waits behind a status build on the blocking pool.
      {options_.status != nullptr, "GET", "/api/v1/explain", "explain",
       &ExtenderHttpServer::Explain, io::HttpServer::Blocking::kNo},
      {options_.status != nullptr, "GET", "/ui", nullptr, &ExtenderHttpServer::Page,
       io::HttpServer::Blocking::kNo},
      {options_.status != nullptr, "GET", "/ui/", nullptr, &ExtenderHttpServer::Page,
       io::HttpServer::Blocking::kNo},
      {options_.status != nullptr, "GET", "/ui/app.js", nullptr, &ExtenderHttpServer::Page,
       io::HttpServer::Blocking::kNo},
      {options_.status != nullptr, "GET", "/ui/app.css", nullptr, &ExtenderHttpServer::Page,
       io::HttpServer::Blocking::kNo},
  };
  for (const Entry& entry : table) {
    if (!entry.enabled) continue;
    const Member handler = entry.handler;
    const size_t max_body = entry.max_body == 0 && std::string_view(entry.method) == "GET"
                                ? kGetBodyBytes
                                : entry.max_body;
    if (entry.verb == nullptr) {
      server_->Route(
          entry.method, entry.path,
          [this, handler](const io::HttpRequest& request, io::HttpResponse& response) {
            (this->*handler)(request, response);
          },
          entry.blocking, max_body);
      continue;
    }
    server_->Route(
        entry.method, entry.path,
        [this, handler, verb = std::string(entry.verb)](const io::HttpRequest& request,
                                                        io::HttpResponse& response) {
          const absl::Time started = absl::Now();
          (this->*handler)(request, response);
          metrics_.ObserveRequest(verb, response.status, absl::Now() - started);
        },
        entry.blocking, max_body);
  }
}

absl::StatusOr<int> ExtenderHttpServer::Bind(const std::string& host, int port) {
  return server_->Bind(host, port);
}

absl::Status ExtenderHttpServer::Serve() { return server_->Serve(); }

void ExtenderHttpServer::Stop() {
  if (repack_ != nullptr) repack_->Cancel();  // a repack in progress returns at once
  if (server_ != nullptr) server_->Stop();
}

bool ExtenderHttpServer::serving() const { return server_->serving(); }

}  // namespace headroom::extender
