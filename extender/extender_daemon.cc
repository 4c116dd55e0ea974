#include "extender/extender_daemon.h"

#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/synchronization/notification.h"
#include "app/daemon.h"
#include "app/service_group.h"
#include "codec/kube_version.h"
#include "extender/actuation/actuation_metrics.h"
#include "extender/actuation/cordon_taint.h"
#include "extender/admission/admission_metrics.h"
#include "extender/kube/api_nodes.h"
#include "extender/kube/hpa_index.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_index.h"
#include "extender/kube/pod_placements.h"
#include "extender/kube/policy_layers.h"
#include "extender/reports/report_metrics.h"
#include "extender/reports/report_service.h"
#include "extender/scheduler/scheduler_metrics.h"
#include "extender/serving/admin_authorizer.h"
#include "extender/serving/metrics.h"
#include "extender/serving/tls_certificate.h"
#include "extender/status/setup_checks.h"
#include "extender/status/status.h"
#include "extender/view/action_journal.h"
#include "extender/view/workload_checkpoint.h"
#include "io/daemon_signals.h"
#include "io/kube_client.h"
#include "shared/annotations.h"
#include "shared/status_macros.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {

using ::headroom::codec::JudgeKubeVersion;
using ::headroom::codec::KubeVersion;
using ::headroom::codec::KubeVersionFit;
using ::headroom::codec::KubeVersionVerdict;
using ::headroom::codec::ParseKubeVersion;
using ::headroom::codec::PodLevelResizeByDefault;
using ::headroom::codec::ReleaseDefaults;
namespace {

int Fail(absl::string_view message) {
  std::cerr << "headroom-extender: " << message << "\n";
  return 2;
}

// One client per use: a client cancels its own running watch at shutdown, and a slow
// TokenReview never waits behind a watch.
struct KubeClients {
  std::unique_ptr<io::KubeClient> pods, nodes, hpas, namespaces, writes, reviews, lease, setup;
  std::vector<std::unique_ptr<io::KubeClient>> owners;  // one per kOwnerKinds
};

absl::StatusOr<KubeClients> ConnectKube(const io::KubeConfig& config) {
  KubeClients clients;
  for (auto* slot : {&clients.pods, &clients.nodes, &clients.hpas, &clients.namespaces,
                     &clients.writes, &clients.reviews, &clients.lease, &clients.setup}) {
    absl::StatusOr<std::unique_ptr<io::KubeClient>> client = io::KubeClient::Create(config);
    if (!client.ok()) return client.status();
    *slot = *std::move(client);
  }
  for (size_t i = 0; i < std::size(kOwnerKinds); ++i) {
    absl::StatusOr<std::unique_ptr<io::KubeClient>> client = io::KubeClient::Create(config);
    if (!client.ok()) return client.status();
    clients.owners.push_back(*std::move(client));
  }
  return clients;
}

absl::StatusOr<std::unique_ptr<ReloadingCertificate>> LoadCertificate(const std::string& cert,
                                                                      const std::string& key) {
  if (cert.empty()) return nullptr;
  auto certificate = std::make_unique<ReloadingCertificate>(cert, key);
  if (absl::Status loaded = certificate->Load(); !loaded.ok()) return loaded;
  return certificate;
}

LeaseApi LeaseApiOver(io::KubeClient& client) {
  LeaseApi api;
  api.get = [&client](const std::string& path) -> absl::StatusOr<nlohmann::json> {
    absl::StatusOr<std::string> body = client.Get(path, absl::Seconds(5));
    if (!body.ok()) return body.status();
    nlohmann::json lease = io::ParseApiJson(*body);
    if (lease.is_discarded()) return absl::UnavailableError("Lease: not JSON");
    return lease;
  };
  api.write = [&client](const std::string& method, const std::string& path,
                        const std::string& body) -> absl::StatusOr<int> {
    absl::StatusOr<io::KubeClient::WriteResult> written = client.Write(
        method, path, body, method == "PATCH" ? "application/merge-patch+json" : "application/json",
        absl::Seconds(5));
    if (!written.ok()) return written.status();
    return written->status;
  };
  return api;
}

// The one sizing policy (SizingPolicy), in the words of the webhook and of the actuator.
AdmissionOptions AdmissionOptionsOf(const ExtenderConfig& config) {
  AdmissionOptions admission;
  admission.excluded_namespaces = config.policy.excluded_namespaces;
  admission.strip_cpu_limits = config.webhook.strip_cpu_limits;
  admission.guard = config.policy.actions.guard;
  admission.hpa_mode = config.policy.hpa_mode;
  admission.default_step = config.policy.default_step;
  return admission;
}

Actuator::Options ActuatorOptionsOf(const ExtenderConfig& config) {
  Actuator::Options actuator = config.actuation.actuator;
  actuator.actions = config.policy.actions;
  actuator.defaults.allow_below_declared = config.policy.actions.guard.allow_below_declared;
  actuator.defaults.step = config.policy.default_step;
  actuator.defaults.disruption_windows = config.policy.disruption_windows;
  actuator.hpa_mode = config.policy.hpa_mode;
  actuator.excluded_namespaces = config.policy.excluded_namespaces;
  return actuator;
}

// Every part of the daemon, declared in the order they are built (and destroyed in reverse).
struct Parts {
  explicit Parts(const ExtenderConfig& config)
      : view(config.view.view),
        scheduler_metrics(metrics),
        admission_metrics(metrics),
        actuation_metrics(metrics),
        report_metrics(metrics),
        placements(view),
        api_nodes(view) {}

