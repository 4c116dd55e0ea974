#include "kubelet-hook/nri_daemon.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "app/daemon.h"
#include "app/metrics.h"
#include "app/service_group.h"
#include "io/daemon_signals.h"
#include "io/http_server.h"
#include "kubelet-hook/cgroup_reader.h"
#include "kubelet-hook/kernel_oom_log.h"
#include "kubelet-hook/node_checkpoint.h"
#include "kubelet-hook/node_loop.h"
#include "kubelet-hook/node_reporter.h"
#include "kubelet-hook/sampler.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {
namespace {

int Fail(absl::string_view message) {
  std::cerr << "headroom-nri: " << message << "\n";
  return 2;
}

// Probes and scrapes only: small limits, so a flood of connections cannot starve them.
io::HttpServerOptions ProbeServerOptions() {
  io::HttpServerOptions options;
  options.max_body_bytes = 4 << 10;
  options.max_header_bytes = 8 << 10;
  options.max_connections = 256;
  // Two loops: a scrape flood on one connection's loop leaves the other to the kubelet's probe.
  options.threads = 2;
  return options;
}

struct MetricSources {
  const PluginRunner* runner;
  const NriStub* stub;
  const NriPlugin* plugin;
  const NodeState* state;
  const NodeSampling* sampler;
  const NodeLoop* loop;
  const io::HttpServer* http;
  size_t max_workloads;
};

// headroom-nri's counters live in the components that count them; each scrape reads them.
std::string RenderMetrics(const MetricSources& m) {
  using prometheus::MetricType;
  const SamplerStats sampled = m.sampler->stats();
  const NodeLoopCounters loop = m.loop->counters();
  std::vector<prometheus::MetricFamily> families;
  const auto add = [&](const char* name, MetricType type, const char* help, auto value) {
    families.push_back(app::ScrapedValue(name, help, type, static_cast<double>(value)));
  };
  add("headroom_nri_connected", MetricType::Gauge, "1 when registered with the runtime.",
      m.runner->connected() ? 1 : 0);
  add("headroom_nri_connections_total", MetricType::Counter, "Connections made to the runtime.",
      m.runner->connections());
  add("headroom_nri_requests_total", MetricType::Counter, "NRI requests answered.",
      m.stub->requests_served());
  add("headroom_nri_adjustments_total", MetricType::Counter,
      "Containers adjusted at creation, update or synchronisation.", m.plugin->adjustments_made());
  add("headroom_nri_containers", MetricType::Gauge, "Containers tracked.",
      m.state->Containers().size());
  add("headroom_nri_workload_containers", MetricType::Gauge, "Workload containers with statistics.",
      m.state->workload_count());
  add("headroom_nri_workload_containers_max", MetricType::Gauge,
      "Workload containers the memory budget allows (--memory-budget).", m.max_workloads);
  add("headroom_nri_workload_containers_forgotten_idle_total", MetricType::Counter,
      "Workload containers forgotten after --workload-retention with no container on the node.",
      loop.workloads_forgotten_idle);
  add("headroom_nri_workload_containers_forgotten_budget_total", MetricType::Counter,
      "Idle workload containers forgotten early because the budget's cap was reached.",
      loop.workloads_forgotten_budget);
  add("headroom_nri_checkpoint_failures_total", MetricType::Counter,
      "Checkpoints that could not be written (--state-dir).", loop.checkpoints_failed);
  add("headroom_nri_last_checkpoint_timestamp_seconds", MetricType::Gauge,
      "Time of the last checkpoint written.", loop.last_checkpoint_unix);
  add("headroom_nri_oom_kills_total", MetricType::Counter, "OOM kills seen.", sampled.ooms);
  add("headroom_nri_memory_pressure_records_total", MetricType::Counter,
      "Sustained memory stalls recorded (--memory-pressure-threshold for "
      "--memory-pressure-duration): each raises that workload container's memory limit.",
      sampled.memory_pressure_records);
  add("headroom_nri_cgroup_read_errors_total", MetricType::Counter, "Failed cgroup reads.",
      sampled.read_errors);
  {
    prometheus::MetricFamily samples = app::ScrapedValue(
        "headroom_nri_cgroup_samples_total",
        "Container cgroup samples, by where their pressure (PSI) came from: v2, hybrid (the "
        "unified hierarchy of a cgroup v1 host) or none.",
        MetricType::Counter, static_cast<double>(sampled.samples_by_psi[0]), {{"psi", "none"}});
    for (PsiSource source : {PsiSource::kV2, PsiSource::kHybrid}) {
      app::AddSeries(samples,
                     static_cast<double>(sampled.samples_by_psi[static_cast<size_t>(source)]),
                     {{"psi", std::string(PsiSourceName(source))}});
    }
    families.push_back(std::move(samples));
  }
  add("headroom_nri_updates_total", MetricType::Counter, "Container updates sent to the runtime.",
      loop.updates_sent);
  add("headroom_nri_update_failures_total", MetricType::Counter, "Updates the runtime refused.",
      loop.updates_failed);
  add("headroom_nri_reports_total", MetricType::Counter, "Reports sent to the extender.",
      loop.reports_sent);
  add("headroom_nri_report_failures_total", MetricType::Counter, "Reports that failed.",
      loop.reports_failed);
  add("headroom_nri_report_retries_total", MetricType::Counter,
      "Failed reports sent again after a jittered backoff, before the next round.",
      loop.reports_retried);
  add("headroom_nri_last_sample_timestamp_seconds", MetricType::Gauge, "Time of the last sample.",
      loop.last_sample_unix);
  add("headroom_nri_http_connections", MetricType::Gauge, "Open connections to this endpoint.",
      m.http->connections());
  return app::ExpositionText({}, std::move(families));
}

void AddProbeRoutes(io::HttpServer& http, const MetricSources& sources) {
  using io::HttpRequest;
  using io::HttpResponse;
  http.Route("GET", "/healthz", [](const HttpRequest&, HttpResponse& res) {
    res.content_type = "text/plain";
    res.body = "ok\n";
  });
  http.Route("GET", "/readyz", [sources](const HttpRequest&, HttpResponse& res) {
    const bool ready = sources.runner->connected();
    res.status = ready ? 200 : 503;
    res.content_type = "text/plain";
    res.body = ready ? "ok\n" : "not registered with the runtime\n";
  });
  // Rendered at most once a second, whatever the scrape rate (Prometheus scrapes every 15 s
  // or more): a flood of scrapes gets the same text and costs a copy each.
  struct Rendered {
    absl::Mutex mu;
    std::string text ABSL_GUARDED_BY(mu);
    absl::Time at ABSL_GUARDED_BY(mu) = absl::InfinitePast();
  };
  auto rendered = std::make_shared<Rendered>();
  http.Route("GET", "/metrics", [sources, rendered](const HttpRequest&, HttpResponse& res) {
    res.content_type = app::kExpositionContentType;
    const absl::Time now = absl::Now();
    absl::MutexLock lock(&rendered->mu);
    if (now - rendered->at >= absl::Seconds(1) || now < rendered->at) {
      rendered->text = RenderMetrics(sources);
      rendered->at = now;
    }
    res.body = rendered->text;
  });
}

std::unique_ptr<KernelLogOomSource> OpenKernelLog(const std::string& path) {
  if (path.empty()) return nullptr;
  absl::StatusOr<std::unique_ptr<KernelLogOomSource>> opened = KernelLogOomSource::Open(path);
  if (!opened.ok()) {
    spdlog::warn(
        "{}: OOM kills from cgroup counters only (a container deleted between two polls is "
        "missed)",
        std::string(opened.status().message()));
    return nullptr;
  }
  spdlog::info("OOM kills from the kernel log {}", path);
  return *std::move(opened);
}

void LogMemoryBudget(const NriDaemonConfig& config) {
  spdlog::info(
      "memory budget {} MiB ({}): statistics of at most {} workload containers, kept {} after "
      "their last container on the node",
      config.memory_budget_bytes >> 20,
      config.memory_limit_bytes
          ? absl::StrCat("of a ", *config.memory_limit_bytes >> 20, " MiB container limit")
          : std::string("no container limit"),
      config.retention.max_workloads, absl::FormatDuration(config.retention.idle));
}

NodeLoopOptions LoopOptionsOf(const NriDaemonConfig& config) {
  NodeLoopOptions options;
  options.node_name = config.node_name;
  options.allocatable = config.allocatable;
  options.interval = config.interval;
  options.oom_poll_interval = config.oom_poll_interval;
  options.retention = config.retention;
  return options;
}

}  // namespace

