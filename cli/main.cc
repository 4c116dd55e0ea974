// headroom: the command-line tool. Parses flags and dispatches to a command; the work is
// done in the command files and the shared library.

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "app/actuation_flags.h"
#include "app/flag_args.h"
#include "cli/exit_codes.h"
#include "cli/optimize_node_command.h"
#include "cli/recommend_command.h"
#include "cli/repack_command.h"
#include "cli/report_command.h"
#include "cli/simulate_command.h"

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
ABSL_FLAG(int, pods, 200, "Pods sampled from the pod list (0: all).");
ABSL_FLAG(absl::Duration, duration, absl::Hours(96), "Simulated time.");
ABSL_FLAG(absl::Duration, warmup, absl::Hours(48), "Leading time left out of the summary.");
ABSL_FLAG(uint64_t, seed, 1, "Seed for sampling and synthetic usage.");
ABSL_FLAG(int, nodes, 0, "Fixed cluster size; 0 autoscales.");
ABSL_FLAG(std::string, node_shape, "96,512Gi", "Node CPU,memory.");
ABSL_FLAG(double, memory_limit_ratio, 1.0, "Declared memory limit / request.");
ABSL_FLAG(std::string, policies, "static,vpa,crane,headroom", "Policies to compare.");
ABSL_FLAG(std::string, scoring, "spread", "Node scoring: spread or pack.");
ABSL_FLAG(std::string, output_dir, "build/simulate", "Where summary.json and chart.svg go.");
ABSL_FLAG(std::string, progress, "auto", "Progress bar: auto, always or never.");
ABSL_FLAG(bool, allow_below_declared, true,
          "simulate: the workloads opted in to requests below their declared ones "
          "(headroom.dev/allow-below-declared; the daemons' default is false).");
ABSL_FLAG(double, cold_start, 0,
          "simulate: fraction of pods that are new workloads created after the warm-up, using 5% "
          "of their level for their first 2-6 hours, then all of it.");
ABSL_FLAG(std::string, extender, "", "headroom-extender's gRPC address, host:port.");
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

namespace {

constexpr char kVersion[] = "0.1.0";

constexpr char kTopUsage[] =
    R"(headroom — pods request what they use and share one spike headroom per node.

Usage: headroom <command> [flags]

Commands:
  optimize-node   Size the pods of one node (base + shared headroom) and pick evictions.
  recommend       Show what headroom, VPA and Crane would request for containers' usage.
  simulate        Replay a cluster on real usage under static, VPA, Crane and headroom sizing.
  repack          Plan re-placing running pods so pending higher-priority pods fit (dry run).
  report          Send one node report to a headroom-extender (debugging, tests).

Run 'headroom <command> --help' for a command's flags. 'headroom --version' prints the
version. Exit codes: 0 success, 1 runtime failure (I/O), 2 bad flags or malformed input.
)";

constexpr char kOptimizeNodeUsage[] = R"(Usage: headroom optimize-node --input FILE|- [--nopretty]

Reads one node and its pods as JSON and prints the per-node optimisation (seed 000, phase 2)
as JSON: evictions with reasons, and each surviving container's CPU request (no CPU limit),
memory request and memory limit. The formats are in docs/optimize-node.md.

Flags:
  --input FILE|-   The node as JSON; - reads standard input. Required.
  --[no]pretty     Indent the JSON output (default: true).

Example:
  headroom optimize-node --input examples/node.json
)";

constexpr char kRecommendUsage[] =
    R"(Usage: headroom recommend --input FILE|- [--format auto|csv|json] [--output table|json]

Reads per-container usage samples and prints, for each container, what each policy would
request: headroom (seed 000: peak when alone, base + a share of one headroom on a node; the
memory limit is 2 x max(7-day max, memory at OOM); no CPU limit), VPA (target, bounds,
confidence) and Crane (P99 + 15%, OOM protection). Nothing is applied anywhere. Formats are
in docs/recommend.md.

