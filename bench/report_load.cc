// A fleet of headroom-nri reporters against headroom-extender's report port, for the hostile
// suite and capacity planning: NODES nodes, each on its own connection (bound to loopback
// addresses 127.0.0.2, 127.0.0.3, ... so that the front door's per-address cap is not what is
// measured), every --interval sending --in-flight reports at once (the burst after an
// extender restart or a rollout), each retried as headroom-nri does (full-jitter backoff,
// kubelet-hook/report_retry.h) until accepted or the interval ends. Prints one JSON object:
// reports sent, accepted at the first try, accepted after retries, lost, each gRPC code seen
// and the attempts' latency.
//
// Usage: report_load --target 127.0.0.1:PORT [--nodes 5000] [--in-flight 4] [--rounds 3]
//                    [--interval 20s] [--pods 30] [--deadline 2s] [--per-address 60]

#include <grpcpp/create_channel_posix.h>
#include <grpcpp/grpcpp.h>
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <queue>
#include <string>
#include <thread>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/due_timer.h"
#include "bench/loopback_socket.h"
#include "headroom/v1/report.grpc.pb.h"
#include "kubelet-hook/report_retry.h"
#include "nlohmann/json.hpp"

namespace {

struct Args {
  std::string target;
  int nodes = 5000;
  int in_flight = 4;
  int rounds = 3;
  absl::Duration interval = absl::Seconds(20);
  int pods = 30;
  absl::Duration deadline = absl::Seconds(2);
  int per_address = 60;
};

headroom::v1::NodeReport MakeReport(int node, int pods) {
  headroom::v1::NodeReport report;
  report.set_node(absl::StrCat("load-", node));
  report.mutable_allocatable()->set_cpu_millis(96000);
  report.mutable_allocatable()->set_memory_bytes(int64_t{512} << 30);
  report.set_cpus(96);
  for (int p = 0; p < pods; ++p) {
    headroom::v1::PodReport* pod = report.add_pods();
    pod->set_namespace_(absl::StrCat("team-", p % 7));
    pod->set_name(absl::StrCat("app-", node, "-", p));
    pod->set_uid(absl::StrCat("uid-", node, "-", p));
    pod->set_workload_key(absl::StrCat("team-", p % 7, "/Deployment/app-", p));
    headroom::v1::ContainerReport* c = pod->add_containers();
    c->set_name("app");
    c->set_history_seconds(86400 * 3);
    c->mutable_cpu()->set_base_millis(200 + p);
    c->mutable_cpu()->set_peak_millis(900 + p);
    c->mutable_memory()->set_base_bytes(int64_t{256} << 20);
    c->mutable_memory()->set_peak_bytes(int64_t{300} << 20);
  }
  return report;
}

struct Tally {
  absl::Mutex mu;
  uint64_t reports = 0, first_try = 0, after_retry = 0, lost = 0, attempts = 0;
  std::map<std::string, uint64_t> codes;
  std::map<std::string, std::string> first_message;  // by code
  std::map<std::string, uint64_t> lost_codes;        // the last failure of each report lost
  uint64_t reconnects = 0;
  std::vector<double> latencies_ms;
};

// A node's connection. A channel made from a socket cannot reconnect by itself, as
// headroom-nri's channel does: a node whose connection failed gets a new one.
struct Node {
  absl::Mutex mu;
  std::shared_ptr<grpc::Channel> channel ABSL_GUARDED_BY(mu);
  std::shared_ptr<headroom::v1::ReportService::Stub> stub ABSL_GUARDED_BY(mu);
  headroom::v1::NodeReport report;
};

struct Run {
  Args args;
  int port = 0;
  std::vector<Node> nodes;
  Tally tally;
  headroom::bench::DueTimer timer;
  std::atomic<int64_t> outstanding{0};
  absl::Mutex gen_mu;
  absl::BitGen gen;

  // A new connection for `node` from its source address; false when it cannot connect.
  bool Connect(int node) {
    const int fd = headroom::bench::ConnectFrom(2 + node / args.per_address, port);
    if (fd < 0) return false;
    std::shared_ptr<grpc::Channel> channel = grpc::CreateInsecureChannelFromFd(args.target, fd);
    auto stub = std::shared_ptr<headroom::v1::ReportService::Stub>(
        headroom::v1::ReportService::NewStub(channel));
    absl::MutexLock lock(&nodes[node].mu);
    nodes[node].channel = std::move(channel);
    nodes[node].stub = std::move(stub);
    return true;
  }

  double Uniform() {
    absl::MutexLock lock(&gen_mu);
    return absl::Uniform<double>(gen, 0.0, 1.0);
  }

