// headroom-nri: the containerd NRI plugin. Parses flags and wires the runtime connection, the
// sampler, the checkpoint, the extender reporter and the health/metrics endpoint together; the
// decisions are in container_policy.h and shared/.

#include <pthread.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "app/flag_args.h"
#include "app/guard_rail_flags.h"
#include "io/atomic_file.h"
#include "io/daemon_signals.h"
#include "io/grpc_tls.h"
#include "io/http_server.h"
#include "kubelet-hook/cgroup_reader.h"
#include "kubelet-hook/kernel_oom_log.h"
#include "kubelet-hook/node_checkpoint.h"
#include "kubelet-hook/node_reporter.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/plugin_runner.h"
#include "kubelet-hook/sampler.h"
#include "shared/quantity.h"
#include "spdlog/cfg/env.h"
#include "spdlog/spdlog.h"

ABSL_FLAG(std::string, socket, "/var/run/nri/nri.sock", "The runtime's NRI socket.");
ABSL_FLAG(std::string, plugin_name, "headroom", "NRI plugin name ([A-Za-z0-9_.+-]).");
ABSL_FLAG(std::string, plugin_index, "50", "NRI plugin index: two digits; lower runs first.");
ABSL_FLAG(std::string, cgroup_root, "/sys/fs/cgroup", "cgroupfs mount (v1 or v2, detected).");
ABSL_FLAG(std::string, state_dir, "",
          "Directory for node-stats.json, the checkpoint of statistics; empty: none.");
ABSL_FLAG(std::string, extender, "",
          "host:port of headroom-extender's gRPC report service; empty: do not report.");
ABSL_FLAG(std::string, token_file, "",
          "A projected ServiceAccount token (audience headroom-extender) sent with each report, "
          "for the extender's --report-auth=token; read again for every report. Empty: none.");
ABSL_FLAG(std::string, node_name, "",
          "Node name in reports (default: $NODE_NAME, else the host name).");
ABSL_FLAG(bool, dry_run, false, "Compute and log every decision, change nothing.");
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
ABSL_FLAG(std::string, config, "",
          "YAML file of flag: value (e.g. \"interval: 30s\"); flags on the command line win.");
ABSL_FLAG(std::string, log_level, "info", "trace, debug, info, warn, error (or SPDLOG_LEVEL).");

namespace {

namespace hnri = headroom::nri;

int Fail(const std::string& message) {
  std::cerr << "headroom-nri: " << message << "\n";
  return 2;
}

std::string NodeName() {
  if (std::string flag = absl::GetFlag(FLAGS_node_name); !flag.empty()) return flag;
  if (const char* env = std::getenv("NODE_NAME"); env != nullptr && *env != '\0') return env;
  char host[256] = {};
  ::gethostname(host, sizeof(host) - 1);
  return host;
}

struct Counters {
  std::atomic<uint64_t> updates_sent{0};
  std::atomic<uint64_t> updates_failed{0};
  std::atomic<uint64_t> reports_sent{0};
  std::atomic<uint64_t> reports_failed{0};
  std::atomic<int64_t> last_sample_unix{0};
};

}  // namespace

