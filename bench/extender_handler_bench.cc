// What headroom-extender's scheduler endpoints cost without HTTP: decoding an ExtenderArgs
// body, judging its nodes (filter, prioritize) and writing the answer, at 100, 500 and 5000
// node names, against a cluster view in the state of a scheduling burst: every node reported
// with 5 pods, listed by the API, and with 2 recent placements no report covers yet; and what
// one event of the bound-pod watch costs (parsing its line, the placement tracker and the pod
// index), which runs beside the scheduler's requests during a burst; and one scheduling cycle
// (filter, then prioritize) with the caches evicted before each call. Measured, never asserted
// (scripts/bench.sh runs it; the numbers are in docs/benchmarks.md).

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "extender/actuation/actuation_plan.h"
#include "extender/kube/list_watcher.h"
#include "extender/kube/pod_index.h"
#include "extender/kube/pod_placements.h"
#include "extender/scheduler/extender_wire.h"
#include "extender/scheduler/judge.h"
#include "extender/status/status.h"
#include "extender/view/action_journal.h"
#include "extender/view/cluster_view.h"
#include "nlohmann/json.hpp"

#ifndef HEADROOM_SOURCE_DIR
#error "HEADROOM_SOURCE_DIR must be defined"
#endif

namespace headroom::extender {
namespace {

constexpr int64_t kGi = 1LL << 30;

std::string NodeName(int i) { return "node-" + std::to_string(i); }

// The Pod of a real kube-scheduler filter request (tests/testdata).
nlohmann::json FixturePod() {
  std::ifstream in(std::string(HEADROOM_SOURCE_DIR) +
                   "/tests/testdata/kube-scheduler-extender/run1-002-filter.json");
  std::stringstream text;
  text << in.rdbuf();
  return nlohmann::json::parse(text.str())["Pod"];
}

// A real kube-scheduler filter request with `nodes` names.
std::string Body(int nodes) {
  nlohmann::json body = {{"Pod", FixturePod()}, {"Nodes", nullptr}};
  nlohmann::json names = nlohmann::json::array();
  for (int i = 0; i < nodes; ++i) names.push_back(NodeName(i));
  body["NodeNames"] = names;
  return body.dump();
}

// Node i's report at `now`, without pods: 32 CPUs, 128 GiB, load 0.5.
NodeReport EmptyReport(int i, absl::Time now) {
  NodeReport report;
  report.node = NodeName(i);
  report.reported_at = now;
  report.allocatable = {32000, 128 * kGi};
  report.cpus = 32;
  report.load1 = 0.5;
  return report;
}

// Every node reported (5 pods), listed by the API, with 2 placements not yet reported.
struct Cluster {
  explicit Cluster(int nodes) : view(ClusterView::Options{}) {
    const absl::Time now = absl::Now();
    for (int i = 0; i < nodes; ++i) {
      NodeReport report = EmptyReport(i, now);
      for (int p = 0; p < 5; ++p) {
        ReportedPod pod;
        pod.pod_namespace = "bench";
        pod.name = "busy-" + std::to_string(p);
        pod.uid = report.node + "-" + pod.name;
        const int64_t base = 1000 + (i % 20) * 100;
        pod.containers.push_back({"c", CpuStats{base, base + 500}, MemoryStats{kGi, kGi, kGi, 0}});
        report.pods.push_back(pod);
      }
      (void)view.ApplyReport(report);
      view.SetApiNode(report.node, {{32000, 128 * kGi}, 110});
      for (int p = 0; p < 2; ++p) {
        view.RecordPlacement(report.node + "-placed-" + std::to_string(p), report.node,
                             {{100, 128 << 20}, {0, 0}}, now);
      }
    }
  }
  ClusterView view;
};

void BM_Decode(benchmark::State& state) {
  const std::string body = Body(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    absl::StatusOr<ExtenderArgs> args = DecodeExtenderArgs(body, true);
    benchmark::DoNotOptimize(args);
  }
}
BENCHMARK(BM_Decode)->Arg(100)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);

// The filter endpoint's work: decode (into the storage the previous request used, as the
// server does), judge, write the answer.
void BM_Filter(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  Cluster cluster(nodes);
  const std::string body = Body(nodes);
  ExtenderArgs args;
  for (auto _ : state) {
    benchmark::DoNotOptimize(DecodeExtenderArgsInto(body, true, args).ok());
    const FilterOutcome outcome = FilterNodes(args, cluster.view, absl::Now());
    std::string answer = EncodeFilterResult(args, outcome.result);
    benchmark::DoNotOptimize(answer);
  }
}
BENCHMARK(BM_Filter)->Arg(100)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);

