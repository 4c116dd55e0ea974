// libFuzzer target: an AdmissionReview body as the webhook receives it (the nesting check,
// the JSON parse, the decision and the answer). Any input must give a clear refusal or an
// answer whose patch is valid JSON: no crash, leak, hang or deep recursion.
// Seeds: tests/testdata/fuzz-regressions/admission.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "extender/admission/admission.h"
#include "nlohmann/json.hpp"
#include "shared/json_nesting.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view body(reinterpret_cast<const char*>(data), size);
  if (!headroom::CheckJsonNesting(body).ok()) return 0;
  const nlohmann::json review = nlohmann::json::parse(body, nullptr, false);
  if (review.is_discarded()) return 0;
  const headroom::extender::StatsLookup stats =
      [](const std::string&,
         const std::string&) -> std::optional<headroom::extender::WorkloadContainerStats> {
    return headroom::extender::WorkloadContainerStats{
        headroom::CpuStats{100, 2000}, headroom::MemoryStats{1 << 20, 2 << 20, 3 << 20, 0},
        absl::Hours(30)};
  };
  for (const bool strip : {true, false}) {
    headroom::extender::AdmissionOptions options;
    options.strip_cpu_limits = strip;
    absl::StatusOr<headroom::extender::AdmissionDecision> decision =
        headroom::extender::DecideAdmission(review, stats, options);
    if (!decision.ok()) return 0;
    const nlohmann::json answer = headroom::extender::AdmissionResponse(*decision, true);
    if (!answer.contains("response")) __builtin_trap();
    (void)answer.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  return 0;
}
