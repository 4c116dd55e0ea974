#pragma once

// A JSON text checked without building anything, and the spans of its top-level object's
// members: so that a large request body is parsed one member (one Node object) at a time, and
// a member nobody reads is validated but never materialised. simdjson's DOM reserves about
// ten times a document's size whatever it holds (a 63 MiB body of `[0,0,...]` cost 891 MiB),
// so a body is not given to it whole once it is large (extender_wire.h).

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom::extender {

struct JsonMember {
  absl::string_view key;  // as written between the quotes (escapes not decoded)
  bool key_escaped = false;
  absl::string_view value;  // the value's text
};

// The members of the object `json` is, in order, after checking the whole text: RFC 8259's
// grammar (strings with valid escapes and no raw control characters, numbers, literals),
// valid UTF-8, nesting at most `max_depth` deep, nothing after the value. InvalidArgument
// naming the byte offset otherwise, or when the text is not an object.
absl::StatusOr<std::vector<JsonMember>> TopLevelMembers(absl::string_view json,
                                                        int max_depth = 100);

}  // namespace headroom::extender