// What kube-scheduler's machine does to our caches between two calls: the scheduler, the API
// server and etcd run in between. Writes a byte in every cache line of 4 MiB (more than L2,
// a part of L3), outside the timing.
void EvictCaches(benchmark::State& state) {
  static std::vector<char> junk(4 << 20);
  state.PauseTiming();
  for (size_t i = 0; i < junk.size(); i += 64) junk[i] = static_cast<char>(junk[i] + 1);
  benchmark::ClobberMemory();
  state.ResumeTiming();
}

// Filter and prioritize of one scheduling cycle, each after the caches were evicted: closer
// to what a call costs inside a scheduling burst than the warm loops above.
void BM_CycleCold(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  Cluster cluster(nodes);
  const std::string body = Body(nodes);
  ExtenderArgs args;
  for (auto _ : state) {
    EvictCaches(state);
    {
      benchmark::DoNotOptimize(DecodeExtenderArgsInto(body, true, args).ok());
      const FilterOutcome outcome = FilterNodes(args, cluster.view, absl::Now());
      std::string answer = EncodeFilterResult(args, outcome.result);
      benchmark::DoNotOptimize(answer);
    }
    EvictCaches(state);
    {
      benchmark::DoNotOptimize(DecodeExtenderArgsInto(body, false, args).ok());
      std::string answer =
          EncodeHostPriorities(PrioritizeNodes(args, cluster.view, absl::Now(), ScoringConfig{}));
      benchmark::DoNotOptimize(answer);
    }
  }
}
BENCHMARK(BM_CycleCold)->Arg(230)->Arg(500)->Unit(benchmark::kMicrosecond);

// The prioritize endpoint's work: decode, score, write the answer.
void BM_Prioritize(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  Cluster cluster(nodes);
  const std::string body = Body(nodes);
  ExtenderArgs args;
  for (auto _ : state) {
    benchmark::DoNotOptimize(DecodeExtenderArgsInto(body, false, args).ok());
    std::string answer =
        EncodeHostPriorities(PrioritizeNodes(args, cluster.view, absl::Now(), ScoringConfig{}));
    benchmark::DoNotOptimize(answer);
  }
}
BENCHMARK(BM_Prioritize)->Arg(100)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);

// Judging alone (the view's lock held for the whole visit).
void BM_VisitNodes(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  Cluster cluster(nodes);
  std::vector<std::string> names;
  for (int i = 0; i < nodes; ++i) names.push_back(NodeName(i));
  const std::vector<absl::string_view> views(names.begin(), names.end());
  for (auto _ : state) {
    int64_t sum = 0;
    cluster.view.VisitNodes(views, absl::Now(), [&](size_t, const NodeFootprint* node) {
      if (node != nullptr) sum += node->base_total.cpu_millis;
    });
    benchmark::DoNotOptimize(sum);
  }
}
BENCHMARK(BM_VisitNodes)->Arg(100)->Arg(500)->Arg(5000)->Unit(benchmark::kMicrosecond);

// One line of the bound-pod watch: the fixture's pod, bound to a node.
std::string PodEventLine(const char* type) {
  nlohmann::json pod = FixturePod();
  pod["spec"]["nodeName"] = NodeName(7);
  return nlohmann::json{{"type", type}, {"object", pod}}.dump();
}

// Reading one watch event's line into its object: whole (as before the watch was cut to
// the members headroom reads), and cut to BoundPodFields() (as the daemon's watch does).
void BM_PodWatchParse(benchmark::State& state) {
  const std::string line = PodEventLine("ADDED");
  const bool cut = state.range(0) != 0;
  const FieldMask event_fields = WatchEventFields(BoundPodFields());
  for (auto _ : state) {
    absl::StatusOr<WatchEvent> event = ParseWatchEvent(line, cut ? &event_fields : nullptr);
    benchmark::DoNotOptimize(event);
  }
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(line.size()));
  state.SetLabel(cut ? "BoundPodFields" : "whole object");
}
BENCHMARK(BM_PodWatchParse)->Arg(0)->Arg(1)->Unit(benchmark::kMicrosecond);

