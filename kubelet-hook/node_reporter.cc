#include "kubelet-hook/node_reporter.h"

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <map>
#include <set>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/blocking_counter.h"
#include "codec/report_codec.h"
#include "io/atomic_file.h"
#include "io/bearer_token.h"
#include "kubelet-hook/container_policy.h"
#include "shared/log_text.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {

headroom::v1::NodeReport BuildNodeReport(const NodeState& state, const std::string& node_name,
                                         ResourceAmounts allocatable, std::optional<double> load1,
                                         int cpus, absl::Time now) {
  NodeReport report;
  report.node = node_name;
  report.reported_at = now;
  report.allocatable = allocatable;
  report.load1 = load1;
  report.cpus = cpus;
  // The last measurement of the sized pods (a pod gone since only makes it larger than the
  // rest need, never smaller); pods that came since are not in it.
  const std::optional<NodeState::SharedHeadroomRecord> shared = state.SharedHeadroom();
  if (shared.has_value()) report.shared_headroom = shared->shared_headroom;
  absl::flat_hash_map<std::string, size_t> pod_index;  // pod id -> its place in report.pods
  for (const TrackedContainer& c : state.Containers()) {
    const auto [it, added] = pod_index.try_emplace(c.pod_id, report.pods.size());
    if (added) {
      ReportedPod pod;
      pod.pod_namespace = c.pod_namespace;
      pod.name = c.pod_name;
      pod.uid = c.pod_uid;
      pod.workload_key = c.workload_key;
      pod.daemonset = c.daemonset;
      pod.ranking = c.ranking;
      pod.in_shared_headroom = shared.has_value() && shared->pod_ids.contains(c.pod_id);
      report.pods.push_back(std::move(pod));
    }
    ReportedPod& pod = report.pods[it->second];
    // Declared requests as the runtime knows them (kubelet's, before headroom).
    ContainerDemand container = TrackedDemand(state, c, now);
    pod.requests = SaturatingSum(pod.requests, container.declared_requests);
    pod.containers.push_back(std::move(container));
  }
  return codec::NodeReportToProto(report);
}

absl::StatusOr<std::vector<std::string>> ResolveAddresses(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (const int error = ::getaddrinfo(host.c_str(), nullptr, &hints, &found); error != 0) {
    return absl::UnavailableError(
        absl::StrCat("cannot resolve ", host, ": ", ::gai_strerror(error)));
  }
  std::set<std::string> addresses;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char text[INET6_ADDRSTRLEN] = {};
    const void* raw =
        a->ai_family == AF_INET
            ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(a->ai_addr)->sin_addr)
            : static_cast<const void*>(
                  &reinterpret_cast<const sockaddr_in6*>(a->ai_addr)->sin6_addr);
    if ((a->ai_family == AF_INET || a->ai_family == AF_INET6) &&
        ::inet_ntop(a->ai_family, raw, text, sizeof(text)) != nullptr) {
      addresses.insert(text);
    }
  }
  ::freeaddrinfo(found);
  if (addresses.empty()) return absl::UnavailableError(absl::StrCat(host, " has no address"));
  return std::vector<std::string>(addresses.begin(), addresses.end());
}

absl::flat_hash_map<std::string, AdoptionStep> PodModesOf(const headroom::v1::ReportReply& reply) {
  absl::flat_hash_map<std::string, AdoptionStep> modes;
  for (const auto& [uid, mode] : reply.pod_modes()) {
    if (absl::StatusOr<AdoptionStep> step = ParseAdoptionStep(mode); step.ok()) {
      modes.emplace(uid, *step);
    }
  }
  return modes;
}

absl::StatusOr<headroom::v1::ReportReply> MergeReplicaReplies(
    const std::vector<std::pair<std::string, absl::StatusOr<headroom::v1::ReportReply>>>& replies) {
  headroom::v1::ReportReply merged;
  bool any = false;
  std::vector<std::string> failures;
  for (const auto& [replica, reply] : replies) {
    if (!reply.ok()) {
      failures.push_back(absl::StrCat(replica, ": ", reply.status().message()));
      continue;
    }
    any = true;
    merged.set_nodes_known(std::max(merged.nodes_known(), reply->nodes_known()));
    for (const auto& [key, seconds] : reply->history_seconds()) {
      int64_t& kept = (*merged.mutable_history_seconds())[key];
      kept = std::max(kept, seconds);
    }
    // Replicas that disagree on a pod's step (one saw a Namespace change first): the lower.
    for (const auto& [uid, mode] : reply->pod_modes()) {
      const absl::StatusOr<AdoptionStep> step = ParseAdoptionStep(mode);
      if (!step.ok()) continue;
      auto [it, added] = merged.mutable_pod_modes()->try_emplace(uid, mode);
      if (added) continue;
      const absl::StatusOr<AdoptionStep> kept = ParseAdoptionStep(it->second);
      if (!kept.ok() || *step < *kept) it->second = mode;
    }
  }
  if (!any) {
    return absl::UnavailableError(failures.empty()
                                      ? "no extender replica to report to"
                                      : absl::StrCat("report to every extender replica failed: ",
                                                     absl::StrJoin(failures, "; ")));
  }
  return merged;
}

