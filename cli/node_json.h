#pragma once

// The JSON form of one node for `headroom optimize-node` (docs/optimize-node.md):
//   input  {"node": {...}, "pods": [...]}            -> NodeDemand
//   output {"node": "...", "evictions": [...], ...}  <- NodeOptimization

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"
#include "shared/node_optimizer.h"

namespace headroom::cli {

// InvalidArgument naming the field ("pods[1].containers[0].memory.p75: ...") on bad input.
absl::StatusOr<NodeDemand> DecodeNodeDemand(const nlohmann::json& input);
// node.cpuOverloadSustained (default false): the CPU bases have stayed above the available CPU
// for the sustained period, so pods may be evicted for CPU (OptimizeOptions::evict_for_cpu).
absl::StatusOr<OptimizeOptions> DecodeOptimizeOptions(const nlohmann::json& input);

nlohmann::ordered_json EncodeNodeOptimization(const NodeDemand& node,
                                              const NodeOptimization& result);

}  // namespace headroom::cli
