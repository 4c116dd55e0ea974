// headroom-extender: the kube-scheduler HTTP extender. The flags are in extender_flags.cc,
// the service in extender_daemon.cc, the endpoints in http_server.h and the decisions in
// judge.h and shared/.

#include <malloc.h>

#include <iostream>

#include "app/daemon.h"
#include "app/flag_args.h"
#include "extender/extender_daemon.h"
#include "extender/extender_flags.h"
#include "io/daemon_signals.h"

int main(int argc, char** argv) {
  // glibc gives each thread that contends for malloc an arena of its own, up to 8 per core,
  // and memory freed in one is not reused by another: with the report workers, gRPC's and
  // the HTTP server's threads, a 5000-node report burst peaked at 473 MiB with the default
  // and 407 MiB with two (deploy/ allows 512 MiB).
  mallopt(M_ARENA_MAX, 2);
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
