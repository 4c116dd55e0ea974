#pragma once

// What the admission webhook counts:
//   headroom_extender_admissions_total{outcome}    mutated | not_applied | unchanged | malformed

#include <string>

#include "extender/serving/metrics.h"

namespace headroom::extender {

class AdmissionMetrics {
 public:
  explicit AdmissionMetrics(Metrics& metrics);
  void CountAdmission(const std::string& outcome);

 private:
  LabelledCounter admissions_;
};

}  // namespace headroom::extender
