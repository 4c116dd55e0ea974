#pragma once

// What the actuator counts:
//   headroom_extender_actions_total{action,outcome} resizes and evictions (actuator.h)

#include <string>

#include "extender/serving/metrics.h"

namespace headroom::extender {

class ActuationMetrics {
 public:
  explicit ActuationMetrics(Metrics& metrics);
  void CountAction(const std::string& action, const std::string& outcome);

 private:
  LabelledCounter actions_;
};

}  // namespace headroom::extender
