#include "sim/usage_trace.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "sim/random.h"

namespace headroom::sim {
namespace {

constexpr int kMinutesPerDay = 24 * 60;
constexpr int64_t kMiB = 1 << 20;
// Values are kept in 32 bits: 2 million cores, 2 PiB, 4,000 years of minutes.
constexpr double kMaxValue = std::numeric_limits<int32_t>::max();

// Column positions of `required` in a header line (any order; other columns are ignored).
absl::StatusOr<std::vector<size_t>> HeaderColumns(absl::string_view line,
                                                  const std::vector<absl::string_view>& required,
                                                  absl::string_view file, size_t* width) {
  std::vector<std::string> names;
  for (absl::string_view field : absl::StrSplit(line, ',')) {
    names.push_back(absl::AsciiStrToLower(absl::StripAsciiWhitespace(field)));
  }
  *width = names.size();
  std::vector<size_t> columns;
  for (absl::string_view name : required) {
    const auto it = std::find(names.begin(), names.end(), name);
    if (it == names.end()) {
      return absl::InvalidArgumentError(absl::StrCat(file, ": line 1: missing column \"", name,
                                                     "\" (want ", absl::StrJoin(required, ","),
                                                     ")"));
    }
    columns.push_back(static_cast<size_t>(it - names.begin()));
  }
  return columns;
}

// A non-negative number rounded up to a whole unit, within 32 bits; nullopt otherwise.
std::optional<int32_t> WholeUnits(absl::string_view text) {
  text = absl::StripAsciiWhitespace(text);
  int64_t whole = 0;
  if (absl::SimpleAtoi(text, &whole)) {
    if (whole < 0 || whole > static_cast<int64_t>(kMaxValue)) return std::nullopt;
    return static_cast<int32_t>(whole);
  }
  double value = 0;
  if (!absl::SimpleAtod(text, &value) || !std::isfinite(value) || value < 0 ||
      std::ceil(value) > kMaxValue) {
    return std::nullopt;
  }
  return static_cast<int32_t>(std::ceil(value));
}

absl::string_view Trimmed(absl::string_view line) { return absl::StripSuffix(line, "\r"); }

}  // namespace

absl::StatusOr<UsageTraceParser> UsageTraceParser::Create(absl::string_view workloads_csv,
                                                          absl::string_view workloads_name,
                                                          absl::string_view usage_name) {
  UsageTraceParser parser;
  parser.usage_name_ = std::string(usage_name);
  const auto error = [&](int64_t line, absl::string_view message) {
    return absl::InvalidArgumentError(absl::StrCat(workloads_name, ": line ", line, ": ", message));
  };
  std::vector<size_t> columns;
  size_t width = 0;
  absl::flat_hash_map<std::string, std::pair<ResourceAmounts, int64_t>> workloads;
  int64_t line_number = 0;
  for (absl::string_view raw : absl::StrSplit(workloads_csv, '\n')) {
    ++line_number;
    const absl::string_view line = Trimmed(raw);
    if (absl::StripAsciiWhitespace(line).empty()) continue;
    if (columns.empty()) {
      absl::StatusOr<std::vector<size_t>> header =
          HeaderColumns(line, {"pod", "workload", "cpu_request_millicores", "memory_request_mib"},
                        workloads_name, &width);
      if (!header.ok()) return header.status();
      columns = *std::move(header);
      continue;
    }
    const std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    if (fields.size() != width) {
      return error(line_number, absl::StrCat("expected ", width, " fields, got ", fields.size()));
    }
    TracePod pod;
    pod.name = std::string(absl::StripAsciiWhitespace(fields[columns[0]]));
    pod.workload = std::string(absl::StripAsciiWhitespace(fields[columns[1]]));
    if (pod.name.empty() || pod.workload.empty()) {
      return error(line_number, "pod and workload must not be empty");
    }
    const std::optional<int32_t> cpu = WholeUnits(fields[columns[2]]);
    const std::optional<int32_t> memory = WholeUnits(fields[columns[3]]);
    if (!cpu.has_value() || !memory.has_value()) {
      return error(line_number,
                   absl::StrCat("cpu_request_millicores and memory_request_mib must be "
                                "non-negative numbers below 2^31, got \"",
                                fields[columns[2]], "\" and \"", fields[columns[3]], "\""));
    }
    pod.requests = {*cpu, *memory * kMiB};
    const auto [it, first] = workloads.try_emplace(pod.workload, pod.requests, line_number);
    if (!first && !(it->second.first == pod.requests)) {
      return error(line_number,
                   absl::StrCat("pod ", pod.name, " is a replica of workload ", pod.workload,
                                " but declares other requests than the replica on line ",
                                it->second.second, " (replicas share one pod template)"));
    }
    if (!parser.index_.try_emplace(pod.name, parser.trace_.pods.size()).second) {
      return error(line_number, absl::StrCat("pod ", pod.name, " appears twice"));
    }
    parser.trace_.pods.push_back(std::move(pod));
  }
  if (columns.empty()) return error(1, "empty file (want a header line)");
  if (parser.trace_.pods.empty()) return error(line_number, "no pods");
  parser.seen_.assign(parser.trace_.pods.size(), false);
  return parser;
}

absl::Status UsageTraceParser::LineError(int64_t line, absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat(usage_name_, ": line ", line, ": ", message));
}

