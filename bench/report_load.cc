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

#include <atomic>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/report_fleet.h"
#include "headroom/v1/report.grpc.pb.h"
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
  Args args;
  if (!ParseArgs(argc, argv, args)) {
    std::cerr << "usage: report_load --target HOST:PORT [--nodes 5000] [--in-flight 4] "
                 "[--rounds 3] [--interval 20s] [--pods 30] [--deadline 2s] [--per-address 60]\n";
    return 2;
  }
  const std::optional<int> port = headroom::bench::LoopbackTargetPort(args.target);
  if (!port.has_value()) {
    std::cerr << "report_load: --target must be 127.0.0.1:PORT\n";
    return 2;
  }
  headroom::bench::RaiseOpenFileLimit();
  headroom::bench::ReportFleet fleet(args.target, *port, args.nodes, args.per_address,
                                     args.deadline);
  for (int i = 0; i < args.nodes; ++i) {
    fleet.SetReport(i, std::make_shared<const headroom::v1::NodeReport>(MakeReport(i, args.pods)));
    if (!fleet.Connect(i)) {
      std::cerr << "report_load: connecting node " << i << " failed\n";
      return 1;
    }
  }
  std::atomic<bool> stop{false};
  std::thread timer([&] { fleet.RunTimer(stop); });
  const absl::Time start = absl::Now();
  for (int round = 0; round < args.rounds; ++round) {
    const absl::Time round_start = start + round * args.interval;
    absl::SleepFor(round_start - absl::Now());
    const absl::Time round_end = round_start + args.interval;
    for (int i = 0; i < args.nodes; ++i) {
      for (int k = 0; k < args.in_flight; ++k) fleet.Start(i, round_end);
    }
  }
  absl::SleepFor(start + args.rounds * args.interval - absl::Now());
  while (fleet.outstanding() > 0) absl::SleepFor(absl::Milliseconds(10));
  stop = true;
  timer.join();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  const headroom::bench::ReportTally t = fleet.Tally();
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
      {"accepted_fraction", t.reports > 0 ? static_cast<double>(t.accepted()) / t.reports : 0.0},
      {"attempts", t.attempts},
      {"codes", t.codes},
      {"messages", t.first_message},
      {"attempt_p50_ms", headroom::bench::Percentile(t.latencies_ms, 0.5)},
      {"attempt_p99_ms", headroom::bench::Percentile(t.latencies_ms, 0.99)},
      {"seconds", seconds},
  };
  std::cout << out.dump() << std::endl;
  return 0;
}
