#include "kubelet-hook/nri_flags.h"

#include <unistd.h>

#include <cstdlib>
#include <optional>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "app/guard_rail_flags.h"
#include "app/memory_pressure_flags.h"
#include "io/grpc_tls.h"
#include "io/memory_limit.h"
#include "kubelet-hook/sampler.h"
#include "kubelet-hook/workload_budget.h"
#include "shared/quantity.h"

ABSL_FLAG(std::string, socket, "/var/run/nri/nri.sock", "The runtime's NRI socket.");
ABSL_FLAG(std::string, plugin_name, "headroom", "NRI plugin name ([A-Za-z0-9_.+-]).");
ABSL_FLAG(std::string, plugin_index, "50", "NRI plugin index: two digits; lower runs first.");
ABSL_FLAG(std::string, cgroup_root, "/sys/fs/cgroup", "cgroupfs mount (v1 or v2, detected).");
ABSL_FLAG(std::string, state_dir, "",
          "Directory for node-stats.json, the checkpoint of statistics; empty: none.");
ABSL_FLAG(std::string, extender, "",
          "host:port of headroom-extender's gRPC report service; empty: do not report.");
ABSL_FLAG(bool, extender_all_replicas, false,
          "Send each report to every address --extender's host resolves to (a headless Service "
          "naming every extender replica), resolved anew for each report; TLS is verified "
          "against that host name. Off: one connection to --extender.");
ABSL_FLAG(std::string, token_file, "",
          "A projected ServiceAccount token (audience headroom-extender) sent with each report, "
          "for the extender's --report-auth=token; read again for every report. Empty: none.");
ABSL_FLAG(std::string, node_name, "",
          "Node name in reports (default: $NODE_NAME, else the host name).");
ABSL_FLAG(bool, dry_run, false, "Compute and log every decision, change nothing.");
ABSL_FLAG(std::string, default_mode, "in-place",
          "The adoption step of a pod whose annotations name none (neither its own "
          "headroom.dev/mode nor the headroom.dev/admitted-mode the webhook writes): observe "
          "(set nothing), admission (set values on new containers only) or in-place (also "
          "change running ones). Set it as the extender's --default-mode.");
ABSL_FLAG(bool, allow_below_declared, false,
          "Guard rail default: let headroom set CPU weights below what the declared request "
          "gives (a pod overrides it with headroom.dev/allow-below-declared).");
ABSL_FLAG(absl::Duration, interval, absl::Seconds(60),
          "Sampling, optimisation, checkpoint and report period.");
ABSL_FLAG(absl::Duration, oom_poll_interval, absl::Seconds(1),
          "How often OOM kills are collected (kernel log, else cgroup counters).");
ABSL_FLAG(std::string, kernel_log, "/dev/kmsg",
          "Kernel log to read OOM kills from (needs privilege); empty or unreadable: poll the "
          "cgroups' oom_kill counters, which miss containers deleted between two polls.");
ABSL_FLAG(std::string, excluded_namespaces, "kube-system",
          "Comma-separated namespaces headroom never adjusts.");
ABSL_FLAG(std::string, allocatable_cpu, "",
          "Node allocatable CPU for the optimisation (e.g. 3500m); default: online CPUs.");
ABSL_FLAG(std::string, allocatable_memory, "",
          "Node allocatable memory (e.g. 14Gi); default: MemTotal.");
ABSL_FLAG(std::string, http_address, "127.0.0.1:9101",
          "host:port for /healthz, /readyz and /metrics; empty: none.");
ABSL_FLAG(std::string, extender_ca_file, "",
          "PEM CA of the extender's gRPC certificate: report over TLS. Empty: plaintext.");
ABSL_FLAG(std::string, extender_cert_file, "",
          "PEM client certificate for an extender that requires one (mutual TLS).");
ABSL_FLAG(std::string, extender_key_file, "", "PEM private key for --extender-cert-file.");
ABSL_FLAG(std::string, memory_budget, "",
          "Memory the workload statistics may use (e.g. 96Mi); it caps how many workload "
          "containers are kept (40 KiB each, the longest idle forgotten first). Default: 75% "
          "of the container's memory limit, or 96Mi without one.");
ABSL_FLAG(absl::Duration, workload_retention, absl::Hours(24),
          "How long the statistics of a workload container with no container running on the "
          "node are kept (the extender keeps its history across the cluster).");
ABSL_FLAG(std::string, config, "",
          "YAML file of flag: value (e.g. \"interval: 30s\"); flags on the command line win.");
ABSL_FLAG(std::string, log_level, "info", "trace, debug, info, warn, error (or SPDLOG_LEVEL).");

