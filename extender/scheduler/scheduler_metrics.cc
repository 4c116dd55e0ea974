#include "extender/scheduler/scheduler_metrics.h"

namespace headroom::extender {

SchedulerMetrics::SchedulerMetrics(Metrics& metrics)
    : rejections_(metrics,
                  {"headroom_extender_filter_rejections_total",
                   "Nodes rejected by filter, by reason.", prometheus::MetricType::Counter}),
      unknown_nodes_(
          metrics, {"headroom_extender_unknown_nodes_total", "Nodes passed without a fresh report.",
                    prometheus::MetricType::Counter}) {
  unknown_nodes_.Increment({}, 0);  // the series exists from the start, at 0
}

void SchedulerMetrics::CountRejection(const std::string& reason_code) {
  rejections_.Increment({{"reason", reason_code}});
}

void SchedulerMetrics::CountUnknownNodes(int count) {
  if (count > 0) unknown_nodes_.Increment({}, count);
}

}  // namespace headroom::extender
