#pragma once

// What the scheduler's judgement counts:
//   headroom_extender_filter_rejections_total{reason}
//   headroom_extender_unknown_nodes_total           nodes passed without a fresh report

#include <string>

#include "extender/serving/metrics.h"

namespace headroom::extender {

class SchedulerMetrics {
 public:
  explicit SchedulerMetrics(Metrics& metrics);
  void CountRejection(const std::string& reason_code);
  void CountUnknownNodes(int count);

 private:
  LabelledCounter rejections_;
  LabelledCounter unknown_nodes_;
};

}  // namespace headroom::extender
