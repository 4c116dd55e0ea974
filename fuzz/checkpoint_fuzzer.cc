// libFuzzer target: both daemons' checkpoint readers (headroom-extender's workloads.json,
// headroom-nri's node-stats.json) on arbitrary file contents. Any input must be refused with
// a status or decoded into values the daemons can use (no negative amounts): no crash, leak
// or hang. Seeds: tests/testdata/fuzz-regressions/checkpoint.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "extender/view/workload_checkpoint.h"
#include "kubelet-hook/node_checkpoint.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view text(reinterpret_cast<const char*>(data), size);
  if (auto workloads = headroom::extender::DecodeWorkloads(text); workloads.ok()) {
    for (const auto& [key, stats] : *workloads) {
      if (stats.history < absl::ZeroDuration() || stats.history > headroom::kMaxHistory) {
        __builtin_trap();
      }
      if (stats.cpu && (stats.cpu->base_millis < 0 || stats.cpu->peak_millis < 0)) {
        __builtin_trap();
      }
      if (stats.memory && (stats.memory->base_bytes < 0 || stats.memory->peak_bytes < 0 ||
                           stats.memory->oom_bytes < 0)) {
        __builtin_trap();
      }
    }
  }
  (void)headroom::nri::DecodeNodeCheckpoint(text);
  return 0;
}
