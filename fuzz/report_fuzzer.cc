// libFuzzer target: a node report as headroom-extender receives it over gRPC (protobuf
// bytes), decoded, checked and applied to the cluster view, then judged. Any input must be
// refused with a status or applied without a crash, leak or hang; an applied report's node is
// then judged without overflow. Seeds: tests/testdata/fuzz-regressions/report.

#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/time/time.h"
#include "codec/report_codec.h"
#include "extender/reports/report_verification.h"
#include "extender/view/cluster_view.h"
#include "headroom/v1/report.pb.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  headroom::v1::NodeReport proto;
  if (!proto.ParseFromArray(data, static_cast<int>(size))) return 0;
  const absl::Time now = absl::FromUnixSeconds(1'800'000'000);
  absl::StatusOr<headroom::NodeReport> report = headroom::codec::NodeReportFromProto(proto, now);
  if (!report.ok()) return 0;
  if (report->reported_at > now) __builtin_trap();  // a report is never from the future
  // Half the inputs as if the API knew only a pod named "known" on this node.
  headroom::extender::ApiFacts api;
  if (size % 2 == 0) {
    api.pods_synced = [] { return true; };
    api.find_pod = [&](const std::string& ns,
                       const std::string& name) -> std::optional<headroom::extender::ApiPod> {
      if (name != "known") return std::nullopt;
      headroom::extender::ApiPod pod;
      pod.pod_namespace = ns;
      pod.name = name;
      pod.uid = "uid-known";
      pod.node = report->node;
      return pod;
    };
  }
  if (!headroom::extender::VerifyReport(*report, api).ok()) return 0;
  headroom::extender::ClusterView view({});
  if (!view.ApplyReport(*report).ok()) return 0;
  const auto nodes = view.Nodes({report->node}, now);
  if (nodes.size() != 1) __builtin_trap();
  if (nodes[0].has_value() &&
      (nodes[0]->base_total.cpu_millis < 0 || nodes[0]->base_total.memory_bytes < 0)) {
    __builtin_trap();  // saturating sums never wrap to negative
  }
  return 0;
}
