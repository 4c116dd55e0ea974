#include "extender/extender_flags.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "app/actuation_flags.h"

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
ABSL_FLAG(std::string, scoring, "spread",
          "Node scoring by projected footprint: spread (least allocated), pack (most allocated) "
          "or target (fill nodes to --scoring-target, then spread).");
ABSL_FLAG(double, scoring_target, 0.75,
          "With --scoring=target: the projected share (of the fuller of CPU and memory) nodes "
          "are filled to before emptier nodes are preferred; above 0, below 1.");
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
ABSL_FLAG(int64_t, max_body_bytes, 128LL << 20,
          "Largest body of /filter, /prioritize and /repack (413 beyond): 5000 Node objects "
          "as kubelet writes them (22 KB each) take 106 MiB; with nodeCacheCapable, 5000 names "
          "take 200 KB.");
ABSL_FLAG(int64_t, max_body_bytes_in_flight, 128LL << 20,
          "Request bodies being read or handled at once, all clients together (503 with "
          "Retry-After beyond); at least --max-body-bytes.");
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
ABSL_FLAG(bool, cordon_taint, false,
          "Load cordon as a taint: put the NoSchedule taint headroom.dev/load-cordon=load on a "
          "load-cordoned node, so every scheduler keeps off it, and remove it on release. Only "
          "headroom's own taint is touched; needs the Kubernetes API and patch on nodes.");
ABSL_FLAG(bool, status_api, true,
          "Serve the status page (/ui) and its read-only API (/api/v1/status, /api/v1/explain) "
          "on --http-address: savings, nodes, workloads and recent actions. They show workload "
          "and pod names to whoever reaches the port (docs/security.md).");
ABSL_FLAG(absl::Duration, status_sample_interval, absl::Minutes(1),
          "How often the status page's history samples the cluster totals (1440 points kept).");
ABSL_FLAG(absl::Duration, setup_check_interval, absl::Minutes(10),
          "How often the status page's Set-up panel asks the apiserver the checks of headroom "
          "preflight it can answer as the extender itself (the first at start).");
ABSL_FLAG(absl::Duration, report_stale_after, absl::Minutes(3),
          "A node whose last report is older is judged as unknown (passed, never rejected).");
ABSL_FLAG(std::string, grpc_tls_cert_file, "",
          "PEM certificate for TLS on the gRPC report listener; empty: plaintext. Reloaded when "
          "the file changes.");
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
ABSL_FLAG(double, report_token_reviews_per_second, 1,
          "--report-auth=token: new tokens (not cached) reviewed per second from one client "
          "address (a burst of 5 x this); beyond, the report is refused without a TokenReview. "
          "A node needs one a minute; raise it when reporters share an address (NAT, proxy).");
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
ABSL_FLAG(int64_t, max_reported_pods, 150000,
          "Pods the node reports may hold across the cluster (Kubernetes' own scalability "
          "threshold is 150,000); a report that would go beyond is refused and logged, so "
          "memory stays bounded whatever nodes report. Raise it with the memory limit (about "
          "1.3 KiB a pod).");
ABSL_FLAG(int32_t, report_workers, 16,
          "Node reports handled at once; the rest wait in a queue (--report-queue).");
ABSL_FLAG(int32_t, report_queue, 8192,
          "Node reports that may wait for a worker (and at most 64 MiB of them, each until its "
          "deadline or 10s); beyond, a report is refused with RESOURCE_EXHAUSTED and "
          "headroom-nri retries it after a jittered backoff.");
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
ABSL_FLAG(std::string, hpa_scaled_resources, "keep",
          "For a workload whose HorizontalPodAutoscaler scales on CPU or memory utilisation: "
          "keep (the requests of that resource stay as declared, so the HPA's target keeps its "
          "meaning; needs list/watch of HPAs) or resize (size it anyway; no HPA watch).");
ABSL_FLAG(std::string, default_mode, "in-place",
          "The adoption step of every workload whose pod, owner or Namespace sets none with "
          "headroom.dev/mode: observe (change nothing, show what headroom would save), "
          "admission (size pods when they are created, never resize or evict running ones) or "
          "in-place (also resize running pods, and evict where the policy allows). Needs "
          "list/watch of Namespaces for their annotations.");
