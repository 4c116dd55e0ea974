#pragma once

// Usage samples for `headroom recommend` (docs/recommend.md), as CSV or JSON:
//   CSV:  container,timestamp,cpu,memory[,oom]    (header row required, no quoting)
//   JSON: {"samples": [{"container": "app", "timestamp": 1700000000, "cpu": "250m",
//                       "memory": "512Mi", "oom": "600Mi"}]}
// timestamp: Unix seconds (may have a fraction) or RFC 3339. cpu, memory: Kubernetes
// quantities (CPU usage in cores, memory working set in bytes); either may be empty. oom:
// when set, the container was OOM-killed at that time with that much memory.

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "shared/crane_recommender.h"

namespace headroom::cli {

struct ContainerUsage {
  std::vector<UsageSample> samples;  // sorted by time
  std::vector<OomSample> ooms;       // sorted by time
};

// Samples per container name (sorted by name).
using UsageByContainer = std::map<std::string, ContainerUsage>;

enum class UsageFormat { kAuto, kCsv, kJson };

// InvalidArgument naming the line (CSV) or the field path (JSON) on bad input.
absl::StatusOr<UsageByContainer> ParseUsage(absl::string_view text, UsageFormat format);

// Unix seconds ("1700000000", "1700000000.5") or RFC 3339 ("2023-11-14T22:13:20Z").
absl::StatusOr<absl::Time> ParseTimestamp(absl::string_view text);

}  // namespace headroom::cli
