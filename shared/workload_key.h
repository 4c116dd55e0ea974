#pragma once

// The keys both daemons use for a workload's statistics, so they agree on them: a workload is
// "namespace/Kind/name" (headroom-nri infers it from the pod's name and labels, the extender
// from its owner references), and a container of it is "namespace/Kind/name#container" --
// headroom-nri's statistics key, the extender's workload statistics and checkpoint key, and
// the key of ReportReply.history_seconds.

#include <string>

#include "absl/strings/string_view.h"

namespace headroom {

// "<workload key>#<container name>".
std::string WorkloadContainerKey(absl::string_view workload_key, absl::string_view container);

// The Kind of a workload key "namespace/Kind/name"; "" for anything else.
std::string WorkloadKind(absl::string_view workload_key);

}  // namespace headroom
