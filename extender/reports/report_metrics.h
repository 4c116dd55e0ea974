#pragma once

// What the node-report port counts:
//   headroom_extender_reports_total{outcome}       node reports: accepted | unauthenticated |
//                                                  forbidden | invalid | unknown_node |
//                                                  unavailable | throttled | busy (queue full) |
//                                                  expired (deadline passed in the queue) |
//                                                  over_limit (nodes or pods at their bound)
//   headroom_extender_unverified_pods_total        reported pods the API does not confirm
//   headroom_extender_report_connections_refused_total{reason}  cut by the report port's
//                                                  front door: connection_cap | address_cap |
//                                                  handshake | http2_flood | http2_protocol

#include <cstddef>
#include <string>

#include "extender/serving/metrics.h"

namespace headroom::extender {

class ReportMetrics {
 public:
  explicit ReportMetrics(Metrics& metrics);
  void CountReport(const std::string& outcome);
  void CountUnverifiedPods(size_t count);
  void CountRefusedConnection(const std::string& reason);

 private:
  LabelledCounter reports_;
  LabelledCounter unverified_pods_;
  LabelledCounter refused_connections_;
};

}  // namespace headroom::extender
