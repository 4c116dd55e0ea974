// libFuzzer target: kube-scheduler extender requests as headroom-extender decodes and answers
// them. Any input must give either a clear error or a well-formed answer: no crash, leak or
// hang, and the filter answer must be valid JSON. Seeds:
// tests/testdata/kube-scheduler-extender/*.json.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "extender/scheduler/extender_wire.h"
#include "extender/scheduler/judge.h"
#include "extender/view/cluster_view.h"
#include "nlohmann/json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view body(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<headroom::extender::ExtenderArgs> args =
      headroom::extender::DecodeExtenderArgs(body);
  if (!args.ok()) return 0;
  headroom::extender::ClusterView view({});
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  const headroom::extender::FilterOutcome outcome =
      headroom::extender::FilterNodes(*args, view, now);
  // The answer splices Node objects in as text: it must still be one valid JSON document.
  if (!nlohmann::json::accept(headroom::extender::EncodeFilterResult(*args, outcome.result))) {
    __builtin_trap();
  }
  (void)headroom::extender::EncodeHostPriorities(
      headroom::extender::PrioritizeNodes(*args, view, now, {}));
  return 0;
}
