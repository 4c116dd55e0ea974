#include "codec/checkpoint_json.h"

#include "absl/strings/str_cat.h"
#include "codec/json_fields.h"

namespace headroom::codec {

absl::StatusOr<nlohmann::json> ParseCheckpoint(absl::string_view text, absl::string_view what) {
  absl::StatusOr<nlohmann::json> parsed = ParseJson(text);  // nesting bounded, with position
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("unreadable ", what, ": ", parsed.status().message()));
  }
  nlohmann::json& document = *parsed;
  if (!document.is_object())
    return absl::InvalidArgumentError(absl::StrCat(what, ": not a JSON object"));
  // Exactly the integer 1 (a huge float read as an integer would be undefined behaviour; the
  // checkpoint fuzzer found it).
  const auto version = document.find("version");
  if (version == document.end() || !version->is_number_integer() || version->get<int64_t>() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": not a version-1 checkpoint"));
  }
  return document;
}

std::string CheckpointTime(absl::Time saved_at) {
  return absl::FormatTime(absl::RFC3339_sec, saved_at, absl::UTCTimeZone());
}

absl::StatusOr<int64_t> NonNegativeInt(const nlohmann::json& object, const char* key,
                                       const std::string& where) {
  const auto it = object.is_object() ? object.find(key) : object.end();
  if (it == object.end() || !it->is_number_integer() ||
      (it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX) || it->get<int64_t>() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ".", key, ": expected a non-negative integer"));
  }
  return it->get<int64_t>();
}

absl::StatusOr<int64_t> OptionalNonNegativeInt(const nlohmann::json& object, const char* key,
                                               const std::string& where, int64_t fallback) {
  return object.is_object() && object.contains(key) ? NonNegativeInt(object, key, where) : fallback;
}

}  // namespace headroom::codec