ABSL_FLAG(std::string, disruption_window, "",
          "When the actuator may evict pods or shrink them in place, e.g. \"Mon-Fri 22:00-06:00; "
          "Sat,Sun 00:00-24:00\" (UTC; windows separated by ';', days optional). Outside it "
          "pods are still sized at admission and grown, never shrunk or evicted. A pod or "
          "Namespace sets its own with headroom.dev/disruption-window. \"\": always.");
ABSL_FLAG(bool, actuate, false,
          "Resize running pods (pods/resize) and evict (Eviction API) as the per-node "
          "optimisation and OOM kills call for. Needs the Kubernetes API.");
ABSL_FLAG(bool, dry_run, false,
          "Decide and log everything, change nothing: the webhook returns no patch and the "
          "actuator writes nothing to the API.");
ABSL_FLAG(std::string, kill_switch_file, "",
          "While this file exists, headroom changes nothing (as --dry-run), checked on every "
          "decision; e.g. a key of an optional ConfigMap volume.");
ABSL_FLAG(std::string, actuator_state_configmap, "",
          "NAMESPACE/NAME of a ConfigMap where the actuator also keeps when each container's "
          "values last shrank and the evictions of the last hour, so that a restart or a new "
          "leader takes no second shrink step within --shrink-interval and starts with the "
          "eviction budgets as spent; no resize or eviction while it cannot be read. \"\": in "
          "memory only. deploy/ ships headroom-system/headroom-extender-state.");
ABSL_FLAG(absl::Duration, actuation_interval, absl::Seconds(30),
          "How often the actuator plans every freshly reported node.");
ABSL_FLAG(double, resizes_per_node_per_minute, 10, "Resize rate limit, per node.");
ABSL_FLAG(bool, allow_below_declared, false,
          "Guard rail default: let headroom request less than pods declare (webhook and "
          "resizes); a pod overrides it with headroom.dev/allow-below-declared.");
ABSL_FLAG(absl::Duration, blocked_eviction_backoff, absl::Minutes(5),
          "After an eviction is refused (e.g. by a PodDisruptionBudget), the pod is not tried "
          "again for this long.");
ABSL_FLAG(absl::Duration, refused_resize_backoff, absl::Minutes(10),
          "After the API refuses a resize (e.g. beyond the node's capacity, Kubernetes 1.36+), "
          "the pod is not resized again for this long, doubled with each further refusal "
          "(at most 16 times).");
ABSL_FLAG(bool, oom_evict, true,
          "Evict a pod after an OOM kill so the webhook recreates it with the memory at OOM.");
ABSL_FLAG(absl::Duration, oom_cooldown, absl::Minutes(5),
          "OOM kills of the same pod and container within this time are not acted on again.");
ABSL_FLAG(std::string, log_level, "info", "trace, debug, info, warn, error (or SPDLOG_LEVEL).");

namespace headroom::extender {
namespace {

absl::Status Invalid(absl::string_view message) { return absl::InvalidArgumentError(message); }

// A replica's identity in the leader Lease: host name, process and a random part.
std::string LeaderIdentity() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0) host[0] = '\0';
  std::random_device random;
  return absl::StrCat(host[0] != '\0' ? host : "headroom-extender", "_", getpid(), "_",
                      absl::Hex(random(), absl::kZeroPad8));
}

// "/scheduler/" and "scheduler" are "/scheduler"; "" stays "".
std::string NormalizedUrlPrefix(std::string prefix) {
  if (!prefix.empty() && prefix.front() != '/') prefix.insert(prefix.begin(), '/');
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return prefix;
}

// The Kubernetes API: an explicit kubeconfig, else in-cluster, else none.
absl::StatusOr<std::optional<io::KubeConfig>> KubeFromFlags() {
  const std::string kubeconfig = absl::GetFlag(FLAGS_kubeconfig);
  absl::StatusOr<io::KubeConfig> config =
      kubeconfig.empty() ? io::InClusterConfig()
                         : io::LoadKubeconfigFile(kubeconfig, absl::GetFlag(FLAGS_kube_context));
  if (config.ok()) return std::optional<io::KubeConfig>(*std::move(config));
  if (kubeconfig.empty() && absl::IsNotFound(config.status())) return std::nullopt;
  return config.status();
}

