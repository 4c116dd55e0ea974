#pragma once

// Text from the network (node, pod and container names, peers, error messages quoting them)
// made safe for a log line: control characters become \xNN, so a name with a newline cannot
// forge a line, and very long text is cut.

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace headroom {

inline constexpr size_t kMaxLogTextBytes = 512;

std::string LogText(absl::string_view text, size_t max_bytes = kMaxLogTextBytes);

}  // namespace headroom
