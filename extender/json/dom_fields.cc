#include "extender/json/dom_fields.h"

#include "absl/strings/str_cat.h"

namespace headroom::extender {

absl::Status InvalidField(absl::string_view path, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat(path, ": ", what));
}

bool Present(simdjson::dom::object object, const char* key, simdjson::dom::element& out) {
  return object[key].get(out) == simdjson::SUCCESS && !out.is_null();
}

bool Present(simdjson::dom::element object, const char* key, simdjson::dom::element& out) {
  simdjson::dom::object members;
  return object.get(members) == simdjson::SUCCESS && Present(members, key, out);
}

std::string_view StringMember(simdjson::dom::element object, const char* key) {
  simdjson::dom::element value;
  std::string_view text;
  if (!Present(object, key, value) || value.get(text) != simdjson::SUCCESS) return {};
  return text;
}

std::optional<std::string> ScalarText(simdjson::dom::element value) {
  std::string_view text;
  if (value.get(text) == simdjson::SUCCESS) return std::string(text);
  if (value.is_number()) return simdjson::minify(value);
  return std::nullopt;
}

}  // namespace headroom::extender
