#include "codec/report_codec.h"

#include <google/protobuf/util/json_util.h>

#include <algorithm>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "codec/report_proto.h"
#include "shared/node_optimizer.h"

namespace headroom::codec {

bool IsDnsSubdomain(absl::string_view name) {
  if (name.empty() || name.size() > 253) return false;
  for (const char c : name) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) return false;
  }
  return absl::ascii_isalnum(static_cast<unsigned char>(name.front())) &&
         absl::ascii_isalnum(static_cast<unsigned char>(name.back()));
}

absl::StatusOr<NodeReport> NodeReportFromProto(const headroom::v1::NodeReport& proto,
                                               absl::Time received_at) {
  NodeReport report;
  report.node = proto.node();
  if (report.node.empty()) return absl::InvalidArgumentError("node: required");
  // Names are Kubernetes object names: anything else (a newline that would forge a log line,
  // a megabyte of text) is refused before it is stored or logged.
  if (!IsDnsSubdomain(report.node)) {
    return absl::InvalidArgumentError(
        "node: not a Kubernetes node name (lowercase letters, digits, '-' and '.', at most 253)");
  }
  // A report is never newer than its arrival: a time in the future would keep the node
  // fresh forever. A little ahead is a node's clock running fast (taken as the arrival);
  // far ahead is refused.
  constexpr absl::Duration kClockSkew = absl::Minutes(10);
  report.reported_at = proto.reported_at_unix_millis() > 0
                           ? absl::FromUnixMillis(proto.reported_at_unix_millis())
                           : received_at;
  if (report.reported_at > received_at + kClockSkew) {
    return absl::InvalidArgumentError(
        absl::StrCat("report for node ", report.node, ": reportedAtUnixMillis is ",
                     absl::FormatDuration(report.reported_at - received_at),
                     " in the future (check the node's clock)"));
  }
  report.reported_at = std::min(report.reported_at, received_at);
  report.allocatable = {proto.allocatable().cpu_millis(), proto.allocatable().memory_bytes()};
  // 0 is "not said" (the field's default): kubelet's own default; a negative count is refused
  // below.
  report.max_pods = proto.max_pods() == 0 ? 110 : proto.max_pods();
  if (proto.has_load1()) report.load1 = proto.load1();
  report.cpus = proto.cpus();
  // The same checks the node optimisation applies to the same numbers.
  // kubelet's --max-pods is 110 by default and rarely above a few hundred.
  constexpr int kMaxPodsPerReport = 1000;
  if (proto.pods_size() > kMaxPodsPerReport) {
    return absl::InvalidArgumentError(absl::StrCat("report for node ", report.node, ": ",
                                                   proto.pods_size(), " pods, more than ",
                                                   kMaxPodsPerReport));
  }
  NodeDemand demand{report.node, report.allocatable, {}};
  for (const headroom::v1::PodReport& p : proto.pods()) {
    ReportedPod pod;
    pod.pod_namespace = p.namespace_().empty() ? "default" : p.namespace_();
    pod.name = p.name();
    if (!IsDnsSubdomain(pod.pod_namespace) || !IsDnsSubdomain(pod.name) || p.uid().size() > 128 ||
        p.workload_key().size() > 600 || p.containers_size() > 256) {
      return absl::InvalidArgumentError(absl::StrCat(
          "report for node ", report.node,
          ": a pod with a namespace or name that is not a Kubernetes name, an overlong UID or "
          "workload key, or more than 256 containers"));
    }
    pod.uid = p.uid();
    pod.workload_key = p.workload_key();
    pod.daemonset = p.daemonset();
    pod.in_shared_headroom = p.in_shared_headroom();
    pod.ranking = codec::RankingFromProto(p.ranking());
    pod.requests = {p.requests().cpu_millis(), p.requests().memory_bytes()};
    for (const headroom::v1::ContainerReport& c : p.containers()) {
      ContainerDemand container;
      container.name = c.name();
      if (!IsDnsSubdomain(container.name) || container.name.size() > 63) {
        return absl::InvalidArgumentError(absl::StrCat("report for node ", report.node, ": pod ",
                                                       pod.name,
                                                       ": a container name that is not a "
                                                       "Kubernetes name"));
      }
      if (c.has_cpu()) container.cpu = codec::CpuStatsFromProto(c.cpu());
      if (c.has_memory()) container.memory = codec::MemoryStatsFromProto(c.memory());
      if (c.history_seconds() < 0) {
        return absl::InvalidArgumentError(absl::StrCat("report for node ", report.node, ": pod ",
                                                       pod.name, " container ", c.name(),
                                                       ": historySeconds must not be negative"));
      }
      container.history = std::min(absl::Seconds(c.history_seconds()), kMaxHistory);
      container.declared_requests = {c.requests().cpu_millis(), c.requests().memory_bytes()};
      container.declared_limits = {c.limits().cpu_millis(), c.limits().memory_bytes()};
      container.memory_in_use_bytes = std::max<int64_t>(0, c.memory_in_use_bytes());
      pod.containers.push_back(std::move(container));
    }
    PodDemand check;
    check.pod_namespace = pod.pod_namespace;
    check.name = pod.name;
    check.daemonset = pod.daemonset;
    check.ranking = pod.ranking;
    check.optimizable = !pod.containers.empty();
    check.requests = pod.requests;
    check.containers = pod.containers;
    demand.pods.push_back(std::move(check));
    report.pods.push_back(std::move(pod));
  }
  if (absl::Status valid = ValidateNodeDemand(demand); !valid.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("report for node ", report.node, ": ", valid.message()));
  }
  if (proto.has_shared_headroom()) {
    if (proto.shared_headroom().cpu_millis() < 0 || proto.shared_headroom().memory_bytes() < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("report for node ", report.node, ": sharedHeadroom must not be negative"));
    }
    report.shared_headroom = ResourceAmounts{proto.shared_headroom().cpu_millis(),
                                             proto.shared_headroom().memory_bytes()};
  }
  if (report.cpus < 0 || report.max_pods < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("report for node ", report.node, ": cpus and maxPods must not be negative"));
  }
  return report;
}

