#include "cli/usage_input.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "codec/json_fields.h"
#include "shared/quantity.h"
#include "shared/status_macros.h"

namespace headroom::cli {

using ::headroom::codec::FieldPath;
using ::headroom::codec::IndexPath;
using ::headroom::codec::Member;
using ::headroom::codec::ParseJson;
using ::headroom::codec::QuantityFromText;
using ::headroom::codec::QuantityKind;
using ::headroom::codec::RequiredQuantity;
using ::headroom::codec::RequiredString;
using ::headroom::codec::RequireObject;
namespace {

// One sample before grouping: CPU and memory may be absent, and `oom` marks an OOM kill.
struct Row {
  std::string container;
  absl::Time at;
  std::optional<int64_t> cpu_millis;
  std::optional<int64_t> memory_bytes;
  std::optional<int64_t> oom_bytes;
};

absl::Status AddRow(Row row, UsageByContainer& out) {
  if (row.container.empty()) return absl::InvalidArgumentError("container: must not be empty");
  ContainerUsage& usage = out[row.container];
  if (row.cpu_millis.has_value() || row.memory_bytes.has_value()) {
    usage.samples.push_back({row.at, row.cpu_millis, row.memory_bytes});
  }
  if (row.oom_bytes.has_value()) usage.ooms.push_back({row.at, *row.oom_bytes});
  return absl::OkStatus();
}

void SortByTime(UsageByContainer& usage) {
  for (auto& [name, container] : usage) {
    std::stable_sort(container.samples.begin(), container.samples.end(),
                     [](const UsageSample& a, const UsageSample& b) { return a.at < b.at; });
    std::stable_sort(container.ooms.begin(), container.ooms.end(),
                     [](const OomSample& a, const OomSample& b) { return a.at < b.at; });
  }
}

absl::StatusOr<std::optional<int64_t>> OptionalAmount(absl::string_view text,
                                                      absl::string_view what, bool cpu) {
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) return std::optional<int64_t>();
  absl::StatusOr<int64_t> value =
      QuantityFromText(text, what, cpu ? QuantityKind::kCpuMillis : QuantityKind::kMemoryBytes);
  if (!value.ok()) return value.status();
  return std::optional<int64_t>(*value);
}

absl::StatusOr<UsageByContainer> ParseCsv(absl::string_view text) {
  UsageByContainer out;
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  size_t line_number = 0;
  bool header_seen = false;
  int columns = 0;
  for (absl::string_view line : lines) {
    ++line_number;
    line = absl::StripSuffix(line, "\r");
    if (absl::StripAsciiWhitespace(line).empty() || absl::StartsWith(line, "#")) continue;
    std::vector<absl::string_view> fields = absl::StrSplit(line, ',');
    const std::string where = absl::StrCat("line ", line_number);
    if (!header_seen) {
      const std::string header = absl::AsciiStrToLower(absl::StripAsciiWhitespace(line));
      if (header != "container,timestamp,cpu,memory" &&
          header != "container,timestamp,cpu,memory,oom") {
        return absl::InvalidArgumentError(absl::StrCat(
            where, ": expected the header container,timestamp,cpu,memory[,oom], got \"",
            absl::CEscape(line.substr(0, 80)), "\""));
      }
      columns = static_cast<int>(fields.size());
      header_seen = true;
      continue;
    }
    if (static_cast<int>(fields.size()) != columns) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": expected ", columns, " fields, got ", fields.size()));
    }
    Row row;
    row.container = std::string(absl::StripAsciiWhitespace(fields[0]));
    absl::StatusOr<absl::Time> at = ParseTimestamp(absl::StripAsciiWhitespace(fields[1]));
    if (!at.ok())
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", at.status().message()));
    row.at = *at;
    HEADROOM_ASSIGN_OR_RETURN(row.cpu_millis,
                              OptionalAmount(fields[2], absl::StrCat(where, " cpu"), true));
    HEADROOM_ASSIGN_OR_RETURN(row.memory_bytes,
                              OptionalAmount(fields[3], absl::StrCat(where, " memory"), false));
    if (columns == 5) {
      HEADROOM_ASSIGN_OR_RETURN(row.oom_bytes,
                                OptionalAmount(fields[4], absl::StrCat(where, " oom"), false));
    }
    if (absl::Status status = AddRow(std::move(row), out); !status.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(where, ": ", status.message()));
    }
  }
  if (!header_seen) return absl::InvalidArgumentError("input is empty");
  return out;
}

