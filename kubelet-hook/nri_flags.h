#pragma once

// headroom-nri's command line: the flags (nri_flags.cc) and the validated configuration the
// daemon (nri_daemon.h) runs with.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "app/flag_args.h"
#include "grpcpp/security/credentials.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/transport/plugin_runner.h"
#include "shared/memory_pressure.h"
#include "shared/resource.h"

namespace headroom::nri {

inline constexpr char kNriUsage[] =
    "containerd NRI plugin that removes CPU quotas, sets CPU weight from the sized request and "
    "memory limits from history (2 x max(7-day max, memory at OOM)), and reports the node to "
    "headroom-extender.\n"
    "Usage: headroom-nri [--socket=/var/run/nri/nri.sock] [--state-dir=DIR] "
    "[--extender=HOST:PORT] [--dry-run]\nSee docs/nri.md.";

struct NriDaemonConfig {
  RunnerOptions runner;
  PluginConfig plugin;
  std::string cgroup_root;
  std::string state_dir;  // empty: no checkpoint
  std::string extender;   // empty: no reports
  std::shared_ptr<grpc::ChannelCredentials> report_credentials;
  std::string token_file;
  bool extender_all_replicas = false;  // report to every address of --extender's host
  std::string node_name;
  ResourceAmounts allocatable;
  absl::Duration interval;
  absl::Duration oom_poll_interval;
  MemoryPressureConfig memory_pressure;
  std::string kernel_log;
  std::optional<int64_t> memory_limit_bytes;  // the container's, when it has one
  int64_t memory_budget_bytes = 0;
  WorkloadRetention retention;
  std::optional<app::HostPort> http_address;  // empty: no health and metrics endpoint
};

// The configuration from the parsed flags and the environment (NRI_PLUGIN_SOCKET, _NAME,
// _IDX when the runtime launched the plugin; NODE_NAME); InvalidArgument naming the flag.
absl::StatusOr<NriDaemonConfig> NriConfigFromFlags();

std::string NriLogLevelFlag();

}  // namespace headroom::nri
