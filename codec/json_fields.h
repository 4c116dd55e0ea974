#pragma once

// Typed, path-aware access to fields of a decoded JSON document. Every error names the field
// by its path in the document ("pods[2].containers[0].cpu.p75"), so a user can find it.
// Unknown fields are ignored by design: callers only ask for what they know.

#include <cstdint>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"

namespace headroom::codec {

// "parent.key" (or "key" at the top level).
std::string FieldPath(absl::string_view parent, absl::string_view key);
// "parent[index]".
std::string IndexPath(absl::string_view parent, size_t index);

absl::Status RequireObject(const nlohmann::json& value, absl::string_view path);

// The member `key` of `object` at `path`, or nullptr when absent or null.
const nlohmann::json* Member(const nlohmann::json& object, absl::string_view key);

absl::StatusOr<std::string> RequiredString(const nlohmann::json& object, absl::string_view key,
                                           absl::string_view path);
absl::StatusOr<std::string> OptionalString(const nlohmann::json& object, absl::string_view key,
                                           absl::string_view path, absl::string_view fallback);
absl::StatusOr<bool> OptionalBool(const nlohmann::json& object, absl::string_view key,
                                  absl::string_view path, bool fallback);

enum class QuantityKind { kCpuMillis, kMemoryBytes };

// The one quantity reader of every JSON form headroom reads (strict and lenient readers,
// nlohmann and simdjson): a quantity's text -- a string's content or a number as written
// ("500m", "2Gi", "0.5", "1e+20") -- in `kind`'s unit; InvalidArgument naming `path`.
absl::StatusOr<int64_t> QuantityFromText(absl::string_view text, absl::string_view path,
                                         QuantityKind kind);
// A JSON value that is a quantity: a string or a number.
absl::StatusOr<int64_t> QuantityFromJson(const nlohmann::json& value, absl::string_view path,
                                         QuantityKind kind);

// A Kubernetes quantity given as a string ("500m", "2Gi") or a JSON number (2, 0.5).
absl::StatusOr<int64_t> RequiredQuantity(const nlohmann::json& object, absl::string_view key,
                                         absl::string_view path, QuantityKind kind);
absl::StatusOr<int64_t> OptionalQuantity(const nlohmann::json& object, absl::string_view key,
                                         absl::string_view path, QuantityKind kind,
                                         int64_t fallback);

// Parses JSON text; InvalidArgument with the parser's position on malformed text.
absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text);

}  // namespace headroom::codec