namespace headroom::nri {
namespace {

std::string NodeName() {
  if (std::string flag = absl::GetFlag(FLAGS_node_name); !flag.empty()) return flag;
  if (const char* env = std::getenv("NODE_NAME"); env != nullptr && *env != '\0') return env;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

absl::StatusOr<RunnerOptions> RunnerFromFlags() {
  RunnerOptions runner;
  runner.socket_path = absl::GetFlag(FLAGS_socket);
  runner.plugin_name = absl::GetFlag(FLAGS_plugin_name);
  runner.plugin_index = absl::GetFlag(FLAGS_plugin_index);
  // Launched by the runtime from its plugin directory: name and index come from "NN-name".
  if (const char* fd = std::getenv("NRI_PLUGIN_SOCKET"); fd != nullptr) {
    if (!absl::SimpleAtoi(fd, &runner.preconnected_fd) || runner.preconnected_fd < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("NRI_PLUGIN_SOCKET=\"", fd, "\" is not a file descriptor"));
    }
    if (const char* name = std::getenv("NRI_PLUGIN_NAME")) runner.plugin_name = name;
    if (const char* idx = std::getenv("NRI_PLUGIN_IDX")) runner.plugin_index = idx;
  }
  if (absl::Status valid = ValidatePluginIdentity(runner.plugin_name, runner.plugin_index);
      !valid.ok()) {
    return valid;
  }
  return runner;
}

absl::StatusOr<ResourceAmounts> AllocatableFromFlags() {
  ResourceAmounts allocatable = HostCapacity();
  if (std::string cpu = absl::GetFlag(FLAGS_allocatable_cpu); !cpu.empty()) {
    absl::StatusOr<int64_t> millis = ParseCpuMillis(cpu);
    if (!millis.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--allocatable-cpu: ", millis.status().message()));
    }
    allocatable.cpu_millis = *millis;
  }
  if (std::string memory = absl::GetFlag(FLAGS_allocatable_memory); !memory.empty()) {
    absl::StatusOr<int64_t> bytes = ParseMemoryBytes(memory);
    if (!bytes.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--allocatable-memory: ", bytes.status().message()));
    }
    allocatable.memory_bytes = *bytes;
  }
  return allocatable;
}

}  // namespace

std::string NriLogLevelFlag() { return absl::GetFlag(FLAGS_log_level); }

absl::StatusOr<NriDaemonConfig> NriConfigFromFlags() {
  NriDaemonConfig config;
  absl::StatusOr<RunnerOptions> runner = RunnerFromFlags();
  if (!runner.ok()) return runner.status();
  config.runner = *std::move(runner);
  config.interval = absl::GetFlag(FLAGS_interval);
  config.oom_poll_interval = absl::GetFlag(FLAGS_oom_poll_interval);
  if (config.interval <= absl::ZeroDuration() || config.oom_poll_interval <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--interval and --oom-poll-interval must be positive");
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials = io::ChannelCredentials(
      {absl::GetFlag(FLAGS_extender_ca_file), absl::GetFlag(FLAGS_extender_cert_file),
       absl::GetFlag(FLAGS_extender_key_file)});
  if (!credentials.ok()) return credentials.status();
  config.report_credentials = *std::move(credentials);
  absl::StatusOr<MemoryPressureConfig> pressure = app::MemoryPressureConfigFromFlags();
  if (!pressure.ok()) return pressure.status();
  config.memory_pressure = *pressure;
  absl::StatusOr<ResourceAmounts> allocatable = AllocatableFromFlags();
  if (!allocatable.ok()) return allocatable.status();
  config.allocatable = *allocatable;
  config.plugin.dry_run = absl::GetFlag(FLAGS_dry_run);
  absl::StatusOr<AdoptionStep> step = ParseAdoptionStep(absl::GetFlag(FLAGS_default_mode));
  if (!step.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("--default-mode: ", step.status().message()));
  }
  config.plugin.default_step = *step;
  absl::StatusOr<GuardRailConfig> guard =
      app::GuardRailConfigFromFlags(absl::GetFlag(FLAGS_allow_below_declared));
  if (!guard.ok()) return guard.status();
  config.plugin.guard = *guard;
  config.plugin.excluded_namespaces =
      absl::StrSplit(absl::GetFlag(FLAGS_excluded_namespaces), ',', absl::SkipEmpty());
  if (std::string flag = absl::GetFlag(FLAGS_http_address); !flag.empty()) {
    absl::StatusOr<app::HostPort> address = app::ParseHostPort(flag, "--http-address");
    if (!address.ok()) return address.status();
    config.http_address = *address;
  }
  config.cgroup_root = absl::GetFlag(FLAGS_cgroup_root);
  config.state_dir = absl::GetFlag(FLAGS_state_dir);
  config.extender = absl::GetFlag(FLAGS_extender);
  config.token_file = absl::GetFlag(FLAGS_token_file);
  config.extender_all_replicas = absl::GetFlag(FLAGS_extender_all_replicas);
  if (config.extender_all_replicas && config.extender.empty()) {
    return absl::InvalidArgumentError("--extender-all-replicas needs --extender");
  }
  std::optional<int64_t> budget_flag;
  if (std::string budget = absl::GetFlag(FLAGS_memory_budget); !budget.empty()) {
    absl::StatusOr<int64_t> bytes = app::MemoryBytesFlag("memory-budget", budget);
    if (!bytes.ok()) return bytes.status();
    if (*bytes <= 0) return absl::InvalidArgumentError("--memory-budget must be positive");
    budget_flag = *bytes;
  }
  config.memory_limit_bytes = io::OwnMemoryLimitBytes();
  config.memory_budget_bytes = MemoryBudgetBytes(budget_flag, config.memory_limit_bytes);
  const absl::Duration retention = absl::GetFlag(FLAGS_workload_retention);
  if (retention <= absl::ZeroDuration()) {
    return absl::InvalidArgumentError("--workload-retention must be positive");
  }
  config.retention = RetentionForBudget(config.memory_budget_bytes, retention);
  config.kernel_log = absl::GetFlag(FLAGS_kernel_log);
  config.node_name = NodeName();
  return config;
}

}  // namespace headroom::nri
