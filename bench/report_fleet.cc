#include "bench/report_fleet.h"

#include <grpcpp/create_channel_posix.h>
#include <sys/resource.h>

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/loopback_socket.h"
#include "kubelet-hook/report_retry.h"

namespace headroom::bench {

std::optional<int> LoopbackTargetPort(const std::string& target) {
  const std::vector<std::string> host_port = absl::StrSplit(target, ':');
  int port = 0;
  if (host_port.size() != 2 || host_port[0] != "127.0.0.1" ||
      !absl::SimpleAtoi(host_port[1], &port)) {
    return std::nullopt;
  }
  return port;
}

void RaiseOpenFileLimit() {
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);
}

ReportFleet::ReportFleet(std::string target, int port, size_t nodes, int per_address,
                         absl::Duration deadline, const std::atomic<bool>* stopping)
    : target_(std::move(target)),
      port_(port),
      per_address_(per_address),
      deadline_(deadline),
      stopping_(stopping),
      nodes_(nodes) {}

bool ReportFleet::Connect(size_t node) {
  const int fd = ConnectFrom(2 + static_cast<int>(node) / per_address_, port_);
  if (fd < 0) return false;
  std::shared_ptr<grpc::Channel> channel = grpc::CreateInsecureChannelFromFd(target_, fd);
  std::shared_ptr<headroom::v1::ReportService::Stub> stub =
      headroom::v1::ReportService::NewStub(channel);
  absl::MutexLock lock(&nodes_[node].mu);
  nodes_[node].channel = std::move(channel);
  nodes_[node].stub = std::move(stub);
  return true;
}

void ReportFleet::SetReport(size_t node, std::shared_ptr<const headroom::v1::NodeReport> report) {
  absl::MutexLock lock(&nodes_[node].mu);
  nodes_[node].report = std::move(report);
}

void ReportFleet::Start(size_t node, absl::Time round_end) {
  {
    absl::MutexLock lock(&mu_);
    ++tally_.reports;
  }
  Send(node, 0, round_end);
}

ReportTally ReportFleet::Tally() const {
  absl::MutexLock lock(&mu_);
  return tally_;
}

void ReportFleet::Send(size_t node, int attempt, absl::Time round_end) {
  struct Call {
    grpc::ClientContext context;
    headroom::v1::ReportReply reply;
    absl::Time started;
    std::shared_ptr<grpc::Channel> channel;
    std::shared_ptr<headroom::v1::ReportService::Stub> stub;
    std::shared_ptr<const headroom::v1::NodeReport> report;
  };
  auto* call = new Call;
  {
    absl::MutexLock lock(&nodes_[node].mu);
    call->channel = nodes_[node].channel;
    call->stub = nodes_[node].stub;
    call->report = nodes_[node].report;
  }
  call->started = absl::Now();
  call->context.set_deadline(absl::ToChronoTime(call->started + deadline_));
  ++outstanding_;
  call->stub->async()->Report(
      &call->context, call->report.get(), &call->reply,
      [this, call, node, attempt, round_end](grpc::Status status) {
        const double ms = absl::ToDoubleMilliseconds(absl::Now() - call->started);
        const std::shared_ptr<grpc::Channel> channel = call->channel;
        delete call;
        bool retry = false;
        absl::Duration delay;
        {
          absl::MutexLock lock(&mu_);
          ++tally_.attempts;
          tally_.latencies_ms.push_back(ms);
          const std::string code_name = status.ok() ? "OK" : absl::StrCat(status.error_code());
          ++tally_.codes[code_name];
          if (status.ok()) {
            ++(attempt == 0 ? tally_.first_try : tally_.after_retry);
          } else {
            tally_.first_message.emplace(code_name, status.error_message());
            const auto code = static_cast<absl::StatusCode>(status.error_code());
            delay = headroom::nri::ReportRetryDelay({absl::Seconds(1), absl::Seconds(30)}, attempt,
                                                    absl::Uniform(gen_, 0.0, 1.0));
            retry = headroom::nri::ReportRetryable(code) && absl::Now() + delay < round_end &&
                    (stopping_ == nullptr || !*stopping_);
            if (!retry) {
              ++tally_.lost;
              ++tally_.lost_codes[code_name];
            }
          }
        }
        if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
          const grpc_connectivity_state state = channel->GetState(false);
          if ((state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) &&
              Connect(node)) {
            absl::MutexLock lock(&mu_);
            ++tally_.reconnects;
          }
        }
        if (retry) {
          timer_.At(absl::Now() + delay,
                    [this, node, attempt, round_end] { Send(node, attempt + 1, round_end); });
        }
        --outstanding_;
      });
}

}  // namespace headroom::bench
