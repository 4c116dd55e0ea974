#include "cli/simulate_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/display.h"
#include "cli/exit_codes.h"
#include "cli/input_file.h"
#include "cli/usage_trace_file.h"
#include "shared/disruption_window.h"
#include "shared/quantity.h"
#include "sim/cluster_simulator.h"
#include "sim/cronjobs.h"
#include "sim/random.h"
#include "sim/report.h"
#include "sim/trace_data.h"
#include "sim/usage_generator.h"
#include "sim/usage_trace.h"

namespace headroom::cli {
namespace {

using nlohmann::ordered_json;

absl::StatusOr<sim::NodeShape> ParseNodeShape(absl::string_view text) {
  const std::vector<absl::string_view> parts = absl::StrSplit(text, ',');
  if (parts.size() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("--node-shape: want CPU,MEMORY such as 96,512Gi, got \"", text, "\""));
  }
  absl::StatusOr<int64_t> cpu = ParseCpuMillis(parts[0], "--node-shape CPU");
  if (!cpu.ok()) return cpu.status();
  absl::StatusOr<int64_t> memory = ParseMemoryBytes(parts[1], "--node-shape memory");
  if (!memory.ok()) return memory.status();
  return sim::NodeShape{std::string(text), {*cpu, *memory}};
}

absl::StatusOr<std::vector<sim::PolicyKind>> ParsePolicies(absl::string_view text) {
  std::vector<sim::PolicyKind> out;
  for (absl::string_view name : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    absl::StatusOr<SizingPolicy> policy = ParseSizingPolicy(name);
    if (!policy.ok()) {
      return absl::InvalidArgumentError(absl::StrCat("--policies: ", policy.status().message()));
    }
    out.push_back(*policy);
  }
  if (out.empty()) return absl::InvalidArgumentError("--policies: name at least one policy");
  return out;
}

}  // namespace

absl::StatusOr<Annotations> ParsePodAnnotations(absl::string_view text) {
  Annotations annotations;
  if (absl::StripAsciiWhitespace(text).empty()) return annotations;
  const nlohmann::json parsed = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded() || !parsed.is_object()) {
    return absl::InvalidArgumentError(
        "--pod-annotations: want a JSON object such as {\"headroom.dev/cpu-margin\":\"20%\"}");
  }
  for (const auto& [key, value] : parsed.items()) {
    if (!value.is_string()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--pod-annotations: the value of ", key, " is not a string"));
    }
    annotations[key] = value.get<std::string>();
  }
  const WorkloadPolicy policy = ResolveWorkloadPolicy({}, annotations, "ReplicaSet", 2);
  if (!policy.warnings.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--pod-annotations: ", policy.warnings.front().message));
  }
  return annotations;
}

namespace {

// --pods when not given: 200 of the pod list (a usage trace replays all of its pods).
constexpr int kDefaultPods = 200;

// A seeded sample of `count` pods, in list order (0 or more than the list: all of them).
std::vector<sim::PodSpec> SamplePods(std::vector<sim::PodSpec> pods, int count, uint64_t seed) {
  if (count <= 0 || static_cast<size_t>(count) >= pods.size()) return pods;
  sim::Rng rng(seed ^ 0x5eed5eed5eedULL);
  std::vector<size_t> index(pods.size());
  std::iota(index.begin(), index.end(), size_t{0});
  for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
    std::swap(index[i], index[static_cast<size_t>(rng.UniformInt(
                            static_cast<int64_t>(i), static_cast<int64_t>(index.size()) - 1))]);
  }
  index.resize(static_cast<size_t>(count));
  std::sort(index.begin(), index.end());
  std::vector<sim::PodSpec> sample;
  for (size_t i : index) sample.push_back(std::move(pods[i]));
  return sample;
}

// The cold-start scenario: `fraction` of the pods become new workloads (no replicas, no
// history) created at a random minute of the day after the warm-up, which use 5% of their
// level for their first 2-6 hours, then all of it.
void MarkColdStarts(std::vector<sim::PodSpec>& pods, double fraction, absl::Duration warmup,
                    absl::Duration duration, uint64_t seed) {
  if (fraction <= 0) return;
  sim::Rng rng(seed ^ 0xc01d5747ULL);
  const int64_t first = absl::ToInt64Minutes(warmup);
  const int64_t last = std::min(absl::ToInt64Minutes(duration), first + 24 * 60) - 1;
  for (sim::PodSpec& pod : pods) {
    if (rng.Uniform(0, 1) >= fraction || last <= first) continue;
    pod.workload = pod.name + "-new";
    pod.start_minute = static_cast<int>(rng.UniformInt(first, last));
    pod.ramp_minutes = static_cast<int>(rng.UniformInt(120, 360));
  }
}

