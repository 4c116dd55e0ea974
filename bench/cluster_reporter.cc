// Every node of a benchmark cluster reporting as headroom-nri would (scripts/bench-cluster.sh):
// one report per node per --interval, spread evenly over the interval as a fleet's reports
// are (or all at once with --burst), each on the node's own connection from its own loopback
// address. A report holds the pods the Kubernetes API has bound to the node (--fleet-file,
// rewritten by the caller; read again whenever it changes), with statistics computed by the
// shared library (shared/usage_stats.h, shared/node_headroom.h: the code headroom-nri runs)
// from real usage: each workload replays one VM of a usage trace (sim/usage_trace.h), chosen by
// a hash of its workload key, so its replicas share a usage pattern. The trace is warmed for
// --warm-days before the first round and advances --trace-step per round, so a short run
// still sees usage change.
//
// --fleet-file: one pod per line, "NODE NAMESPACE NAME UID OWNER_KIND OWNER_NAME
// POD_TEMPLATE_HASH CPU_REQUEST MEMORY_REQUEST" (quantities as Kubernetes writes them; "-"
// where a field is missing), the workload key derived as the extender derives it
// (shared/workload_key.h). --nodes-file: the node names, one per line; a node without pods
// still reports.
//
// A failed report is retried as headroom-nri retries it (full-jitter backoff until the round
// ends, on a new connection when the old one failed). Prints one JSON object at the end:
// reports sent, accepted (and of those after a retry), lost, every attempt's gRPC code and
// latency (p50/p99/max), the achieved report rate, and the fleet's size.
//
// Usage: cluster_reporter --target 127.0.0.1:PORT --nodes-file F --fleet-file F
//          --usage-trace DIR [--interval 60s] [--rounds 10] [--trace-step 5m] [--warm-days 8]
//          [--node-cpus 96] [--node-memory-gi 512] [--burst false] [--deadline 5s]
//          [--per-address 60]
// SIGTERM ends the run early (the JSON covers what was sent).

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/report_fleet.h"
#include "cli/usage_trace_file.h"
#include "codec/report_codec.h"
#include "nlohmann/json.hpp"
#include "shared/footprint.h"
#include "shared/guard_rails.h"
#include "shared/node_headroom.h"
#include "shared/node_report.h"
#include "shared/quantity.h"
#include "shared/usage_stats.h"
#include "shared/workload_key.h"
#include "sim/usage_trace.h"

namespace {

using headroom::sim::TracePod;

// SIGTERM or SIGINT: finish the round's answers, print the JSON and exit.
std::atomic<bool> stopping{false};
void Stop(int) { stopping = true; }

// Sleeps until `when` or until asked to stop; false when asked to stop.
bool SleepUntil(absl::Time when) {
  while (!stopping) {
    const absl::Duration left = when - absl::Now();
    if (left <= absl::ZeroDuration()) return true;
    absl::SleepFor(std::min(left, absl::Milliseconds(100)));
  }
  return false;
}

struct Args {
  std::string target;
  std::string nodes_file;
  std::string fleet_file;
  std::string trace_dir;
  absl::Duration interval = absl::Seconds(60);
  int rounds = 10;
  absl::Duration trace_step = absl::Minutes(5);
  int warm_days = 8;
  int node_cpus = 96;
  int64_t node_memory_gi = 512;
  bool burst = false;
  absl::Duration deadline = absl::Seconds(5);
  int per_address = 60;
};

// headroom-nri's and the extender's --min-history default (the warm-up).
const absl::Duration kMinHistory = headroom::GuardRailConfig{}.min_history;

// Trace minute 0 is midnight UTC (2026-01-01), as the simulator replays it.
absl::Time TraceTime(int64_t minute) { return absl::FromUnixSeconds(1767225600 + minute * 60); }

// One VM of the trace replayed through the statistics headroom-nri keeps.
struct ReplayedVm {
  const TracePod* pod = nullptr;
  size_t next = 0;       // the next sample to add
  int64_t zero_at = -1;  // a gap starts here (usage 0 until the next row); -1: none
  headroom::ContainerUsageStats stats;
  headroom::UsageSnapshot snapshot;
  int64_t cpu_now_millis = 0;
  int64_t memory_now_bytes = 0;

