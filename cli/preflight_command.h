#pragma once

// `headroom preflight`: before anything acts, checks that the cluster and headroom are set up
// the way headroom needs (its release, in-place resize, the extender's RBAC, the webhook, the
// extender itself, headroom-nri's reports from every node, a scheduler profile calling the
// extender) and prints one line per check -- ok, warn or fail -- with the fix. The verdicts
// are preflight_checks.h's; this file fetches what they judge.

#include <ostream>
#include <string>

#include "cli/status_command.h"

namespace headroom::cli {

struct PreflightOptions {
  std::string kubeconfig;  // "": $KUBECONFIG, else ~/.kube/config, else in-cluster
  std::string context;     // "": the kubeconfig's current context
  std::string extender_namespace = "headroom-system";
  std::string extender_service_account = "headroom-extender";
  std::string extender_service = "headroom-extender";
  StatusSource extender;         // its --http-address, for readiness, reports and metrics
  std::string output = "table";  // table | json
};

// Exit codes: 0 when no check fails (warnings allowed), 1 when one does, 2 for bad flags or a
// kubeconfig that cannot be used.
int RunPreflight(const PreflightOptions& options, std::ostream& out, std::ostream& err);

}  // namespace headroom::cli
