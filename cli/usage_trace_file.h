#pragma once

// Loads a usage trace directory for `headroom simulate --usage-trace DIR` (sim/usage_trace.h):
// DIR/workloads.csv, and DIR/usage.csv.gz or DIR/usage.csv, read a line at a time (the
// Bitbrains trace is 8.3 M rows; the file is never held whole in memory).

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "sim/usage_trace.h"

namespace headroom::cli {

// Longest usage line accepted; a longer one is refused with its line number.
inline constexpr size_t kMaxTraceLineBytes = 4096;

// NotFound when a file is missing; InvalidArgument with the file and line for bad content.
absl::StatusOr<sim::UsageTrace> LoadUsageTrace(absl::string_view directory);

}  // namespace headroom::cli