  // Adds every sample up to trace minute `clock` (a gap longer than the trace's allowance
  // reads as 0 from the trace's resolution after its last row).
  void AdvanceTo(int64_t clock, int resolution) {
    const auto& samples = pod->samples;
    while (true) {
      const bool has_next = next < samples.size() && samples[next].minute <= clock;
      if (zero_at >= 0 && zero_at <= clock && (!has_next || zero_at < samples[next].minute)) {
        (void)stats.AddCpu(TraceTime(zero_at), 0);
        (void)stats.AddMemory(TraceTime(zero_at), 0);
        cpu_now_millis = memory_now_bytes = 0;
        zero_at = -1;
        continue;
      }
      if (!has_next) break;
      const headroom::sim::TraceSample& s = samples[next];
      cpu_now_millis = s.cpu_millis;
      memory_now_bytes = int64_t{s.memory_mib} << 20;
      (void)stats.AddCpu(TraceTime(s.minute), cpu_now_millis);
      (void)stats.AddMemory(TraceTime(s.minute), memory_now_bytes);
      zero_at = -1;
      if (next + 1 < samples.size() &&
          samples[next + 1].minute - s.minute > headroom::sim::kTraceGapMinutes) {
        zero_at = s.minute + resolution;
      }
      ++next;
    }
  }
};

struct FleetPod {
  std::string pod_namespace, name, uid, workload;
  int64_t cpu_request_millis = 0;
  int64_t memory_request_bytes = 0;
};

// FNV-1a: the same workload replays the same VM in every run.
uint64_t StableHash(absl::string_view text) {
  uint64_t h = 1469598103934665603ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  return h;
}

// The fleet file (see the top of this file); lines that do not parse are counted and skipped
// (the caller's kubectl output may catch a pod between states).
absl::flat_hash_map<std::string, std::vector<FleetPod>> ReadFleet(const std::string& path,
                                                                  int64_t& skipped) {
  absl::flat_hash_map<std::string, std::vector<FleetPod>> fleet;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f = absl::StrSplit(line, ' ', absl::SkipEmpty());
    for (std::string& field : f) {
      if (field == "<none>") field = "-";  // kubectl's custom-columns for a missing field
    }
    if (f.size() != 9 || f[0] == "-") {
      ++skipped;
      continue;
    }
    FleetPod pod{f[1], f[2], f[3], "", 0, 0};
    std::optional<headroom::ControllerRef> owner;
    if (f[4] != "-") owner = headroom::ControllerRef{f[4], f[5]};
    headroom::PodLabels labels;
    if (f[6] != "-") labels.emplace_back("pod-template-hash", f[6]);
    pod.workload = headroom::WorkloadKeyFromController(pod.pod_namespace, pod.name, labels, owner);
    if (f[7] != "-") pod.cpu_request_millis = headroom::ParseCpuMillis(f[7]).value_or(0);
    if (f[8] != "-") pod.memory_request_bytes = headroom::ParseMemoryBytes(f[8]).value_or(0);
    fleet[f[0]].push_back(std::move(pod));
  }
  return fleet;
}

std::optional<int64_t> ModifiedNanos(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return std::nullopt;
  return int64_t{st.st_mtim.tv_sec} * 1000000000 + st.st_mtim.tv_nsec;
}

class Fleet {
 public:
  Fleet(Args args, headroom::sim::UsageTrace trace)
      : args_(std::move(args)), trace_(std::move(trace)) {}

