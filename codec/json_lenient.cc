#include "codec/json_lenient.h"

namespace headroom::codec {

using nlohmann::json;

const json* Field(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

std::string StringField(const json& object, const char* key) {
  const json* value = Field(object, key);
  return value != nullptr && value->is_string() ? value->get<std::string>() : "";
}

const json& ObjectField(const json& object, const char* key) {
  static const json* const kEmpty = new json(json::object());
  const json* value = Field(object, key);
  return value != nullptr && value->is_object() ? *value : *kEmpty;
}

const json& ArrayField(const json& object, const char* key) {
  static const json* const kEmpty = new json(json::array());
  const json* value = Field(object, key);
  return value != nullptr && value->is_array() ? *value : *kEmpty;
}

bool TrueField(const json& object, const char* key) {
  const json* value = Field(object, key);
  return value != nullptr && value->is_boolean() && value->get<bool>();
}

std::string NestedString(const json& object, const char* outer, const char* inner) {
  return StringField(ObjectField(object, outer), inner);
}

}  // namespace headroom::codec