absl::Status UsageTraceParser::AddUsageLine(absl::string_view raw, int64_t line_number) {
  const absl::string_view line = Trimmed(raw);
  if (absl::StripAsciiWhitespace(line).empty()) return absl::OkStatus();
  if (!header_read_) {
    size_t width = 0;
    absl::StatusOr<std::vector<size_t>> columns =
        HeaderColumns(line, {"pod", "minute", "cpu_millicores", "memory_mib"}, usage_name_, &width);
    if (!columns.ok()) return columns.status();
    if (*columns != std::vector<size_t>{0, 1, 2, 3}) {
      return LineError(line_number,
                       "the columns must be pod,minute,cpu_millicores,memory_mib in this order");
    }
    header_read_ = true;
    return absl::OkStatus();
  }
  // pod,minute,cpu,memory: split by hand, this runs for millions of rows.
  absl::string_view fields[4];
  size_t count = 0;
  absl::string_view rest = line;
  while (count < 4) {
    const size_t comma = rest.find(',');
    fields[count++] = rest.substr(0, comma);
    if (comma == absl::string_view::npos) {
      rest = {};
      break;
    }
    rest.remove_prefix(comma + 1);
    if (count == 4) return LineError(line_number, "expected 4 fields, got more");
  }
  if (count != 4) return LineError(line_number, absl::StrCat("expected 4 fields, got ", count));
  const absl::string_view name = absl::StripAsciiWhitespace(fields[0]);
  int64_t pod = current_;
  if (pod < 0 || trace_.pods[static_cast<size_t>(pod)].name != name) {
    const auto it = index_.find(name);
    if (it == index_.end()) {
      return LineError(line_number,
                       absl::StrCat("pod \"", name, "\" is not in the workloads file"));
    }
    pod = static_cast<int64_t>(it->second);
    if (seen_[it->second]) {
      return LineError(line_number,
                       absl::StrCat("rows of pod ", name,
                                    " resume after other pods' rows (the file must be sorted "
                                    "by pod, then minute)"));
    }
    seen_[it->second] = true;
    current_ = pod;
  }
  int64_t minute = 0;
  if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(fields[1]), &minute) || minute < 0 ||
      minute > static_cast<int64_t>(kMaxValue)) {
    return LineError(line_number,
                     absl::StrCat("minute \"", fields[1], "\" is not a whole number in [0, 2^31)"));
  }
  const std::optional<int32_t> cpu = WholeUnits(fields[2]);
  const std::optional<int32_t> memory = WholeUnits(fields[3]);
  if (!cpu.has_value() || !memory.has_value()) {
    return LineError(line_number,
                     absl::StrCat("cpu_millicores and memory_mib must be non-negative numbers "
                                  "below 2^31, got \"",
                                  fields[2], "\" and \"", fields[3], "\""));
  }
  std::vector<TraceSample>& samples = trace_.pods[static_cast<size_t>(pod)].samples;
  const TraceSample sample{static_cast<int32_t>(minute), *cpu, *memory};
  if (!samples.empty() && minute < samples.back().minute) {
    return LineError(line_number, absl::StrCat("minute ", minute, " of pod ", name,
                                               " comes after minute ", samples.back().minute,
                                               " (the file must be sorted by pod, then minute)"));
  }
  ++trace_.rows;
  if (!samples.empty() && minute == samples.back().minute) {
    samples.back() = sample;  // the later row of the same minute wins
  } else {
    samples.push_back(sample);
  }
  return absl::OkStatus();
}