  // VMs present from a day before the warm end to a day after the run's trace time (at most
  // a day of it), so no workload replays a VM that has gone.
  absl::Status SelectVms() {
    const int64_t start = trace_.first_minute + int64_t{args_.warm_days} * 1440;
    const int64_t end =
        start +
        std::min<int64_t>(int64_t{args_.rounds} * absl::ToInt64Minutes(args_.trace_step), 1440);
    for (const TracePod& pod : trace_.pods) {
      if (pod.samples.empty()) continue;
      if (pod.samples.front().minute <= start - 1440 && pod.samples.back().minute >= end + 1440) {
        vms_.push_back(std::make_unique<ReplayedVm>());
        vms_.back()->pod = &pod;
      }
    }
    if (vms_.empty()) return absl::InvalidArgumentError("no VM of the trace spans the run");
    clock_ = start;
    for (auto& vm : vms_) vm->AdvanceTo(clock_, trace_.resolution_minutes);
    return absl::OkStatus();
  }

  void Advance() {
    clock_ += absl::ToInt64Minutes(args_.trace_step);
    for (auto& vm : vms_) {
      vm->AdvanceTo(clock_, trace_.resolution_minutes);
      vm->snapshot = vm->stats.Snapshot(TraceTime(clock_));
    }
  }

  const ReplayedVm& VmOf(absl::string_view workload) const {
    return *vms_[StableHash(workload) % vms_.size()];
  }

  // What headroom-nri would report for `node` holding `pods` now.
  headroom::v1::NodeReport ReportOf(const std::string& node,
                                    const std::vector<FleetPod>& pods) const {
    headroom::NodeReport report;
    report.node = node;
    report.allocatable = {int64_t{args_.node_cpus} * 1000, args_.node_memory_gi << 30};
    report.cpus = args_.node_cpus;
    std::vector<std::vector<headroom::ProfiledContainer>> measured(pods.size());
    double load = 0;
    for (size_t i = 0; i < pods.size(); ++i) {
      const FleetPod& p = pods[i];
      const ReplayedVm& vm = VmOf(p.workload);
      headroom::ReportedPod reported;
      reported.pod_namespace = p.pod_namespace;
      reported.name = p.name;
      reported.uid = p.uid;
      reported.workload_key = p.workload;
      reported.requests = {p.cpu_request_millis, p.memory_request_bytes};
      headroom::ContainerDemand demand{"app",
                                       vm.snapshot.cpu,
                                       vm.snapshot.memory,
                                       vm.snapshot.history,
                                       {p.cpu_request_millis, p.memory_request_bytes},
                                       {0, 0},
                                       vm.memory_now_bytes};
      // Measured together as headroom-nri does and the simulator (sim/sizing_policies.cc):
      // containers whose history the guard rails trust.
      if (headroom::HasTrustedHistory(demand, kMinHistory)) {
        measured[i].push_back(
            {&vm.stats,
             {headroom::PlanningBase(*demand.cpu), headroom::PlanningBase(*demand.memory)}});
      }
      reported.containers.push_back(std::move(demand));
      report.pods.push_back(std::move(reported));
      load += vm.cpu_now_millis / 1000.0;
    }
    report.load1 = load;
    const headroom::NodeMeasurement m =
        headroom::MeasureNode(measured, TraceTime(clock_), kMinHistory, {});
    report.shared_headroom = m.shared_headroom;
    for (size_t i = 0; i < report.pods.size(); ++i)
      report.pods[i].in_shared_headroom = m.measured[i];
    return headroom::codec::NodeReportToProto(report);
  }

  size_t vm_count() const { return vms_.size(); }
  int64_t clock() const { return clock_; }

 private:
  Args args_;
  headroom::sim::UsageTrace trace_;
  std::vector<std::unique_ptr<ReplayedVm>> vms_;
  int64_t clock_ = 0;
};

