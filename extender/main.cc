// headroom-extender: the kube-scheduler HTTP extender. Parses flags and wires the cluster
// view, metrics and HTTP server together; the decisions are in judge.h and shared/.

#include <grpcpp/grpcpp.h>
#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "app/actuation_flags.h"
#include "app/flag_args.h"
#include "extender/actuator.h"
#include "extender/admin_authorizer.h"
#include "extender/api_nodes.h"
#include "extender/cluster_view.h"
#include "extender/http_server.h"
#include "extender/kube_client.h"
#include "extender/kube_config.h"
#include "extender/leader_election.h"
#include "extender/list_watcher.h"
#include "extender/metrics.h"
#include "extender/pod_index.h"
#include "extender/pod_placements.h"
#include "extender/report_service.h"
#include "extender/reporter_identity.h"
#include "extender/tls_certificate.h"
#include "extender/workload_checkpoint.h"
#include "io/atomic_file.h"
#include "io/daemon_signals.h"
#include "io/grpc_tls.h"
#include "spdlog/cfg/env.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, http_address, "0.0.0.0:8888",
          "host:port for the extender, health and metrics endpoints.");
ABSL_FLAG(std::string, grpc_address, "0.0.0.0:9090",
          "host:port of the gRPC service through which headroom-nri reports nodes.");
ABSL_FLAG(std::string, state_dir, "",
          "Directory for workloads.json, the checkpoint of workload statistics; empty: none.");
ABSL_FLAG(absl::Duration, checkpoint_interval, absl::Seconds(30),
          "How often workload statistics are checkpointed to --state-dir.");
ABSL_FLAG(std::string, url_prefix, "",
          "Path prefix of filter and prioritize (urlPrefix in KubeSchedulerConfiguration).");
ABSL_FLAG(std::string, scoring, "spread", "Node scoring: spread (least allocated) or pack.");
ABSL_FLAG(std::string, tls_cert_file, "",
          "PEM certificate (and chain) for HTTPS; reloaded when it changes. Empty: plain HTTP.");
ABSL_FLAG(std::string, tls_key_file, "", "PEM private key for --tls-cert-file.");
ABSL_FLAG(std::string, webhook_address, "",
          "host:port of a second, HTTPS-only listener for the admission webhook (the API server "
          "calls webhooks over TLS only), e.g. 0.0.0.0:8443; empty: none. It serves every "
          "endpoint, with --webhook-tls-cert-file.");
ABSL_FLAG(std::string, webhook_tls_cert_file, "",
          "PEM certificate for --webhook-address (e.g. from a cert-manager Secret); reloaded "
          "when it changes.");
ABSL_FLAG(std::string, webhook_tls_key_file, "", "PEM private key for --webhook-tls-cert-file.");
ABSL_FLAG(int64_t, max_body_bytes, 64LL << 20, "Largest request body accepted (413 beyond).");
ABSL_FLAG(
    std::string, kubeconfig, "",
    "kubeconfig for the Kubernetes API (watch of bound pods and nodes). Empty: the in-cluster "
    "service account when running in a pod, else no watch.");
ABSL_FLAG(std::string, kube_context, "", "Context in --kubeconfig; empty: current-context.");
ABSL_FLAG(absl::Duration, placement_ttl, absl::Minutes(2),
          "How long a pod seen bound counts on its node before a node report must cover it.");
ABSL_FLAG(double, cordon_above, 1.0,
          "Load cordon: a node whose load1 / CPUs exceeds this takes no new pods.");
ABSL_FLAG(double, uncordon_below, 0.9,
          "Load cordon: a cordoned node takes pods again once load1 / CPUs is below this.");
ABSL_FLAG(absl::Duration, cordon_min_duration, absl::Minutes(2),
          "Load cordon: the shortest time a node stays cordoned.");
ABSL_FLAG(absl::Duration, report_stale_after, absl::Minutes(3),
          "A node whose last report is older is judged as unknown (passed, never rejected).");
ABSL_FLAG(std::string, grpc_tls_cert_file, "",
          "PEM certificate for TLS on the gRPC report listener; empty: plaintext.");
ABSL_FLAG(std::string, grpc_tls_key_file, "", "PEM private key for --grpc-tls-cert-file.");
ABSL_FLAG(std::string, grpc_client_ca_file, "",
          "PEM CA: headroom-nri must present a client certificate it signed (mutual TLS).");