// What the extender does with a parsed event of a newly bound pod: record its placement (the
// pod decoded and sized) and index it for the actuator; then its deletion, so that the next
// iteration's pod is new again.
void BM_PodWatchApply(benchmark::State& state) {
  Cluster cluster(500);
  PodPlacementTracker placements(cluster.view);
  PodIndex index;
  const FieldMask event_fields = WatchEventFields(BoundPodFields());
  const WatchEvent added = *ParseWatchEvent(PodEventLine("ADDED"), &event_fields);
  const WatchEvent deleted = *ParseWatchEvent(PodEventLine("DELETED"), &event_fields);
  for (auto _ : state) {
    const absl::Time now = absl::Now();
    placements.Apply(added, now);
    index.Apply(added);
    placements.Apply(deleted, now);
    index.Apply(deleted);
  }
}
BENCHMARK(BM_PodWatchApply)->Unit(benchmark::kMicrosecond);

// The read-only APIs at cluster scale: `nodes` nodes of 30 pods each (distinct names), the
// pods of 3 workloads of 10 replicas per node (3000 Deployments at 1000 nodes, as
// scripts/bench-cluster.sh fills a cluster). Explain is an index lookup
// (ClusterView::FindReportedPod) for a pod that exists and one that does not; the status
// build (uncached) reads every fresh report and, with the API's pods, every pod's requests.
constexpr int kPodsPerNode = 30;

std::string WorkloadName(int node, int pod) {
  return "app-" + std::to_string((node * kPodsPerNode + pod) / 10);
}

std::unique_ptr<ClusterView> ReportedCluster(int nodes) {
  auto view = std::make_unique<ClusterView>(ClusterView::Options{});
  const absl::Time now = absl::Now();
  for (int i = 0; i < nodes; ++i) {
    NodeReport report = EmptyReport(i, now);
    for (int p = 0; p < kPodsPerNode; ++p) {
      ReportedPod pod;
      pod.pod_namespace = "bench";
      pod.name = report.node + "-pod-" + std::to_string(p);
      pod.uid = pod.name;
      pod.workload_key = "bench/Deployment/" + WorkloadName(i, p);
      pod.verified = true;
      pod.requests = {500, kGi};
      // Warm statistics (30 h): sized and planned like any running workload. The usage
      // varies by node so that some pods are resized.
      const int64_t base = 200 + (i % 7) * 100;
      pod.containers.push_back(
          {"c", CpuStats{base, base + 300}, MemoryStats{kGi / 2, kGi / 2, kGi / 2, 0}});
      pod.containers.back().history = absl::Hours(30);
      pod.containers.back().declared_requests = {500, kGi};
      report.pods.push_back(pod);
    }
    (void)view->ApplyReport(report);
  }
  return view;
}

// The API's view of ReportedCluster's pods: each owned by its Deployment's ReplicaSet.
std::unique_ptr<PodIndex> ApiPods(int nodes) {
  std::vector<nlohmann::json> pods;
  pods.reserve(static_cast<size_t>(nodes) * kPodsPerNode);
  for (int i = 0; i < nodes; ++i) {
    for (int p = 0; p < kPodsPerNode; ++p) {
      const std::string name = NodeName(i) + "-pod-" + std::to_string(p);
      nlohmann::json owner = {{"apiVersion", "apps/v1"},
                              {"kind", "ReplicaSet"},
                              {"name", WorkloadName(i, p) + "-5d4f8c7b9"},
                              {"uid", "rs"},
                              {"controller", true}};
      nlohmann::json container = {
          {"name", "c"}, {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "1Gi"}}}}}};
      pods.push_back(
          {{"metadata",
            {{"namespace", "bench"},
             {"name", name},
             {"uid", name},
             {"labels", {{"app", WorkloadName(i, p)}, {"pod-template-hash", "5d4f8c7b9"}}},
             {"ownerReferences", {owner}}}},
           {"spec", {{"nodeName", NodeName(i)}, {"containers", {container}}}},
           {"status",
            {{"phase", "Running"}, {"conditions", {{{"type", "Ready"}, {"status", "True"}}}}}}});
    }
  }
  auto index = std::make_unique<PodIndex>();
  index->Replace(pods);
  return index;
}

void BM_Explain(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::unique_ptr<ClusterView> view = ReportedCluster(nodes);
  ActionJournal journal;
  StatusBoard board(*view, nullptr, journal, {});
  const std::string name = state.range(1) != 0 ? NodeName(nodes / 2) + "-pod-7" : "nowhere";
  for (auto _ : state) benchmark::DoNotOptimize(board.Explain("bench", name));
  state.SetLabel(state.range(1) != 0 ? "a reported pod" : "a pod nobody reports");
}
BENCHMARK(BM_Explain)
    ->Args({500, 1})
    ->Args({5000, 1})
    ->Args({5000, 0})
    ->Unit(benchmark::kMicrosecond);

// Resident memory now (VmRSS), in bytes; 0 where /proc is not there.
int64_t ResidentBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  }
  return 0;
}