Flags:
  --input FILE|-   Samples as CSV (container,timestamp,cpu,memory[,oom]) or JSON. Required.
  --format F       auto (default: JSON if it starts with { or [), csv or json.
  --output O       table (default) or json.

Example:
  headroom recommend --input examples/usage.csv
)";

constexpr char kSimulateUsage[] = R"(Usage: headroom simulate [flags]

Replays a cluster minute by minute on the same pods and usage under each sizing policy
(static declared requests, VPA, Crane, headroom), placing pods with the scheduler's fit (and,
for headroom, the extender's projected fit and load cordon) and sizing them with each
policy's own recommender from the shared library. Prints a table (requests, usage,
utilisation, nodes, OOM kills, CPU shortfall, evictions) and writes summary.json and
chart.svg. The model and its assumptions are in docs/simulate.md.

Default input: 200 CPU-only pods sampled from Alibaba's OpenB pod list and real memory series
from Alibaba's GenAI trace (data/, see data/README.md), with synthetic CPU.

Flags:
  --pods N                 pods sampled from the pod list (default 200; 0: all)
  --duration D             simulated time (default 96h)
  --warmup D               leading time left out of the summary (default 48h: headroom's
                           guard rails hold every workload for its first 24h, so policies
                           are compared once each has had a day to act)
  --seed N                 seed for the sample and the synthetic usage (default 1)
  --nodes N                fixed cluster of N nodes; 0 (default) autoscales
  --node-shape CPU,MEM     node size (default 96,512Gi: OpenB's 96-core CPU-only node)
  --memory-limit-ratio R   declared memory limit / request (default 1.0)
  --policies LIST          any of static,vpa,crane,headroom (default all)
  --scoring spread|pack    node scoring (default spread)
  --output-dir DIR         where summary.json and chart.svg go (default build/simulate)
  --progress auto|always|never   progress bar on standard error (default auto: on a terminal)
  --data-dir DIR           holds openb/pods.csv and genai-memory/series.csv
  --pod-list FILE          pod list in OpenB's shape (name,cpu_milli,memory_mib,num_gpu,...,qos)
  --memory-series FILE     memory as fractions of the limit: Alibaba's shape
                           (value,timestamp_anon,container_ip) or minute,<id>,<id>,...
  --cpu-series FILE        CPU as fractions of the request, same shapes (default: synthetic)
  --cold-start F           fraction of pods that are new workloads created during the day after
                           the warm-up, which use 5% of their level for their first 2-6 hours,
                           then all of it (default 0)

headroom policy: the product's own guard-rail and actuation flags, same names and defaults
as headroom-extender's (docs/algorithm.md):
  --allow-below-declared   workloads opted in to requests below their declared ones (default
                           true here; false in the daemons: no savings on requests without it)
  --min-history D          warm-up before anything is tightened (default 24h)
  --min-cpu-request Q      CPU request floor (default 25m)
  --min-memory-limit Q     memory limit floor (default 250Mi)
  --max-shrink-step F      largest fraction one shrink takes (default 0.5)
  --shrink-interval D      at most one shrink per value per D (default 1h)
  --resize-min-change F    resize only when a value moves by this fraction (default 0.1)
  --cpu-eviction-after D   evict for CPU only after the bases stayed over this long (default 15m)
  --evictions-per-minute N, --evictions-per-node-per-hour N   eviction budgets (5, 2)

Example:
  headroom simulate --duration 48h --pods 100 --seed 7
)";

constexpr char kReportUsage[] =
    R"(Usage: headroom report --extender HOST:PORT --input FILE|- [--timeout 5s]

Sends one node report to headroom-extender's gRPC ReportService, as headroom-nri does for its
node. The input is the report's JSON form (protobuf's JSON mapping of
proto/headroom/v1/report.proto; unknown fields are refused); docs/extender.md has an example.
The report is checked locally first, so a mistake names its field.

