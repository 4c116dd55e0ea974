#pragma once

// headroom-extender's service lifecycle: from a validated configuration, builds the cluster
// view (from the checkpoint), the Kubernetes clients and watches, the gRPC report service,
// the actuator and its leader election, and the HTTP listeners; runs them until SIGTERM or
// SIGINT; then stops them in order and writes the final checkpoint.

#include <signal.h>

#include "extender/extender_flags.h"

namespace headroom::extender {

// The process exit code: 0 after a clean stop, 2 when something could not start.
int RunExtender(const ExtenderConfig& config, sigset_t stop_signals);

}  // namespace headroom::extender
