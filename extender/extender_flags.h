#pragma once

// headroom-extender's command line: the flags (extender_flags.cc) and the validated
// configuration the daemon (extender_daemon.h) runs with. Every combination that cannot work
// (e.g. --actuate without the Kubernetes API) is refused here, before anything starts.

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "app/flag_args.h"
#include "extender/actuation/actuator.h"
#include "extender/actuation/leader_election.h"
#include "extender/http_server.h"
#include "extender/reports/report_queue.h"
#include "extender/reports/reporter_identity.h"
#include "extender/view/cluster_view.h"
#include "io/grpc_tls.h"
#include "io/kube_config.h"

namespace headroom::extender {

inline constexpr char kExtenderUsage[] =
    "kube-scheduler HTTP extender that filters and ranks nodes by each pod's projected fit "
    "(every pod at base plus one shared headroom) and load cordon.\n"
    "Usage: headroom-extender [--config=FILE] [--http-address=0.0.0.0:8888] [--url-prefix=] "
    "[--scoring=spread|pack|target] [--kubeconfig=FILE]\nSee docs/extender.md.";

// Each area's configuration, filled and validated once by the flags function of the same name
// in extender_flags.cc; the daemon hands each area only its own.

// The scheduler's listener: filter, prioritize, /metrics, /readyz and the status page.
struct ListenerConfig {
  app::HostPort http_address;
  std::string tls_cert_file;  // empty: plain HTTP
  std::string tls_key_file;
  std::string scoring_name;  // as given, for the log
  absl::Duration ready_after;
};

// What the webhook, the actuator and the status page size pods by: one policy for all three.
struct SizingPolicy {
  ActionConfig actions;  // guard rails (actions.guard), resize threshold, CPU eviction delay
  HpaResourcesMode hpa_mode = HpaResourcesMode::kKeep;
  std::vector<std::string> excluded_namespaces;
  // The cluster's adoption step (--default-mode); a Namespace, owner or pod sets its own with
  // headroom.dev/mode.
  AdoptionStep default_step = AdoptionStep::kInPlace;
  // When the actuator may evict or shrink (--disruption-window); empty: always.
  std::vector<DisruptionWindow> disruption_windows;
};

// The admission webhook's own HTTPS listener (the scheduler's listener serves it too when it
// has TLS).
struct WebhookConfig {
  std::optional<app::HostPort> address;  // nullopt: no listener of its own
  std::string cert_file;
  std::string key_file;
  bool strip_cpu_limits = true;
};

// Node reports over gRPC: who may send them and what they are checked against.
struct ReportsConfig {
  std::string grpc_address;
  io::GrpcServerTls tls;
  ReportAuth auth = ReportAuth::kToken;
  TokenAuthenticator::Options tokens;
  ReportQueueLimits queue;
  bool verify_pods = true;
};

// The cluster view and its checkpoint.
struct ViewConfig {
  ClusterView::Options view;
  std::string state_dir;  // empty: no checkpoint
  absl::Duration checkpoint_interval;
};

// GET /api/v1/status, /api/v1/explain and /ui (status/status.h).
struct StatusConfig {
  bool api = true;
  absl::Duration sample_interval = absl::Minutes(1);        // the page's history
  absl::Duration setup_check_interval = absl::Minutes(10);  // the Set-up panel (setup_checks.h)
};

struct ActuationConfig {
  bool actuate = false;
  bool cordon_taint = false;                     // the load cordon as a node taint
  std::optional<LeaderElectionConfig> election;  // with --actuate and --leader-elect
  Actuator::Options actuator;                    // its policy fields come from SizingPolicy
};

struct ExtenderConfig {
  // url_prefix, scoring and the body limits; the daemon adds the routes of each area.
  ServerOptions server;
  ListenerConfig listener;
  std::optional<io::KubeConfig> kube;  // nullopt: no Kubernetes API
  SizingPolicy policy;
  WebhookConfig webhook;
  ReportsConfig reports;
  ViewConfig view;
  StatusConfig status;
  ActuationConfig actuation;
  bool repack_api = false;  // POST <prefix>/repack on HTTPS listeners
};

// The configuration from the parsed flags and the environment (POD_NAMESPACE, the in-cluster
// service account); InvalidArgument naming the flag.
absl::StatusOr<ExtenderConfig> ExtenderConfigFromFlags();

std::string ExtenderLogLevelFlag();

}  // namespace headroom::extender
