#pragma once

// A nesting limit for JSON text, checked before a recursive decoder (nlohmann) sees it: a
// body of a few MiB of "[[[[..." otherwise costs seconds and hundreds of MiB, or the stack.
// One pass, no allocation; strings (with their escapes) are skipped. Kubernetes objects nest
// about 15 deep, so kMaxJsonNesting leaves ample room.

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace headroom {

inline constexpr int kMaxJsonNesting = 100;

// InvalidArgument when arrays and objects nest deeper than `max_depth`; OK otherwise (also
// for text that is not valid JSON: the decoder reports that).
absl::Status CheckJsonNesting(absl::string_view text, int max_depth = kMaxJsonNesting);

}  // namespace headroom
