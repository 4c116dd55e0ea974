#pragma once

// Reading simdjson's DOM the way headroom's decoders do: a member that is present and not
// null, a string member, a scalar's text, and the InvalidArgument that names a field's path.
// The Pod/Node decoder (kube/pod_decoder.h) and the ExtenderArgs codec
// (scheduler/extender_wire.h) share them.

#include <simdjson.h>

#include <optional>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace headroom::extender {

// InvalidArgument "<path>: <what>".
absl::Status InvalidField(absl::string_view path, absl::string_view what);

// A member that is present and not null.
bool Present(simdjson::dom::object object, const char* key, simdjson::dom::element& out);
bool Present(simdjson::dom::element object, const char* key, simdjson::dom::element& out);

// object[key] when it is a string; "" otherwise.
std::string_view StringMember(simdjson::dom::element object, const char* key);

// The text of a string, or of a number as written (quantities and counts come as either);
// nullopt for anything else.
std::optional<std::string> ScalarText(simdjson::dom::element value);

}  // namespace headroom::extender
