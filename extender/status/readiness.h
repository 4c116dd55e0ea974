#pragma once

// When headroom-extender may say it is ready (/readyz). Right after a start it knows no
// node's load or pods until they report (every minute): judged then, a full or load-cordoned
// node would look free. So it is not ready until the watches have listed and every node the
// API lists has reported -- or, for nodes that never report (no headroom-nri there), until
// `grace` has passed since the start.

#include <cstddef>
#include <string>

#include "absl/time/time.h"

namespace headroom::extender {

struct ReadinessFacts {
  bool api = false;             // a Kubernetes API is configured
  bool watches_listed = false;  // its pod and node watches have listed
  size_t api_nodes = 0;         // nodes the API lists
  size_t api_nodes_fresh = 0;   // of those, nodes with a fresh report
  size_t nodes_reported = 0;    // nodes with any report
  absl::Duration since_start;
  absl::Duration grace = absl::Seconds(90);
};

struct Readiness {
  bool ready = false;
  std::string message;  // the /readyz body
};

Readiness JudgeReadiness(const ReadinessFacts& facts);

}  // namespace headroom::extender