  // One attempt of one report; `round_end`: when headroom-nri's next round would replace it.
  void Send(int node, int attempt, absl::Time round_end) {
    struct Call {
      grpc::ClientContext context;
      headroom::v1::ReportReply reply;
      absl::Time started;
    };
    auto* call = new Call;
    call->started = absl::Now();
    call->context.set_deadline(absl::ToChronoTime(call->started + args.deadline));
    ++outstanding;
    std::shared_ptr<headroom::v1::ReportService::Stub> stub;
    std::shared_ptr<grpc::Channel> channel;
    {
      absl::MutexLock lock(&nodes[node].mu);
      stub = nodes[node].stub;
      channel = nodes[node].channel;
    }
    stub->async()->Report(
        &call->context, &nodes[node].report, &call->reply,
        [this, call, node, attempt, round_end, stub, channel](grpc::Status status) {
          const double ms = absl::ToDoubleMilliseconds(absl::Now() - call->started);
          delete call;
          bool retry = false;
          absl::Duration delay;
          {
            absl::MutexLock lock(&tally.mu);
            ++tally.attempts;
            tally.latencies_ms.push_back(ms);
            const std::string code = status.ok() ? "OK" : absl::StrCat(status.error_code());
            ++tally.codes[code];
            if (!status.ok()) tally.first_message.emplace(code, status.error_message());
            if (status.ok()) {
              ++(attempt == 0 ? tally.first_try : tally.after_retry);
            } else {
              const auto code = static_cast<absl::StatusCode>(status.error_code());
              delay = headroom::nri::ReportRetryDelay({absl::Seconds(1), absl::Seconds(30)},
                                                      attempt, Uniform());
              retry = headroom::nri::ReportRetryable(code) && absl::Now() + delay < round_end;
              if (!retry) {
                ++tally.lost;
                ++tally.lost_codes[absl::StrCat(status.error_code())];
              }
            }
          }
          if (!status.ok() && status.error_code() == grpc::StatusCode::UNAVAILABLE) {
            const grpc_connectivity_state state = channel->GetState(false);
            if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
              if (Connect(node)) {
                absl::MutexLock lock(&tally.mu);
                ++tally.reconnects;
              }
            }
          }
          if (retry) {
            timer.At(absl::Now() + delay,
                     [this, node, attempt, round_end] { Send(node, attempt + 1, round_end); });
          }
          --outstanding;
        });
  }
};

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))];
}

bool ParseArgs(int argc, char** argv, Args& args) {
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    bool ok = true;
    if (flag == "--target")
      args.target = value;
    else if (flag == "--nodes")
      ok = absl::SimpleAtoi(value, &args.nodes);
    else if (flag == "--in-flight")
      ok = absl::SimpleAtoi(value, &args.in_flight);
    else if (flag == "--rounds")
      ok = absl::SimpleAtoi(value, &args.rounds);
    else if (flag == "--interval")
      ok = absl::ParseDuration(value, &args.interval);
    else if (flag == "--pods")
      ok = absl::SimpleAtoi(value, &args.pods);
    else if (flag == "--deadline")
      ok = absl::ParseDuration(value, &args.deadline);
    else if (flag == "--per-address")
      ok = absl::SimpleAtoi(value, &args.per_address);
    else
      ok = false;
    if (!ok) {
      std::cerr << "report_load: bad flag " << flag << " " << value << "\n";
      return false;
    }
  }
  if (argc % 2 != 1) return false;
  return !args.target.empty() && args.nodes > 0 && args.in_flight > 0 && args.rounds > 0 &&
         args.per_address > 0 && args.per_address * 250 >= args.nodes;
}

}  // namespace

int main(int argc, char** argv) {
  Run run;
  if (!ParseArgs(argc, argv, run.args)) {
    std::cerr << "usage: report_load --target HOST:PORT [--nodes 5000] [--in-flight 4] "
                 "[--rounds 3] [--interval 20s] [--pods 30] [--deadline 2s] [--per-address 60]\n";
    return 2;
  }
  const Args& args = run.args;
  rlimit files{};
  getrlimit(RLIMIT_NOFILE, &files);
  files.rlim_cur = files.rlim_max;
  setrlimit(RLIMIT_NOFILE, &files);
  int port = 0;
  const std::vector<std::string> host_port = absl::StrSplit(args.target, ':');
  if (host_port.size() != 2 || !absl::SimpleAtoi(host_port[1], &port)) {
    std::cerr << "report_load: --target must be 127.0.0.1:PORT\n";
    return 2;
  }
  run.port = port;
  run.nodes = std::vector<Node>(args.nodes);
  for (int i = 0; i < args.nodes; ++i) run.nodes[i].report = MakeReport(i, args.pods);
  for (int i = 0; i < args.nodes; ++i) {
    if (!run.Connect(i)) {
      std::cerr << "report_load: connecting node " << i << " failed\n";
      return 1;
    }
  }
  std::atomic<bool> stop{false};
  std::thread timer([&] { run.timer.Run(stop); });
  const absl::Time start = absl::Now();
  for (int round = 0; round < args.rounds; ++round) {
    const absl::Time round_start = start + round * args.interval;
    absl::SleepFor(round_start - absl::Now());
    const absl::Time round_end = round_start + args.interval;
    for (int i = 0; i < args.nodes; ++i) {
      for (int k = 0; k < args.in_flight; ++k) {
        {
          absl::MutexLock lock(&run.tally.mu);
          ++run.tally.reports;
        }
        run.Send(i, 0, round_end);
      }
    }
  }
  absl::SleepFor(start + args.rounds * args.interval - absl::Now());
  while (run.outstanding > 0) absl::SleepFor(absl::Milliseconds(10));
  stop = true;
  timer.join();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  absl::MutexLock lock(&run.tally.mu);
  const Tally& t = run.tally;
  nlohmann::json out = {
      {"nodes", args.nodes},
      {"in_flight", args.in_flight},
      {"rounds", args.rounds},
      {"pods_per_report", args.pods},
      {"reports", t.reports},
      {"accepted_first_try", t.first_try},
      {"accepted_after_retry", t.after_retry},
      {"lost", t.lost},
      {"lost_codes", t.lost_codes},
      {"reconnects", t.reconnects},
      {"accepted_fraction",
       t.reports > 0 ? static_cast<double>(t.first_try + t.after_retry) / t.reports : 0.0},
      {"attempts", t.attempts},
      {"codes", t.codes},
      {"messages", t.first_message},
      {"attempt_p50_ms", Percentile(t.latencies_ms, 0.5)},
      {"attempt_p99_ms", Percentile(t.latencies_ms, 0.99)},
      {"seconds", seconds},
  };
  std::cout << out.dump() << std::endl;
  return 0;
}
