#include "extender/admission/admission_metrics.h"

namespace headroom::extender {

AdmissionMetrics::AdmissionMetrics(Metrics& metrics)
    : admissions_(metrics, {"headroom_extender_admissions_total",
                            "Pod creations reviewed by the admission webhook, by outcome.",
                            prometheus::MetricType::Counter}) {}

void AdmissionMetrics::CountAdmission(const std::string& outcome) {
  admissions_.Increment({{"outcome", outcome}});
}

}  // namespace headroom::extender