NodeReporter::NodeReporter(const std::string& extender_address,
                           std::shared_ptr<grpc::ChannelCredentials> credentials,
                           std::string token_file, ReplicaOptions replicas)
    : address_(extender_address),
      credentials_(std::move(credentials)),
      token_file_(std::move(token_file)),
      replicas_(std::move(replicas)) {
  const size_t colon = address_.rfind(':');
  host_ = address_.substr(0, colon == std::string::npos ? address_.size() : colon);
  port_ = colon == std::string::npos ? "" : address_.substr(colon + 1);
  if (host_.size() >= 2 && host_.front() == '[' && host_.back() == ']') {
    host_ = host_.substr(1, host_.size() - 2);
  }
  if (!replicas_.all_replicas) {
    stub_ = headroom::v1::ReportService::NewStub(grpc::CreateChannel(address_, credentials_));
  }
}

absl::StatusOr<headroom::v1::ReportReply> NodeReporter::Send(const headroom::v1::NodeReport& report,
                                                             absl::Duration timeout) {
  if (replicas_.all_replicas) return SendToEveryReplica(report, timeout);
  grpc::ClientContext context;
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
  if (absl::Status added = io::AddBearerToken(context, token_file_); !added.ok()) {
    return absl::UnavailableError(absl::StrCat("report not sent: --token-file: ", added.message()));
  }
  headroom::v1::ReportReply reply;
  const grpc::Status status = stub_->Report(&context, report, &reply);
  if (!status.ok()) {
    // The code says whether to send again soon (report_retry.h).
    return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                        absl::StrCat("report to the extender failed: ", status.error_message()));
  }
  return reply;
}

headroom::v1::ReportService::Stub& NodeReporter::ReplicaStub(const std::string& ip) {
  std::unique_ptr<headroom::v1::ReportService::Stub>& stub = replica_stubs_[ip];
  if (stub == nullptr) {
    grpc::ChannelArguments args;
    args.SetSslTargetNameOverride(host_);  // the certificate names the Service, not the pod
    const std::string target =
        ip.find(':') != std::string::npos ? absl::StrCat("[", ip, "]:", port_) : ip + ":" + port_;
    stub =
        headroom::v1::ReportService::NewStub(grpc::CreateCustomChannel(target, credentials_, args));
  }
  return *stub;
}

absl::StatusOr<headroom::v1::ReportReply> NodeReporter::SendToEveryReplica(
    const headroom::v1::NodeReport& report, absl::Duration timeout) {
  absl::StatusOr<std::vector<std::string>> addresses = replicas_.resolve(host_);
  if (!addresses.ok()) {
    return absl::UnavailableError(
        absl::StrCat("report not sent: no extender replica: ", addresses.status().message()));
  }
  // Replicas gone from the Service are forgotten with their channels.
  for (auto it = replica_stubs_.begin(); it != replica_stubs_.end();) {
    it = std::find(addresses->begin(), addresses->end(), it->first) == addresses->end()
             ? replica_stubs_.erase(it)
             : std::next(it);
  }
  struct Call {
    grpc::ClientContext context;
    headroom::v1::ReportReply reply;
    grpc::Status status;
  };
  std::vector<std::unique_ptr<Call>> calls;
  const auto deadline = absl::ToChronoTime(absl::Now() + timeout);
  for (size_t i = 0; i < addresses->size(); ++i) {  // one call per replica, in order
    auto call = std::make_unique<Call>();
    call->context.set_deadline(deadline);
    if (absl::Status added = io::AddBearerToken(call->context, token_file_); !added.ok()) {
      return absl::UnavailableError(
          absl::StrCat("report not sent: --token-file: ", added.message()));
    }
    calls.push_back(std::move(call));
  }
  // Every call ends by its deadline: gRPC calls back in any case.
  absl::BlockingCounter pending(static_cast<int>(calls.size()));
  for (size_t i = 0; i < calls.size(); ++i) {
    Call* call = calls[i].get();
    ReplicaStub((*addresses)[i])
        .async()
        ->Report(&call->context, &report, &call->reply, [call, &pending](grpc::Status status) {
          call->status = std::move(status);
          pending.DecrementCount();
        });
  }
  pending.Wait();
  std::vector<std::pair<std::string, absl::StatusOr<headroom::v1::ReportReply>>> replies;
  for (size_t i = 0; i < calls.size(); ++i) {
    const grpc::Status& status = calls[i]->status;
    replies.emplace_back((*addresses)[i],
                         status.ok() ? absl::StatusOr<headroom::v1::ReportReply>(calls[i]->reply)
                                     : absl::UnavailableError(status.error_message()));
  }
  absl::StatusOr<headroom::v1::ReportReply> merged = MergeReplicaReplies(replies);
  if (merged.ok()) {
    for (const auto& [ip, reply] : replies) {
      if (!reply.ok()) {
        spdlog::warn("report to extender replica {} failed (the other replicas took it): {}", ip,
                     LogText(reply.status().message()));
      }
    }
  }
  return merged;
}

std::optional<double> ReadLoad1() {
  absl::StatusOr<std::string> text = io::ReadFile("/proc/loadavg");
  if (!text.ok()) return std::nullopt;
  double load = 0;
  if (!absl::SimpleAtod(text->substr(0, text->find(' ')), &load)) return std::nullopt;
  return load;
}

}  // namespace headroom::nri
