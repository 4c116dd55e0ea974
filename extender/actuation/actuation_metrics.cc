#include "extender/actuation/actuation_metrics.h"

namespace headroom::extender {

ActuationMetrics::ActuationMetrics(Metrics& metrics)
    : actions_(metrics, {"headroom_extender_actions_total",
                         "Resizes and evictions the actuator decided, by outcome.",
                         prometheus::MetricType::Counter}) {}

void ActuationMetrics::CountAction(const std::string& action, const std::string& outcome) {
  actions_.Increment({{"action", action}, {"outcome", outcome}});
}

}  // namespace headroom::extender
