#pragma once

// Node reports on the wire (proto/headroom/v1/report.proto) to and from the cluster view's
// NodeReport, and the report's JSON form (protobuf's canonical JSON mapping) for
// `headroom report`. Reports are validated with the same checks the node optimisation
// applies (shared ValidateNodeDemand), so a report the plugin could not have produced is
// refused with the field named.

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "headroom/v1/report.pb.h"
#include "shared/node_report.h"

namespace headroom::codec {

// InvalidArgument naming the field ("pods[1].containers[0].cpu.max: ...").
// A Kubernetes object name (RFC 1123 subdomain): lowercase alphanumerics, '-' and '.', at
// most 253 characters, starting and ending alphanumeric.
bool IsDnsSubdomain(absl::string_view name);

absl::StatusOr<NodeReport> NodeReportFromProto(const headroom::v1::NodeReport& report,
                                               absl::Time received_at);

headroom::v1::NodeReport NodeReportToProto(const NodeReport& report);

// The JSON form; unknown fields are an error (they are usually typos).
absl::StatusOr<headroom::v1::NodeReport> ReportFromJson(absl::string_view json);

}  // namespace headroom::codec
