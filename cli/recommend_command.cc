#include "cli/recommend_command.h"

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/display.h"
#include "cli/exit_codes.h"
#include "cli/input_file.h"
#include "nlohmann/json.hpp"
#include "shared/crane_recommender.h"
#include "shared/sizing.h"
#include "shared/usage_stats.h"
#include "shared/vpa_recommender.h"

namespace headroom::cli {
namespace {

using nlohmann::ordered_json;

// One policy's answer for one container.
struct PolicyResult {
  std::string policy;
  std::optional<ResourceAmounts> request;  // nullopt: not enough history
  std::optional<int64_t> memory_limit;
  std::string details;  // for the table
  ordered_json json;    // the full answer
};

ordered_json Amounts(const ResourceAmounts& amounts) {
  return {{"cpuMillis", amounts.cpu_millis}, {"memoryBytes", amounts.memory_bytes}};
}

PolicyResult HeadroomPolicy(const ContainerUsage& usage, absl::Time now) {
  PolicyResult result{"headroom", std::nullopt, std::nullopt, "", ordered_json::object()};
  ContainerUsageStats stats;
  for (const UsageSample& sample : usage.samples) {
    // Input order is sorted, so Add* cannot fail on time order.
    if (sample.cpu_millis.has_value()) (void)stats.AddCpu(sample.at, *sample.cpu_millis);
    if (sample.memory_bytes.has_value()) (void)stats.AddMemory(sample.at, *sample.memory_bytes);
  }
  for (const OomSample& oom : usage.ooms) stats.RecordOom(oom.at, oom.memory_bytes);
  const UsageSnapshot snapshot = stats.Snapshot(now);
  if (!snapshot.cpu.has_value() || !snapshot.memory.has_value()) {
    result.details = "no CPU or memory samples in the base windows (10m / 30m) before the last";
    result.json = {{"error", result.details}};
    return result;
  }
  const ContainerSizing sizing = SizeForAdmission(*snapshot.cpu, *snapshot.memory);
  result.request = ResourceAmounts{sizing.cpu_request_millis, sizing.memory_request_bytes};
  result.memory_limit = sizing.memory_limit_bytes;
  result.details = absl::StrCat(
      "request = this hour's peak; base ", DisplayCpu(snapshot.cpu->base_millis), " / ",
      DisplayMemory(snapshot.memory->base_bytes), " + a share of one headroom once placed");
  if (snapshot.memory->oom_bytes > 0) {
    absl::StrAppend(&result.details, "; OOM at ", DisplayMemory(snapshot.memory->oom_bytes));
  }
  result.json = {
      {"request", Amounts(*result.request)},
      {"cpuLimitMillis", nullptr},
      {"memoryLimitBytes", sizing.memory_limit_bytes},
      {"base", Amounts({snapshot.cpu->base_millis, snapshot.memory->base_bytes})},
      {"peak", Amounts({snapshot.cpu->peak_millis, snapshot.memory->peak_bytes})},
      {"memoryMax7dBytes", snapshot.memory->max_7d_bytes},
      {"memoryAtOomBytes", snapshot.memory->oom_bytes},
  };
  return result;
}

PolicyResult VpaPolicy(const ContainerUsage& usage) {
  PolicyResult result{"vpa", std::nullopt, std::nullopt, "", ordered_json::object()};
  VpaContainerModel model;
  // Replay samples and OOMs in time order, as the recommender would have seen them.
  size_t next_oom = 0;
  std::vector<std::string> discarded;
  const auto record_ooms_until = [&](std::optional<absl::Time> until) {
    while (next_oom < usage.ooms.size() && (!until || usage.ooms[next_oom].at <= *until)) {
      const OomSample& oom = usage.ooms[next_oom++];
      if (absl::Status status = model.RecordOom(oom.at, oom.memory_bytes); !status.ok()) {
        discarded.emplace_back(status.message());
      }
    }
  };
  for (const UsageSample& sample : usage.samples) {
    record_ooms_until(sample.at);
    if (sample.cpu_millis.has_value()) model.AddCpuSample(sample.at, *sample.cpu_millis);
    if (sample.memory_bytes.has_value()) model.AddMemorySample(sample.at, *sample.memory_bytes);
  }
  record_ooms_until(std::nullopt);
  const std::optional<VpaRecommendation> recommendation = model.Recommend();
  if (!recommendation.has_value()) {
    result.details = "no samples";
    result.json = {{"error", result.details}};
    return result;
  }
  result.request = recommendation->target;
  result.details = absl::StrFormat("bounds %s-%s / %s-%s, confidence %.1f days",
                                   DisplayCpu(recommendation->lower_bound.cpu_millis),
                                   DisplayCpu(recommendation->upper_bound.cpu_millis),
                                   DisplayMemory(recommendation->lower_bound.memory_bytes),
                                   DisplayMemory(recommendation->upper_bound.memory_bytes),
                                   recommendation->confidence_days);
  result.json = {
      {"target", Amounts(recommendation->target)},
      {"lowerBound", Amounts(recommendation->lower_bound)},
      {"upperBound", Amounts(recommendation->upper_bound)},
      {"uncappedTarget", Amounts(recommendation->uncapped_target)},
      {"confidenceDays", recommendation->confidence_days},
  };
  if (!discarded.empty()) result.json["discardedOoms"] = discarded;
  return result;
}

PolicyResult CranePolicy(const ContainerUsage& usage, absl::Time now) {
  PolicyResult result{"crane", std::nullopt, std::nullopt, "", ordered_json::object()};
  const std::optional<CraneRecommendation> recommendation =
      CraneRecommend(usage.samples, usage.ooms, now);
  if (!recommendation.has_value()) {
    result.details = "needs CPU and memory samples within the last 168h";
    result.json = {{"error", result.details}};
    return result;
  }
  result.request = recommendation->request;
  result.details =
      recommendation->oom_protected ? "P99 + 15%, raised by OOM protection" : "P99 + 15%";
  result.json = {{"request", Amounts(recommendation->request)},
                 {"oomProtected", recommendation->oom_protected}};
  return result;
}

}  // namespace

absl::StatusOr<std::string> RecommendText(absl::string_view text, UsageFormat format,
                                          RecommendOutput output) {
  absl::StatusOr<UsageByContainer> usage = ParseUsage(text, format);
  if (!usage.ok()) return usage.status();
  std::vector<std::vector<std::string>> table = {
      {"CONTAINER", "POLICY", "CPU REQUEST", "MEMORY REQUEST", "MEMORY LIMIT", "DETAILS"}};
  ordered_json containers = ordered_json::array();
  for (const auto& [name, container] : *usage) {
    // Each container is judged as of its own last sample or OOM.
    absl::Time now = absl::InfinitePast();
    if (!container.samples.empty()) now = container.samples.back().at;
    if (!container.ooms.empty()) now = std::max(now, container.ooms.back().at);
    const std::vector<PolicyResult> results = {HeadroomPolicy(container, now), VpaPolicy(container),
                                               CranePolicy(container, now)};
    ordered_json policies = ordered_json::object();
    for (const PolicyResult& result : results) {
      policies[result.policy] = result.json;
      table.push_back(
          {name, result.policy, result.request ? DisplayCpu(result.request->cpu_millis) : "-",
           result.request ? DisplayMemory(result.request->memory_bytes) : "-",
           result.memory_limit ? DisplayMemory(*result.memory_limit) : "-", result.details});
    }
    containers.push_back({{"container", name},
                          {"samples", container.samples.size()},
                          {"ooms", container.ooms.size()},
                          {"asOf", absl::FormatTime(absl::RFC3339_sec, now, absl::UTCTimeZone())},
                          {"policies", std::move(policies)}});
  }
  if (output == RecommendOutput::kJson) {
    return ordered_json{{"containers", std::move(containers)}}.dump(2) + "\n";
  }
  return FormatTable(table);
}

int RunRecommend(absl::string_view input, absl::string_view format, absl::string_view output,
                 std::ostream& out, std::ostream& err) {
  if (input.empty()) {
    err << "headroom recommend: --input is required (a file, or - for standard input)\n";
    return kExitBadInput;
  }
  UsageFormat usage_format;
  if (format == "auto") {
    usage_format = UsageFormat::kAuto;
  } else if (format == "csv") {
    usage_format = UsageFormat::kCsv;
  } else if (format == "json") {
    usage_format = UsageFormat::kJson;
  } else {
    err << "headroom recommend: --format must be auto, csv or json, got \"" << format << "\"\n";
    return kExitBadInput;
  }
  RecommendOutput output_kind;
  if (output == "table") {
    output_kind = RecommendOutput::kTable;
  } else if (output == "json") {
    output_kind = RecommendOutput::kJson;
  } else {
    err << "headroom recommend: --output must be table or json, got \"" << output << "\"\n";
    return kExitBadInput;
  }
  absl::StatusOr<std::string> text = ReadInput(input);
  if (!text.ok()) {
    err << "headroom recommend: " << text.status().message() << "\n";
    return absl::IsInvalidArgument(text.status()) ? kExitBadInput : kExitFailure;
  }
  absl::StatusOr<std::string> result = RecommendText(*text, usage_format, output_kind);
  if (!result.ok()) {
    err << "headroom recommend: " << input << ": " << result.status().message() << "\n";
    return absl::IsInvalidArgument(result.status()) || absl::IsOutOfRange(result.status())
               ? kExitBadInput
               : kExitFailure;
  }
  out << *result;
  return kExitOk;
}

}  // namespace headroom::cli