absl::StatusOr<UsageTrace> UsageTraceParser::Finish() && {
  if (trace_.rows == 0) {
    return absl::InvalidArgumentError(absl::StrCat(usage_name_, ": no usage rows"));
  }
  std::erase_if(trace_.pods, [](const TracePod& pod) { return pod.samples.empty(); });
  std::map<int, int64_t> intervals;
  trace_.first_minute = std::numeric_limits<int>::max();
  trace_.last_minute = 0;
  for (const TracePod& pod : trace_.pods) {
    trace_.first_minute = std::min(trace_.first_minute, pod.samples.front().minute);
    trace_.last_minute = std::max(trace_.last_minute, pod.samples.back().minute);
    for (size_t i = 1; i < pod.samples.size(); ++i) {
      ++intervals[pod.samples[i].minute - pod.samples[i - 1].minute];
    }
  }
  trace_.resolution_minutes = 1;
  int64_t most = 0;
  for (const auto& [interval, count] : intervals) {
    if (interval <= kTraceGapMinutes && count > most) {
      most = count;
      trace_.resolution_minutes = interval;
    }
  }
  return std::move(trace_);
}

absl::StatusOr<UsageTrace> ParseUsageTrace(absl::string_view workloads_csv,
                                           absl::string_view usage_csv) {
  absl::StatusOr<UsageTraceParser> parser = UsageTraceParser::Create(workloads_csv);
  if (!parser.ok()) return parser.status();
  int64_t line_number = 0;
  for (absl::string_view line : absl::StrSplit(usage_csv, '\n')) {
    if (absl::Status status = parser->AddUsageLine(line, ++line_number); !status.ok()) {
      return status;
    }
  }
  return std::move(*parser).Finish();
}

int TraceStepMinutes(int resolution_minutes) {
  return resolution_minutes > 0 && resolution_minutes % 5 == 0 ? 5 : 1;
}

namespace {

// Reads one pod of the trace minute by minute: the value in force, 0 inside a gap, and
// whether the pod exists (from its first row through its last row's resolution).
class PodReader {
 public:
  PodReader(const TracePod& pod, int resolution) : samples_(pod.samples), hold_(resolution) {}

  struct Value {
    bool exists = false;
    int32_t cpu_millis = 0;
    int32_t memory_mib = 0;
  };

  // `minute` of the trace; any order (a forward scan from the last position, else a search).
  Value At(int minute) {
    if (minute < samples_.front().minute || minute >= samples_.back().minute + hold_) return {};
    if (next_ > samples_.size() || next_ == 0 || samples_[next_ - 1].minute > minute) {
      next_ = static_cast<size_t>(
          std::upper_bound(samples_.begin(), samples_.end(), minute,
                           [](int m, const TraceSample& s) { return m < s.minute; }) -
          samples_.begin());
    }
    while (next_ < samples_.size() && samples_[next_].minute <= minute) ++next_;
    const TraceSample& in_force = samples_[next_ - 1];
    const bool gap_follows =
        next_ == samples_.size() || samples_[next_].minute - in_force.minute > kTraceGapMinutes;
    if (gap_follows && minute >= in_force.minute + hold_) return {true, 0, 0};
    return {true, in_force.cpu_millis, in_force.memory_mib};
  }

 private:
  const std::vector<TraceSample>& samples_;
  int hold_;
  size_t next_ = 0;  // first sample after the position
};

// Fills one simulated pod from `source`, read `offset` minutes later in the trace (wrapping
// around [day_begin, day_begin + span) when `span` > 0). False when it never exists.
bool FillPod(const TracePod& source, int resolution, int window_start, int offset, int span,
             int minutes, int step, PodSpec& pod, std::vector<int64_t>& cpu,
             std::vector<int64_t>& memory) {
  PodReader reader(source, resolution);
  const int steps = minutes / step;
  cpu.assign(static_cast<size_t>(steps), 0);
  memory.assign(static_cast<size_t>(steps), 0);
  int first = -1;
  int last = -1;
  for (int s = 0; s < steps; ++s) {
    int64_t cpu_sum = 0;
    int32_t memory_max = 0;
    bool exists = false;
    for (int k = 0; k < step; ++k) {
      int minute = s * step + k + offset;
      if (span > 0) minute %= span;
      const PodReader::Value value = reader.At(window_start + minute);
      if (!value.exists) continue;
      exists = true;
      cpu_sum += value.cpu_millis;
      memory_max = std::max(memory_max, value.memory_mib);
    }
    if (!exists) continue;
    if (first < 0) first = s;
    last = s;
    cpu[static_cast<size_t>(s)] = (cpu_sum + step / 2) / step;
    memory[static_cast<size_t>(s)] = static_cast<int64_t>(memory_max) * kMiB;
  }
  if (first < 0) return false;
  pod.name = source.name;
  pod.workload = source.workload;
  pod.requests = source.requests;
  pod.start_minute = first * step;
  pod.end_minute = last + 1 >= steps ? PodSpec::kNeverEnds : (last + 1) * step;
  return true;
}

}  // namespace

