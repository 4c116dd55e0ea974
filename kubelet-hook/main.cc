// headroom-nri: the containerd NRI plugin. The flags are in nri_flags.cc, the service in
// nri_daemon.cc, the control loop in node_loop.h and the decisions in container_policy.h and
// shared/.

#include <iostream>

#include "app/daemon.h"
#include "app/flag_args.h"
#include "io/daemon_signals.h"
#include "kubelet-hook/nri_daemon.h"
#include "kubelet-hook/nri_flags.h"

int main(int argc, char** argv) {
  // Before anything can start a thread (gRPC's credentials start its executor).
  const sigset_t signals = headroom::io::BlockStopSignals();
  headroom::app::ParseDaemonFlags(argc, argv, headroom::nri::kNriUsage, "kubelet-hook/");
  headroom::app::SetUpDaemon("headroom-nri", headroom::nri::NriLogLevelFlag());
  absl::StatusOr<headroom::nri::NriDaemonConfig> config = headroom::nri::NriConfigFromFlags();
  if (!config.ok()) {
    std::cerr << "headroom-nri: " << config.status().message() << "\n";
    return 2;
  }
  return headroom::nri::RunNriDaemon(*config, signals);
}
