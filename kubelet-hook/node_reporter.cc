#include "kubelet-hook/node_reporter.h"

#include <grpcpp/grpcpp.h>

#include <map>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "codec/report_proto.h"
#include "io/atomic_file.h"
#include "io/bearer_token.h"
#include "kubelet-hook/container_policy.h"

namespace headroom::nri {

headroom::v1::NodeReport BuildNodeReport(const NodeState& state, const std::string& node_name,
                                         ResourceAmounts allocatable, std::optional<double> load1,
                                         int cpus, absl::Time now) {
  headroom::v1::NodeReport report;
  report.set_node(node_name);
  report.set_reported_at_unix_millis(absl::ToUnixMillis(now));
  report.mutable_allocatable()->set_cpu_millis(allocatable.cpu_millis);
  report.mutable_allocatable()->set_memory_bytes(allocatable.memory_bytes);
  if (load1.has_value()) report.set_load1(*load1);
  report.set_cpus(cpus);
  std::map<std::string, headroom::v1::PodReport*> pods;
  for (const TrackedContainer& c : state.Containers()) {
    headroom::v1::PodReport*& pod = pods[c.pod_id];
    if (pod == nullptr) {
      pod = report.add_pods();
      pod->set_namespace_(c.pod_namespace);
      pod->set_name(c.pod_name);
      pod->set_uid(c.pod_uid);
      pod->set_workload_key(c.workload_key);
      pod->set_daemonset(c.daemonset);
      pod->set_ranking(codec::RankingToProto(c.ranking));
    }
    // Declared requests as the runtime knows them (kubelet's, before headroom): CPU from
    // shares, memory from the limit.
    const ResourceAmounts declared = RuntimeRequests(c.declared);
    pod->mutable_requests()->set_cpu_millis(pod->requests().cpu_millis() + declared.cpu_millis);
    pod->mutable_requests()->set_memory_bytes(pod->requests().memory_bytes() +
                                              declared.memory_bytes);
    headroom::v1::ContainerReport* container = pod->add_containers();
    container->set_name(c.name);
    container->set_history_seconds(absl::ToInt64Seconds(state.History(c.stats_key, now)));
    container->mutable_requests()->set_cpu_millis(declared.cpu_millis);
    container->mutable_requests()->set_memory_bytes(declared.memory_bytes);
    container->mutable_limits()->set_memory_bytes(c.declared.memory_limit_bytes.value_or(0));
    container->set_memory_in_use_bytes(c.memory_usage_bytes);
    if (std::optional<CpuStats> cpu = state.CpuHistory(c.stats_key, now); cpu.has_value()) {
      codec::CpuStatsToProto(*cpu, *container->mutable_cpu());
    }
    // An OOM kill is reported even before the first sample (a container killed in its first
    // seconds): the extender sizes the workload's next pod from it.
    if (std::optional<MemoryStats> memory = state.MemoryHistory(c.stats_key, now);
        memory.has_value() && (memory->peak_bytes > 0 || memory->oom_bytes > 0)) {
      codec::MemoryStatsToProto(*memory, *container->mutable_memory());
    }
  }
  return report;
}

NodeReporter::NodeReporter(const std::string& extender_address,
                           std::shared_ptr<grpc::ChannelCredentials> credentials,
                           std::string token_file)
    : stub_(headroom::v1::ReportService::NewStub(
          grpc::CreateChannel(extender_address, std::move(credentials)))),
      token_file_(std::move(token_file)) {}

absl::StatusOr<headroom::v1::ReportReply> NodeReporter::Send(const headroom::v1::NodeReport& report,
                                                             absl::Duration timeout) {
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (absl::Status added = io::AddBearerToken(context, token_file_); !added.ok()) {
    return absl::UnavailableError(absl::StrCat("report not sent: --token-file: ", added.message()));
  }
  headroom::v1::ReportReply reply;
  const grpc::Status status = stub_->Report(&context, report, &reply);
  if (!status.ok()) {
    return absl::UnavailableError(
        absl::StrCat("report to the extender failed: ", status.error_message()));
  }
  return reply;
}

std::optional<double> ReadLoad1() {
  absl::StatusOr<std::string> text = io::ReadFile("/proc/loadavg");
  if (!text.ok()) return std::nullopt;
  double load = 0;
  if (!absl::SimpleAtod(text->substr(0, text->find(' ')), &load)) return std::nullopt;
  return load;
}

}  // namespace headroom::nri
