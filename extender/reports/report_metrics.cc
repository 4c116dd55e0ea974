#include "extender/reports/report_metrics.h"

namespace headroom::extender {

ReportMetrics::ReportMetrics(Metrics& metrics)
    : reports_(metrics, {"headroom_extender_reports_total", "Node reports received, by outcome.",
                         prometheus::MetricType::Counter}),
      unverified_pods_(metrics, {"headroom_extender_unverified_pods_total",
                                 "Reported pods the Kubernetes API does not confirm (counted on "
                                 "their node, never acted on).",
                                 prometheus::MetricType::Counter}),
      refused_connections_(
          metrics, {"headroom_extender_report_connections_refused_total",
                    "Connections to the report port refused or cut by its front door, by reason.",
                    prometheus::MetricType::Counter}) {
  unverified_pods_.Increment({}, 0);  // the series exists from the start, at 0
}

void ReportMetrics::CountReport(const std::string& outcome) {
  reports_.Increment({{"outcome", outcome}});
}

void ReportMetrics::CountUnverifiedPods(size_t count) {
  if (count > 0) unverified_pods_.Increment({}, static_cast<double>(count));
}

void ReportMetrics::CountRefusedConnection(const std::string& reason) {
  refused_connections_.Increment({{"reason", reason}});
}

}  // namespace headroom::extender