  ClusterView view;
  Metrics metrics;
  // Every area's counters, declared at the start whether or not the area runs, so /metrics
  // lists each family (with HELP and TYPE) for dashboards and alerts.
  SchedulerMetrics scheduler_metrics;
  AdmissionMetrics admission_metrics;
  ActuationMetrics actuation_metrics;
  ReportMetrics report_metrics;
  ServerOptions options;  // the HTTP routes each area adds to
  std::unique_ptr<ReloadingCertificate> certificate, webhook_certificate;
  KubeClients kube;
  // The cluster's release as its apiserver stated it at start; absent when it could not be read.
  std::optional<KubeVersionVerdict> kube_version;
  // Node reports: who may send them and what they are checked against.
  std::unique_ptr<TokenAuthenticator> token_authenticator;
  ReportServiceOptions report_options;
  // The watches of bound pods, nodes and HPAs.
  PodPlacementTracker placements;
  PodIndex pod_index;
  ApiNodeTracker api_nodes;
  NodeTaintIndex node_taints;
  HpaIndex hpas;
  AnnotationIndex namespaces{NamespaceKey()};
  std::vector<std::unique_ptr<AnnotationIndex>> owners;  // parallel to kOwnerKinds
  std::unique_ptr<ListWatcher> pod_watch, node_watch, hpa_watch, namespace_watch;
  std::vector<std::unique_ptr<ListWatcher>> owner_watches;  // parallel to kOwnerKinds
  PolicyLayers layers;  // null functions without the Kubernetes API
  std::unique_ptr<ReportServiceImpl> reports;
  RunningGrpcServer report_server;
  // What headroom did, for the status page; the actuator and the webhook record into it.
  ActionJournal journal;
  std::unique_ptr<StatusBoard> status;
  std::unique_ptr<SetupChecks> setup_checks;  // the status page's Set-up panel
  Actuator::Options actuation;
  std::unique_ptr<LeaderElector> elector;
  std::unique_ptr<Actuator> actuator;
  std::unique_ptr<CordonTainter> tainter;
  std::unique_ptr<AdminAuthorizer> repack_authorizer;
  std::unique_ptr<ExtenderHttpServer> server, webhook_server;
  int http_port = 0;
};

absl::Status LoadCertificates(const ExtenderConfig& config, Parts& parts) {
  absl::StatusOr<std::unique_ptr<ReloadingCertificate>> certificate =
      LoadCertificate(config.listener.tls_cert_file, config.listener.tls_key_file);
  if (!certificate.ok()) return certificate.status();
  parts.certificate = *std::move(certificate);
  parts.options.tls = parts.certificate.get();
  absl::StatusOr<std::unique_ptr<ReloadingCertificate>> webhook_certificate =
      LoadCertificate(config.webhook.cert_file, config.webhook.key_file);
  if (!webhook_certificate.ok()) return webhook_certificate.status();
  parts.webhook_certificate = *std::move(webhook_certificate);
  return absl::OkStatus();
}

// The cluster's release (codec/kube_version.h), logged; an apiserver that does not say leaves it
// unknown, and nothing is refused for it.
void ReadKubeVersion(io::KubeClient& client, Parts& parts, spdlog::logger& logger) {
  const absl::StatusOr<std::string> body = client.Get("/version", absl::Seconds(5));
  const absl::StatusOr<KubeVersion> version =
      body.ok() ? ParseKubeVersion(*body) : absl::StatusOr<KubeVersion>(body.status());
  if (!version.ok()) {
    logger.warn("the cluster's Kubernetes release is unknown: {}",
                std::string(version.status().message()));
    return;
  }
  parts.kube_version = JudgeKubeVersion(*version);
  if (parts.kube_version->fit == KubeVersionFit::kSupported) {
    logger.info("{}", parts.kube_version->message);
  } else {
    logger.warn("{}", parts.kube_version->message);
  }
  logger.info("{} defaults: {}", version->git_version, ReleaseDefaults(version->line));
  parts.actuation.pod_level_resize = PodLevelResizeByDefault(version->line);
}

absl::Status ConnectApi(const ExtenderConfig& config, Parts& parts, spdlog::logger& logger) {
  if (!config.kube) {
    logger.warn(
        "no Kubernetes API (no --kubeconfig, not in a pod): pods placed between two node "
        "reports are not counted");
    return absl::OkStatus();
  }
  absl::StatusOr<KubeClients> connected = ConnectKube(*config.kube);
  if (!connected.ok()) return connected.status();
  parts.kube = *std::move(connected);
  logger.info("watching bound pods and nodes at {}", parts.kube.pods->server());
  ReadKubeVersion(*parts.kube.pods, parts, logger);
  return absl::OkStatus();
}

// Who may report a node.
void SetUpReportAuth(const ExtenderConfig& config, Parts& parts, spdlog::logger& logger) {
  if (config.reports.auth == ReportAuth::kToken) {
    io::KubeClient* client = parts.kube.reviews.get();
    parts.token_authenticator = std::make_unique<TokenAuthenticator>(
        [client](const std::string& body) {
          return client->Review("/apis/authentication.k8s.io/v1/tokenreviews", body,
                                absl::Seconds(5));
        },
        config.reports.tokens);
    if (config.reports.tls.cert_file.empty()) {
      logger.warn(
          "--report-auth=token over plaintext gRPC: tokens can be read on the network; set "
          "--grpc-tls-cert-file");
    }
  } else if (config.reports.auth == ReportAuth::kInsecure) {
    logger.warn("--report-auth=insecure: anyone who can reach the gRPC port may report any node");
  }
  parts.report_options.auth = config.reports.auth;
  parts.report_options.tokens = parts.token_authenticator.get();
  parts.report_options.metrics = &parts.metrics;
}

// HPAs, for --hpa-scaled-resources=keep: until they are listed every workload is judged as if
// an HPA scaled it on both resources (nothing is sized that an HPA might read).
void SetUpHpaWatch(const ExtenderConfig& config, Parts& parts,
                   const std::shared_ptr<spdlog::logger>& logger) {
  if (!config.kube || config.policy.hpa_mode != HpaResourcesMode::kKeep) return;
  HpaIndex& hpas = parts.hpas;
  parts.hpa_watch = std::make_unique<ListWatcher>(
      *parts.kube.hpas, HpaWatch(),
      ListWatcher::Handlers{[&hpas](std::vector<nlohmann::json> items) { hpas.Replace(items); },
                            [&hpas](const WatchEvent& event) { hpas.Apply(event); }},
      logger);
  const auto hpa_for = [&hpas, watch = parts.hpa_watch.get()](const std::string& workload_key) {
    if (!watch->synced()) {
      return std::optional<HpaScaling>(HpaScaling{"(HPAs not listed yet)", true, true});
    }
    return hpas.For(workload_key);
  };
  parts.options.admission.hpa_for = hpa_for;
  parts.actuation.hpa_for = hpa_for;
}

// The policy's middle layers: the annotations of each pod's owning workload and of its
// Namespace (headroom.dev/mode and the other keys); until a layer is listed, every workload
// whose pod sets no mode is observed only.
void SetUpPolicyLayerWatches(const ExtenderConfig& config, Parts& parts,
                             const std::shared_ptr<spdlog::logger>& logger) {
  if (!config.kube) return;
  const auto watch = [&logger](io::KubeClient& client, ListWatchOptions options,
                               AnnotationIndex& index) {
    return std::make_unique<ListWatcher>(
        client, std::move(options),
        ListWatcher::Handlers{[&index](std::vector<nlohmann::json> items) { index.Replace(items); },
                              [&index](const WatchEvent& event) { index.Apply(event); }},
        logger);
  };
  parts.namespace_watch = watch(*parts.kube.namespaces, NamespacesWatch(), parts.namespaces);
  for (size_t i = 0; i < std::size(kOwnerKinds); ++i) {
    parts.owners.push_back(std::make_unique<AnnotationIndex>(OwnerKey(kOwnerKinds[i].kind)));
    parts.owner_watches.push_back(
        watch(*parts.kube.owners[i], OwnersWatch(kOwnerKinds[i]), *parts.owners.back()));
  }
  parts.layers.namespaces = [&parts](const std::string& name) -> std::optional<Annotations> {
    if (!parts.namespace_watch->synced()) return std::nullopt;
    return parts.namespaces.For(name);
  };
  parts.layers.owners = [&parts](const std::string& workload_key) -> std::optional<Annotations> {
    const std::string kind = WorkloadKind(workload_key);
    for (size_t i = 0; i < std::size(kOwnerKinds); ++i) {
      if (kind != kOwnerKinds[i].kind) continue;
      if (!parts.owner_watches[i]->synced()) return std::nullopt;
      return parts.owners[i]->For(workload_key);
    }
    return Annotations{};  // a kind whose annotations are not read (a Job, a bare pod)
  };
  parts.options.admission.layers = parts.layers;
  parts.actuation.layers = parts.layers;
  // Each reported pod's step goes back to its node, for what the runtime may change.
  PolicyDefaults defaults;
  defaults.step = config.policy.default_step;
  parts.report_options.mode_of = [&parts,
                                  defaults](const ReportedPod& pod) -> std::optional<AdoptionStep> {
    const std::optional<std::string> mode = parts.pod_index.AnnotationOf(
        pod.pod_namespace, pod.name, pod.uid, std::string(kModeAnnotation));
    if (!mode.has_value()) return std::nullopt;
    Annotations annotations;
    if (!mode->empty()) annotations.emplace(std::string(kModeAnnotation), *mode);
    const WorkloadPolicy policy = ResolvePodPolicy(
        annotations, "", std::nullopt, defaults, pod.pod_namespace, pod.workload_key, parts.layers);
    return policy.disabled ? AdoptionStep::kObserve : policy.step;
  };
}

// The watches of nodes and bound pods, their gauges, and what reports are checked against.
void SetUpPodAndNodeWatches(const ExtenderConfig& config, Parts& parts,
                            const std::shared_ptr<spdlog::logger>& logger) {
  if (!config.kube) return;
  Parts& p = parts;
  p.node_watch =
      std::make_unique<ListWatcher>(*p.kube.nodes, NodesWatch(),
                                    ListWatcher::Handlers{[&p](std::vector<nlohmann::json> nodes) {
                                                            p.api_nodes.Replace(nodes);
                                                            p.node_taints.Replace(nodes);
                                                          },
                                                          [&p](const WatchEvent& event) {
                                                            p.api_nodes.Apply(event);
                                                            p.node_taints.Apply(event);
                                                          }},
                                    logger);
  p.pod_watch =
      std::make_unique<ListWatcher>(*p.kube.pods, BoundPodsWatch(),
                                    ListWatcher::Handlers{[&p](std::vector<nlohmann::json> pods) {
                                                            p.placements.Replace(pods, absl::Now());
                                                            p.pod_index.Replace(pods);
                                                          },
                                                          [&p](const WatchEvent& event) {
                                                            p.placements.Apply(event, absl::Now());
                                                            p.pod_index.Apply(event);
                                                          }},
                                    logger);
  p.options.add_gauges = [&p](Metrics::ClusterGauges& gauges) {
    gauges.pod_watch = {{p.pod_watch->synced() && p.node_watch->synced(),
                         p.pod_watch->lists() + p.node_watch->lists(),
                         p.pod_watch->watch_errors() + p.node_watch->watch_errors(),
                         p.placements.placements_recorded()}};
    gauges.api_nodes = p.view.ApiNodeCount();
  };
  if (!config.reports.verify_pods) return;
  auto& api = p.report_options.api;
  api.find_pod = [&p](const std::string& pod_namespace, const std::string& name) {
    return p.pod_index.Find(pod_namespace, name);
  };
  api.pods_synced = [&p] { return p.pod_watch->synced(); };
  api.node_exists = [&p](const std::string& node) { return p.view.HasApiNode(node); };
  api.nodes_synced = [&p] { return p.node_watch->synced(); };
}

// Node reports over gRPC, and readiness (every node the API lists has reported).
absl::Status StartReports(const ExtenderConfig& config, Parts& parts, spdlog::logger& logger) {
  parts.report_options.queue = config.reports.queue;
  parts.reports = std::make_unique<ReportServiceImpl>(parts.view, parts.report_options);
  parts.options.add_gauges =
      [reports = parts.reports.get(),
       api_gauges = std::move(parts.options.add_gauges)](Metrics::ClusterGauges& gauges) {
        if (api_gauges) api_gauges(gauges);
        const ReportQueue::Counts queue = reports->queue_counts();
        gauges.reports_queued = queue.queued;
        gauges.report_queue_longest_wait = queue.longest_wait;
      };
  absl::StatusOr<RunningGrpcServer> report_server = StartReportServer(
      config.reports.grpc_address, *parts.reports, config.reports.tls, {}, &parts.metrics);
  if (!report_server.ok()) return report_server.status();
  parts.report_server = *std::move(report_server);
  logger.info("node reports over gRPC on port {} ({})", parts.report_server.port,
              config.reports.tls.cert_file.empty()
                  ? "plaintext"
                  : (config.reports.tls.client_ca_file.empty() ? "TLS" : "mutual TLS"));
  parts.options.readiness = [&p = parts, started = absl::Now(),
                             grace = config.listener.ready_after] {
    ReadinessFacts facts;
    facts.api = p.pod_watch != nullptr;
    facts.watches_listed = facts.api && p.pod_watch->synced() && p.node_watch->synced();
    const absl::Time now = absl::Now();
    std::tie(facts.api_nodes, facts.api_nodes_fresh) = p.view.ApiNodesReported(now);
    facts.nodes_reported = p.view.NodeCount();
    facts.since_start = now - started;
    facts.grace = grace;
    return JudgeReadiness(facts);
  };
  return absl::OkStatus();
}

void SetUpStatus(const ExtenderConfig& config, Parts& parts) {
  parts.actuation.journal = &parts.journal;
  parts.options.journal = &parts.journal;
  if (!config.status.api) return;
  StatusBoard::Options status_options;
  status_options.guard = config.policy.actions.guard;
  status_options.defaults.allow_below_declared = config.policy.actions.guard.allow_below_declared;
  status_options.hpa_for = parts.options.admission.hpa_for;
  status_options.hpa_mode = config.policy.hpa_mode;
  status_options.excluded_namespaces = config.policy.excluded_namespaces;
  status_options.defaults.step = config.policy.default_step;
  status_options.defaults.disruption_windows = config.policy.disruption_windows;
  status_options.layers = parts.layers;
  status_options.refresh_in_background = true;  // the "status refresher" service
  SetupChecks::Sources setup;
  setup.api = parts.kube.setup.get();  // null without the Kubernetes API
  if (const char* pod_namespace = std::getenv("POD_NAMESPACE");
      pod_namespace != nullptr && *pod_namespace != '\0') {
    setup.own_namespace = pod_namespace;
  }
  if (config.actuation.election) setup.own_namespace = config.actuation.election->lease_namespace;
  setup.metrics_text = [&parts] { return parts.metrics.Render({}); };
  parts.setup_checks = std::make_unique<SetupChecks>(std::move(setup));
  status_options.setup = [checks = parts.setup_checks.get()] { return checks->Json(); };
  parts.status = std::make_unique<StatusBoard>(parts.view, config.kube ? &parts.pod_index : nullptr,
                                               parts.journal, status_options);
  parts.options.status = parts.status.get();
}

// The actuator, acting only while it holds the leader Lease, and the load cordon as a node
// taint: only by the leader, never under the kill switch.
void SetUpActuation(const ExtenderConfig& config, Parts& parts,
                    const std::shared_ptr<spdlog::logger>& logger) {
  Actuator::Options& actuation = parts.actuation;
  if (config.actuation.election) {
    parts.elector = std::make_unique<LeaderElector>(*config.actuation.election,
                                                    LeaseApiOver(*parts.kube.lease), logger);
    actuation.may_act = [elector = parts.elector.get()] { return elector->IsLeader(); };
    logger->info("leader election: Lease {}/{} as {}", config.actuation.election->lease_namespace,
                 config.actuation.election->lease_name, config.actuation.election->identity);
  }
  const bool too_old = parts.kube_version && parts.kube_version->fit == KubeVersionFit::kTooOld;
  if (config.actuation.actuate && too_old) {
    logger->error("actuator off: {}; scheduling and the webhook carry on",
                  parts.kube_version->message);
  } else if (config.actuation.actuate) {
    parts.actuator = std::make_unique<Actuator>(parts.view, parts.pod_index, *parts.kube.writes,
                                                parts.metrics, actuation, logger);
    logger->info("actuator on: every {}{}{}", absl::FormatDuration(actuation.interval),
                 actuation.dry_run ? ", dry run" : "",
                 actuation.kill_switch_file.empty()
                     ? ""
                     : ", kill switch file " + actuation.kill_switch_file);
  }
  parts.options.mutation_enabled = [kill_switch = actuation.kill_switch_file,
                                    dry_run = actuation.dry_run] {
    return !dry_run && !KillSwitchEngaged(kill_switch);
  };
  if (!config.actuation.cordon_taint) return;
  CordonTainter::Options taint_options;
  taint_options.dry_run = actuation.dry_run;
  taint_options.unknown_grace = config.view.view.report_stale_after;
  taint_options.may_act = [leader = actuation.may_act, kill_switch = actuation.kill_switch_file] {
    return (!leader || leader()) && !KillSwitchEngaged(kill_switch);
  };
  parts.tainter = std::make_unique<CordonTainter>(parts.view, parts.node_taints, *parts.kube.writes,
                                                  taint_options, logger);
  logger->info("load cordon as a taint: {}={}:NoSchedule on load-cordoned nodes",
               std::string(kLoadCordonTaintKey), std::string(kLoadCordonTaintValue));
}

// The HTTP listeners. The webhook and /repack carry secrets (bearer tokens, pods): HTTPS
// listeners only.
absl::Status BindHttp(const ExtenderConfig& config, Parts& parts, spdlog::logger& logger) {
  if (config.repack_api) {
    io::KubeClient* client = parts.kube.reviews.get();
    parts.repack_authorizer = std::make_unique<AdminAuthorizer>(
        [client](const std::string& path, const std::string& body) {
          return client->Review(path, body, absl::Seconds(5));
        });
  }
  ServerOptions& options = parts.options;
  options.serve_admission = options.tls != nullptr;
  options.repack_authorizer = options.tls != nullptr ? parts.repack_authorizer.get() : nullptr;
  parts.server = std::make_unique<ExtenderHttpServer>(parts.view, parts.metrics, options);
  const absl::StatusOr<int> bound =
      parts.server->Bind(config.listener.http_address.host, config.listener.http_address.port);
  if (!bound.ok()) return bound.status();
  parts.http_port = *bound;
  if (!config.webhook.address) return absl::OkStatus();
  ServerOptions webhook_options = options;
  webhook_options.tls = parts.webhook_certificate.get();
  webhook_options.serve_admission = true;
  webhook_options.status = nullptr;  // the page and its API: on --http-address only
  webhook_options.repack_authorizer = parts.repack_authorizer.get();
  parts.webhook_server =
      std::make_unique<ExtenderHttpServer>(parts.view, parts.metrics, webhook_options);
  const absl::StatusOr<int> webhook_bound =
      parts.webhook_server->Bind(config.webhook.address->host, config.webhook.address->port);
  if (!webhook_bound.ok()) return webhook_bound.status();
  logger.info("admission webhook on https://{}:{}/admission/pods", config.webhook.address->host,
              *webhook_bound);
  return absl::OkStatus();
}

// When a periodic service runs its round besides every interval.
struct Rounds {
  bool at_start = false;  // once at once
  bool at_stop = false;   // once more after the stop
};

// A service that runs `round` every `interval` until stopped.
app::Service EveryInterval(std::string name, absl::Duration interval, std::function<void()> round,
                           Rounds rounds) {
  auto stop = std::make_shared<absl::Notification>();
  return {std::move(name),
          [stop, interval, round = std::move(round), rounds] {
            if (rounds.at_start) round();
            while (!stop->WaitForNotificationWithTimeout(interval)) round();
            if (rounds.at_stop) round();
          },
          [stop] { stop->Notify(); }};
}

app::Service Watch(std::string name, ListWatcher& watch) {
  return {std::move(name), [&watch] { watch.Run(); }, [&watch] { watch.Stop(); }};
}

// Housekeeping: expiry of nodes that stopped reporting and of old workload statistics, and the
// checkpoint.
void CheckpointRound(const ExtenderConfig& config, ClusterView& view, spdlog::logger& logger) {
  view.ExpireWorkloads(absl::Now());
  if (const size_t expired = view.ExpireNodes(absl::Now()); expired > 0) {
    logger.info("forgot {} nodes that have not reported for {}", expired,
                absl::FormatDuration(config.view.view.node_retention));
  }
  if (config.view.state_dir.empty()) return;
  if (absl::Status saved = SaveWorkloads(view, config.view.state_dir, absl::Now()); !saved.ok()) {
    logger.error("checkpoint failed: {}", std::string(saved.message()));
  }
}

// The daemon's threads, in the order they start; they stop in the reverse order, each joined
// before the next: the webhook listener first; the actuator, then the taints released while
// the Lease is still held, then the Lease; the watches; the report server (reports in flight
// get a short grace); last the checkpoint, whose final round includes those reports.
void AddServices(const ExtenderConfig& config, Parts& parts, spdlog::logger& logger,
                 app::ServiceGroup& services) {
  services.Add(
      EveryInterval("checkpoint", config.view.checkpoint_interval,
                    [&config, &parts, &logger] { CheckpointRound(config, parts.view, logger); },
                    {.at_stop = true}));
  services.Add({"report server", nullptr,
                [&parts] { parts.report_server.Shutdown(absl::Milliseconds(200)); }});
  if (parts.pod_watch != nullptr) services.Add(Watch("pod watch", *parts.pod_watch));
  if (parts.node_watch != nullptr) services.Add(Watch("node watch", *parts.node_watch));
  if (parts.hpa_watch != nullptr) services.Add(Watch("HPA watch", *parts.hpa_watch));
  if (parts.namespace_watch != nullptr) {
    services.Add(Watch("Namespace watch", *parts.namespace_watch));
  }
  for (size_t i = 0; i < parts.owner_watches.size(); ++i) {
    services.Add(Watch(absl::StrCat(kOwnerKinds[i].kind, " watch"), *parts.owner_watches[i]));
  }
  if (parts.status != nullptr) {
    services.Add(EveryInterval("status sampler", config.status.sample_interval,
                               [status = parts.status.get()] { status->Sample(); },
                               {.at_start = true}));
    // While someone reads the status, its document is rebuilt in the background, so that a
    // read never waits for a build at thousands of nodes.
    services.Add(EveryInterval("status refresher", StatusBoard::Options{}.cache_for,
                               [status = parts.status.get()] { status->RefreshIfWatched(); }, {}));
  }
  if (SetupChecks* checks = parts.setup_checks.get(); checks != nullptr) {
    // The set-up checks at start and every --setup-check-interval; Stop() ends a round
    // between calls.
    auto stop = std::make_shared<absl::Notification>();
    services.Add({"set-up checks",
                  [checks, stop, every = config.status.setup_check_interval] {
                    do {
                      checks->Run();
                    } while (!stop->WaitForNotificationWithTimeout(every));
                  },
                  [checks, stop] {
                    checks->Stop();
                    stop->Notify();
                  }});
  }
  if (LeaderElector* elector = parts.elector.get(); elector != nullptr) {
    services.Add(
        {"leader election", [elector] { elector->Run(); }, [elector] { elector->Stop(); }});
  }
  if (CordonTainter* tainter = parts.tainter.get(); tainter != nullptr) {
    // Fail open: a stopped extender leaves no node tainted (the scheduler's extender is
    // ignorable too). A crash leaves the taints until the next start's grace
    // (--report-stale-after) has passed.
    services.Add({"cordon taint",
                  [tainter, &logger] {
                    tainter->Run();
                    const int released = tainter->ReleaseAll();
                    if (released > 0) {
                      logger.info("cordon taint: released {} node(s) at shutdown", released);
                    }
                  },
                  [tainter] { tainter->Stop(); }});
  }
  if (Actuator* actuator = parts.actuator.get(); actuator != nullptr) {
    auto stop = std::make_shared<absl::Notification>();
    services.Add({"actuator",
                  [actuator, stop] {
                    // Give the pod watch a moment to list before the first pass.
                    if (stop->WaitForNotificationWithTimeout(absl::Seconds(2))) return;
                    actuator->Run();
                  },
                  [actuator, stop] {
                    stop->Notify();
                    actuator->Stop();
                  }});
  }
  if (ExtenderHttpServer* webhook = parts.webhook_server.get(); webhook != nullptr) {
    services.Add({"webhook listener", [webhook] { (void)webhook->Serve(); },
                  [webhook] { webhook->Stop(); }});
  }
}

// Builds every part; an error is a reason not to start.
absl::Status Build(const ExtenderConfig& config, Parts& parts,
                   const std::shared_ptr<spdlog::logger>& logger) {
  parts.options = config.server;
  parts.options.admission = AdmissionOptionsOf(config);
  parts.actuation = ActuatorOptionsOf(config);
  HEADROOM_RETURN_IF_ERROR(LoadCertificates(config, parts));
  HEADROOM_RETURN_IF_ERROR(ConnectApi(config, parts, *logger));
  if (!config.view.state_dir.empty()) {
    app::RecoverCheckpoint(
        config.view.state_dir, kWorkloadCheckpointFile,
        [&] { return LoadWorkloads(parts.view, config.view.state_dir); }, "workload containers",
        *logger);
  }
  SetUpReportAuth(config, parts, *logger);
  SetUpHpaWatch(config, parts, logger);
  SetUpPolicyLayerWatches(config, parts, logger);
  SetUpPodAndNodeWatches(config, parts, logger);
  HEADROOM_RETURN_IF_ERROR(StartReports(config, parts, *logger));
  SetUpStatus(config, parts);
  SetUpActuation(config, parts, logger);
  return BindHttp(config, parts, *logger);
}

}  // namespace

