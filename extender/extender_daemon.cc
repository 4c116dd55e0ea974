#include "extender/extender_daemon.h"

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/synchronization/notification.h"
#include "app/daemon.h"
#include "extender/actuation/cordon_taint.h"
#include "extender/kube/api_nodes.h"
#include "extender/kube/hpa_index.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_index.h"
#include "extender/kube/pod_placements.h"
#include "extender/reports/report_service.h"
#include "extender/serving/admin_authorizer.h"
#include "extender/serving/metrics.h"
#include "extender/serving/tls_certificate.h"
#include "extender/status/status.h"
#include "extender/view/action_journal.h"
#include "extender/view/workload_checkpoint.h"
#include "io/daemon_signals.h"
#include "io/kube_client.h"
#include "shared/annotations.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {
namespace {

int Fail(absl::string_view message) {
  std::cerr << "headroom-extender: " << message << "\n";
  return 2;
}

// One client per use: a client cancels its own running watch at shutdown, and a slow
// TokenReview never waits behind a watch.
struct KubeClients {
  std::unique_ptr<io::KubeClient> pods, nodes, hpas, writes, reviews, lease;
};

absl::StatusOr<KubeClients> ConnectKube(const io::KubeConfig& config) {
  KubeClients clients;
  for (auto* slot : {&clients.pods, &clients.nodes, &clients.hpas, &clients.writes,
                     &clients.reviews, &clients.lease}) {
    absl::StatusOr<std::unique_ptr<io::KubeClient>> client = io::KubeClient::Create(config);
    if (!client.ok()) return client.status();
    *slot = *std::move(client);
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

// A thread that runs `body` and is joined when this goes out of scope.
class Worker {
 public:
  explicit Worker(std::function<void()> body) : thread_(std::move(body)) {}
  ~Worker() { thread_.join(); }

 private:
  std::thread thread_;
};

}  // namespace

int RunExtender(const ExtenderConfig& config, sigset_t stop_signals) {
  const std::shared_ptr<spdlog::logger> logger = spdlog::default_logger();
  ServerOptions options = config.server;
  absl::StatusOr<std::unique_ptr<ReloadingCertificate>> certificate =
      LoadCertificate(config.tls_cert_file, config.tls_key_file);
  if (!certificate.ok()) return Fail(certificate.status().message());
  options.tls = certificate->get();
  absl::StatusOr<std::unique_ptr<ReloadingCertificate>> webhook_certificate =
      LoadCertificate(config.webhook_cert_file, config.webhook_key_file);
  if (!webhook_certificate.ok()) return Fail(webhook_certificate.status().message());

  KubeClients kube;
  if (config.kube) {
    absl::StatusOr<KubeClients> connected = ConnectKube(*config.kube);
    if (!connected.ok()) return Fail(connected.status().message());
    kube = *std::move(connected);
    logger->info("watching bound pods and nodes at {}", kube.pods->server());
  } else {
    logger->warn(
        "no Kubernetes API (no --kubeconfig, not in a pod): pods placed between two node "
        "reports are not counted");
  }

  ClusterView view(config.view);
  Metrics metrics;
  if (!config.state_dir.empty()) {
    app::RecoverCheckpoint(
        config.state_dir, kWorkloadCheckpointFile,
        [&] { return LoadWorkloads(view, config.state_dir); }, "workload containers", *logger);
  }

  // Who may report a node.
  std::unique_ptr<TokenAuthenticator> token_authenticator;
  if (config.report_auth == ReportAuth::kToken) {
    io::KubeClient* client = kube.reviews.get();
    token_authenticator = std::make_unique<TokenAuthenticator>(
        [client](const std::string& body) {
          return client->Review("/apis/authentication.k8s.io/v1/tokenreviews", body,
                                absl::Seconds(5));
        },
        config.report_tokens);
    if (config.grpc_tls.cert_file.empty()) {
      logger->warn(
          "--report-auth=token over plaintext gRPC: tokens can be read on the network; set "
          "--grpc-tls-cert-file");
    }
  } else if (config.report_auth == ReportAuth::kInsecure) {
    logger->warn("--report-auth=insecure: anyone who can reach the gRPC port may report any node");
  }
  ReportServiceOptions report_options;
  report_options.auth = config.report_auth;
  report_options.tokens = token_authenticator.get();
  report_options.metrics = &metrics;

  // The watches of bound pods and of nodes.
  PodPlacementTracker placements(view);
  PodIndex pod_index;
  ApiNodeTracker api_nodes(view);
  NodeTaintIndex node_taints;
  std::unique_ptr<ListWatcher> pod_watch;
  std::unique_ptr<ListWatcher> node_watch;
  // HPAs, for --hpa-scaled-resources=keep: until they are listed every workload is judged as
  // if an HPA scaled it on both resources (nothing is sized that an HPA might read).
  HpaIndex hpas;
  std::unique_ptr<ListWatcher> hpa_watch;
  Actuator::Options actuation = config.actuation;
  if (config.kube && config.server.admission.hpa_mode == HpaResourcesMode::kKeep) {
    hpa_watch = std::make_unique<ListWatcher>(
        *kube.hpas, HpaWatch(),
        ListWatcher::Handlers{[&](std::vector<nlohmann::json> items) { hpas.Replace(items); },
                              [&](const WatchEvent& event) { hpas.Apply(event); }},
        logger);
    const auto hpa_for = [&hpas, &hpa_watch](const std::string& workload_key) {
      if (!hpa_watch->synced()) {
        return std::optional<HpaScaling>(HpaScaling{"(HPAs not listed yet)", true, true});
      }
      return hpas.For(workload_key);
    };
    options.admission.hpa_for = hpa_for;
    actuation.hpa_for = hpa_for;
  }
  if (config.kube) {
    node_watch =
        std::make_unique<ListWatcher>(*kube.nodes, NodesWatch(),
                                      ListWatcher::Handlers{[&](std::vector<nlohmann::json> nodes) {
                                                              api_nodes.Replace(nodes);
                                                              node_taints.Replace(nodes);
                                                            },
                                                            [&](const WatchEvent& event) {
                                                              api_nodes.Apply(event);
                                                              node_taints.Apply(event);
                                                            }},
                                      logger);
    pod_watch =
        std::make_unique<ListWatcher>(*kube.pods, BoundPodsWatch(),
                                      ListWatcher::Handlers{[&](std::vector<nlohmann::json> pods) {
                                                              placements.Replace(pods, absl::Now());
                                                              pod_index.Replace(pods);
                                                            },
                                                            [&](const WatchEvent& event) {
                                                              placements.Apply(event, absl::Now());
                                                              pod_index.Apply(event);
                                                            }},
                                      logger);
    options.add_gauges = [&](Metrics::ClusterGauges& gauges) {
      gauges.pod_watch = {{pod_watch->synced() && node_watch->synced(),
                           pod_watch->lists() + node_watch->lists(),
                           pod_watch->watch_errors() + node_watch->watch_errors(),
                           placements.placements_recorded()}};
      gauges.api_nodes = view.ApiNodeCount();
    };
    if (config.verify_report_pods) {
      report_options.api.find_pod = [&pod_index](const std::string& pod_namespace,
                                                 const std::string& name) {
        return pod_index.Find(pod_namespace, name);
      };
      report_options.api.pods_synced = [&pod_watch] { return pod_watch->synced(); };
      report_options.api.node_exists = [&view](const std::string& node) {
        return view.HasApiNode(node);
      };
      report_options.api.nodes_synced = [&node_watch] { return node_watch->synced(); };
    }
  }

  // Node reports over gRPC.
  report_options.queue = config.report_queue;
  ReportServiceImpl reports(view, report_options);
  options.add_gauges =
      [&reports, api_gauges = std::move(options.add_gauges)](Metrics::ClusterGauges& gauges) {
        if (api_gauges) api_gauges(gauges);
        const ReportQueue::Counts queue = reports.queue_counts();
        gauges.reports_queued = queue.queued;
        gauges.report_queue_longest_wait = queue.longest_wait;
      };
  absl::StatusOr<RunningGrpcServer> report_server =
      StartReportServer(config.grpc_address, reports, config.grpc_tls, {}, &metrics);
  if (!report_server.ok()) return Fail(report_server.status().message());
  logger->info("node reports over gRPC on port {} ({})", report_server->port,
               config.grpc_tls.cert_file.empty()
                   ? "plaintext"
                   : (config.grpc_tls.client_ca_file.empty() ? "TLS" : "mutual TLS"));
  {
    const absl::Time started = absl::Now();
    const absl::Duration grace = config.ready_after;
    options.readiness = [&view, &pod_watch, &node_watch, started, grace] {
      ReadinessFacts facts;
      facts.api = pod_watch != nullptr;
      facts.watches_listed = facts.api && pod_watch->synced() && node_watch->synced();
      const absl::Time now = absl::Now();
      std::tie(facts.api_nodes, facts.api_nodes_fresh) = view.ApiNodesReported(now);
      facts.nodes_reported = view.NodeCount();
      facts.since_start = now - started;
      facts.grace = grace;
      return JudgeReadiness(facts);
    };
  }

  // What headroom did, for the status page; the actuator and the webhook record into it.
  ActionJournal journal;
  actuation.journal = &journal;
  options.journal = &journal;
  std::unique_ptr<StatusBoard> status;
  if (config.status_api) {
    StatusBoard::Options status_options;
    status_options.guard = config.server.admission.guard;
    status_options.defaults.allow_below_declared =
        config.server.admission.guard.allow_below_declared;
    status_options.hpa_for = options.admission.hpa_for;
    status_options.hpa_mode = config.server.admission.hpa_mode;
    status_options.excluded_namespaces = config.server.admission.excluded_namespaces;
    status = std::make_unique<StatusBoard>(view, config.kube ? &pod_index : nullptr, journal,
                                           status_options);
    options.status = status.get();
  }

  // The actuator, acting only while it holds the leader Lease.
  std::unique_ptr<LeaderElector> elector;
  if (config.election) {
    elector = std::make_unique<LeaderElector>(*config.election, LeaseApiOver(*kube.lease), logger);
    LeaderElector* elector_ptr = elector.get();
    actuation.may_act = [elector_ptr] { return elector_ptr->IsLeader(); };
    logger->info("leader election: Lease {}/{} as {}", config.election->lease_namespace,
                 config.election->lease_name, config.election->identity);
  }
  std::unique_ptr<Actuator> actuator;
  if (config.actuate) {
    actuator =
        std::make_unique<Actuator>(view, pod_index, *kube.writes, metrics, actuation, logger);
    logger->info("actuator on: every {}{}{}", absl::FormatDuration(actuation.interval),
                 actuation.dry_run ? ", dry run" : "",
                 actuation.kill_switch_file.empty()
                     ? ""
                     : ", kill switch file " + actuation.kill_switch_file);
  }
  options.mutation_enabled = [kill_switch = actuation.kill_switch_file,
                              dry_run = actuation.dry_run] {
    return !dry_run && !KillSwitchEngaged(kill_switch);
  };

  // The load cordon as a node taint: only by the leader, never under the kill switch.
  std::unique_ptr<CordonTainter> tainter;
  if (config.cordon_taint) {
    CordonTainter::Options taint_options;
    taint_options.dry_run = actuation.dry_run;
    taint_options.unknown_grace = config.view.report_stale_after;
    taint_options.may_act = [leader = actuation.may_act, kill_switch = actuation.kill_switch_file] {
      return (!leader || leader()) && !KillSwitchEngaged(kill_switch);
    };
    tainter =
        std::make_unique<CordonTainter>(view, node_taints, *kube.writes, taint_options, logger);
    logger->info("load cordon as a taint: {}={}:NoSchedule on load-cordoned nodes",
                 std::string(kLoadCordonTaintKey), std::string(kLoadCordonTaintValue));
  }

  // The HTTP listeners. The webhook and /repack carry secrets (bearer tokens, pods): HTTPS
  // listeners only.
  std::unique_ptr<AdminAuthorizer> repack_authorizer;
  if (config.repack_api) {
    io::KubeClient* client = kube.reviews.get();
    repack_authorizer = std::make_unique<AdminAuthorizer>(
        [client](const std::string& path, const std::string& body) {
          return client->Review(path, body, absl::Seconds(5));
        });
  }
  options.serve_admission = options.tls != nullptr;
  options.repack_authorizer = options.tls != nullptr ? repack_authorizer.get() : nullptr;
  ExtenderHttpServer server(view, metrics, options);
  const absl::StatusOr<int> bound = server.Bind(config.http_address.host, config.http_address.port);
  if (!bound.ok()) return Fail(bound.status().message());
  std::unique_ptr<ExtenderHttpServer> webhook_server;
  if (config.webhook_address) {
    ServerOptions webhook_options = options;
    webhook_options.tls = webhook_certificate->get();
    webhook_options.serve_admission = true;
    webhook_options.status = nullptr;  // the page and its API: on --http-address only
    webhook_options.repack_authorizer = repack_authorizer.get();
    webhook_server = std::make_unique<ExtenderHttpServer>(view, metrics, webhook_options);
    const absl::StatusOr<int> webhook_bound =
        webhook_server->Bind(config.webhook_address->host, config.webhook_address->port);
    if (!webhook_bound.ok()) return Fail(webhook_bound.status().message());
    logger->info("admission webhook on https://{}:{}/admission/pods", config.webhook_address->host,
                 *webhook_bound);
  }

  // Everything that can refuse to start is checked above; from here on threads run.
  absl::Notification stopping;
  io::StopSignal stop(stop_signals, [&](const std::string& why) {
    logger->info("{}: stopping", why);
    server.Stop();
    if (webhook_server != nullptr) webhook_server->Stop();
  });
  logger->info("listening on {}://{}:{} (filter and prioritize under \"{}\", scoring {})",
               options.tls != nullptr ? "https" : "http", config.http_address.host, *bound,
               options.url_prefix, config.scoring_name);
  absl::Status served;
  {
    Worker webhook_thread([&] {
      if (webhook_server != nullptr) (void)webhook_server->Serve();
    });
    // Housekeeping: expiry of nodes that stopped reporting and of old workload statistics,
    // and the checkpoint; the last round runs after the report server stopped.
    Worker checkpointer([&] {
      bool last = false;
      while (!last) {
        last = stopping.WaitForNotificationWithTimeout(config.checkpoint_interval);
        view.ExpireWorkloads(absl::Now());
        if (const size_t expired = view.ExpireNodes(absl::Now()); expired > 0) {
          logger->info("forgot {} nodes that have not reported for {}", expired,
                       absl::FormatDuration(config.view.node_retention));
        }
        if (config.state_dir.empty()) continue;
        if (absl::Status saved = SaveWorkloads(view, config.state_dir, absl::Now()); !saved.ok()) {
          logger->error("checkpoint failed: {}", std::string(saved.message()));
        }
      }
    });
    Worker watcher([&] {
      if (pod_watch != nullptr) pod_watch->Run();
    });
    Worker node_watcher([&] {
      if (node_watch != nullptr) node_watch->Run();
    });
    Worker hpa_watcher([&] {
      if (hpa_watch != nullptr) hpa_watch->Run();
    });
    Worker status_sampler([&] {
      if (status == nullptr) return;
      do {
        status->Sample();
      } while (!stopping.WaitForNotificationWithTimeout(config.status_sample_interval));
    });
    absl::Notification tainter_done;
    Worker tainter_thread([&] {
      if (tainter != nullptr) {
        tainter->Run();
        // Fail open: a stopped extender leaves no node tainted (the scheduler's extender is
        // ignorable too), released while this replica still leads. A crash leaves the taints
        // until the next start's grace (--report-stale-after) has passed.
        const int released = tainter->ReleaseAll();
        if (released > 0) logger->info("cordon taint: released {} node(s) at shutdown", released);
      }
      tainter_done.Notify();
    });
    // Joined after the actuator: releases the Lease, so a successor need not wait for it.
    Worker elector_thread([&] {
      if (elector != nullptr) elector->Run();
    });
    Worker actuator_thread([&] {
      if (actuator == nullptr) return;
      // Give the pod watch a moment to list before the first pass.
      if (stopping.WaitForNotificationWithTimeout(absl::Seconds(2))) return;
      actuator->Run();
    });

    served = server.Serve();
    stop.Stop(served.ok() ? "the HTTP server stopped" : std::string(served.message()));
    if (webhook_server != nullptr) webhook_server->Stop();
    // Reports in flight get a short grace, then the final checkpoint includes them.
    report_server->Shutdown(absl::Milliseconds(200));
    stopping.Notify();
    if (pod_watch != nullptr) pod_watch->Stop();
    if (node_watch != nullptr) node_watch->Stop();
    if (hpa_watch != nullptr) hpa_watch->Stop();
    if (tainter != nullptr) tainter->Stop();
    // The taints go while the Lease is still held (bounded: shutdown stays prompt).
    (void)tainter_done.WaitForNotificationWithTimeout(absl::Seconds(2));
    if (actuator != nullptr) actuator->Stop();
    if (elector != nullptr) elector->Stop();
  }  // the workers join here, in reverse order of their start
  logger->info("stopped: {}", served.ok() ? std::string("signal") : std::string(served.message()));
  return 0;
}

}  // namespace headroom::extender
