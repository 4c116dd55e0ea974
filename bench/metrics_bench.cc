// What counting one request costs headroom-extender (extender/serving/metrics.h): the requests
// counter and the latency histogram, on every filter and prioritize call.

#include "benchmark/benchmark.h"
#include "extender/scheduler/scheduler_metrics.h"
#include "extender/serving/metrics.h"

namespace headroom::extender {
namespace {

Metrics& Shared() {
  static Metrics metrics;
  return metrics;
}

void BM_ObserveRequest(benchmark::State& state) {
  Metrics& metrics = Shared();
  for (auto _ : state) {
    metrics.ObserveRequest("filter", 200, absl::Microseconds(180));
  }
}
BENCHMARK(BM_ObserveRequest)->Threads(1)->Threads(4);

void BM_CountRejection(benchmark::State& state) {
  static SchedulerMetrics scheduler(Shared());
  for (auto _ : state) scheduler.CountRejection("InsufficientCpu");
}
BENCHMARK(BM_CountRejection);

void BM_Render(benchmark::State& state) {
  Metrics metrics;
  for (const char* verb : {"filter", "prioritize", "admission"}) {
    metrics.ObserveRequest(verb, 200, absl::Microseconds(180));
  }
  Metrics::ClusterGauges gauges;
  gauges.pod_watch = {{true, 1, 0, 10}};
  for (auto _ : state) benchmark::DoNotOptimize(metrics.Render(gauges));
}
BENCHMARK(BM_Render);

}  // namespace
}  // namespace headroom::extender

BENCHMARK_MAIN();