headroom::v1::NodeReport NodeReportToProto(const NodeReport& report) {
  headroom::v1::NodeReport proto;
  proto.set_node(report.node);
  proto.set_reported_at_unix_millis(absl::ToUnixMillis(report.reported_at));
  proto.mutable_allocatable()->set_cpu_millis(report.allocatable.cpu_millis);
  proto.mutable_allocatable()->set_memory_bytes(report.allocatable.memory_bytes);
  proto.set_max_pods(report.max_pods);
  if (report.load1.has_value()) proto.set_load1(*report.load1);
  proto.set_cpus(report.cpus);
  if (report.shared_headroom.has_value()) {
    proto.mutable_shared_headroom()->set_cpu_millis(report.shared_headroom->cpu_millis);
    proto.mutable_shared_headroom()->set_memory_bytes(report.shared_headroom->memory_bytes);
  }
  for (const ReportedPod& pod : report.pods) {
    headroom::v1::PodReport* p = proto.add_pods();
    p->set_namespace_(pod.pod_namespace);
    p->set_name(pod.name);
    p->set_uid(pod.uid);
    p->set_workload_key(pod.workload_key);
    p->set_daemonset(pod.daemonset);
    p->set_in_shared_headroom(pod.in_shared_headroom);
    p->set_ranking(codec::RankingToProto(pod.ranking));
    p->mutable_requests()->set_cpu_millis(pod.requests.cpu_millis);
    p->mutable_requests()->set_memory_bytes(pod.requests.memory_bytes);
    for (const ContainerDemand& c : pod.containers) {
      headroom::v1::ContainerReport* container = p->add_containers();
      container->set_name(c.name);
      container->set_history_seconds(absl::ToInt64Seconds(c.history));
      container->mutable_requests()->set_cpu_millis(c.declared_requests.cpu_millis);
      container->mutable_requests()->set_memory_bytes(c.declared_requests.memory_bytes);
      container->mutable_limits()->set_cpu_millis(c.declared_limits.cpu_millis);
      container->mutable_limits()->set_memory_bytes(c.declared_limits.memory_bytes);
      container->set_memory_in_use_bytes(c.memory_in_use_bytes);
      if (c.cpu.has_value()) codec::CpuStatsToProto(*c.cpu, *container->mutable_cpu());
      if (c.memory.has_value()) codec::MemoryStatsToProto(*c.memory, *container->mutable_memory());
    }
  }
  return proto;
}

absl::StatusOr<headroom::v1::NodeReport> ReportFromJson(absl::string_view json) {
  headroom::v1::NodeReport proto;
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(json), &proto, {});
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("not a NodeReport in JSON: ", std::string(status.message())));
  }
  return proto;
}

}  // namespace headroom::codec
