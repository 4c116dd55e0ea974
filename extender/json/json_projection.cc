#include "extender/json/json_projection.h"

#include <cstdint>
#include <utility>

#include "absl/strings/str_cat.h"
#include "extender/json/thread_json_parser.h"
#include "shared/json_nesting.h"

namespace headroom::extender {
namespace {

using nlohmann::json;

// The whole of `element` as nlohmann's parser would have built it.
json Convert(simdjson::dom::element element) {
  switch (element.type()) {
    case simdjson::dom::element_type::OBJECT: {
      json out = json::object();
      for (const simdjson::dom::key_value_pair member : simdjson::dom::object(element)) {
        out[std::string(member.key)] = Convert(member.value);  // the last duplicate wins
      }
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      json out = json::array();
      for (const simdjson::dom::element item : simdjson::dom::array(element)) {
        out.push_back(Convert(item));
      }
      return out;
    }
    case simdjson::dom::element_type::STRING:
      return json(std::string(std::string_view(element)));
    case simdjson::dom::element_type::INT64: {
      const int64_t value = int64_t(element);
      // nlohmann keeps every non-negative integer unsigned.
      return value >= 0 ? json(static_cast<uint64_t>(value)) : json(value);
    }
    case simdjson::dom::element_type::UINT64:
      return json(uint64_t(element));
    case simdjson::dom::element_type::DOUBLE:
      return json(double(element));
    case simdjson::dom::element_type::BOOL:
      return json(bool(element));
    case simdjson::dom::element_type::NULL_VALUE:
      return json(nullptr);
  }
  return json(nullptr);
}

json ProjectElement(simdjson::dom::element element, const FieldMask& mask) {
  if (mask.keeps_all()) return Convert(element);
  switch (element.type()) {
    case simdjson::dom::element_type::OBJECT: {
      json out = json::object();
      for (const simdjson::dom::key_value_pair member : simdjson::dom::object(element)) {
        if (const FieldMask* kept = mask.Find(member.key)) {
          out[std::string(member.key)] = ProjectElement(member.value, *kept);
        }
      }
      return out;
    }
    case simdjson::dom::element_type::ARRAY: {
      json out = json::array();
      for (const simdjson::dom::element item : simdjson::dom::array(element)) {
        out.push_back(ProjectElement(item, mask));
      }
      return out;
    }
    default:
      return Convert(element);
  }
}

}  // namespace

FieldMask::FieldMask() = default;
FieldMask FieldMask::All() { return FieldMask(); }
FieldMask::FieldMask(std::initializer_list<Field> fields) : fields_(fields) {}
bool FieldMask::keeps_all() const { return fields_.empty(); }
FieldMask::FieldMask(const FieldMask&) = default;
FieldMask& FieldMask::operator=(const FieldMask&) = default;
FieldMask::~FieldMask() = default;

const FieldMask* FieldMask::Find(std::string_view key) const {
  for (const Field& field : fields_) {
    if (field.key == key) return &field.mask;
  }
  return nullptr;
}

json Project(const json& value, const FieldMask& mask) {
  if (mask.keeps_all()) return value;
  if (value.is_object()) {
    json out = json::object();
    for (const auto& [key, member] : value.items()) {
      if (const FieldMask* kept = mask.Find(key)) out[key] = Project(member, *kept);
    }
    return out;
  }
  if (value.is_array()) {
    json out = json::array();
    for (const json& item : value) out.push_back(Project(item, mask));
    return out;
  }
  return value;
}

absl::StatusOr<json> ParseProjected(absl::string_view text, const FieldMask& mask) {
  const ReleaseParserAfter release(text.size());
  simdjson::dom::element document;
  const simdjson::error_code error =
      ThreadJsonParser().parse(text.data(), text.size()).get(document);
  if (error == simdjson::SUCCESS) return ProjectElement(document, mask);
  if (error != simdjson::NUMBER_ERROR) {
    return absl::InvalidArgumentError(
        absl::StrCat("not valid JSON: ", simdjson::error_message(error)));
  }
  // What simdjson refuses and nlohmann may read (an integer beyond 64 bits, as a double);
  // nlohmann's tree is walked recursively, hence the nesting bound first.
  if (absl::Status nesting = CheckJsonNesting(text); !nesting.ok()) return nesting;
  json parsed = json::parse(text.begin(), text.end(), nullptr, false);
  if (parsed.is_discarded()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not valid JSON: ", simdjson::error_message(error)));
  }
  return Project(parsed, mask);
}

}  // namespace headroom::extender
