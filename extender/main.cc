// headroom-extender: the kube-scheduler HTTP extender. The flags are in extender_flags.cc,
// the service in extender_daemon.cc, the endpoints in http_server.h and the decisions in
// judge.h and shared/.

#include <iostream>

#include "app/daemon.h"
#include "app/flag_args.h"
#include "extender/extender_daemon.h"
#include "extender/extender_flags.h"
#include "io/daemon_signals.h"

int main(int argc, char** argv) {
  // Before anything starts a thread (gRPC's server, the HTTP server).
  const sigset_t signals = headroom::io::BlockStopSignals();
  headroom::app::ParseDaemonFlags(argc, argv, headroom::extender::kExtenderUsage, "extender/");
  headroom::app::SetUpDaemon("headroom-extender", headroom::extender::ExtenderLogLevelFlag());
  absl::StatusOr<headroom::extender::ExtenderConfig> config =
      headroom::extender::ExtenderConfigFromFlags();
  if (!config.ok()) {
    std::cerr << "headroom-extender: " << config.status().message() << "\n";
    return 2;
  }
  return headroom::extender::RunExtender(*config, signals);
}