ABSL_FLAG(std::string, report_auth, "token",
          "Who may report a node: token (headroom-nri's projected ServiceAccount token, checked "
          "with a TokenReview; the token's pod must run on the reported node), certificate "
          "(mutual TLS; the client certificate's CN is the node name or system:node:NODE, or "
          "a DNS subjectAltName is the node name) or insecure (anyone; tests only).");
ABSL_FLAG(std::string, report_token_audience, "headroom-extender",
          "--report-auth=token: the audience of headroom-nri's projected token.");
ABSL_FLAG(std::vector<std::string>, report_service_accounts,
          std::vector<std::string>({"headroom-system/headroom-nri"}),
          "--report-auth=token: the ServiceAccounts (namespace/name, comma-separated) whose "
          "tokens may report nodes.");
ABSL_FLAG(bool, verify_report_pods, true,
          "Check each reported pod against the pod watch (same UID, bound to the reporting "
          "node, its owner's workload key); a pod that does not match counts on its node but "
          "feeds no workload statistics and is never resized or evicted.");
ABSL_FLAG(absl::Duration, ready_after, absl::Seconds(90),
          "/readyz answers 503 after a start until every node the API lists has reported, or "
          "this long (about one headroom-nri report interval and a half) for nodes that never "
          "report.");
ABSL_FLAG(absl::Duration, node_retention, absl::Hours(1),
          "A node that has not reported for this long is forgotten.");
ABSL_FLAG(bool, repack_api, false,
          "Serve POST /repack (a dry-run repacking plan) on the HTTPS listeners, to callers "
          "whose Kubernetes token may post the non-resource URL /repack (TokenReview + "
          "SubjectAccessReview).");
ABSL_FLAG(bool, leader_elect, true,
          "With --actuate: act only while holding a coordination.k8s.io Lease, so that of "
          "several replicas exactly one resizes and evicts (the others serve the scheduler).");
ABSL_FLAG(std::string, leader_elect_namespace, "",
          "Namespace of the leader Lease; empty: $POD_NAMESPACE, else default.");
ABSL_FLAG(std::string, leader_elect_lease_name, "headroom-extender", "Name of the leader Lease.");
ABSL_FLAG(absl::Duration, leader_elect_lease_duration, absl::Seconds(15),
          "How long the others wait, after the Lease last changed, before taking it over.");
ABSL_FLAG(absl::Duration, leader_elect_renew_deadline, absl::Seconds(10),
          "The leader stops acting when it could not renew the Lease for this long.");
ABSL_FLAG(absl::Duration, leader_elect_retry_period, absl::Seconds(2),
          "How often the Lease is renewed or checked.");
ABSL_FLAG(std::string, config, "",
          "YAML file of flag: value (e.g. \"scoring: pack\"); flags on the command line win.");
ABSL_FLAG(std::vector<std::string>, admission_exclude_namespaces,
          std::vector<std::string>({"kube-system", "kube-public", "kube-node-lease"}),
          "Namespaces whose pods are never changed: not by the admission webhook, not resized, "
          "not evicted (comma-separated).");
ABSL_FLAG(bool, admission_strip_cpu_limits, true,
          "Admission webhook: remove CPU limits (a container with only a limit keeps it as its "
          "request), so kubelet puts no CPU quota on the pod.");
ABSL_FLAG(bool, actuate, false,
          "Resize running pods (pods/resize) and evict (Eviction API) as the per-node "
          "optimisation and OOM kills call for. Needs the Kubernetes API.");
ABSL_FLAG(bool, dry_run, false,
          "Decide and log everything, change nothing: the webhook returns no patch and the "
          "actuator writes nothing to the API.");
ABSL_FLAG(std::string, kill_switch_file, "",
          "While this file exists, headroom changes nothing (as --dry-run), checked on every "
          "decision; e.g. a key of an optional ConfigMap volume.");
ABSL_FLAG(absl::Duration, actuation_interval, absl::Seconds(30),
          "How often the actuator plans every freshly reported node.");
ABSL_FLAG(double, resizes_per_node_per_minute, 10, "Resize rate limit, per node.");
ABSL_FLAG(bool, allow_below_declared, false,
          "Guard rail default: let headroom request less than pods declare (webhook and "
          "resizes); a pod overrides it with headroom.dev/allow-below-declared.");
