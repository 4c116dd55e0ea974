#include "extender/http_server.h"

#include <httplib.h>

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "cli/repack_json.h"
#include "extender/judge.h"
#include "extender/tls_certificate.h"
#include "io/system_repack_clock.h"
#include "nlohmann/json.hpp"
#include "shared/repack.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {
namespace {

std::string ErrorJson(absl::string_view message) {
  return nlohmann::json{{"error", message}}.dump(-1, ' ', false,
                                                 nlohmann::json::error_handler_t::replace);
}

std::shared_ptr<spdlog::logger> Logger() {
  static const std::shared_ptr<spdlog::logger> logger = [] {
    std::shared_ptr<spdlog::logger> existing = spdlog::get("extender");
    return existing != nullptr ? existing : spdlog::default_logger()->clone("extender");
  }();
  return logger;
}

}  // namespace

ExtenderHttpServer::ExtenderHttpServer(ClusterView& view, Metrics& metrics, ServerOptions options,
                                       std::function<absl::Time()> clock)
    : view_(view), metrics_(metrics), options_(std::move(options)), clock_(std::move(clock)) {
  if (options_.tls != nullptr) {
    ReloadingCertificate* certificate = options_.tls;
    server_ = std::make_unique<httplib::SSLServer>([certificate](SSL_CTX& ctx) {
      certificate->Install(ctx);
      return true;
    });
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  Route();
}

ExtenderHttpServer::~ExtenderHttpServer() { Stop(); }

void ExtenderHttpServer::Repack(const std::string& body, const std::string& timeout_text,
                                httplib::Response& response) {
  absl::Duration timeout = kDefaultRepackTimeout;
  if (!timeout_text.empty() && (!absl::ParseDuration(timeout_text, &timeout) ||
                                timeout < absl::ZeroDuration() || timeout > kMaxRepackTimeout)) {
    response.status = 400;
    response.set_content(
        ErrorJson(absl::StrCat("timeout: a duration from 0s to ",
                               absl::FormatDuration(kMaxRepackTimeout), ", e.g. 1s")),
        "application/json");
    return;
  }
  absl::StatusOr<RepackInstance> instance = cli::DecodeRepackInputText(body);
  if (!instance.ok()) {
    response.status = 400;
    response.set_content(ErrorJson(instance.status().message()), "application/json");
    return;
  }
  // One solve at a time: each may hold a core for its whole time limit.
  std::unique_lock<std::mutex> lock(repack_mu_, std::try_to_lock);
  if (!lock.owns_lock()) {
    response.status = 429;
    response.set_content(ErrorJson("a repack is already running; retry when it ends"),
                         "application/json");
    return;
  }
  SystemRepackClock clock;
  RepackOptions options;
  options.timeout = timeout;
  absl::StatusOr<RepackPlan> plan = SolveRepack(*instance, options, clock);
  if (!plan.ok()) {
    response.status = 400;
    response.set_content(ErrorJson(plan.status().message()), "application/json");
    return;
  }
  nlohmann::json out = cli::EncodeRepackPlan(*instance, *plan);
  out["dryRun"] = true;
  int changes = 0;
  for (const RepackTierResult& tier : plan->tiers)
    changes += tier.placed_after - tier.placed_before;
  Logger()->info("repack: {} nodes, {} pods: plan places {} more pods ({}), {} changes; dry run",
                 instance->nodes.size(), instance->pods.size(), changes,
                 plan->optimal ? "proven optimal" : "not proven optimal",
                 RepackChanges(*instance, *plan).size());
  response.set_content(out.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                       "application/json");
}

void ExtenderHttpServer::Admit(const std::string& body, httplib::Response& response) {
  const nlohmann::json review = nlohmann::json::parse(body, nullptr, false);
  const StatsLookup stats = [this](const std::string& workload, const std::string& container) {
    return view_.WorkloadContainer(workload, container);
  };
  absl::StatusOr<AdmissionDecision> decision =
      review.is_discarded() ? absl::InvalidArgumentError("body is not JSON")
                            : DecideAdmission(review, stats, options_.admission);
  if (!decision.ok()) {
    Logger()->warn("admission: rejected a malformed review: {}",
                   std::string(decision.status().message()));
    response.status = 400;
    response.set_content(ErrorJson(decision.status().message()), "application/json");
    metrics_.CountAdmission("malformed");
    return;
  }
  const bool apply = !options_.mutation_enabled || options_.mutation_enabled();
  if (!decision->skipped.empty()) {
    Logger()->debug("admission {}: unchanged: {}", decision->pod, decision->skipped);
    metrics_.CountAdmission("unchanged");
  } else {
    Logger()->info("admission {} ({}){}: {}", decision->pod, decision->workload_key,
                   apply ? "" : " [dry run or kill switch: not applied]", decision->annotation);
    metrics_.CountAdmission(apply ? "mutated" : "not_applied");
  }
  response.set_content(AdmissionResponse(*decision, apply)
                           .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                       "application/json");
}

namespace {
constexpr size_t kWorkerThreads = 64;
}  // namespace

void ExtenderHttpServer::Route() {
  server_->set_payload_max_length(options_.max_body_bytes);
  // Without TCP_NODELAY a response written in two parts (headers, body) waits for the
  // client's delayed ACK: about 40 ms per call, measured in scripts/bench-extender.sh.
  server_->set_tcp_nodelay(true);
  const auto timeout = std::chrono::milliseconds(absl::ToInt64Milliseconds(options_.read_timeout));
  server_->set_read_timeout(timeout);
  server_->set_write_timeout(timeout);
  // cpp-httplib gives each connection a worker for as long as it stays open; with its default
  // 8 workers, a 9th keep-alive connection (another scheduler, probes, a scrape) waits for a
  // free one. More workers than cores costs little memory and shares the CPU fairly instead.
  server_->new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };

  const auto handle = [this](const std::string& verb, bool filter) {
    return [this, verb, filter](const httplib::Request& request, httplib::Response& response) {
      const absl::Time started = absl::Now();
      absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(request.body);
      if (!args.ok()) {
        Logger()->warn("{}: rejected a malformed request: {}", verb,
                       std::string(args.status().message()));
        response.status = 400;
        response.set_content(ErrorJson(args.status().message()), "application/json");
      } else if (filter) {
        const FilterOutcome outcome = FilterNodes(*args, view_, clock_());
        for (const std::string& code : outcome.rejection_codes) metrics_.CountRejection(code);
        metrics_.CountUnknownNodes(outcome.unknown_nodes);
        for (const auto& [node, reason] : outcome.result.failed) {
          Logger()->debug("filter {}/{}: {} rejected: {}", args->pod.pod_namespace, args->pod.name,
                          node, reason);
        }
        response.set_content(EncodeFilterResult(*args, outcome.result), "application/json");
      } else {
        response.set_content(
            EncodeHostPriorities(PrioritizeNodes(*args, view_, clock_(), options_.scoring)),
            "application/json");
      }
      metrics_.ObserveRequest(verb, response.status == -1 ? 200 : response.status,
                              absl::Now() - started);
    };
  };
  server_->Post(options_.url_prefix + "/filter", handle("filter", true));
  server_->Post(options_.url_prefix + "/prioritize", handle("prioritize", false));
  server_->Post(options_.url_prefix + "/repack",
                [this](const httplib::Request& request, httplib::Response& response) {
                  const absl::Time started = absl::Now();
                  Repack(request.body, request.get_param_value("timeout"), response);
                  metrics_.ObserveRequest("repack", response.status == -1 ? 200 : response.status,
                                          absl::Now() - started);
                });
  server_->Post(
      "/admission/pods", [this](const httplib::Request& request, httplib::Response& response) {
        const absl::Time started = absl::Now();
        Admit(request.body, response);
        metrics_.ObserveRequest("admission", response.status == -1 ? 200 : response.status,
                                absl::Now() - started);
      });
  server_->Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  server_->Get("/readyz", [this](const httplib::Request&, httplib::Response& response) {
    response.set_content(absl::StrCat("ok: ", view_.NodeCount(), " nodes reported\n"),
                         "text/plain");
  });
  server_->Get("/metrics", [this](const httplib::Request&, httplib::Response& response) {
    const auto [oldest, newest] = view_.ReportAges(clock_());
    Metrics::ClusterGauges gauges;
    gauges.nodes_reported = view_.NodeCount();
    gauges.oldest_report_age = oldest;
    gauges.newest_report_age = newest;
    gauges.pending_placements = view_.PlacementCount();
    if (options_.add_gauges) options_.add_gauges(gauges);
    response.set_content(metrics_.Render(gauges), "text/plain; version=0.0.4");
  });
  // Every error status carries a JSON reason, including the library's own (404, 413, ...).
  server_->set_error_handler([](const httplib::Request& request, httplib::Response& response) {
    if (!response.body.empty()) return;
    std::string reason;
    switch (response.status) {
      case 404:
        reason = absl::StrCat("no such endpoint: ", request.method, " ", request.path);
        break;
      case 413:
        reason = "request body too large (see --max-body-bytes)";
        break;
      case 400:
        reason = "malformed HTTP request";
        break;
      default:
        reason = absl::StrCat("HTTP ", response.status);
    }
    response.set_content(ErrorJson(reason), "application/json");
  });
  server_->set_exception_handler(
      [](const httplib::Request& request, httplib::Response& response, std::exception_ptr) {
        Logger()->error("{} {}: internal error", request.method, request.path);
        response.status = 500;
        response.set_content(ErrorJson("internal error"), "application/json");
      });
}

absl::StatusOr<int> ExtenderHttpServer::Bind(const std::string& host, int port) {
  int bound = -1;
  if (port == 0) {
    bound = server_->bind_to_any_port(host);
  } else if (server_->bind_to_port(host, port)) {
    bound = port;
  }
  if (bound < 0) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", host, ":", port));
  }
  return bound;
}

absl::Status ExtenderHttpServer::Serve() {
  if (!server_->listen_after_bind()) return absl::UnavailableError("HTTP server stopped");
  return absl::OkStatus();
}

void ExtenderHttpServer::Stop() {
  if (server_ != nullptr) server_->stop();
}

bool ExtenderHttpServer::serving() const { return server_->is_running(); }

}  // namespace headroom::extender
