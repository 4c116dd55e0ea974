#pragma once

// POST /admission/pods: the mutating admission webhook's HTTP side. Decodes the
// AdmissionReview (nesting bounded), decides with admission.h from the workload statistics
// of the cluster view, logs and counts the outcome (mutated, not_applied, unchanged,
// malformed) and answers the AdmissionReview response; a malformed review gets 400 with a
// JSON reason. `apply` false (dry run, kill switch): the decision is logged, no patch sent.

#include <string>

#include "extender/admission/admission.h"
#include "extender/admission/admission_metrics.h"
#include "extender/view/action_journal.h"
#include "extender/view/cluster_view.h"
#include "io/http_server.h"

namespace headroom::extender {

// `journal` (may be null) records each pod the webhook sized.
io::HttpResponse ServeAdmission(const std::string& body, const ClusterView& view,
                                const AdmissionOptions& options, bool apply,
                                AdmissionMetrics& metrics, ActionJournal* journal = nullptr);

}  // namespace headroom::extender
