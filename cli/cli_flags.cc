// The `headroom` command's flags, and each command run with them.

#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/time/time.h"
#include "app/actuation_flags.h"
#include "app/memory_pressure_flags.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/optimize_node_command.h"
#include "cli/preflight_command.h"
#include "cli/recommend_command.h"
#include "cli/repack_command.h"
#include "cli/report_command.h"
#include "cli/simulate_command.h"
#include "cli/status_command.h"
#include "cli/usage_text.h"

ABSL_FLAG(std::string, input, "", "Input file, or - for standard input.");
ABSL_FLAG(bool, pretty, true, "Indent the JSON output (--nopretty for one line).");
ABSL_FLAG(std::string, format, "auto", "Input format: auto, csv or json.");
ABSL_FLAG(std::string, output, "table", "Output: table or json.");
ABSL_FLAG(std::string, data_dir, headroom::cli::DefaultDataDir(),
          "Directory with openb/pods.csv and genai-memory/series.csv.");
ABSL_FLAG(std::string, pod_list, "", "Pod list (OpenB shape); default DATA_DIR/openb/pods.csv.");
ABSL_FLAG(std::string, memory_series, "",
          "Memory series; default DATA_DIR/genai-memory/series.csv.");
ABSL_FLAG(std::string, cpu_series, "", "CPU series (same shapes); default: synthetic.");
ABSL_FLAG(int, pods, -1,
          "Pods sampled from the pod list or usage trace (0: all; default 200 of the pod list, "
          "all of a usage trace).");
ABSL_FLAG(std::string, usage_trace, "",
          "simulate: a usage trace directory (workloads.csv, usage.csv.gz or usage.csv) to "
          "replay instead of the pod list and usage model.");
ABSL_FLAG(absl::Duration, duration, absl::Hours(96), "Simulated time.");
ABSL_FLAG(absl::Duration, warmup, absl::Hours(48), "Leading time left out of the summary.");
ABSL_FLAG(uint64_t, seed, 1, "Seed for sampling and synthetic usage.");
ABSL_FLAG(int, nodes, 0, "Fixed cluster size; 0 autoscales.");
ABSL_FLAG(std::string, node_shape, "96,512Gi", "Node CPU,memory.");
ABSL_FLAG(double, memory_limit_ratio, 1.0, "Declared memory limit / request.");
ABSL_FLAG(double, memory_throttling_factor, headroom::sim::kDefaultMemoryThrottlingFactor,
          "The kubelet's Memory QoS memoryThrottlingFactor: memory.high = request + factor x "
          "(limit - request), and a pod above it stalls on memory (docs/simulate.md); 0: "
          "Memory QoS off.");
ABSL_FLAG(std::string, policies, "static,vpa,crane,headroom", "Policies to compare.");
ABSL_FLAG(std::string, scoring, "target", "Node scoring: spread, pack or target.");
ABSL_FLAG(std::string, autoscaler, "cluster-autoscaler",
          "Which autoscaler removes nodes: cluster-autoscaler or karpenter (docs/simulate.md).");
ABSL_FLAG(double, scoring_target, 0.75,
          "With --scoring=target: the projected share nodes are filled to.");
ABSL_FLAG(std::string, output_dir, "build/simulate", "Where summary.json and chart.svg go.");
ABSL_FLAG(std::string, progress, "auto", "Progress bar: auto, always or never.");
ABSL_FLAG(bool, allow_below_declared, true,
          "simulate: the workloads opted in to requests below their declared ones "
          "(headroom.dev/allow-below-declared; the daemons' default is false).");
ABSL_FLAG(double, cold_start, 0,
          "simulate: fraction of pods that are new workloads created after the warm-up, using 5% "
          "of their level for their first 2-6 hours, then all of it.");
ABSL_FLAG(double, cronjobs, 0,
          "simulate: fraction of pods that are CronJobs instead, each running once a day at one "
          "minute of the day for 30 minutes to 3 hours, every run a pod of its own replaying "
          "the pod's usage at those minutes (synthetic usage only).");
ABSL_FLAG(std::string, cronjob_identity, "cronjob",
          "simulate: what a CronJob's runs are to the sizers: cronjob (one workload, as "
          "headroom keys them, so a run is sized from the runs before it) or run (each run a "
          "workload of its own, as a sizer keying pods by their Job sees them).");
ABSL_FLAG(double, spike_shortfall, headroom::UsageStatsConfig{}.cpu_spike_shortfall,
          "simulate: the share of a node's CPU usage its shared headroom may leave above it "
          "(headroom-nri's default; shared/node_headroom.h), to study the rule.");
ABSL_FLAG(std::string, pod_annotations, "",
          "simulate: a JSON object of annotations every simulated pod carries, e.g. "
          "'{\"headroom.dev/cpu-margin\":\"20%\"}' (docs/annotations.md).");