int main(int argc, char** argv) {
  // Before anything can start a thread (gRPC's credentials start its executor).
  sigset_t signals = headroom::io::BlockStopSignals();
  headroom::app::ParseDaemonFlags(
      argc, argv,

      "headroom-nri: containerd NRI plugin that removes CPU quotas, sets CPU weight from the "
      "sized request and memory limits from history (2 x max(7-day max, memory at OOM)), and "
      "reports the node to headroom-extender.\n"
      "Usage: headroom-nri [--socket=/var/run/nri/nri.sock] [--state-dir=DIR] "
      "[--extender=HOST:PORT] [--dry-run]\nSee docs/nri.md.",
      "kubelet-hook/");

  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  spdlog::set_level(spdlog::level::from_str(absl::GetFlag(FLAGS_log_level)));
  spdlog::cfg::load_env_levels();

  hnri::RunnerOptions runner_options;
  runner_options.socket_path = absl::GetFlag(FLAGS_socket);
  runner_options.plugin_name = absl::GetFlag(FLAGS_plugin_name);
  runner_options.plugin_index = absl::GetFlag(FLAGS_plugin_index);
  // Launched by the runtime from its plugin directory: name and index come from "NN-name".
  if (const char* fd = std::getenv("NRI_PLUGIN_SOCKET"); fd != nullptr) {
    if (!absl::SimpleAtoi(fd, &runner_options.preconnected_fd) ||
        runner_options.preconnected_fd < 0) {
      return Fail(absl::StrCat("NRI_PLUGIN_SOCKET=\"", fd, "\" is not a file descriptor"));
    }
    if (const char* name = std::getenv("NRI_PLUGIN_NAME")) runner_options.plugin_name = name;
    if (const char* idx = std::getenv("NRI_PLUGIN_IDX")) runner_options.plugin_index = idx;
  }
  if (absl::Status valid =
          hnri::ValidatePluginIdentity(runner_options.plugin_name, runner_options.plugin_index);
      !valid.ok()) {
    return Fail(std::string(valid.message()));
  }
  const absl::Duration interval = absl::GetFlag(FLAGS_interval);
  const absl::Duration oom_poll = absl::GetFlag(FLAGS_oom_poll_interval);
  if (interval <= absl::ZeroDuration() || oom_poll <= absl::ZeroDuration()) {
    return Fail("--interval and --oom-poll-interval must be positive");
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> report_credentials =
      headroom::io::ChannelCredentials({absl::GetFlag(FLAGS_extender_ca_file),
                                        absl::GetFlag(FLAGS_extender_cert_file),
                                        absl::GetFlag(FLAGS_extender_key_file)});
  if (!report_credentials.ok()) return Fail(std::string(report_credentials.status().message()));

  headroom::ResourceAmounts allocatable = hnri::HostCapacity();
  if (std::string cpu = absl::GetFlag(FLAGS_allocatable_cpu); !cpu.empty()) {
    absl::StatusOr<int64_t> millis = headroom::ParseCpuMillis(cpu);
    if (!millis.ok()) return Fail(absl::StrCat("--allocatable-cpu: ", millis.status().message()));
    allocatable.cpu_millis = *millis;
  }
  if (std::string memory = absl::GetFlag(FLAGS_allocatable_memory); !memory.empty()) {
    absl::StatusOr<int64_t> bytes = headroom::ParseMemoryBytes(memory);
    if (!bytes.ok()) return Fail(absl::StrCat("--allocatable-memory: ", bytes.status().message()));
    allocatable.memory_bytes = *bytes;
  }

  hnri::PluginConfig config;
  config.dry_run = absl::GetFlag(FLAGS_dry_run);
  absl::StatusOr<headroom::GuardRailConfig> guard =
      headroom::app::GuardRailConfigFromFlags(absl::GetFlag(FLAGS_allow_below_declared));
  if (!guard.ok()) return Fail(std::string(guard.status().message()));
  config.guard = *guard;
  config.excluded_namespaces =
      absl::StrSplit(absl::GetFlag(FLAGS_excluded_namespaces), ',', absl::SkipEmpty());

  hnri::NodeState state;
  const std::string state_dir = absl::GetFlag(FLAGS_state_dir);
  if (!state_dir.empty()) {
    const std::string path = state_dir + "/" + hnri::kNodeCheckpointFile;
    if (const size_t stale = headroom::io::RemoveStaleTemporaries(path); stale > 0) {
      spdlog::warn("removed {} temporary files of an interrupted checkpoint in {}", stale,
                   state_dir);
    }
    absl::StatusOr<size_t> loaded = hnri::LoadNodeCheckpoint(state, state_dir);
    if (loaded.ok()) {
      spdlog::info("loaded statistics of {} workload containers from {}", *loaded, state_dir);
    } else if (absl::IsNotFound(loaded.status())) {
      spdlog::info("no checkpoint in {} yet", state_dir);
    } else {
      const absl::StatusOr<std::string> aside = headroom::io::MoveAside(path);
      spdlog::error("{}; {}, starting without statistics", std::string(loaded.status().message()),
                    aside.ok() ? "moved aside to " + *aside
                               : "left in place (" + std::string(aside.status().message()) +
                                     "); the next checkpoint replaces it");
    }
  }
  hnri::CgroupReader cgroups(absl::GetFlag(FLAGS_cgroup_root));
  spdlog::info("cgroup {} at {}; dry run: {}",
               cgroups.version() == hnri::CgroupVersion::kV2 ? "v2" : "v1 (node-level PSI only)",
               cgroups.root(), config.dry_run);

  hnri::NriPlugin plugin(config, state, [] { return absl::Now(); });
  absl::Mutex sampler_mu;  // the OOM poller and the periodic loop share the sampler
  std::unique_ptr<hnri::KernelLogOomSource> kernel_log;
  if (std::string path = absl::GetFlag(FLAGS_kernel_log); !path.empty()) {
    absl::StatusOr<std::unique_ptr<hnri::KernelLogOomSource>> opened =
        hnri::KernelLogOomSource::Open(path);
    if (opened.ok()) {
      kernel_log = std::move(*opened);
      spdlog::info("OOM kills from the kernel log {}", path);
    } else {
      spdlog::warn(
          "{}: OOM kills from cgroup counters only (a container deleted between two "
          "polls is missed)",
          std::string(opened.status().message()));
    }
  }
  auto sampler =
      std::make_unique<hnri::Sampler>(state, cgroups, plugin, allocatable, kernel_log.get());
  absl::Mutex plugin_mu;  // NriPlugin is driven by one connection's reader at a time
  hnri::PluginRunner runner(runner_options, [&](const ttrpc::Request& request) {
    absl::MutexLock lock(&plugin_mu);
    return plugin.Handle(request);
  });

  Counters counters;
  std::unique_ptr<headroom::io::HttpServer> http;
  std::thread http_thread;
  if (std::string flag = absl::GetFlag(FLAGS_http_address); !flag.empty()) {
    const absl::StatusOr<headroom::app::HostPort> address =
        headroom::app::ParseHostPort(flag, "--http-address");
    if (!address.ok()) return Fail(std::string(address.status().message()));
    // Probes and scrapes only: small limits, and a flood of connections cannot starve them.
    headroom::io::HttpServerOptions http_options;
    http_options.max_body_bytes = 4 << 10;
    http_options.max_header_bytes = 8 << 10;
    http_options.max_connections = 256;
    http_options.threads = 1;
    http = std::make_unique<headroom::io::HttpServer>(std::move(http_options));
    using headroom::io::HttpRequest;
    using headroom::io::HttpResponse;
    http->Route("GET", "/healthz", [](const HttpRequest&, HttpResponse& res) {
      res.content_type = "text/plain";
      res.body = "ok\n";
    });
    http->Route("GET", "/readyz", [&](const HttpRequest&, HttpResponse& res) {
      const bool ready = runner.connected();
      res.status = ready ? 200 : 503;
      res.content_type = "text/plain";
      res.body = ready ? "ok\n" : "not registered with the runtime\n";
    });
    http->Route("GET", "/metrics", [&](const HttpRequest&, HttpResponse& res) {
      std::string text;
      auto metric = [&](const char* name, const char* type, const char* help, auto value) {
        absl::StrAppend(&text, "# HELP ", name, " ", help, "\n# TYPE ", name, " ", type, "\n", name,
                        " ", value, "\n");
      };
      metric("headroom_nri_connected", "gauge", "1 when registered with the runtime.",
             runner.connected() ? 1 : 0);
      metric("headroom_nri_connections_total", "counter", "Connections made to the runtime.",
             runner.connections());
      {
        absl::MutexLock lock(&plugin_mu);
        metric("headroom_nri_requests_total", "counter", "NRI requests answered.",
               plugin.requests_served());
        metric("headroom_nri_adjustments_total", "counter",
               "Containers adjusted at creation, update or synchronisation.",
               plugin.adjustments_made());
      }
      metric("headroom_nri_containers", "gauge", "Containers tracked.", state.Containers().size());
      metric("headroom_nri_workload_containers", "gauge", "Workload containers with statistics.",
             state.workload_count());
      {
        absl::MutexLock lock(&sampler_mu);
        metric("headroom_nri_oom_kills_total", "counter", "OOM kills seen.", sampler->stats().ooms);
        metric("headroom_nri_cgroup_read_errors_total", "counter", "Failed cgroup reads.",
               sampler->stats().read_errors);
      }
      metric("headroom_nri_updates_total", "counter", "Container updates sent to the runtime.",
             counters.updates_sent.load());
      metric("headroom_nri_update_failures_total", "counter", "Updates the runtime refused.",
             counters.updates_failed.load());
      metric("headroom_nri_reports_total", "counter", "Reports sent to the extender.",
             counters.reports_sent.load());
      metric("headroom_nri_report_failures_total", "counter", "Reports that failed.",
             counters.reports_failed.load());
      metric("headroom_nri_last_sample_timestamp_seconds", "gauge", "Time of the last sample.",
             counters.last_sample_unix.load());
      metric("headroom_nri_http_connections", "gauge", "Open connections to this endpoint.",
             http->connections());
      res.content_type = "text/plain; version=0.0.4";
      res.body = std::move(text);
    });
    if (absl::StatusOr<int> bound = http->Bind(address->host, address->port); !bound.ok()) {
      return Fail(std::string(bound.status().message()));
    }
  }

  // Everything that can refuse to start is checked above; from here on threads run.
  absl::Notification stopping;
  std::thread signal_waiter([&] {
    int received = 0;
    sigwait(&signals, &received);
    spdlog::info("signal {}: stopping", received);
    stopping.Notify();
    runner.Stop();
  });

  if (http) http_thread = std::thread([&] { (void)http->Serve(); });

  std::unique_ptr<hnri::NodeReporter> reporter;
  if (std::string extender = absl::GetFlag(FLAGS_extender); !extender.empty()) {
    reporter = std::make_unique<hnri::NodeReporter>(extender, *report_credentials,
                                                    absl::GetFlag(FLAGS_token_file));
  }
  const std::string node_name = NodeName();

  // The checkpoint and the report, after every periodic round and at once after an OOM kill
  // is recorded (the extender then sizes the workload's next pod from it, and a restart of
  // this process keeps it), one at a time.
  absl::Mutex publish_mu;
  const auto publish = [&](absl::Time now, absl::string_view why) {
    absl::MutexLock lock(&publish_mu);
    if (!state_dir.empty()) {
      if (absl::Status saved = hnri::SaveNodeCheckpoint(state, state_dir, now); !saved.ok()) {
        spdlog::error("checkpoint failed: {}", std::string(saved.message()));
      }
    }
    if (!reporter) return;
    const auto report = hnri::BuildNodeReport(state, node_name, allocatable, hnri::ReadLoad1(),
                                              static_cast<int>(allocatable.cpu_millis / 1000), now);
    if (absl::StatusOr<headroom::v1::ReportReply> reply = reporter->Send(report, absl::Seconds(2));
        reply.ok()) {
      ++counters.reports_sent;
      if (!why.empty()) spdlog::info("reported {} to the extender", std::string(why));
      // The warm-up counts the workload's history on every node, not only this one.
      for (const auto& [key, seconds] : reply->history_seconds()) {
        state.MergeClusterHistory(key, absl::Seconds(seconds), now);
      }
    } else {
      ++counters.reports_failed;
      spdlog::warn("{}", std::string(reply.status().message()));
    }
  };
  std::thread oom_poller([&] {
    while (!stopping.WaitForNotificationWithTimeout(oom_poll)) {
      const absl::Time now = absl::Now();
      int recorded = 0;
      {
        absl::MutexLock lock(&sampler_mu);
        recorded = sampler->PollOoms(now);
      }
      if (recorded > 0) publish(now, "the OOM kill at once");
    }
  });
  std::thread periodic([&] {
    while (!stopping.WaitForNotificationWithTimeout(interval)) {
      const absl::Time now = absl::Now();
      hnri::OptimizeOutcome outcome;
      {
        absl::MutexLock lock(&sampler_mu);
        sampler->Sample(now);
        outcome = sampler->Optimize(now);
      }
      counters.last_sample_unix = absl::ToUnixSeconds(now);
      for (const std::string& candidate : outcome.eviction_candidates) {
        spdlog::warn("nri: node over capacity, eviction recommended for {}", candidate);
      }
      if (outcome.updates.update_size() > 0) {
        absl::StatusOr<hnri::napi::UpdateContainersResponse> sent =
            runner.UpdateContainers(outcome.updates, absl::Seconds(2));
        if (!sent.ok()) {
          counters.updates_failed += outcome.updates.update_size();
          spdlog::warn("nri: UpdateContainers: {}", std::string(sent.status().message()));
        } else {
          counters.updates_sent += outcome.updates.update_size() - sent->failed_size();
          counters.updates_failed += sent->failed_size();
          absl::flat_hash_set<std::string> refused;
          for (const auto& failed : sent->failed()) refused.insert(failed.container_id());
          for (size_t i = 0; i < outcome.changes.size(); ++i) {
            const auto& change = outcome.changes[i];
            if (refused.contains(change.container_id)) {
              spdlog::warn("nri: periodic update refused by the runtime: {}", change.description);
              continue;
            }
            spdlog::info("nri: periodic update {}", change.description);
            state.Mutate(change.container_id, [&](hnri::TrackedContainer& c) {
              c.current = hnri::WithResources(
                  c.current, outcome.updates.update(static_cast<int>(i)).linux().resources());
              c.last_shrink = change.plan.last_shrink;
            });
          }
          spdlog::info("nri: updated {} containers ({} refused)", outcome.updates.update_size(),
                       sent->failed_size());
        }
      }
      publish(now, "");
    }
  });

  const absl::Status ended = runner.Run();
  if (!stopping.HasBeenNotified()) {
    // A pre-launched plugin's connection ended: the runtime restarts it.
    spdlog::warn("nri: {}", std::string(ended.message()));
    stopping.Notify();
    pthread_kill(signal_waiter.native_handle(), SIGTERM);
  }
  signal_waiter.join();
  oom_poller.join();
  periodic.join();
  if (http) {
    http->Stop();
    http_thread.join();
  }
  if (!state_dir.empty()) {
    if (absl::Status saved = hnri::SaveNodeCheckpoint(state, state_dir, absl::Now()); !saved.ok()) {
      spdlog::error("final checkpoint failed: {}", std::string(saved.message()));
    }
  }
  spdlog::info("stopped");
  return 0;
}
