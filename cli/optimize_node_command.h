#pragma once

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/exit_codes.h"

namespace headroom::cli {

// `headroom optimize-node`: reads one node as JSON from `input` (a path or "-") and writes
// the optimisation as JSON to `out`; messages go to `err`. Returns the exit code.
int RunOptimizeNode(absl::string_view input, bool pretty, std::ostream& out, std::ostream& err);

// The optimisation of the JSON document `text`, as JSON text; used by the command and tests.
// InvalidArgument naming the field on malformed input.
absl::StatusOr<std::string> OptimizeNodeJson(absl::string_view text, bool pretty);

}  // namespace headroom::cli