bool ParseArgs(int argc, char** argv, Args& args) {
  if (argc % 2 != 1) return false;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    bool ok = true;
    if (flag == "--target") {
      args.target = value;
    } else if (flag == "--nodes-file") {
      args.nodes_file = value;
    } else if (flag == "--fleet-file") {
      args.fleet_file = value;
    } else if (flag == "--usage-trace") {
      args.trace_dir = value;
    } else if (flag == "--interval") {
      ok = absl::ParseDuration(value, &args.interval);
    } else if (flag == "--rounds") {
      ok = absl::SimpleAtoi(value, &args.rounds);
    } else if (flag == "--trace-step") {
      ok = absl::ParseDuration(value, &args.trace_step);
    } else if (flag == "--warm-days") {
      ok = absl::SimpleAtoi(value, &args.warm_days);
    } else if (flag == "--node-cpus") {
      ok = absl::SimpleAtoi(value, &args.node_cpus);
    } else if (flag == "--node-memory-gi") {
      ok = absl::SimpleAtoi(value, &args.node_memory_gi);
    } else if (flag == "--burst") {
      ok = absl::SimpleAtob(value, &args.burst);
    } else if (flag == "--deadline") {
      ok = absl::ParseDuration(value, &args.deadline);
    } else if (flag == "--per-address") {
      ok = absl::SimpleAtoi(value, &args.per_address);
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "cluster_reporter: bad flag " << flag << " " << value << "\n";
      return false;
    }
  }
  return !args.target.empty() && !args.nodes_file.empty() && !args.fleet_file.empty() &&
         !args.trace_dir.empty() && args.rounds > 0 && args.per_address > 0 &&
         args.interval > absl::ZeroDuration() && args.trace_step >= absl::Minutes(1) &&
         args.warm_days >= 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::signal(SIGTERM, Stop);
  std::signal(SIGINT, Stop);
  Args args;
  if (!ParseArgs(argc, argv, args)) {
    std::cerr << "usage: cluster_reporter --target HOST:PORT --nodes-file F --fleet-file F "
                 "--usage-trace DIR [--interval 60s] [--rounds 10] [--trace-step 5m] "
                 "[--warm-days 8] [--node-cpus 96] [--node-memory-gi 512] [--burst false] "
                 "[--deadline 5s] [--per-address 60]\n";
    return 2;
  }
  const std::optional<int> port = headroom::bench::LoopbackTargetPort(args.target);
  if (!port.has_value()) {
    std::cerr << "cluster_reporter: --target must be 127.0.0.1:PORT\n";
    return 2;
  }
  headroom::bench::RaiseOpenFileLimit();
  absl::StatusOr<headroom::sim::UsageTrace> trace = headroom::cli::LoadUsageTrace(args.trace_dir);
  if (!trace.ok()) {
    std::cerr << "cluster_reporter: " << trace.status() << "\n";
    return 1;
  }
  Fleet fleet(args, *std::move(trace));
  if (absl::Status s = fleet.SelectVms(); !s.ok()) {
    std::cerr << "cluster_reporter: " << s << "\n";
    return 1;
  }
  std::vector<std::string> names;
  {
    std::ifstream in(args.nodes_file);
    std::string name;
    while (in >> name) names.push_back(name);
  }
  if (names.empty() || names.size() > static_cast<size_t>(args.per_address) * 250) {
    std::cerr << "cluster_reporter: no node names in " << args.nodes_file
              << " (or more than --per-address x 250)\n";
    return 1;
  }
  headroom::bench::ReportFleet sender(args.target, *port, names.size(), args.per_address,
                                      args.deadline, &stopping);
  // The extender may be restarting (scripts/bench-cluster.sh starts the reporter just before
  // it restarts the extender): a connection refused is tried again for up to two minutes.
  const absl::Time give_up = absl::Now() + absl::Minutes(2);
  for (size_t i = 0; i < names.size(); ++i) {
    while (!sender.Connect(i)) {
      if (absl::Now() > give_up || stopping) {
        std::cerr << "cluster_reporter: connecting node " << names[i] << " failed\n";
        return 1;
      }
      absl::SleepFor(absl::Milliseconds(250));
    }
  }
  std::atomic<bool> timer_stop{false};
  std::thread timer([&] { sender.RunTimer(timer_stop); });

  std::optional<int64_t> fleet_version;
  absl::flat_hash_map<std::string, std::vector<FleetPod>> pods_by_node;
  int64_t skipped_lines = 0, fleet_reads = 0;
  size_t pods_reported = 0;
  double build_seconds = 0;
  const absl::Time start = absl::Now();
  int rounds_done = 0;
  std::vector<double> burst_seconds;  // per burst round
  for (int round = 0; round < args.rounds; ++round, ++rounds_done) {
    const absl::Time round_start = start + round * args.interval;
    if (!SleepUntil(round_start)) break;
    const absl::Time round_end = round_start + args.interval;
    const std::optional<int64_t> version = ModifiedNanos(args.fleet_file);
    if (version.has_value() && version != fleet_version) {
      skipped_lines = 0;
      pods_by_node = ReadFleet(args.fleet_file, skipped_lines);
      fleet_version = version;
      ++fleet_reads;
    }
    const absl::Time build_start = absl::Now();
    fleet.Advance();
    pods_reported = 0;
    static const std::vector<FleetPod> kNone;
    for (size_t i = 0; i < names.size(); ++i) {
      const auto it = pods_by_node.find(names[i]);
      const std::vector<FleetPod>& pods = it == pods_by_node.end() ? kNone : it->second;
      sender.SetReport(
          i, std::make_shared<const headroom::v1::NodeReport>(fleet.ReportOf(names[i], pods)));
      pods_reported += pods.size();
    }
    build_seconds += absl::ToDoubleSeconds(absl::Now() - build_start);
    for (size_t i = 0; i < names.size(); ++i) {
      if (!args.burst &&
          !SleepUntil(round_start + args.interval * (static_cast<double>(i) / names.size()))) {
        break;
      }
      sender.Start(i, round_end);
    }
    // A burst round waits for its answers (retries included): its rate is the nodes over the
    // time from the round's start to its last answer.
    if (args.burst) {
      while (sender.outstanding() > 0) absl::SleepFor(absl::Milliseconds(1));
      burst_seconds.push_back(absl::ToDoubleSeconds(absl::Now() - round_start));
    }
  }
  const absl::Time sent_end = absl::Now();
  while (sender.outstanding() > 0) absl::SleepFor(absl::Milliseconds(10));
  timer_stop = true;
  timer.join();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  const headroom::bench::ReportTally tally = sender.Tally();
  using headroom::bench::Percentile;
  nlohmann::json out = {
      {"nodes", names.size()},
      {"rounds", rounds_done},
      {"burst", args.burst},
      {"pods_last_round", pods_reported},
      {"fleet_reads", fleet_reads},
      {"fleet_lines_skipped", skipped_lines},
      {"trace_vms", fleet.vm_count()},
      {"trace_minute_last", fleet.clock()},
      {"sent", tally.reports},
      {"accepted", tally.accepted()},
      {"accepted_after_retry", tally.after_retry},
      {"lost", tally.lost},
      {"lost_codes", tally.lost_codes},
      {"attempts", tally.attempts},
      {"reconnects", tally.reconnects},
      {"codes", tally.codes},
      {"messages", tally.first_message},
      {"attempt_p50_ms", Percentile(tally.latencies_ms, 0.5)},
      {"attempt_p99_ms", Percentile(tally.latencies_ms, 0.99)},
      {"attempt_max_ms", Percentile(tally.latencies_ms, 1.0)},
      {"reports_per_second", seconds > 0 ? tally.accepted() / seconds : 0.0},
      {"burst_round_seconds", burst_seconds},
      {"burst_reports_per_second",
       burst_seconds.empty() ? 0.0 : names.size() / Percentile(burst_seconds, 0.5)},
      {"build_seconds", build_seconds},
      {"seconds", seconds},
      {"sending_seconds", absl::ToDoubleSeconds(sent_end - start)},
  };
  std::cout << out.dump() << std::endl;
  return 0;
}