// What the cluster costs the extender in memory: the view's reports (with the workload
// statistics they carry) and the pod index, per pod, measured as the resident memory they
// add (after a malloc_trim, so that freed setup memory does not count).
void BM_ClusterMemory(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  const double pods = static_cast<double>(nodes) * kPodsPerNode;
  for (auto _ : state) {
    malloc_trim(0);
    const int64_t before = ResidentBytes();
    std::unique_ptr<ClusterView> view = ReportedCluster(nodes);
    malloc_trim(0);
    const int64_t with_view = ResidentBytes();
    std::unique_ptr<PodIndex> index = ApiPods(nodes);
    malloc_trim(0);
    const int64_t with_index = ResidentBytes();
    state.counters["view_bytes_per_pod"] = static_cast<double>(with_view - before) / pods;
    state.counters["index_bytes_per_pod"] = static_cast<double>(with_index - with_view) / pods;
    state.counters["total_MiB"] = static_cast<double>(with_index - before) / (1 << 20);
  }
}
BENCHMARK(BM_ClusterMemory)->Arg(1000)->Arg(5000)->Iterations(1)->Unit(benchmark::kMillisecond);

// Arg 0: nodes; arg 1: 1 with the API's pods (the daemon's case), 0 without.
void BM_StatusBuild(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::unique_ptr<ClusterView> view = ReportedCluster(nodes);
  std::unique_ptr<PodIndex> pods = state.range(1) != 0 ? ApiPods(nodes) : nullptr;
  ActionJournal journal;
  StatusBoard::Options options;
  options.cache_for = absl::ZeroDuration();
  StatusBoard board(*view, pods.get(), journal, options);
  size_t bytes = 0;
  for (auto _ : state) bytes = board.StatusJson().size();
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel(pods != nullptr ? "with the API's pods" : "reports only");
}
BENCHMARK(BM_StatusBuild)
    ->Args({1000, 1})
    ->Args({2000, 1})
    ->Args({5000, 0})
    ->Args({5000, 1})
    ->Unit(benchmark::kMillisecond);

// A read of the status as the daemon serves it (refresh_in_background): the last document
// built, copied out; the build itself runs on the refresher's thread.
void BM_StatusRead(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::unique_ptr<ClusterView> view = ReportedCluster(nodes);
  std::unique_ptr<PodIndex> pods = ApiPods(nodes);
  ActionJournal journal;
  StatusBoard::Options options;
  options.refresh_in_background = true;
  StatusBoard board(*view, pods.get(), journal, options);
  benchmark::DoNotOptimize(board.StatusJson());  // the first read builds
  for (auto _ : state) benchmark::DoNotOptimize(board.StatusJson());
}
BENCHMARK(BM_StatusRead)->Arg(5000)->Unit(benchmark::kMillisecond);

// The once-a-minute sample of the cluster totals (the status page's history).
void BM_StatusSample(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::unique_ptr<ClusterView> view = ReportedCluster(nodes);
  std::unique_ptr<PodIndex> pods = ApiPods(nodes);
  ActionJournal journal;
  StatusBoard board(*view, pods.get(), journal, {});
  for (auto _ : state) board.Sample();
}
BENCHMARK(BM_StatusSample)->Arg(5000)->Unit(benchmark::kMillisecond);

// The actuator's planning for one round (Actuator::RunOnce without the API writes): every
// fresh report planned against the API's pods as the actuator reads them (the pod index,
// its counts), with deploy/'s action defaults.
void BM_ActuationPlanning(benchmark::State& state) {
  const int nodes = static_cast<int>(state.range(0));
  std::unique_ptr<ClusterView> view = ReportedCluster(nodes);
  std::unique_ptr<PodIndex> pods = ApiPods(nodes);
  ApiView api;
  api.find = [&](const ReportedPod& reported) {
    return pods->Get(reported.pod_namespace, reported.name);
  };
  const ActionConfig config;
  SustainedConditions cpu_over(config.cpu_eviction_after);
  size_t resizes = 0;
  for (auto _ : state) {
    const absl::Time now = absl::Now();
    api.counts = pods->WorkloadCounts();
    resizes = 0;
    for (const ClusterView::SharedReport& report : view->FreshReports(now)) {
      resizes += PlanNode(*report, api, config, cpu_over, now).resizes.size();
    }
  }
  state.counters["resizes"] = static_cast<double>(resizes);
}
BENCHMARK(BM_ActuationPlanning)->Arg(1000)->Arg(2000)->Arg(5000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace headroom::extender

BENCHMARK_MAIN();
