#include "extender/admission/admission_endpoint.h"

#include "nlohmann/json.hpp"
#include "shared/json_nesting.h"
#include "shared/log_text.h"
#include "spdlog/spdlog.h"

namespace headroom::extender {

io::HttpResponse ServeAdmission(const std::string& body, const ClusterView& view,
                                const AdmissionOptions& options, bool apply,
                                AdmissionMetrics& metrics, ActionJournal* journal) {
  const absl::Status nesting = CheckJsonNesting(body);
  const nlohmann::json review =
      nesting.ok() ? nlohmann::json::parse(body, nullptr, false) : nlohmann::json();
  const StatsLookup stats = [&view](const std::string& workload, const std::string& container) {
    return view.WorkloadContainer(workload, container);
  };
  absl::StatusOr<AdmissionDecision> decision = !nesting.ok() ? nesting
                                               : review.is_discarded()
                                                   ? absl::InvalidArgumentError("body is not JSON")
                                                   : DecideAdmission(review, stats, options);
  if (!decision.ok()) {
    spdlog::warn("admission: rejected a malformed review: {}",
                 LogText(decision.status().message()));
    metrics.CountAdmission("malformed");
    return io::JsonError(400, decision.status().message());
  }
  for (const std::string& warning : decision->warnings) {
    spdlog::warn("admission {}: {}", LogText(decision->pod), LogText(warning));
  }
  if (!decision->skipped.empty()) {
    spdlog::debug("admission {}: unchanged: {}", decision->pod, decision->skipped);
    metrics.CountAdmission("unchanged");
  } else {
    spdlog::info("admission {} ({}){}: {}", decision->pod, decision->workload_key,
                 apply ? "" : " [dry run or kill switch: not applied]", decision->annotation);
    metrics.CountAdmission(apply ? "mutated" : "not_applied");
    if (journal != nullptr) {
      journal->Record({absl::Now(), decision->workload_key, decision->pod, "admit",
                       apply ? "applied" : "not_applied", decision->annotation});
    }
  }
  io::HttpResponse response;
  response.body = AdmissionResponse(*decision, apply)
                      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return response;
}

}  // namespace headroom::extender
