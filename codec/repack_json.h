#pragma once

// JSON forms of the repacking problem and plan (docs/repack.md):
// - our instance format: {"nodes": [{"name", "cpu", "memory"}],
//   "pods": [{"name", "cpu", "memory", "priority", "node", "owner"}]};
// - a cluster snapshot as `kubectl get nodes,pods -A -o json` prints it (a v1 List of Node and
//   Pod objects): allocatable from each Node, requests from each unfinished Pod, spec.priority,
//   spec.nodeName. Pods that cannot move (DaemonSet and static pods) are taken off their
//   node's allocatable rather than repacked.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "nlohmann/json.hpp"
#include "shared/repack.h"

namespace headroom::codec {

// Either form, told apart by "kind": "List". InvalidArgument naming the field.
absl::StatusOr<RepackInstance> DecodeRepackInput(const nlohmann::json& document);

// The same from JSON text; InvalidArgument with the parser's position on malformed text.
absl::StatusOr<RepackInstance> DecodeRepackInputText(absl::string_view text);

nlohmann::json EncodeRepackInstance(const RepackInstance& instance);

// The plan: "optimal", per-tier results, the changes (move, place, evict) and the final node of
// every pod.
nlohmann::json EncodeRepackPlan(const RepackInstance& instance, const RepackPlan& plan);

}  // namespace headroom::codec
