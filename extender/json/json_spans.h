#pragma once

// The source text of values inside a JSON document that is already known to be valid (a
// DOM parser accepted it), found without building anything: used to pass kube-scheduler's
// Node objects back as the bytes it sent, instead of serialising them again.

#include <optional>
#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace headroom::extender {

// The elements of the array at `path` (object keys from the top, e.g. {"Nodes", "items"}), as
// spans of `json`, in order. nullopt when the path does not lead to an array, or when a key on
// the way is written with escapes (the caller then falls back to its parser). The first of
// duplicate keys counts, as simdjson's DOM lookup does. `json` must be valid JSON.
std::optional<std::vector<absl::string_view>> ArrayElementSpans(
    absl::string_view json, const std::vector<std::string>& path);

}  // namespace headroom::extender