ABSL_FLAG(absl::Duration, blocked_eviction_backoff, absl::Minutes(5),
          "After an eviction is refused (e.g. by a PodDisruptionBudget), the pod is not tried "
          "again for this long.");
ABSL_FLAG(bool, oom_evict, true,
          "Evict a pod after an OOM kill so the webhook recreates it with the memory at OOM.");
ABSL_FLAG(absl::Duration, oom_cooldown, absl::Minutes(5),
          "OOM kills of the same pod and container within this time are not acted on again.");
ABSL_FLAG(std::string, log_level, "info", "trace, debug, info, warn, error (or SPDLOG_LEVEL).");

namespace {

// A replica's identity in the leader Lease: host name, process and a random part.
std::string LeaderIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrCat(host[0] != '\0' ? host : "headroom-extender", "_", getpid(), "_",
                      absl::Hex(random(), absl::kZeroPad8));
}

int Fail(const std::string& message) {
  std::cerr << "headroom-extender: " << message << "\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  // Before anything starts a thread (gRPC's server, the HTTP server).
  sigset_t signals = headroom::io::BlockStopSignals();
  headroom::app::ParseDaemonFlags(
      argc, argv,

      "headroom-extender: kube-scheduler HTTP extender that filters and ranks nodes by each "
      "pod's projected fit (every pod at base plus one shared headroom) and load cordon.\n"
      "Usage: headroom-extender [--config=FILE] [--http-address=0.0.0.0:8888] [--url-prefix=] "
      "[--scoring=spread|pack] [--kubeconfig=FILE]\nSee docs/extender.md.",
      "extender/");

  // Debian's Abseil keeps Mutex deadlock detection on: a graph update on every lock, found in
  // the extender's latency profile. headroom's locks do not nest.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  spdlog::set_level(spdlog::level::from_str(absl::GetFlag(FLAGS_log_level)));
  spdlog::cfg::load_env_levels();
  auto logger = spdlog::default_logger()->clone("extender");
  spdlog::register_logger(logger);

  const absl::StatusOr<headroom::app::HostPort> address =
      headroom::app::ParseHostPort(absl::GetFlag(FLAGS_http_address), "--http-address");
  if (!address.ok()) return Fail(std::string(address.status().message()));
  headroom::extender::ServerOptions options;
  options.url_prefix = absl::GetFlag(FLAGS_url_prefix);
  if (!options.url_prefix.empty() && options.url_prefix.front() != '/') {
    options.url_prefix.insert(options.url_prefix.begin(), '/');
  }
  while (!options.url_prefix.empty() && options.url_prefix.back() == '/') {
    options.url_prefix.pop_back();
  }
  const std::string scoring = absl::GetFlag(FLAGS_scoring);
  if (scoring != "spread" && scoring != "pack") {
    return Fail("--scoring must be spread or pack");
  }
  options.scoring.strategy =
      scoring == "pack" ? headroom::ScoringStrategy::kPack : headroom::ScoringStrategy::kSpread;
  if (absl::GetFlag(FLAGS_max_body_bytes) <= 0) return Fail("--max-body-bytes must be positive");
  options.max_body_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_max_body_bytes));

  const std::string cert_file = absl::GetFlag(FLAGS_tls_cert_file);
  const std::string key_file = absl::GetFlag(FLAGS_tls_key_file);
  if (cert_file.empty() != key_file.empty()) {
    return Fail("--tls-cert-file and --tls-key-file go together");
  }
  std::unique_ptr<headroom::extender::ReloadingCertificate> certificate;
  if (!cert_file.empty()) {
    certificate = std::make_unique<headroom::extender::ReloadingCertificate>(cert_file, key_file);
    if (absl::Status loaded = certificate->Load(); !loaded.ok()) {
      return Fail(std::string(loaded.message()));
    }
    options.tls = certificate.get();
  }
  const std::string webhook_address_text = absl::GetFlag(FLAGS_webhook_address);
  std::optional<headroom::app::HostPort> webhook_address;
  std::unique_ptr<headroom::extender::ReloadingCertificate> webhook_certificate;
  if (!webhook_address_text.empty()) {
    absl::StatusOr<headroom::app::HostPort> parsed =
        headroom::app::ParseHostPort(webhook_address_text, "--webhook-address");
    if (!parsed.ok()) return Fail(std::string(parsed.status().message()));
    webhook_address = *parsed;
    const std::string webhook_cert = absl::GetFlag(FLAGS_webhook_tls_cert_file);
    const std::string webhook_key = absl::GetFlag(FLAGS_webhook_tls_key_file);
    if (webhook_cert.empty() || webhook_key.empty()) {
      return Fail("--webhook-address needs --webhook-tls-cert-file and --webhook-tls-key-file");
    }
    webhook_certificate =
        std::make_unique<headroom::extender::ReloadingCertificate>(webhook_cert, webhook_key);
    if (absl::Status loaded = webhook_certificate->Load(); !loaded.ok()) {
      return Fail(std::string(loaded.message()));
    }
  }
  // The Kubernetes API, for the watch of bound pods: explicit kubeconfig, else in-cluster.
  std::unique_ptr<headroom::extender::KubeClient> kube;          // the pod watch's connection
  std::unique_ptr<headroom::extender::KubeClient> kube_nodes;    // the node watch's
  std::unique_ptr<headroom::extender::KubeClient> kube_writes;   // the actuator's
  std::unique_ptr<headroom::extender::KubeClient> kube_reviews;  // TokenReviews of reporters
  std::unique_ptr<headroom::extender::KubeClient> kube_lease;    // the leader Lease
  {
    const std::string kubeconfig = absl::GetFlag(FLAGS_kubeconfig);
    absl::StatusOr<headroom::extender::KubeConfig> config =
        kubeconfig.empty()
            ? headroom::extender::InClusterConfig()
            : headroom::extender::LoadKubeconfigFile(kubeconfig, absl::GetFlag(FLAGS_kube_context));
    if (!config.ok() && !(kubeconfig.empty() && absl::IsNotFound(config.status()))) {
      return Fail(std::string(config.status().message()));
    }
    if (config.ok()) {
      // One client per watch: a client cancels its own running watch at shutdown.
      for (auto* slot : {&kube, &kube_nodes, &kube_writes, &kube_reviews, &kube_lease}) {
        absl::StatusOr<std::unique_ptr<headroom::extender::KubeClient>> client =
            headroom::extender::KubeClient::Create(*config);
        if (!client.ok()) return Fail(std::string(client.status().message()));
        *slot = std::move(*client);
      }
      logger->info("watching bound pods and nodes at {}", kube->server());
    } else {
      logger->warn(
          "no Kubernetes API (no --kubeconfig, not in a pod): pods placed between two "
          "node reports are not counted");
    }
  }
  if (absl::GetFlag(FLAGS_placement_ttl) <= absl::ZeroDuration()) {
    return Fail("--placement-ttl must be positive");
  }
  absl::StatusOr<headroom::ActionConfig> action_config =
      headroom::app::ActionConfigFromFlags(absl::GetFlag(FLAGS_allow_below_declared));
  if (!action_config.ok()) return Fail(std::string(action_config.status().message()));
  absl::StatusOr<headroom::EvictionBudgetConfig> budget = headroom::app::EvictionBudgetFromFlags();
  if (!budget.ok()) return Fail(std::string(budget.status().message()));
  headroom::extender::ClusterView::Options view_options;
  view_options.min_history = action_config->guard.min_history;
  view_options.placement_ttl = absl::GetFlag(FLAGS_placement_ttl);
  view_options.report_stale_after = absl::GetFlag(FLAGS_report_stale_after);
  view_options.node_retention = absl::GetFlag(FLAGS_node_retention);
  view_options.cordon.cordon_above = absl::GetFlag(FLAGS_cordon_above);
  view_options.cordon.uncordon_below = absl::GetFlag(FLAGS_uncordon_below);
  view_options.cordon.min_cordon_duration = absl::GetFlag(FLAGS_cordon_min_duration);
  view_options.cordon.stale_after = view_options.report_stale_after;
  if (absl::Status valid = view_options.cordon.Validate(); !valid.ok()) {
    return Fail(std::string(valid.message()));
  }
  if (view_options.report_stale_after <= absl::ZeroDuration()) {
    return Fail("--report-stale-after must be positive");
  }
  headroom::extender::ClusterView view(view_options);
  headroom::extender::Metrics metrics;
  const std::string state_dir = absl::GetFlag(FLAGS_state_dir);
  if (!state_dir.empty()) {
    const std::string path = state_dir + "/" + headroom::extender::kWorkloadCheckpointFile;
    if (const size_t stale = headroom::io::RemoveStaleTemporaries(path); stale > 0) {
      logger->warn("removed {} temporary files of an interrupted checkpoint in {}", stale,
                   state_dir);
    }
    absl::StatusOr<size_t> loaded = headroom::extender::LoadWorkloads(view, state_dir);
    if (loaded.ok()) {
      logger->info("loaded {} workload containers from {}", *loaded, state_dir);
    } else if (absl::IsNotFound(loaded.status())) {
      logger->info("no checkpoint in {} yet", state_dir);
    } else {
      // Keep the unreadable file for inspection and start empty rather than not at all.
      const absl::StatusOr<std::string> aside = headroom::io::MoveAside(path);
      logger->error("{}; {}, starting without workload statistics",
                    std::string(loaded.status().message()),
                    aside.ok() ? "moved aside to " + *aside
                               : "left in place (" + std::string(aside.status().message()) +
                                     "); the next checkpoint replaces it");
    }
  }
  absl::StatusOr<headroom::extender::ReportAuth> report_auth =
      headroom::extender::ParseReportAuth(absl::GetFlag(FLAGS_report_auth));
  if (!report_auth.ok()) return Fail(std::string(report_auth.status().message()));
  std::unique_ptr<headroom::extender::TokenAuthenticator> token_authenticator;
  if (*report_auth == headroom::extender::ReportAuth::kToken) {
    if (kube_reviews == nullptr) {
      return Fail(
          "--report-auth=token needs the Kubernetes API (--kubeconfig or in-cluster) for "
          "TokenReviews; use --report-auth=certificate with --grpc-client-ca-file, or "
          "--report-auth=insecure on a trusted network");
    }
    headroom::extender::TokenAuthenticator::Options token_options;
    token_options.audience = absl::GetFlag(FLAGS_report_token_audience);
    token_options.service_accounts.clear();
    for (const std::string& account : absl::GetFlag(FLAGS_report_service_accounts)) {
      const size_t slash = account.find('/');
      if (slash == std::string::npos || slash == 0 || slash + 1 == account.size()) {
        return Fail("--report-service-accounts: \"" + account + "\" is not namespace/name");
      }
      token_options.service_accounts.push_back("system:serviceaccount:" + account.substr(0, slash) +
                                               ":" + account.substr(slash + 1));
    }
    headroom::extender::KubeClient* client = kube_reviews.get();
    token_authenticator = std::make_unique<headroom::extender::TokenAuthenticator>(
        [client](const std::string& body) {
          return client->Review("/apis/authentication.k8s.io/v1/tokenreviews", body,
                                absl::Seconds(5));
        },
        token_options);
    if (absl::GetFlag(FLAGS_grpc_tls_cert_file).empty()) {
      logger->warn(
          "--report-auth=token over plaintext gRPC: tokens can be read on the network; set "
          "--grpc-tls-cert-file");
    }
  } else if (*report_auth == headroom::extender::ReportAuth::kCertificate &&
             absl::GetFlag(FLAGS_grpc_client_ca_file).empty()) {
    return Fail("--report-auth=certificate needs --grpc-client-ca-file (mutual TLS)");
  } else if (*report_auth == headroom::extender::ReportAuth::kInsecure) {
    logger->warn("--report-auth=insecure: anyone who can reach the gRPC port may report any node");
  }
  headroom::extender::ReportServiceOptions report_options;
  report_options.auth = *report_auth;
  report_options.tokens = token_authenticator.get();
  report_options.metrics = &metrics;
  headroom::extender::PodPlacementTracker placements(view);
  headroom::extender::PodIndex pod_index;
  headroom::extender::ApiNodeTracker api_nodes(view);
  std::unique_ptr<headroom::extender::ListWatcher> pod_watch;
  std::unique_ptr<headroom::extender::ListWatcher> node_watch;
  if (kube != nullptr) {
    node_watch = std::make_unique<headroom::extender::ListWatcher>(
        *kube_nodes, headroom::extender::NodesWatch(),
        headroom::extender::ListWatcher::Handlers{
            [&](std::vector<nlohmann::json> nodes) { api_nodes.Replace(nodes); },
            [&](const headroom::extender::WatchEvent& event) { api_nodes.Apply(event); }},
        logger);
    pod_watch = std::make_unique<headroom::extender::ListWatcher>(
        *kube, headroom::extender::BoundPodsWatch(),
        headroom::extender::ListWatcher::Handlers{[&](std::vector<nlohmann::json> pods) {
                                                    placements.Replace(pods, absl::Now());
                                                    pod_index.Replace(pods);
                                                  },
                                                  [&](const headroom::extender::WatchEvent& event) {
                                                    placements.Apply(event, absl::Now());
                                                    pod_index.Apply(event);
                                                  }},
        logger);
    options.add_gauges = [&](headroom::extender::Metrics::ClusterGauges& gauges) {
      gauges.pod_watch = {{pod_watch->synced() && node_watch->synced(),
                           pod_watch->lists() + node_watch->lists(),
                           pod_watch->watch_errors() + node_watch->watch_errors(),
                           placements.placements_recorded()}};
      gauges.api_nodes = view.ApiNodeCount();
    };
  }
  if (kube != nullptr && absl::GetFlag(FLAGS_verify_report_pods)) {
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
  headroom::extender::ReportServiceImpl reports(view, report_options);
  absl::StatusOr<std::shared_ptr<grpc::ServerCredentials>> grpc_credentials =
      headroom::io::ServerCredentials({absl::GetFlag(FLAGS_grpc_tls_cert_file),
                                       absl::GetFlag(FLAGS_grpc_tls_key_file),
                                       absl::GetFlag(FLAGS_grpc_client_ca_file)});
  if (!grpc_credentials.ok()) return Fail(std::string(grpc_credentials.status().message()));
  absl::StatusOr<headroom::extender::RunningGrpcServer> report_server =
      headroom::extender::StartReportServer(absl::GetFlag(FLAGS_grpc_address), reports,
                                            *grpc_credentials);
  if (!report_server.ok()) return Fail(std::string(report_server.status().message()));
  logger->info("node reports over gRPC on port {} ({})", report_server->port,
               absl::GetFlag(FLAGS_grpc_tls_cert_file).empty()
                   ? "plaintext"
                   : (absl::GetFlag(FLAGS_grpc_client_ca_file).empty() ? "TLS" : "mutual TLS"));
  {
    const absl::Time started = absl::Now();
    const absl::Duration grace = absl::GetFlag(FLAGS_ready_after);
    options.readiness = [&view, &pod_watch, &node_watch, started, grace] {
      headroom::extender::ReadinessFacts facts;
      facts.api = pod_watch != nullptr;
      facts.watches_listed = facts.api && pod_watch->synced() && node_watch->synced();
      const absl::Time now = absl::Now();
      std::tie(facts.api_nodes, facts.api_nodes_fresh) = view.ApiNodesReported(now);
      facts.nodes_reported = view.NodeCount();
      facts.since_start = now - started;
      facts.grace = grace;
      return headroom::extender::JudgeReadiness(facts);
    };
  }
  options.admission.excluded_namespaces = absl::GetFlag(FLAGS_admission_exclude_namespaces);
  options.admission.strip_cpu_limits = absl::GetFlag(FLAGS_admission_strip_cpu_limits);
  options.admission.guard = action_config->guard;
  headroom::extender::Actuator::Options actuation;
  actuation.dry_run = absl::GetFlag(FLAGS_dry_run);
  actuation.kill_switch_file = absl::GetFlag(FLAGS_kill_switch_file);
  actuation.interval = absl::GetFlag(FLAGS_actuation_interval);
  actuation.resizes_per_node_per_minute = absl::GetFlag(FLAGS_resizes_per_node_per_minute);
  actuation.budget = *budget;
  actuation.actions = *action_config;
  actuation.defaults.allow_below_declared = action_config->guard.allow_below_declared;
  actuation.blocked_eviction_backoff = absl::GetFlag(FLAGS_blocked_eviction_backoff);
  actuation.oom_evict = absl::GetFlag(FLAGS_oom_evict);
  actuation.oom.cooldown = absl::GetFlag(FLAGS_oom_cooldown);
  actuation.excluded_namespaces = absl::GetFlag(FLAGS_admission_exclude_namespaces);
  if (actuation.interval <= absl::ZeroDuration())
    return Fail("--actuation-interval must be positive");
  if (actuation.resizes_per_node_per_minute <= 0) {
    return Fail("--resizes-per-node-per-minute must be positive");
  }
  if (absl::Status valid = actuation.oom.Validate(); !valid.ok()) {
    return Fail(std::string(valid.message()));
  }
  std::unique_ptr<headroom::extender::Actuator> actuator;
  std::unique_ptr<headroom::extender::LeaderElector> elector;
  if (absl::GetFlag(FLAGS_actuate) && absl::GetFlag(FLAGS_leader_elect) && kube != nullptr) {
    headroom::extender::LeaderElectionConfig election;
    election.lease_name = absl::GetFlag(FLAGS_leader_elect_lease_name);
    election.lease_namespace = absl::GetFlag(FLAGS_leader_elect_namespace);
    if (election.lease_namespace.empty()) {
      const char* pod_namespace = std::getenv("POD_NAMESPACE");
      election.lease_namespace =
          pod_namespace != nullptr && *pod_namespace != '\0' ? pod_namespace : "default";
    }
    election.lease_duration = absl::GetFlag(FLAGS_leader_elect_lease_duration);
    election.renew_deadline = absl::GetFlag(FLAGS_leader_elect_renew_deadline);
    election.retry_period = absl::GetFlag(FLAGS_leader_elect_retry_period);
    election.identity = LeaderIdentity();
    if (absl::Status valid = election.Validate(); !valid.ok()) {
      return Fail(std::string(valid.message()));
    }
    headroom::extender::KubeClient* client_ptr = kube_lease.get();
    headroom::extender::LeaseApi lease_api;
    lease_api.get = [client_ptr](const std::string& path) -> absl::StatusOr<nlohmann::json> {
      absl::StatusOr<std::string> body = client_ptr->Get(path, absl::Seconds(5));
      if (!body.ok()) return body.status();
      nlohmann::json lease = nlohmann::json::parse(*body, nullptr, false);
      if (lease.is_discarded()) return absl::UnavailableError("Lease: not JSON");
      return lease;
    };
    lease_api.write = [client_ptr](const std::string& method, const std::string& path,
                                   const std::string& body) -> absl::StatusOr<int> {
      absl::StatusOr<headroom::extender::KubeClient::WriteResult> written =
          client_ptr->Write(method, path, body,
                            method == "PATCH" ? "application/merge-patch+json" : "application/json",
                            absl::Seconds(5));
      if (!written.ok()) return written.status();
      return written->status;
    };
    elector =
        std::make_unique<headroom::extender::LeaderElector>(election, std::move(lease_api), logger);
    headroom::extender::LeaderElector* elector_ptr = elector.get();
    actuation.may_act = [elector_ptr] { return elector_ptr->IsLeader(); };
    logger->info("leader election: Lease {}/{} as {}", election.lease_namespace,
                 election.lease_name, election.identity);
  }
  if (absl::GetFlag(FLAGS_actuate)) {
    if (kube_writes == nullptr) return Fail("--actuate needs the Kubernetes API (--kubeconfig)");
    actuator = std::make_unique<headroom::extender::Actuator>(view, pod_index, *kube_writes,
                                                              metrics, actuation, logger);
    logger->info("actuator on: every {}{}{}", absl::FormatDuration(actuation.interval),
                 actuation.dry_run ? ", dry run" : "",
                 actuation.kill_switch_file.empty()
                     ? ""
                     : ", kill switch file " + actuation.kill_switch_file);
  }
  {
    const std::string kill_switch = actuation.kill_switch_file;
    const bool dry_run = actuation.dry_run;
    options.mutation_enabled = [kill_switch, dry_run] {
      return !dry_run && !headroom::extender::KillSwitchEngaged(kill_switch);
    };
  }
  // The webhook and /repack carry secrets (bearer tokens, pods): HTTPS listeners only.
  std::unique_ptr<headroom::extender::AdminAuthorizer> repack_authorizer;
  if (absl::GetFlag(FLAGS_repack_api)) {
    if (kube_reviews == nullptr) return Fail("--repack-api needs the Kubernetes API");
    if (certificate == nullptr && webhook_certificate == nullptr) {
      return Fail("--repack-api needs an HTTPS listener (--tls-cert-file or --webhook-address)");
    }
    headroom::extender::KubeClient* client = kube_reviews.get();
    repack_authorizer = std::make_unique<headroom::extender::AdminAuthorizer>(
        [client](const std::string& path, const std::string& body) {
          return client->Review(path, body, absl::Seconds(5));
        });
  }
  options.serve_admission = certificate != nullptr;
  options.repack_authorizer = certificate != nullptr ? repack_authorizer.get() : nullptr;
  headroom::extender::ExtenderHttpServer server(view, metrics, options);
  const absl::StatusOr<int> bound = server.Bind(address->host, address->port);
  if (!bound.ok()) return Fail(std::string(bound.status().message()));
  std::unique_ptr<headroom::extender::ExtenderHttpServer> webhook_server;
  if (webhook_address) {
    headroom::extender::ServerOptions webhook_options = options;
    webhook_options.tls = webhook_certificate.get();
    webhook_options.serve_admission = true;
    webhook_options.repack_authorizer = repack_authorizer.get();
    webhook_server =
        std::make_unique<headroom::extender::ExtenderHttpServer>(view, metrics, webhook_options);
    const absl::StatusOr<int> webhook_bound =
        webhook_server->Bind(webhook_address->host, webhook_address->port);
    if (!webhook_bound.ok()) return Fail(std::string(webhook_bound.status().message()));
    logger->info("admission webhook on https://{}:{}/admission/pods", webhook_address->host,
                 *webhook_bound);
  }
  std::thread webhook_thread([&] {
    if (webhook_server != nullptr) (void)webhook_server->Serve();
  });
  std::atomic<bool> signalled{false};
  std::thread signal_waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    if (signalled.exchange(true)) return;  // woken by main() itself: already stopping
    logger->info("signal {}: stopping", received);
    server.Stop();
    if (webhook_server != nullptr) webhook_server->Stop();
  });
  logger->info("listening on {}://{}:{} (filter and prioritize under \"{}\", scoring {})",
               certificate ? "https" : "http", address->host, *bound, options.url_prefix, scoring);
  absl::Notification stopping;
  // Housekeeping: expiry of nodes that stopped reporting and of old workload statistics,
  // and the checkpoint.
  std::thread checkpointer([&] {
    const absl::Duration interval = absl::GetFlag(FLAGS_checkpoint_interval);
    bool last = false;
    while (!last) {
      last = stopping.WaitForNotificationWithTimeout(interval);
      view.ExpireWorkloads(absl::Now());
      if (const size_t expired = view.ExpireNodes(absl::Now()); expired > 0) {
        logger->info("forgot {} nodes that have not reported for {}", expired,
                     absl::FormatDuration(view_options.node_retention));
      }
      if (state_dir.empty()) continue;
      if (absl::Status saved = headroom::extender::SaveWorkloads(view, state_dir, absl::Now());
          !saved.ok()) {
        logger->error("checkpoint failed: {}", std::string(saved.message()));
      }
    }
  });
  std::thread watcher([&] {
    if (pod_watch != nullptr) pod_watch->Run();
  });
  std::thread node_watcher([&] {
    if (node_watch != nullptr) node_watch->Run();
  });
  std::thread elector_thread([&] {
    if (elector != nullptr) elector->Run();
  });
  std::thread actuator_thread([&] {
    if (actuator == nullptr) return;
    // Give the pod watch a moment to list before the first pass.
    if (stopping.WaitForNotificationWithTimeout(absl::Seconds(2))) return;
    actuator->Run();
  });
  const absl::Status served = server.Serve();
  if (!signalled.exchange(true)) pthread_kill(signal_waiter.native_handle(), SIGTERM);
  signal_waiter.join();
  if (webhook_server != nullptr) webhook_server->Stop();
  webhook_thread.join();
  // Reports in flight get a short grace, then the final checkpoint includes them.
  report_server->server->Shutdown(std::chrono::system_clock::now() +
                                  std::chrono::milliseconds(200));
  stopping.Notify();
  if (pod_watch != nullptr) pod_watch->Stop();
  if (node_watch != nullptr) node_watch->Stop();
  if (actuator != nullptr) actuator->Stop();
  if (elector != nullptr) elector->Stop();
  watcher.join();
  node_watcher.join();
  actuator_thread.join();
  elector_thread.join();  // releases the Lease: a successor need not wait for it to expire
  checkpointer.join();
  logger->info("stopped: {}", served.ok() ? std::string("signal") : std::string(served.message()));
  return 0;
}
