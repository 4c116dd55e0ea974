#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom::cli {

// Largest input a command reads; a bigger file is refused rather than held in memory.
inline constexpr size_t kMaxInputBytes = 64 << 20;

// Reads `path`, or standard input when `path` is "-". NotFound / PermissionDenied /
// InvalidArgument (too large) with the path in the message.
absl::StatusOr<std::string> ReadInput(absl::string_view path);

}  // namespace headroom::cli