// A one-line progress bar on a terminal; nothing otherwise.
class ProgressBar {
 public:
  explicit ProgressBar(bool enabled) : enabled_(enabled) {}
  void Update(double fraction) {
    if (!enabled_) return;
    const int width = 40;
    const int filled = static_cast<int>(fraction * width);
    std::fprintf(stderr, "\rsimulating [%s%s] %3.0f%%", std::string(filled, '#').c_str(),
                 std::string(width - filled, '.').c_str(), 100 * fraction);
    if (fraction >= 1) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  }

 private:
  bool enabled_;
};

}  // namespace

std::string DefaultDataDir() { return HEADROOM_DEFAULT_DATA_DIR; }

int RunSimulate(const SimulateOptions& options, std::ostream& out, std::ostream& err) {
  const auto fail = [&](const absl::Status& status) {
    err << "headroom simulate: " << status.message() << "\n";
    return absl::IsInvalidArgument(status) || absl::IsOutOfRange(status) ? kExitBadInput
                                                                         : kExitFailure;
  };
  if (options.progress != "auto" && options.progress != "always" && options.progress != "never") {
    return fail(absl::InvalidArgumentError("--progress must be auto, always or never"));
  }
  const absl::StatusOr<ScoringConfig> scoring =
      ScoringFromFlags(options.scoring, options.scoring_target);
  if (!scoring.ok()) return fail(scoring.status());
  sim::Autoscaler autoscaler = sim::Autoscaler::kClusterAutoscaler;
  if (options.autoscaler == "karpenter") {
    autoscaler = sim::Autoscaler::kKarpenter;
  } else if (options.autoscaler != "cluster-autoscaler") {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "--autoscaler must be cluster-autoscaler or karpenter, got \"", options.autoscaler, "\"")));
  }
  if (options.pods < -1) return fail(absl::InvalidArgumentError("--pods must not be negative"));
  const bool trace_input = !options.usage_trace.empty();
  if (trace_input &&
      (!options.pod_list.empty() || !options.memory_series.empty() || !options.cpu_series.empty() ||
       options.cold_start > 0 || options.cronjobs > 0)) {
    return fail(absl::InvalidArgumentError(
        "--usage-trace replays real usage: it does not combine with --pod-list, "
        "--memory-series, --cpu-series, --cold-start or --cronjobs"));
  }
  if (!(options.cold_start >= 0 && options.cold_start <= 1)) {
    return fail(absl::InvalidArgumentError("--cold-start must be a fraction in [0, 1]"));
  }
  if (!(options.cronjobs >= 0 && options.cronjobs <= 1)) {
    return fail(absl::InvalidArgumentError("--cronjobs must be a fraction in [0, 1]"));
  }
  if (options.cronjob_identity != "cronjob" && options.cronjob_identity != "run") {
    return fail(absl::InvalidArgumentError(absl::StrCat(
        "--cronjob-identity must be cronjob or run, got \"", options.cronjob_identity, "\"")));
  }
  if (options.nodes < 0) return fail(absl::InvalidArgumentError("--nodes must not be negative"));
  if (absl::Status stats = options.headroom.stats.Validate(); !stats.ok()) {
    return fail(absl::InvalidArgumentError(absl::StrCat("--spike-shortfall: ", stats.message())));
  }
  if (options.duration < absl::Hours(1) ||
      (!trace_input && options.duration > absl::Hours(24 * 28))) {
    return fail(absl::InvalidArgumentError(
        trace_input ? "--duration must be at least 1h"
                    : "--duration must be between 1h and 672h (28 days; a --usage-trace may "
                      "run as long as the trace)"));
  }
  absl::StatusOr<sim::NodeShape> shape = ParseNodeShape(options.node_shape);
  if (!shape.ok()) return fail(shape.status());
  absl::StatusOr<std::vector<sim::PolicyKind>> policies = ParsePolicies(options.policies);
  if (!policies.ok()) return fail(policies.status());
  absl::StatusOr<Annotations> pod_annotations = ParsePodAnnotations(options.pod_annotations);
  if (!pod_annotations.ok()) return fail(pod_annotations.status());
  absl::StatusOr<std::vector<DisruptionWindow>> windows =
      ParseDisruptionWindows(options.disruption_window);
  if (!windows.ok()) {
    return fail(absl::InvalidArgumentError(
        absl::StrCat("--disruption-window: ", windows.status().message())));
  }

  const int minutes = static_cast<int>(absl::ToInt64Minutes(options.duration));
  const auto started = std::chrono::steady_clock::now();
  std::vector<sim::PodSpec> pods;
  sim::UsageTraces usage;
  ordered_json input_files;
  std::string title_pods;
  if (trace_input) {
    absl::StatusOr<sim::UsageTrace> trace = LoadUsageTrace(options.usage_trace);
    if (!trace.ok()) return fail(trace.status());
    absl::StatusOr<sim::TraceReplay> replay =
        sim::ReplayTrace(*trace, minutes, std::max(0, options.pods), options.seed);
    if (!replay.ok()) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat(options.usage_trace, ": ", replay.status().message())));
    }
    pods = std::move(replay->pods);
    usage = std::move(replay->usage);
    input_files = {{"usageTrace", options.usage_trace},
                   {"traceRows", trace->rows},
                   {"tracePods", trace->pods.size()},
                   {"traceResolutionMinutes", trace->resolution_minutes},
                   {"traceWindowStartMinute", replay->window_start_minute},
                   {"dayOffsetCopies", replay->copies},
                   {"stepMinutes", usage.step_minutes}};
    title_pods = absl::StrCat(pods.size(), " pods of ", options.usage_trace);
  } else {
    const std::string pod_path =
        options.pod_list.empty() ? options.data_dir + "/openb/pods.csv" : options.pod_list;
    const std::string memory_path = options.memory_series.empty()
                                        ? options.data_dir + "/genai-memory/series.csv"
                                        : options.memory_series;
    absl::StatusOr<std::string> pod_text = ReadInput(pod_path);
    if (!pod_text.ok()) return fail(pod_text.status());
    absl::StatusOr<std::vector<sim::PodSpec>> all_pods = sim::ParseOpenbPods(*pod_text);
    if (!all_pods.ok())
      return fail(
          absl::InvalidArgumentError(absl::StrCat(pod_path, ": ", all_pods.status().message())));
    absl::StatusOr<std::string> memory_text = ReadInput(memory_path);
    if (!memory_text.ok()) return fail(memory_text.status());
    absl::StatusOr<std::vector<sim::MemorySeries>> memory = sim::ParseMemorySeries(*memory_text);
    if (!memory.ok())
      return fail(
          absl::InvalidArgumentError(absl::StrCat(memory_path, ": ", memory.status().message())));
    std::optional<std::vector<sim::MemorySeries>> cpu;
    if (!options.cpu_series.empty()) {
      absl::StatusOr<std::string> cpu_text = ReadInput(options.cpu_series);
      if (!cpu_text.ok()) return fail(cpu_text.status());
      absl::StatusOr<std::vector<sim::MemorySeries>> parsed = sim::ParseMemorySeries(*cpu_text);
      if (!parsed.ok())
        return fail(absl::InvalidArgumentError(
            absl::StrCat(options.cpu_series, ": ", parsed.status().message())));
      cpu = *std::move(parsed);
    }
    pods = SamplePods(*std::move(all_pods), options.pods < 0 ? kDefaultPods : options.pods,
                      options.seed);
    MarkColdStarts(pods, options.cold_start, options.warmup, options.duration, options.seed);
    usage =
        sim::GenerateUsage(pods, *memory, cpu.has_value() ? &*cpu : nullptr, minutes, options.seed);
    input_files = {{"podList", pod_path},
                   {"memorySeries", memory_path},
                   {"cpuSeries", options.cpu_series.empty() ? ordered_json("synthetic")
                                                            : ordered_json(options.cpu_series)}};
    title_pods = absl::StrCat(pods.size(), " OpenB pods");
    if (options.cronjobs > 0) {
      const sim::CronJobScenario scenario{options.cronjobs, options.cronjob_identity == "cronjob"};
      sim::CronJobRuns made = sim::MakeCronJobs(pods, usage, scenario, options.seed);
      absl::StrAppend(&title_pods, ", ", made.cronjobs, " of them CronJobs (", made.runs, " runs)");
      input_files["cronJobs"] = made.cronjobs;
      input_files["cronJobRuns"] = made.runs;
      pods = std::move(made.pods);
      usage = std::move(made.usage);
    }
  }
  for (const sim::PodSpec& pod : pods) {
    if (pod.requests.cpu_millis > shape->allocatable.cpu_millis ||
        pod.requests.memory_bytes > shape->allocatable.memory_bytes) {
      return fail(absl::InvalidArgumentError(
          absl::StrCat("pod ", pod.name, " (", FormatCpuMillis(pod.requests.cpu_millis), ", ",
                       FormatMemoryBytes(pod.requests.memory_bytes), ") is larger than a node (",
                       options.node_shape, "); use a larger --node-shape")));
    }
  }
  sim::SimulationConfig config;
  config.node_shape = *shape;
  config.initial_nodes = options.nodes;
  config.autoscale = options.nodes == 0;
  config.memory_limit_ratio = options.memory_limit_ratio;
  config.memory_throttling_factor = options.memory_throttling_factor;
  config.scoring = *scoring;
  config.autoscaler = autoscaler;
  config.policies = *policies;
  config.warmup_minutes = static_cast<int>(absl::ToInt64Minutes(options.warmup));
  config.headroom = options.headroom;
  config.headroom.pod_annotations = *pod_annotations;
  config.headroom.disruption_windows = *windows;
  if (absl::Status status = config.Validate(usage.minutes); !status.ok()) return fail(status);
  ProgressBar bar(options.progress == "always" ||
                  (options.progress == "auto" && ::isatty(STDERR_FILENO)));
  const sim::SimulationResult result =
      sim::Simulate(pods, usage, config, [&bar](double fraction) { bar.Update(fraction); });
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  ordered_json inputs = input_files;
  inputs.update(ordered_json{
      {"pods", pods.size()},
      {"seed", options.seed},
      {"durationMinutes", minutes},
      {"warmupMinutes", config.warmup_minutes},
      {"nodeShape", options.node_shape},
      {"nodes", options.nodes == 0 ? ordered_json("autoscaled") : ordered_json(options.nodes)},
      {"memoryLimitRatio", options.memory_limit_ratio},
      {"memoryThrottlingFactor", options.memory_throttling_factor},
      {"scoring", options.scoring},
      {"autoscaler", options.nodes == 0 ? ordered_json(options.autoscaler) : ordered_json(nullptr)},
      {"scoringTarget", options.scoring_target},
      {"coldStart", options.cold_start},
      {"cronJobs", options.cronjobs},
      {"cronJobIdentity", options.cronjob_identity},
      {"headroom",
       {{"minHistory", absl::FormatDuration(options.headroom.actions.guard.min_history)},
        {"allowBelowDeclared", options.headroom.allow_below_declared},
        {"allowDisruption", options.headroom.allow_disruption},
        {"spikeShortfall", options.headroom.stats.cpu_spike_shortfall},
        {"profileWindow", absl::FormatDuration(options.headroom.stats.profile_window)},
        {"memoryPressureThreshold", options.headroom.memory_pressure.stall_share},
        {"memoryPressureDuration",
         absl::FormatDuration(options.headroom.memory_pressure.sustained)},
        {"podAnnotations", *pod_annotations},
        {"disruptionWindow", DescribeDisruptionWindows(*windows)},
        {"maxShrinkStep", options.headroom.actions.guard.max_shrink_step},
        {"shrinkInterval", absl::FormatDuration(options.headroom.actions.guard.shrink_interval)},
        {"resizeMinChange", options.headroom.actions.guard.resize_threshold.fraction},
        {"resizeMinCpuMillis", options.headroom.actions.guard.resize_threshold.cpu_millis},
        {"resizeMinMemoryBytes", options.headroom.actions.guard.resize_threshold.memory_bytes},
        {"cpuEvictionAfter", absl::FormatDuration(options.headroom.actions.cpu_eviction_after)},
        {"evictionsPerMinute", options.headroom.budget.cluster_per_minute},
        {"evictionsPerNodePerHour", options.headroom.budget.per_node_per_hour}}},
  });
  std::error_code error;
  std::filesystem::create_directories(options.output_dir, error);
  if (error) {
    return fail(absl::UnavailableError(
        absl::StrCat("cannot create ", options.output_dir, ": ", error.message())));
  }
  const std::string json_path = options.output_dir + "/summary.json";
  const std::string svg_path = options.output_dir + "/chart.svg";
  const std::string title =
      absl::StrFormat("%s over %s (seed %d): requested vs used per policy", title_pods,
                      absl::FormatDuration(options.duration), options.seed);
  std::ofstream(json_path) << sim::ResultJson(result, inputs).dump(2) << "\n";
  std::ofstream(svg_path) << sim::ResultSvg(result, title);

  out << absl::StrFormat(
      "Simulated %d pods for %s (summary after a %s warm-up) under %d policies in %.1f s.\n\n",
      pods.size(), absl::FormatDuration(options.duration), absl::FormatDuration(options.warmup),
      policies->size(), seconds);
  out << FormatTable(sim::SummaryRows(result));
  out << "\n" << sim::OracleAndRates(result);
  if (const std::string savings = sim::SavingsAgainstStatic(result); !savings.empty()) {
    out << "\n" << savings;
  }
  out << "\nWrote " << json_path << " and " << svg_path << "\n";
  return kExitOk;
}

}  // namespace headroom::cli