int RunNriDaemon(const NriDaemonConfig& config, sigset_t stop_signals) {
  LogMemoryBudget(config);
  NodeState state;
  if (!config.state_dir.empty()) {
    app::RecoverCheckpoint(
        config.state_dir, kNodeCheckpointFile,
        [&] { return LoadNodeCheckpoint(state, config.state_dir, config.retention.max_workloads); },
        "workload containers", *spdlog::default_logger());
  }
  CgroupReader cgroups(config.cgroup_root);
  spdlog::info("cgroup {} at {}; dry run: {}",
               cgroups.version() == CgroupVersion::kV2 ? "v2" : "v1 (node-level PSI only)",
               cgroups.root(), config.plugin.dry_run);

  std::unique_ptr<KernelLogOomSource> kernel_log = OpenKernelLog(config.kernel_log);
  Sampler sampler(state, cgroups, config.plugin.guard, config.allocatable, kernel_log.get(),
                  config.memory_pressure);
  NriPlugin plugin(
      config.plugin, state, [] { return absl::Now(); },
      [&sampler] { sampler.SettleLoggedOoms(absl::Now()); });
  NriStub stub(plugin.Handlers());
  PluginRunner runner(config.runner, [&](const ttrpc::Request& r) { return stub.Handle(r); });
  std::unique_ptr<NodeReporter> reporter;
  if (!config.extender.empty()) {
    ReplicaOptions replicas;
    replicas.all_replicas = config.extender_all_replicas;
    reporter = std::make_unique<NodeReporter>(config.extender, config.report_credentials,
                                              config.token_file, replicas);
  }
  NodeLoopParts parts;
  parts.state = &state;
  parts.sampler = &sampler;
  parts.runtime = &runner;
  parts.reports = reporter.get();
  if (!config.state_dir.empty()) {
    parts.checkpoint = [&](absl::Time now) {
      return SaveNodeCheckpoint(state, config.state_dir, now);
    };
  }
  parts.load1 = ReadLoad1;
  parts.clock = [] { return absl::Now(); };
  NodeLoop loop(LoopOptionsOf(config), std::move(parts));

  std::unique_ptr<io::HttpServer> http;
  if (config.http_address) {
    http = std::make_unique<io::HttpServer>(ProbeServerOptions());
    AddProbeRoutes(*http, {&runner, &stub, &plugin, &state, &sampler, &loop, http.get(),
                           config.retention.max_workloads});
    absl::StatusOr<int> bound = http->Bind(config.http_address->host, config.http_address->port);
    if (!bound.ok()) return Fail(bound.status().message());
  }

  // Everything that can refuse to start is checked above; from here on threads run.
  absl::Notification stopping;
  io::StopSignal stop(stop_signals, [&](const std::string& why) {
    spdlog::info("{}: stopping", why);
    stopping.Notify();
    runner.Stop();
  });
  // Started in this order, stopped in the reverse: the loop's last round, then the probes.
  app::ServiceGroup services;
  if (http) {
    services.Add({"probes", [&http] { (void)http->Serve(); }, [&http] { http->Stop(); }});
  }
  // The loop returns once the stop handler above has notified `stopping` (it always has, or
  // is about to, by the time the services stop); notifying here too could notify twice.
  services.Add({"node loop", [&] { loop.Run(stopping); }, nullptr});
  services.Start();
  const absl::Status ended = runner.Run();
  // A pre-launched plugin's connection ended: the runtime restarts it.
  if (!stop.stopped()) stop.Stop(absl::StrCat("nri: ", ended.message()));
  services.Stop();
  if (!config.state_dir.empty()) {
    if (absl::Status saved = SaveNodeCheckpoint(state, config.state_dir, absl::Now());
        !saved.ok()) {
      spdlog::error("final checkpoint failed: {}", std::string(saved.message()));
    }
  }
  spdlog::info("stopped");
  return 0;
}

}  // namespace headroom::nri
