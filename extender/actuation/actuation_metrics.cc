#include "extender/actuation/actuation_metrics.h"

namespace headroom::extender {

ActuationMetrics::ActuationMetrics(Metrics& metrics)
    : actions_(metrics, {"headroom_extender_actions_total",
                         "Resizes and evictions the actuator decided, by outcome.",
                         prometheus::MetricType::Counter}),
      rounds_(metrics, {"headroom_extender_actuation_rounds_total",
                        "Planning rounds the actuator ran.", prometheus::MetricType::Counter}),
      round_seconds_(metrics, {"headroom_extender_actuation_round_seconds_total",
                               "Time the actuator's planning rounds took, together.",
                               prometheus::MetricType::Counter}),
      writing_seconds_(metrics, {"headroom_extender_actuation_writing_seconds_total",
                                 "Of the rounds' time, what the API writes took.",
                                 prometheus::MetricType::Counter}),
      nodes_planned_(metrics, {"headroom_extender_actuation_nodes_planned_total",
                               "Node plans the actuator made.", prometheus::MetricType::Counter}) {}

void ActuationMetrics::CountAction(const std::string& action, const std::string& outcome) {
  actions_.Increment({{"action", action}, {"outcome", outcome}});
}

void ActuationMetrics::CountRound(absl::Duration took, absl::Duration writing,
                                  size_t nodes_planned) {
  rounds_.Increment({});
  round_seconds_.Increment({}, absl::ToDoubleSeconds(took));
  writing_seconds_.Increment({}, absl::ToDoubleSeconds(writing));
  nodes_planned_.Increment({}, static_cast<double>(nodes_planned));
}

}  // namespace headroom::extender