Flags:
  --extender HOST:PORT   the extender's --grpc-address. Required.
  --input FILE|-         the report as JSON; - reads standard input. Required.
  --timeout D            deadline for the call (default 5s).
  --extender-ca-file F   TLS: the CA of the extender's gRPC certificate (its --grpc-tls-cert-file).
  --extender-cert-file F, --extender-key-file F
                         mutual TLS: this client's certificate and key.
  --token-file F         a ServiceAccount token sent as the bearer token (the extender's
                         --report-auth=token; the token's pod must run on the reported node).
  --check=false          send the report without checking it locally first (to test the
                         extender's own refusals).
)";

constexpr char kRepackUsage[] =
    R"(Usage: headroom repack --input FILE|- | --generate [flags]

Plans a priority-tiered repacking (seed 002): for each priority, highest first, place the
most pending pods of that priority, moving or evicting running pods of the same or lower
priority, then disturb the fewest running pods. Prints, per priority, the pods placed now and
in the plan, an upper bound, whether the plan is proven optimal, and the moves, placements
and evictions. Nothing is changed in any cluster. Formats and the solver: docs/repack.md.

Input: our instance JSON ({"nodes": [{"name","cpu","memory"}], "pods": [{"name","cpu",
"memory","priority","node","owner"}]}), or a snapshot taken with
  kubectl get nodes,pods -A -o json > cluster.json
(DaemonSet and static pods stay where they are; finished pods are ignored).

Flags:
  --input FILE|-        the cluster as JSON; - reads standard input
  --generate            instead, generate an instance as seed 002's evaluation does, placed by
                        a model of kube-scheduler (LeastAllocated, no preemption)
  --nodes N             generate: nodes (default 8 when 0)
  --pods-per-node N     generate: pods per node (default 4)
  --tiers N             generate: priority tiers (default 2)
  --utilisation U       generate: pods' total / cluster capacity (default 1.0)
  --seed N              generate: the instance; and the solver's random choices (default 1)
  --write-instance F    also write the instance (e.g. the generated one) as JSON to F
  --timeout D           time limit of the whole solve, shared out across tiers (default 5s)
  --output table|json   (default table)

Example:
  headroom repack --generate --nodes 16 --pods-per-node 4 --tiers 2 --utilisation 1.05 --timeout 1s
)";

struct Command {
  absl::string_view name;
  absl::string_view usage;
  int (*run)();
};

int RunOptimizeNode() {
  return headroom::cli::RunOptimizeNode(absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_pretty),
                                        std::cout, std::cerr);
}

int RunRecommend() {
  return headroom::cli::RunRecommend(absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_format),
                                     absl::GetFlag(FLAGS_output), std::cout, std::cerr);
}

int RunSimulate() {
  headroom::cli::SimulateOptions options;
  options.data_dir = absl::GetFlag(FLAGS_data_dir);
  options.pod_list = absl::GetFlag(FLAGS_pod_list);
  options.memory_series = absl::GetFlag(FLAGS_memory_series);
  options.cpu_series = absl::GetFlag(FLAGS_cpu_series);
  options.pods = absl::GetFlag(FLAGS_pods);
  options.duration = absl::GetFlag(FLAGS_duration);
  options.warmup = absl::GetFlag(FLAGS_warmup);
  options.seed = absl::GetFlag(FLAGS_seed);
  options.nodes = absl::GetFlag(FLAGS_nodes);
  options.node_shape = absl::GetFlag(FLAGS_node_shape);
  options.memory_limit_ratio = absl::GetFlag(FLAGS_memory_limit_ratio);
  options.policies = absl::GetFlag(FLAGS_policies);
  options.scoring = absl::GetFlag(FLAGS_scoring);
  options.output_dir = absl::GetFlag(FLAGS_output_dir);
  options.progress = absl::GetFlag(FLAGS_progress);
  options.cold_start = absl::GetFlag(FLAGS_cold_start);
  options.headroom.allow_below_declared = absl::GetFlag(FLAGS_allow_below_declared);
  absl::StatusOr<headroom::ActionConfig> actions =
      headroom::app::ActionConfigFromFlags(options.headroom.allow_below_declared);
  absl::StatusOr<headroom::EvictionBudgetConfig> budget = headroom::app::EvictionBudgetFromFlags();
  for (const absl::Status& status : {actions.status(), budget.status()}) {
    if (!status.ok()) {
      std::cerr << "headroom simulate: " << status.message() << "\n";
      return headroom::cli::kExitBadInput;
    }
  }
  options.headroom.actions = *actions;
  options.headroom.budget = *budget;
  return headroom::cli::RunSimulate(options, std::cout, std::cerr);
}