ABSL_FLAG(std::string, disruption_window, "",
          "simulate: when headroom may evict pods or shrink them in place, as headroom-extender's "
          "--disruption-window (UTC, e.g. \"Mon-Fri 22:00-06:00; Sat,Sun 00:00-24:00\"; the "
          "simulated time starts on Wednesday 2023-11-15 00:00 UTC). \"\": always.");
ABSL_FLAG(std::string, extender_url, "http://127.0.0.1:8888",
          "status, explain, preflight: headroom-extender's --http-address as a URL (e.g. after "
          "kubectl -n headroom-system port-forward svc/headroom-extender 8888).");
ABSL_FLAG(std::string, extender, "", "headroom-extender's gRPC address, host:port.");
ABSL_FLAG(std::string, kubeconfig, "",
          "preflight: the kubeconfig (default $KUBECONFIG, ~/.kube/config, else in-cluster).");
ABSL_FLAG(std::string, context, "", "preflight: a kubeconfig context other than the current.");
ABSL_FLAG(std::string, extender_namespace, "headroom-system",
          "preflight: the namespace headroom-extender runs in.");
ABSL_FLAG(std::string, extender_service_account, "headroom-extender",
          "preflight: headroom-extender's ServiceAccount.");
ABSL_FLAG(std::string, extender_service, "headroom-extender",
          "preflight: the Service the admission webhook calls.");
ABSL_FLAG(bool, check, true,
          "report: check the report locally first; --check=false sends it as it is.");
ABSL_FLAG(std::string, token_file, "",
          "report: a ServiceAccount token file sent as the bearer token (--report-auth=token).");
ABSL_FLAG(std::string, extender_ca_file, "", "PEM CA of the extender's gRPC certificate (TLS).");
ABSL_FLAG(std::string, extender_cert_file, "", "PEM client certificate (mutual TLS).");
ABSL_FLAG(std::string, extender_key_file, "", "PEM key for --extender-cert-file.");
ABSL_FLAG(absl::Duration, timeout, absl::Seconds(5),
          "report: deadline for the call; repack: time limit of the solve.");
ABSL_FLAG(bool, generate, false, "repack: solve a generated instance (seed 002's setup).");
ABSL_FLAG(int, pods_per_node, 4, "repack --generate: pods per node.");
ABSL_FLAG(int, tiers, 2, "repack --generate: priority tiers.");
ABSL_FLAG(double, utilisation, 1.0, "repack --generate: pods' total / cluster capacity.");
ABSL_FLAG(std::string, write_instance, "", "repack: also write the instance solved, as JSON.");

namespace headroom::cli {
namespace {

int RunOptimizeNodeWithFlags(const std::vector<std::string>&) {
  return RunOptimizeNode(absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_pretty), std::cout,
                         std::cerr);
}

int RunRecommendWithFlags(const std::vector<std::string>&) {
  return RunRecommend(absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_format),
                      absl::GetFlag(FLAGS_output), std::cout, std::cerr);
}

int RunSimulateWithFlags(const std::vector<std::string>&) {
  SimulateOptions options;
  options.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.pod_list = absl::GetFlag(FLAGS_pod_list);
  options.memory_series = absl::GetFlag(FLAGS_memory_series);
  options.cpu_series = absl::GetFlag(FLAGS_cpu_series);
  options.pods = absl::GetFlag(FLAGS_pods);
  options.usage_trace = absl::GetFlag(FLAGS_usage_trace);
  options.duration = absl::GetFlag(FLAGS_duration);
  options.warmup = absl::GetFlag(FLAGS_warmup);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.nodes = absl::GetFlag(FLAGS_nodes);
  options.node_shape = absl::GetFlag(FLAGS_node_shape);
  options.memory_limit_ratio = absl::GetFlag(FLAGS_memory_limit_ratio);
  options.memory_throttling_factor = absl::GetFlag(FLAGS_memory_throttling_factor);
  options.policies = absl::GetFlag(FLAGS_policies);
  options.scoring = absl::GetFlag(FLAGS_scoring);
  options.autoscaler = absl::GetFlag(FLAGS_autoscaler);
  options.scoring_target = absl::GetFlag(FLAGS_scoring_target);
  options.output_dir = absl::GetFlag(FLAGS_output_dir);
  options.progress = absl::GetFlag(FLAGS_progress);
  options.cold_start = absl::GetFlag(FLAGS_cold_start);
  options.cronjobs = absl::GetFlag(FLAGS_cronjobs);
  options.cronjob_identity = absl::GetFlag(FLAGS_cronjob_identity);
  options.pod_annotations = absl::GetFlag(FLAGS_pod_annotations);
  options.disruption_window = absl::GetFlag(FLAGS_disruption_window);
  options.headroom.allow_below_declared = absl::GetFlag(FLAGS_allow_below_declared);
  options.headroom.stats.cpu_spike_shortfall = absl::GetFlag(FLAGS_spike_shortfall);
  absl::StatusOr<ActionConfig> actions =
      app::ActionConfigFromFlags(options.headroom.allow_below_declared);
  absl::StatusOr<EvictionBudgetConfig> budget = app::EvictionBudgetFromFlags();
  absl::StatusOr<MemoryPressureConfig> pressure = app::MemoryPressureConfigFromFlags();
  for (const absl::Status& status : {actions.status(), budget.status(), pressure.status()}) {
    if (!status.ok()) {
      std::cerr << "headroom simulate: " << status.message() << "\n";
      return kExitBadInput;
    }
  }
  options.headroom.actions = *actions;
  options.headroom.budget = *budget;
  options.headroom.memory_pressure = *pressure;
  return RunSimulate(options, std::cout, std::cerr);
}

