#pragma once

// What both daemons' checkpoints share (headroom-extender's workloads.json, headroom-nri's
// node-stats.json): the envelope {"version": 1, "savedAt": RFC 3339, ...} and the strict
// integer fields; the statistics' shape is in stats_json.h. Every decoder returns
// InvalidArgument naming the field under `where` and never throws.

#include <cstdint>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace headroom::codec {

// The checkpoint's document: a JSON object (nesting bounded) whose "version" is exactly the
// integer 1. `what` names the file in errors, e.g. "workload checkpoint".
absl::StatusOr<nlohmann::json> ParseCheckpoint(absl::string_view text, absl::string_view what);

// "savedAt"'s value.
std::string CheckpointTime(absl::Time saved_at);

// object[key] as a non-negative integer; InvalidArgument "where.key: expected a non-negative
// integer" when absent or anything else.
absl::StatusOr<int64_t> NonNegativeInt(const nlohmann::json& object, const char* key,
                                       const std::string& where);
// The same, `fallback` when absent (fields added after version 1 shipped).
absl::StatusOr<int64_t> OptionalNonNegativeInt(const nlohmann::json& object, const char* key,
                                               const std::string& where, int64_t fallback = 0);

}  // namespace headroom::codec