int RunExtender(const ExtenderConfig& config, sigset_t stop_signals) {
  const std::shared_ptr<spdlog::logger> logger = spdlog::default_logger();
  Parts parts(config);
  if (absl::Status built = Build(config, parts, logger); !built.ok()) {
    return Fail(built.message());
  }
  // Everything that can refuse to start is checked above; from here on threads run.
  app::ServiceGroup services;
  AddServices(config, parts, *logger, services);
  io::StopSignal stop(stop_signals, [&](const std::string& why) {
    logger->info("{}: stopping", why);
    parts.server->Stop();
    if (parts.webhook_server != nullptr) parts.webhook_server->Stop();
  });
  logger->info("listening on {}://{}:{} (filter and prioritize under \"{}\", scoring {})",
               parts.options.tls != nullptr ? "https" : "http", config.listener.http_address.host,
               parts.http_port, parts.options.url_prefix, config.listener.scoring_name);
  services.Start();
  const absl::Status served = parts.server->Serve();
  stop.Stop(served.ok() ? "the HTTP server stopped" : std::string(served.message()));
  services.Stop([&logger](const std::string& name) { logger->debug("stopped: {}", name); });
  logger->info("stopped: {}", served.ok() ? std::string("signal") : std::string(served.message()));
  return 0;
}

}  // namespace headroom::extender