absl::Status ListenerFromFlags(ExtenderConfig& config) {
  ListenerConfig& listener = config.listener;
  absl::StatusOr<app::HostPort> address =
      app::ParseHostPort(absl::GetFlag(FLAGS_http_address), "--http-address");
  if (!address.ok()) return address.status();
  listener.http_address = *address;
  config.server.url_prefix = NormalizedUrlPrefix(absl::GetFlag(FLAGS_url_prefix));
  listener.scoring_name = absl::GetFlag(FLAGS_scoring);
  absl::StatusOr<ScoringConfig> scoring =
      ScoringFromFlags(listener.scoring_name, absl::GetFlag(FLAGS_scoring_target));
  if (!scoring.ok()) return scoring.status();
  config.server.scoring = *scoring;
  if (absl::GetFlag(FLAGS_max_body_bytes) <= 0) return Invalid("--max-body-bytes must be positive");
  config.server.max_body_bytes = static_cast<size_t>(absl::GetFlag(FLAGS_max_body_bytes));
  if (absl::GetFlag(FLAGS_max_body_bytes_in_flight) < absl::GetFlag(FLAGS_max_body_bytes)) {
    return Invalid("--max-body-bytes-in-flight must be at least --max-body-bytes");
  }
  config.server.max_bodies_in_flight_bytes =
      static_cast<size_t>(absl::GetFlag(FLAGS_max_body_bytes_in_flight));
  listener.tls_cert_file = absl::GetFlag(FLAGS_tls_cert_file);
  listener.tls_key_file = absl::GetFlag(FLAGS_tls_key_file);
  if (listener.tls_cert_file.empty() != listener.tls_key_file.empty()) {
    return Invalid("--tls-cert-file and --tls-key-file go together");
  }
  listener.ready_after = absl::GetFlag(FLAGS_ready_after);
  return absl::OkStatus();
}

absl::Status WebhookFromFlags(ExtenderConfig& config) {
  WebhookConfig& webhook = config.webhook;
  webhook.strip_cpu_limits = absl::GetFlag(FLAGS_admission_strip_cpu_limits);
  if (const std::string address = absl::GetFlag(FLAGS_webhook_address); !address.empty()) {
    absl::StatusOr<app::HostPort> parsed = app::ParseHostPort(address, "--webhook-address");
    if (!parsed.ok()) return parsed.status();
    webhook.address = *parsed;
    webhook.cert_file = absl::GetFlag(FLAGS_webhook_tls_cert_file);
    webhook.key_file = absl::GetFlag(FLAGS_webhook_tls_key_file);
    if (webhook.cert_file.empty() || webhook.key_file.empty()) {
      return Invalid("--webhook-address needs --webhook-tls-cert-file and --webhook-tls-key-file");
    }
  }
  config.repack_api = absl::GetFlag(FLAGS_repack_api);
  if (config.repack_api && !config.kube) return Invalid("--repack-api needs the Kubernetes API");
  if (config.repack_api && config.listener.tls_cert_file.empty() && !webhook.address) {
    return Invalid("--repack-api needs an HTTPS listener (--tls-cert-file or --webhook-address)");
  }
  return absl::OkStatus();
}

absl::Status ReportsFromFlags(ExtenderConfig& config) {
  ReportsConfig& reports = config.reports;
  reports.grpc_address = absl::GetFlag(FLAGS_grpc_address);
  reports.tls = {absl::GetFlag(FLAGS_grpc_tls_cert_file), absl::GetFlag(FLAGS_grpc_tls_key_file),
                 absl::GetFlag(FLAGS_grpc_client_ca_file)};
  absl::StatusOr<ReportAuth> auth = ParseReportAuth(absl::GetFlag(FLAGS_report_auth));
  if (!auth.ok()) return auth.status();
  reports.auth = *auth;
  if (*auth == ReportAuth::kToken && !config.kube) {
    return Invalid(
        "--report-auth=token needs the Kubernetes API (--kubeconfig or in-cluster) for "
        "TokenReviews; use --report-auth=certificate with --grpc-client-ca-file, or "
        "--report-auth=insecure on a trusted network");
  }
  if (*auth == ReportAuth::kCertificate && reports.tls.client_ca_file.empty()) {
    return Invalid("--report-auth=certificate needs --grpc-client-ca-file (mutual TLS)");
  }
  reports.verify_pods = absl::GetFlag(FLAGS_verify_report_pods);
  if (absl::GetFlag(FLAGS_report_workers) < 1) return Invalid("--report-workers must be positive");
  if (absl::GetFlag(FLAGS_report_queue) < 1) return Invalid("--report-queue must be positive");
  reports.queue.workers = absl::GetFlag(FLAGS_report_workers);
  reports.queue.max_entries = static_cast<size_t>(absl::GetFlag(FLAGS_report_queue));
  if (*auth != ReportAuth::kToken) return absl::OkStatus();
  reports.tokens.audience = absl::GetFlag(FLAGS_report_token_audience);
  const double reviews = absl::GetFlag(FLAGS_report_token_reviews_per_second);
  if (!(reviews > 0)) return Invalid("--report-token-reviews-per-second must be positive");
  reports.tokens.reviews_per_second = reviews;
  reports.tokens.review_burst = std::max(5.0, 5 * reviews);
  reports.tokens.service_accounts.clear();
  for (const std::string& account : absl::GetFlag(FLAGS_report_service_accounts)) {
    const size_t slash = account.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == account.size()) {
      return Invalid("--report-service-accounts: \"" + account + "\" is not namespace/name");
    }
    reports.tokens.service_accounts.push_back("system:serviceaccount:" + account.substr(0, slash) +
                                              ":" + account.substr(slash + 1));
  }
  return absl::OkStatus();
}