int RunReport() {
  return headroom::cli::RunReport(
      absl::GetFlag(FLAGS_extender), absl::GetFlag(FLAGS_input), absl::GetFlag(FLAGS_timeout),
      {absl::GetFlag(FLAGS_extender_ca_file), absl::GetFlag(FLAGS_extender_cert_file),
       absl::GetFlag(FLAGS_extender_key_file)},
      absl::GetFlag(FLAGS_token_file), absl::GetFlag(FLAGS_check), std::cout, std::cerr);
}

int RunRepack() {
  headroom::cli::RepackCommandOptions options;
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
  return headroom::cli::RunRepack(options, std::cout, std::cerr);
}

constexpr Command kCommands[] = {
    {"optimize-node", kOptimizeNodeUsage, &RunOptimizeNode},
    {"recommend", kRecommendUsage, &RunRecommend},
    {"simulate", kSimulateUsage, &RunSimulate},
    {"repack", kRepackUsage, &RunRepack},
    {"report", kReportUsage, &RunReport},
};

bool IsHelp(absl::string_view arg) { return arg == "--help" || arg == "-h" || arg == "-help"; }

// Rejects flags that no command defines, with our exit code rather than the flags library's.
bool AllFlagsKnown(const std::vector<char*>& args, absl::string_view command) {
  for (size_t i = 1; i < args.size(); ++i) {
    absl::string_view arg = args[i];
    if (arg == "--") break;
    if (!absl::StartsWith(arg, "-") || arg == "-") continue;
    arg.remove_prefix(absl::StartsWith(arg, "--") ? 2 : 1);
    const absl::string_view name = arg.substr(0, arg.find('='));
    const bool negated =
        absl::StartsWith(name, "no") && absl::FindCommandLineFlag(name.substr(2)) != nullptr;
    if (absl::FindCommandLineFlag(name) == nullptr && !negated) {
      std::string shown(name);
      std::replace(shown.begin(), shown.end(), '_', '-');
      std::cerr << "headroom " << command << ": unknown flag --" << shown << " (see 'headroom "
                << command << " --help')\n";
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kTopUsage;
    return headroom::cli::kExitBadInput;
  }
  const absl::string_view first = argv[1];
  if (IsHelp(first) || first == "help") {
    std::cout << kTopUsage;
    return headroom::cli::kExitOk;
  }
  if (first == "--version" || first == "version") {
    std::cout << "headroom " << kVersion << "\n";
    return headroom::cli::kExitOk;
  }
  const Command* command = nullptr;
  for (const Command& candidate : kCommands) {
    if (candidate.name == first) command = &candidate;
  }
  if (command == nullptr) {
    std::cerr << "headroom: unknown command \"" << first << "\"\n\n" << kTopUsage;
    return headroom::cli::kExitBadInput;
  }
  std::vector<std::string> raw;
  for (int i = 2; i < argc; ++i) {
    if (IsHelp(argv[i])) {
      std::cout << command->usage;
      return headroom::cli::kExitOk;
    }
    raw.emplace_back(argv[i]);
  }
  std::vector<std::string> joined = headroom::app::NormalizeFlagArgs(raw);
  std::vector<char*> args = {argv[0]};
  for (std::string& arg : joined) args.push_back(arg.data());
  if (!AllFlagsKnown(args, command->name)) return headroom::cli::kExitBadInput;
  absl::SetProgramUsageMessage(std::string(command->usage));
  const std::vector<char*> positional =
      absl::ParseCommandLine(static_cast<int>(args.size()), args.data());
  if (positional.size() > 1) {
    std::cerr << "headroom " << command->name << ": unexpected argument \"" << positional[1]
              << "\" (see 'headroom " << command->name << " --help')\n";
    return headroom::cli::kExitBadInput;
  }
  return command->run();
}
