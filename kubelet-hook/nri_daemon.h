#pragma once

// headroom-nri's service lifecycle: builds the node state (from the checkpoint), the plugin and
// its NRI stub, the sampler, the node loop, the runtime connection and the health/metrics
// endpoint from a validated configuration, runs them until SIGTERM/SIGINT (or, for a plugin
// the runtime launched, until its connection ends), and writes the final checkpoint.

#include <signal.h>

#include "kubelet-hook/nri_flags.h"

namespace headroom::nri {

// The process exit code: 0 after a clean stop, 2 when something could not start.
int RunNriDaemon(const NriDaemonConfig& config, sigset_t stop_signals);

}  // namespace headroom::nri
