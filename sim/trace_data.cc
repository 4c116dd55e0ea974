#include "sim/trace_data.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace headroom::sim {
namespace {

constexpr int64_t kMiB = 1 << 20;
// Larger MiB counts overflow 64-bit bytes.
constexpr int64_t kMaxMiB = std::numeric_limits<int64_t>::max() / kMiB;

// Splits CSV text into rows of fields (no quoting), skipping blank lines; keeps line numbers.
struct CsvRow {
  size_t line;
  std::vector<absl::string_view> fields;
};

std::vector<CsvRow> SplitCsv(absl::string_view text) {
  std::vector<CsvRow> rows;
  size_t line = 0;
  for (absl::string_view raw : absl::StrSplit(text, '\n')) {
    ++line;
    raw = absl::StripSuffix(raw, "\r");
    if (absl::StripAsciiWhitespace(raw).empty()) continue;
    rows.push_back({line, absl::StrSplit(raw, ',')});
  }
  return rows;
}

// Column positions by header name.
absl::StatusOr<absl::flat_hash_map<std::string, size_t>> Header(
    const std::vector<CsvRow>& rows, absl::string_view what,
    const std::vector<std::string>& required) {
  if (rows.empty()) return absl::InvalidArgumentError(absl::StrCat(what, ": empty input"));
  absl::flat_hash_map<std::string, size_t> columns;
  for (size_t i = 0; i < rows[0].fields.size(); ++i) {
    columns[absl::AsciiStrToLower(absl::StripAsciiWhitespace(rows[0].fields[i]))] = i;
  }
  for (const std::string& name : required) {
    if (!columns.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, ": line 1: missing column \"", name, "\""));
    }
  }
  return columns;
}

absl::StatusOr<int64_t> Int(const CsvRow& row, size_t column, absl::string_view name,
                            absl::string_view what) {
  int64_t value = 0;
  if (column >= row.fields.size() ||
      !absl::SimpleAtoi(absl::StripAsciiWhitespace(row.fields[column]), &value) || value < 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": line ", row.line, ": column ", name,
                                                   " is not a non-negative integer"));
  }
  return value;
}

absl::StatusOr<double> Fraction(absl::string_view text, size_t line, absl::string_view what) {
  double value = 0;
  if (!absl::SimpleAtod(absl::StripAsciiWhitespace(text), &value) || !std::isfinite(value)) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": line ", line, ": \"", text, "\" is not a number"));
  }
  return std::max(0.0, value);  // the anonymised trace has a few -0.0 entries
}

}  // namespace

absl::StatusOr<std::vector<PodSpec>> ParseOpenbPods(absl::string_view text) {
  const std::vector<CsvRow> rows = SplitCsv(text);
  absl::StatusOr<absl::flat_hash_map<std::string, size_t>> columns =
      Header(rows, "pods", {"name", "cpu_milli", "memory_mib"});
  if (!columns.ok()) return columns.status();
  const auto column = [&](const char* name) {
    auto it = columns->find(name);
    return it == columns->end() ? SIZE_MAX : it->second;
  };
  std::vector<PodSpec> pods;
  absl::flat_hash_set<std::string> names;
  for (size_t i = 1; i < rows.size(); ++i) {
    const CsvRow& row = rows[i];
    if (row.fields.size() != rows[0].fields.size()) {
      return absl::InvalidArgumentError(absl::StrCat("pods: line ", row.line, ": expected ",
                                                     rows[0].fields.size(), " fields, got ",
                                                     row.fields.size()));
    }
    if (const size_t gpu = column("num_gpu"); gpu != SIZE_MAX) {
      absl::StatusOr<int64_t> gpus = Int(row, gpu, "num_gpu", "pods");
      if (!gpus.ok()) return gpus.status();
      if (*gpus > 0) continue;
    }
    PodSpec pod;
    pod.name = std::string(absl::StripAsciiWhitespace(row.fields[column("name")]));
    absl::StatusOr<int64_t> cpu = Int(row, column("cpu_milli"), "cpu_milli", "pods");
    if (!cpu.ok()) return cpu.status();
    absl::StatusOr<int64_t> memory = Int(row, column("memory_mib"), "memory_mib", "pods");
    if (!memory.ok()) return memory.status();
    if (*memory > kMaxMiB) {
      return absl::InvalidArgumentError(
          absl::StrCat("pods: line ", row.line, ": memory_mib ", *memory, " is too large"));
    }
    pod.requests = {*cpu, *memory * kMiB};
    if (const size_t qos = column("qos"); qos != SIZE_MAX) {
      pod.qos = std::string(absl::StripAsciiWhitespace(row.fields[qos]));
    }
    pod.workload = pod.name;
    if (const size_t created = column("creation_time"); created != SIZE_MAX) {
      pod.workload = absl::StrCat("openb-", absl::StripAsciiWhitespace(row.fields[created]), "-",
                                  *cpu, "-", *memory, "-", pod.qos);
    }
    if (pod.name.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("pods: line ", row.line, ": empty name"));
    }
    if (!names.insert(pod.name).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("pods: line ", row.line, ": pod name ", pod.name, " appears twice"));
    }
    pods.push_back(std::move(pod));
  }
  if (pods.empty()) return absl::InvalidArgumentError("pods: no CPU-only pods in the input");
  return pods;
}