absl::Status ViewFromFlags(ExtenderConfig& config) {
  ClusterView::Options& view = config.view.view;
  view.min_history = config.policy.actions.guard.min_history;
  view.placement_ttl = absl::GetFlag(FLAGS_placement_ttl);
  view.report_stale_after = absl::GetFlag(FLAGS_report_stale_after);
  view.node_retention = absl::GetFlag(FLAGS_node_retention);
  if (absl::GetFlag(FLAGS_max_reported_pods) < 1)
    return Invalid("--max-reported-pods must be positive");
  view.max_reported_pods = static_cast<size_t>(absl::GetFlag(FLAGS_max_reported_pods));
  view.cordon.cordon_above = absl::GetFlag(FLAGS_cordon_above);
  view.cordon.uncordon_below = absl::GetFlag(FLAGS_uncordon_below);
  view.cordon.min_cordon_duration = absl::GetFlag(FLAGS_cordon_min_duration);
  view.cordon.stale_after = view.report_stale_after;
  if (view.placement_ttl <= absl::ZeroDuration())
    return Invalid("--placement-ttl must be positive");
  if (absl::Status valid = view.cordon.Validate(); !valid.ok()) return valid;
  if (view.report_stale_after <= absl::ZeroDuration()) {
    return Invalid("--report-stale-after must be positive");
  }
  config.view.state_dir = absl::GetFlag(FLAGS_state_dir);
  config.view.checkpoint_interval = absl::GetFlag(FLAGS_checkpoint_interval);
  if (config.view.checkpoint_interval <= absl::ZeroDuration()) {
    return Invalid("--checkpoint-interval must be positive");
  }
  return absl::OkStatus();
}

absl::Status StatusFromFlags(ExtenderConfig& config) {
  config.status.api = absl::GetFlag(FLAGS_status_api);
  config.status.sample_interval = absl::GetFlag(FLAGS_status_sample_interval);
  if (config.status.sample_interval < absl::Seconds(1)) {
    return Invalid("--status-sample-interval must be at least 1s");
  }
  config.status.setup_check_interval = absl::GetFlag(FLAGS_setup_check_interval);
  if (config.status.setup_check_interval < absl::Seconds(1)) {
    return Invalid("--setup-check-interval must be at least 1s");
  }
  return absl::OkStatus();
}

absl::Status PolicyFromFlags(ExtenderConfig& config) {
  SizingPolicy& policy = config.policy;
  absl::StatusOr<ActionConfig> actions =
      app::ActionConfigFromFlags(absl::GetFlag(FLAGS_allow_below_declared));
  if (!actions.ok()) return actions.status();
  policy.actions = *std::move(actions);
  absl::StatusOr<HpaResourcesMode> hpa_mode =
      ParseHpaResourcesMode(absl::GetFlag(FLAGS_hpa_scaled_resources));
  if (!hpa_mode.ok()) {
    return Invalid(absl::StrCat("--hpa-scaled-resources: ", hpa_mode.status().message()));
  }
  policy.hpa_mode = *hpa_mode;
  policy.excluded_namespaces = absl::GetFlag(FLAGS_admission_exclude_namespaces);
  absl::StatusOr<AdoptionStep> step = ParseAdoptionStep(absl::GetFlag(FLAGS_default_mode));
  if (!step.ok()) return Invalid(absl::StrCat("--default-mode: ", step.status().message()));
  policy.default_step = *step;
  absl::StatusOr<std::vector<DisruptionWindow>> windows =
      ParseDisruptionWindows(absl::GetFlag(FLAGS_disruption_window));
  if (!windows.ok()) {
    return Invalid(absl::StrCat("--disruption-window: ", windows.status().message()));
  }
  policy.disruption_windows = *std::move(windows);
  return absl::OkStatus();
}

