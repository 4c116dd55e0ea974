#include "codec/json_fields.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "shared/json_nesting.h"
#include "shared/quantity.h"

namespace headroom::codec {
namespace {

absl::string_view TypeName(const nlohmann::json& value) { return value.type_name(); }

absl::Status WrongType(absl::string_view path, absl::string_view want,
                       const nlohmann::json& value) {
  return absl::InvalidArgumentError(
      absl::StrCat(path, ": expected ", want, ", got ", TypeName(value)));
}

}  // namespace

absl::StatusOr<int64_t> QuantityFromText(absl::string_view text, absl::string_view path,
                                         QuantityKind kind) {
  return kind == QuantityKind::kCpuMillis ? ParseCpuMillis(text, path)
                                          : ParseMemoryBytes(text, path);
}

absl::StatusOr<int64_t> QuantityFromJson(const nlohmann::json& value, absl::string_view path,
                                         QuantityKind kind) {
  if (value.is_string()) return QuantityFromText(value.get_ref<const std::string&>(), path, kind);
  // dump() prints a number as the shortest text that round-trips it ("0.1", "1e+20").
  if (value.is_number()) return QuantityFromText(value.dump(), path, kind);
  return WrongType(path, "a quantity (string such as \"500m\" or a number)", value);
}

std::string FieldPath(absl::string_view parent, absl::string_view key) {
  return parent.empty() ? std::string(key) : absl::StrCat(parent, ".", key);
}

std::string IndexPath(absl::string_view parent, size_t index) {
  return absl::StrCat(parent, "[", index, "]");
}

absl::Status RequireObject(const nlohmann::json& value, absl::string_view path) {
  if (!value.is_object()) return WrongType(path.empty() ? "input" : path, "an object", value);
  return absl::OkStatus();
}

const nlohmann::json* Member(const nlohmann::json& object, absl::string_view key) {
  const auto it = object.find(std::string(key));
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

absl::StatusOr<std::string> RequiredString(const nlohmann::json& object, absl::string_view key,
                                           absl::string_view path) {
  const std::string field = FieldPath(path, key);
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  if (!value->is_string()) return WrongType(field, "a string", *value);
  std::string text = value->get<std::string>();
  if (text.empty()) return absl::InvalidArgumentError(absl::StrCat(field, ": must not be empty"));
  return text;
}

absl::StatusOr<std::string> OptionalString(const nlohmann::json& object, absl::string_view key,
                                           absl::string_view path, absl::string_view fallback) {
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return std::string(fallback);
  if (!value->is_string()) return WrongType(FieldPath(path, key), "a string", *value);
  return value->get<std::string>();
}

absl::StatusOr<bool> OptionalBool(const nlohmann::json& object, absl::string_view key,
                                  absl::string_view path, bool fallback) {
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return fallback;
  if (!value->is_boolean()) return WrongType(FieldPath(path, key), "true or false", *value);
  return value->get<bool>();
}

absl::StatusOr<int64_t> RequiredQuantity(const nlohmann::json& object, absl::string_view key,
                                         absl::string_view path, QuantityKind kind) {
  const std::string field = FieldPath(path, key);
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return absl::InvalidArgumentError(absl::StrCat(field, ": required"));
  return QuantityFromJson(*value, field, kind);
}

absl::StatusOr<int64_t> OptionalQuantity(const nlohmann::json& object, absl::string_view key,
                                         absl::string_view path, QuantityKind kind,
                                         int64_t fallback) {
  const nlohmann::json* value = Member(object, key);
  if (value == nullptr) return fallback;
  return QuantityFromJson(*value, FieldPath(path, key), kind);
}

absl::StatusOr<nlohmann::json> ParseJson(absl::string_view text) {
  if (absl::Status nesting = CheckJsonNesting(text); !nesting.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("input is not valid JSON: ", nesting.message()));
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("input is not valid JSON: ", e.what()));
  }
}

}  // namespace headroom::codec
