#pragma once

// Lenient readers of Kubernetes JSON (nlohmann) for objects the API server has already
// validated: a missing, null or wrongly typed member reads as absent or empty instead of an
// error. Shared by the extender's decoders (requests, watch events, admission reviews).

#include <string>

#include "nlohmann/json.hpp"

namespace headroom::codec {

// object[key], or nullptr when `object` is not an object or the member is absent or null.
const nlohmann::json* Field(const nlohmann::json& object, const char* key);
// object[key] when it is a string; "" otherwise.
std::string StringField(const nlohmann::json& object, const char* key);
// object[key] when it is an object (an empty object otherwise).
const nlohmann::json& ObjectField(const nlohmann::json& object, const char* key);
// object[key] when it is an array (an empty array otherwise).
const nlohmann::json& ArrayField(const nlohmann::json& object, const char* key);
// Whether object[key] is the boolean true (false for anything else, e.g. "true").
bool TrueField(const nlohmann::json& object, const char* key);
// object[outer][inner] when it is a string; "" otherwise (e.g. "metadata", "uid").
std::string NestedString(const nlohmann::json& object, const char* outer, const char* inner);

}  // namespace headroom::codec
