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

struct ExtenderConfig {
  app::HostPort http_address;
  // url_prefix, scoring, max_body_bytes and the admission options; the daemon adds the rest.
  ServerOptions server;
  std::string scoring_name;
  std::string tls_cert_file;  // empty: plain HTTP
  std::string tls_key_file;
  std::optional<app::HostPort> webhook_address;
  std::string webhook_cert_file;
  std::string webhook_key_file;
  std::optional<io::KubeConfig> kube;  // nullopt: no Kubernetes API
  ClusterView::Options view;
  std::string state_dir;  // empty: no checkpoint
  absl::Duration checkpoint_interval;
  std::string grpc_address;
  io::GrpcServerTls grpc_tls;
  ReportAuth report_auth = ReportAuth::kToken;
  TokenAuthenticator::Options report_tokens;
  ReportQueueLimits report_queue;
  bool verify_report_pods = true;
  absl::Duration ready_after;
  bool repack_api = false;
  bool actuate = false;
  bool cordon_taint = false;
  bool status_api = true;  // GET /api/v1/status, /api/v1/explain and /ui (status.h)
  absl::Duration status_sample_interval =
      absl::Minutes(1);  // the page's history                     // the load cordon as a node
                         // taint (cordon_taint.h)
  std::optional<LeaderElectionConfig> election;  // with --actuate and --leader-elect
  Actuator::Options actuation;
};

// The configuration from the parsed flags and the environment (POD_NAMESPACE, the in-cluster
// service account); InvalidArgument naming the flag.
absl::StatusOr<ExtenderConfig> ExtenderConfigFromFlags();

std::string ExtenderLogLevelFlag();

}  // namespace headroom::extender