absl::StatusOr<LeaderElectionConfig> ElectionFromFlags() {
  LeaderElectionConfig election;
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
  if (absl::Status valid = election.Validate(); !valid.ok()) return valid;
  return election;
}

absl::Status ActuationFromFlags(ExtenderConfig& config) {
  ActuationConfig& actuation = config.actuation;
  Actuator::Options& actuator = actuation.actuator;
  absl::StatusOr<EvictionBudgetConfig> budget = app::EvictionBudgetFromFlags();
  if (!budget.ok()) return budget.status();
  actuator.budget = *budget;
  actuator.dry_run = absl::GetFlag(FLAGS_dry_run);
  actuator.kill_switch_file = absl::GetFlag(FLAGS_kill_switch_file);
  if (const std::string name = absl::GetFlag(FLAGS_actuator_state_configmap); !name.empty()) {
    absl::StatusOr<ConfigMapName> parsed = ParseConfigMapName(name);
    if (!parsed.ok()) {
      return Invalid(absl::StrCat("--actuator-state-configmap ", parsed.status().message()));
    }
    actuator.state_configmap = *std::move(parsed);
  }
  actuator.interval = absl::GetFlag(FLAGS_actuation_interval);
  actuator.resizes_per_node_per_minute = absl::GetFlag(FLAGS_resizes_per_node_per_minute);
  actuator.blocked_eviction_backoff = absl::GetFlag(FLAGS_blocked_eviction_backoff);
  actuator.refused_resize_backoff = absl::GetFlag(FLAGS_refused_resize_backoff);
  if (actuator.refused_resize_backoff <= absl::ZeroDuration()) {
    return Invalid("--refused-resize-backoff must be positive");
  }
  actuator.oom_evict = absl::GetFlag(FLAGS_oom_evict);
  actuator.oom.cooldown = absl::GetFlag(FLAGS_oom_cooldown);
  if (actuator.interval <= absl::ZeroDuration()) {
    return Invalid("--actuation-interval must be positive");
  }
  if (actuator.resizes_per_node_per_minute <= 0) {
    return Invalid("--resizes-per-node-per-minute must be positive");
  }
  if (absl::Status valid = actuator.oom.Validate(); !valid.ok()) return valid;
  actuation.actuate = absl::GetFlag(FLAGS_actuate);
  if (actuation.actuate && !config.kube) {
    return Invalid("--actuate needs the Kubernetes API (--kubeconfig)");
  }
  actuation.cordon_taint = absl::GetFlag(FLAGS_cordon_taint);
  if (actuation.cordon_taint && !config.kube) {
    return Invalid("--cordon-taint needs the Kubernetes API (--kubeconfig)");
  }
  if (!actuation.actuate || !absl::GetFlag(FLAGS_leader_elect)) return absl::OkStatus();
  absl::StatusOr<LeaderElectionConfig> election = ElectionFromFlags();
  if (!election.ok()) return election.status();
  actuation.election = *std::move(election);
  return absl::OkStatus();
}

}  // namespace

std::string ExtenderLogLevelFlag() { return absl::GetFlag(FLAGS_log_level); }

absl::StatusOr<ExtenderConfig> ExtenderConfigFromFlags() {
  ExtenderConfig config;
  absl::StatusOr<std::optional<io::KubeConfig>> kube = KubeFromFlags();
  if (!kube.ok()) return kube.status();
  config.kube = *std::move(kube);
  // The policy before the view: the view's warm-up is the policy's.
  for (absl::Status (*area)(ExtenderConfig&) :
       {ListenerFromFlags, PolicyFromFlags, WebhookFromFlags, ReportsFromFlags, ViewFromFlags,
        StatusFromFlags, ActuationFromFlags}) {
    if (absl::Status status = area(config); !status.ok()) return status;
  }
  return config;
}

}  // namespace headroom::extender