absl::StatusOr<TraceReplay> ReplayTrace(const UsageTrace& trace, int minutes, int pods,
                                        uint64_t seed) {
  if (trace.pods.empty()) return absl::InvalidArgumentError("the usage trace has no pods");
  const int window_start = trace.first_minute / kMinutesPerDay * kMinutesPerDay;
  const int trace_days = trace.last_minute / kMinutesPerDay + 1 - window_start / kMinutesPerDay;
  const int window_days = (minutes + kMinutesPerDay - 1) / kMinutesPerDay;
  if (minutes <= 0 || window_days > trace_days) {
    return absl::InvalidArgumentError(absl::StrCat("--duration ", minutes / 60,
                                                   "h is longer than the usage trace (", trace_days,
                                                   " days from minute ", window_start, ")"));
  }
  if (pods < 0) return absl::InvalidArgumentError("--pods must not be negative");
  const int step = TraceStepMinutes(trace.resolution_minutes);
  TraceReplay replay;
  replay.window_start_minute = window_start;
  replay.usage.minutes = minutes / step * step;
  replay.usage.step_minutes = step;
  const auto add = [&](const TracePod& source, int offset_days, int span) {
    PodSpec pod;
    std::vector<int64_t> cpu;
    std::vector<int64_t> memory;
    if (!FillPod(source, trace.resolution_minutes, window_start, offset_days * kMinutesPerDay, span,
                 replay.usage.minutes, step, pod, cpu, memory)) {
      return false;
    }
    if (offset_days > 0) {
      const std::string suffix = absl::StrCat("+", offset_days, "d");
      pod.name += suffix;
      pod.workload += suffix;
    }
    replay.pods.push_back(std::move(pod));
    replay.usage.cpu_millis.push_back(std::move(cpu));
    replay.usage.memory_bytes.push_back(std::move(memory));
    return true;
  };

  // The trace's own pods present in the window (a seeded sample of `pods` when fewer).
  std::vector<size_t> present;
  for (size_t p = 0; p < trace.pods.size(); ++p) {
    const TracePod& pod = trace.pods[p];
    if (pod.samples.front().minute < window_start + replay.usage.minutes &&
        pod.samples.back().minute + trace.resolution_minutes > window_start) {
      present.push_back(p);
    }
  }
  if (present.empty()) {
    return absl::InvalidArgumentError("no pod of the usage trace runs in the simulated window");
  }
  Rng rng(seed ^ 0x7ace7ace7aceULL);
  std::vector<size_t> chosen = present;
  if (pods > 0 && static_cast<size_t>(pods) < present.size()) {
    for (size_t i = 0; i < static_cast<size_t>(pods); ++i) {
      std::swap(chosen[i], chosen[static_cast<size_t>(rng.UniformInt(
                               static_cast<int64_t>(i), static_cast<int64_t>(chosen.size()) - 1))]);
    }
    chosen.resize(static_cast<size_t>(pods));
    std::sort(chosen.begin(), chosen.end());
  }
  for (size_t p : chosen) add(trace.pods[p], 0, 0);

  // Copies, each a whole number of days later; wrapping only when the window leaves no room.
  const int room_days = trace_days - window_days;
  const int span = room_days >= 1 ? 0 : trace_days * kMinutesPerDay;
  const int max_offset = room_days >= 1 ? room_days : trace_days - 1;
  if (pods > static_cast<int>(replay.pods.size()) && max_offset < 1) {
    return absl::InvalidArgumentError(
        "--pods above the trace's own count needs a trace of at least two days");
  }
  const int64_t capacity =
      static_cast<int64_t>(replay.pods.size()) + static_cast<int64_t>(present.size()) * max_offset;
  if (pods > capacity) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--pods ", pods, ": this trace and window give at most ", capacity,
        " distinct pods (each pod once, and once per whole day it can be shifted by)"));
  }
  absl::flat_hash_set<std::pair<size_t, int>> used;
  int64_t attempts = 0;
  while (pods > static_cast<int>(replay.pods.size())) {
    const size_t source =
        present[static_cast<size_t>(rng.UniformInt(0, static_cast<int64_t>(present.size()) - 1))];
    const int offset = static_cast<int>(rng.UniformInt(1, max_offset));
    if (!used.insert({source, offset}).second || !add(trace.pods[source], offset, span)) {
      if (++attempts > 1000 * static_cast<int64_t>(pods)) {
        return absl::InvalidArgumentError(
            "could not find enough pods of the trace running in the window to copy");
      }
      continue;
    }
    ++replay.copies;
  }
  return replay;
}

}  // namespace headroom::sim
