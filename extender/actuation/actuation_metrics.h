#pragma once

// What the actuator counts:
//   headroom_extender_actions_total{action,outcome} resizes and evictions (actuator.h)
//   headroom_extender_actuation_rounds_total         planning rounds run
//   headroom_extender_actuation_round_seconds_total  their time together (mean = this / rounds)
//   headroom_extender_actuation_writing_seconds_total  of which waiting on API writes
//   headroom_extender_actuation_nodes_planned_total  node plans made in them

#include <cstddef>
#include <string>

#include "absl/time/time.h"
#include "extender/serving/metrics.h"

namespace headroom::extender {

class ActuationMetrics {
 public:
  explicit ActuationMetrics(Metrics& metrics);
  void CountAction(const std::string& action, const std::string& outcome);
  void CountRound(absl::Duration took, absl::Duration writing, size_t nodes_planned);

 private:
  LabelledCounter actions_;
  LabelledCounter rounds_;
  LabelledCounter round_seconds_;
  LabelledCounter writing_seconds_;
  LabelledCounter nodes_planned_;
};

}  // namespace headroom::extender
