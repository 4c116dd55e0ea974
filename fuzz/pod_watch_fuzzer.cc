// libFuzzer target: lines of the bound-pod watch as headroom-extender reads them (simdjson,
// cut to BoundPodFields) and applies them (the placement tracker and the pod index). Any
// input must give a clear error or an event: no crash, leak or hang. And the cut must agree
// with nlohmann: where nlohmann reads the line, the event's object equals nlohmann's tree cut
// by the same mask (numerically: simdjson reads -0 as a float, nlohmann as an integer).
// Seeds: tests/testdata/fuzz-regressions/pod-watch.

#include <cstddef>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "extender/json/json_projection.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_index.h"
#include "extender/kube/pod_placements.h"
#include "extender/view/cluster_view.h"
#include "nlohmann/json.hpp"
#include "shared/json_nesting.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using headroom::extender::FieldMask;
  const absl::string_view line(reinterpret_cast<const char*>(data), size);
  static const FieldMask* const event_fields =
      new FieldMask(headroom::extender::WatchEventFields(headroom::extender::BoundPodFields()));
  absl::StatusOr<headroom::extender::WatchEvent> event =
      headroom::extender::ParseWatchEvent(line, event_fields);
  if (!event.ok()) return 0;

  if (event->type != headroom::extender::WatchEventType::kError &&
      headroom::CheckJsonNesting(line).ok()) {
    const nlohmann::json whole = nlohmann::json::parse(line.begin(), line.end(), nullptr, false);
    if (!whole.is_discarded() &&
        headroom::extender::Project(whole, *event_fields)["object"] != event->object) {
      __builtin_trap();
    }
  }

  headroom::extender::ClusterView view({});
  headroom::extender::PodPlacementTracker placements(view);
  headroom::extender::PodIndex index;
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  placements.Apply(*event, now);
  index.Apply(*event);
  return 0;
}