absl::StatusOr<std::vector<NodeShape>> ParseOpenbNodes(absl::string_view text) {
  const std::vector<CsvRow> rows = SplitCsv(text);
  absl::StatusOr<absl::flat_hash_map<std::string, size_t>> columns =
      Header(rows, "nodes", {"sn", "cpu_milli", "memory_mib"});
  if (!columns.ok()) return columns.status();
  std::vector<NodeShape> nodes;
  for (size_t i = 1; i < rows.size(); ++i) {
    const CsvRow& row = rows[i];
    if (row.fields.size() != rows[0].fields.size()) {
      return absl::InvalidArgumentError(absl::StrCat("nodes: line ", row.line, ": expected ",
                                                     rows[0].fields.size(), " fields, got ",
                                                     row.fields.size()));
    }
    absl::StatusOr<int64_t> cpu = Int(row, columns->at("cpu_milli"), "cpu_milli", "nodes");
    if (!cpu.ok()) return cpu.status();
    absl::StatusOr<int64_t> memory = Int(row, columns->at("memory_mib"), "memory_mib", "nodes");
    if (!memory.ok()) return memory.status();
    if (*memory > kMaxMiB) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodes: line ", row.line, ": memory_mib ", *memory, " is too large"));
    }
    if (*cpu == 0 || *memory == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("nodes: line ", row.line, ": a node needs CPU and memory"));
    }
    nodes.push_back({std::string(absl::StripAsciiWhitespace(row.fields[columns->at("sn")])),
                     {*cpu, *memory * kMiB}});
  }
  if (nodes.empty()) return absl::InvalidArgumentError("nodes: no nodes in the input");
  return nodes;
}

absl::StatusOr<std::vector<MemorySeries>> ParseMemorySeries(absl::string_view text) {
  const std::vector<CsvRow> rows = SplitCsv(text);
  if (rows.size() < 2) return absl::InvalidArgumentError("memory series: no samples");
  const std::string first = absl::AsciiStrToLower(absl::StripAsciiWhitespace(rows[0].fields[0]));
  std::vector<MemorySeries> out;
  if (first == "minute") {
    // Wide: minute,<id>,<id>,...
    for (size_t c = 1; c < rows[0].fields.size(); ++c) {
      out.push_back({std::string(absl::StripAsciiWhitespace(rows[0].fields[c])), {}});
    }
    for (size_t i = 1; i < rows.size(); ++i) {
      if (rows[i].fields.size() != rows[0].fields.size()) {
        return absl::InvalidArgumentError(absl::StrCat("memory series: line ", rows[i].line,
                                                       ": expected ", rows[0].fields.size(),
                                                       " fields, got ", rows[i].fields.size()));
      }
      for (size_t c = 1; c < rows[i].fields.size(); ++c) {
        absl::StatusOr<double> value = Fraction(rows[i].fields[c], rows[i].line, "memory series");
        if (!value.ok()) return value.status();
        out[c - 1].fractions.push_back(*value);
      }
    }
  } else {
    // Long (the Alibaba trace): value,timestamp_anon,container_ip, any row order.
    absl::StatusOr<absl::flat_hash_map<std::string, size_t>> columns =
        Header(rows, "memory series", {"value", "timestamp_anon", "container_ip"});
    if (!columns.ok()) return columns.status();
    std::map<std::string, std::vector<std::pair<double, double>>> by_id;
    for (size_t i = 1; i < rows.size(); ++i) {
      const CsvRow& row = rows[i];
      if (row.fields.size() != rows[0].fields.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("memory series: line ", row.line, ": wrong number of fields"));
      }
      absl::StatusOr<double> value =
          Fraction(row.fields[columns->at("value")], row.line, "memory series");
      if (!value.ok()) return value.status();
      absl::StatusOr<double> time =
          Fraction(row.fields[columns->at("timestamp_anon")], row.line, "memory series");
      if (!time.ok()) return time.status();
      by_id[std::string(row.fields[columns->at("container_ip")])].push_back({*time, *value});
    }
    for (auto& [id, samples] : by_id) {
      std::sort(samples.begin(), samples.end());
      MemorySeries series{id, {}};
      for (const auto& [time, value] : samples) series.fractions.push_back(value);
      out.push_back(std::move(series));
    }
  }
  // Series too short to replay a day are of no use to the simulator.
  std::erase_if(out, [](const MemorySeries& s) { return s.fractions.size() < 60; });
  if (out.empty()) {
    return absl::InvalidArgumentError("memory series: no series with at least 60 samples");
  }
  return out;
}

}  // namespace headroom::sim