absl::StatusOr<absl::Time> JsonTimestamp(const nlohmann::json& value, absl::string_view path) {
  absl::StatusOr<absl::Time> at;
  if (value.is_number()) {
    at = ParseTimestamp(value.dump());
  } else if (value.is_string()) {
    at = ParseTimestamp(value.get<std::string>());
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": expected a number or an RFC 3339 string, got ", value.type_name()));
  }
  if (!at.ok()) return absl::InvalidArgumentError(absl::StrCat(path, ": ", at.status().message()));
  return at;
}

absl::StatusOr<UsageByContainer> ParseJsonUsage(absl::string_view text) {
  HEADROOM_ASSIGN_OR_RETURN(const nlohmann::json document, ParseJson(text));
  HEADROOM_RETURN_IF_ERROR(RequireObject(document, ""));
  const nlohmann::json* samples = Member(document, "samples");
  if (samples == nullptr) return absl::InvalidArgumentError("samples: required");
  if (!samples->is_array()) {
    return absl::InvalidArgumentError(
        absl::StrCat("samples: expected an array, got ", samples->type_name()));
  }
  UsageByContainer out;
  for (size_t i = 0; i < samples->size(); ++i) {
    const std::string path = IndexPath("samples", i);
    const nlohmann::json& item = (*samples)[i];
    HEADROOM_RETURN_IF_ERROR(RequireObject(item, path));
    Row row;
    HEADROOM_ASSIGN_OR_RETURN(row.container, RequiredString(item, "container", path));
    const nlohmann::json* timestamp = Member(item, "timestamp");
    if (timestamp == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(path, ".timestamp: required"));
    }
    HEADROOM_ASSIGN_OR_RETURN(row.at, JsonTimestamp(*timestamp, FieldPath(path, "timestamp")));
    if (Member(item, "cpu") != nullptr) {
      HEADROOM_ASSIGN_OR_RETURN(row.cpu_millis,
                                RequiredQuantity(item, "cpu", path, QuantityKind::kCpuMillis));
    }
    if (Member(item, "memory") != nullptr) {
      HEADROOM_ASSIGN_OR_RETURN(row.memory_bytes,
                                RequiredQuantity(item, "memory", path, QuantityKind::kMemoryBytes));
    }
    if (Member(item, "oom") != nullptr) {
      HEADROOM_ASSIGN_OR_RETURN(row.oom_bytes,
                                RequiredQuantity(item, "oom", path, QuantityKind::kMemoryBytes));
    }
    HEADROOM_RETURN_IF_ERROR(AddRow(std::move(row), out));
  }
  return out;
}

}  // namespace

absl::StatusOr<absl::Time> ParseTimestamp(absl::string_view text) {
  double seconds = 0;
  if (absl::SimpleAtod(text, &seconds)) {
    // Beyond year 9999 is a mistake (milliseconds passed as seconds, say), not a time.
    if (!std::isfinite(seconds) || seconds < 0 || seconds > 253402300799.0) {
      return absl::InvalidArgumentError(
          absl::StrCat("timestamp ", text, " is not Unix seconds between 1970 and 9999"));
    }
    return absl::FromUnixMicros(static_cast<int64_t>(std::llround(seconds * 1e6)));
  }
  absl::Time at;
  std::string error;
  if (absl::ParseTime(absl::RFC3339_full, text, &at, &error)) return at;
  return absl::InvalidArgumentError(absl::StrCat("timestamp \"", absl::CEscape(text),
                                                 "\" is neither Unix seconds nor RFC 3339 (", error,
                                                 ")"));
}

absl::StatusOr<UsageByContainer> ParseUsage(absl::string_view text, UsageFormat format) {
  if (format == UsageFormat::kAuto) {
    const absl::string_view trimmed = absl::StripLeadingAsciiWhitespace(text);
    format = !trimmed.empty() && (trimmed[0] == '{' || trimmed[0] == '[') ? UsageFormat::kJson
                                                                          : UsageFormat::kCsv;
  }
  absl::StatusOr<UsageByContainer> usage =
      format == UsageFormat::kJson ? ParseJsonUsage(text) : ParseCsv(text);
  if (!usage.ok()) return usage;
  if (usage->empty()) return absl::InvalidArgumentError("input has no samples");
  SortByTime(*usage);
  return usage;
}

}  // namespace headroom::cli