int RunReportWithFlags(const std::vector<std::string>&) {
  return RunReport(
      absl::GetFlag(FLAGS_extender), absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_timeout),
      {absl::GetFlag(FLAGS_extender_ca_file), absl::GetFlag(FLAGS_extender_cert_file),
       absl::GetFlag(FLAGS_extender_key_file)},
      absl::GetFlag(FLAGS_token_file), absl::GetFlag(FLAGS_check), std::cout, std::cerr);
}

int RunRepackWithFlags(const std::vector<std::string>&) {
  RepackCommandOptions options;
  options.input = absl::GetFlag(FLAGS_input);
  options.generate = absl::GetFlag(FLAGS_generate);
  options.generator.nodes = absl::GetFlag(FLAGS_nodes) == 0 ? 8 : absl::GetFlag(FLAGS_nodes);
  options.generator.pods_per_node = absl::GetFlag(FLAGS_pods_per_node);
  options.generator.tiers = absl::GetFlag(FLAGS_tiers);
  options.generator.target_utilisation = absl::GetFlag(FLAGS_utilisation);
  options.generator.seed = absl::GetFlag(FLAGS_seed);
  options.write_instance = absl::GetFlag(FLAGS_write_instance);
  options.timeout = absl::GetFlag(FLAGS_timeout);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.output = absl::GetFlag(FLAGS_output);
  return RunRepack(options, std::cout, std::cerr);
}

StatusSource StatusSourceFromFlags() {
  StatusSource source;
  source.url = absl::GetFlag(FLAGS_extender_url);
  source.ca_file = absl::GetFlag(FLAGS_extender_ca_file);
  source.timeout = absl::GetFlag(FLAGS_timeout);
  return source;
}

int RunStatusWithFlags(const std::vector<std::string>&) {
  return RunStatus(StatusSourceFromFlags(), absl::GetFlag(FLAGS_output), std::cout, std::cerr);
}

int RunPreflightWithFlags(const std::vector<std::string>&) {
  PreflightOptions options;
  options.kubeconfig = absl::GetFlag(FLAGS_kubeconfig);
  options.context = absl::GetFlag(FLAGS_context);
  options.extender_namespace = absl::GetFlag(FLAGS_extender_namespace);
  options.extender_service_account = absl::GetFlag(FLAGS_extender_service_account);
  options.extender_service = absl::GetFlag(FLAGS_extender_service);
  options.extender = StatusSourceFromFlags();
  options.output = absl::GetFlag(FLAGS_output);
  return RunPreflight(options, std::cout, std::cerr);
}

int RunExplainWithFlags(const std::vector<std::string>& arguments) {
  if (arguments.size() != 1) {
    std::cerr << "headroom explain: name one pod as NAMESPACE/POD (see 'headroom explain "
                 "--help')\n";
    return kExitBadInput;
  }
  return RunExplain(StatusSourceFromFlags(), arguments[0], absl::GetFlag(FLAGS_output), std::cout,
                    std::cerr);
}

}  // namespace

const std::vector<Command>& Commands() {
  static const std::vector<Command> commands = {
      {"optimize-node", kOptimizeNodeUsage, &RunOptimizeNodeWithFlags},
      {"recommend", kRecommendUsage, &RunRecommendWithFlags},
      {"simulate", kSimulateUsage, &RunSimulateWithFlags},
      {"repack", kRepackUsage, &RunRepackWithFlags},
      {"report", kReportUsage, &RunReportWithFlags},
      {"status", kStatusUsage, &RunStatusWithFlags},
      {"explain", kExplainUsage, &RunExplainWithFlags, 1},
      {"preflight", kPreflightUsage, &RunPreflightWithFlags},
  };
  return commands;
}

}  // namespace headroom::cli
