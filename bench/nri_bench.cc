// headroom-nri's added latency per CreateContainer: the handler alone (decode, policy, encode)
// on the real 14 KB CreateContainer containerd 1.7.29 sent (tests/testdata/nri-wire), and the
// full round trip through our mux + ttrpc over a unix socketpair, as the runtime sees it; and
// the memory each workload container costs (the number behind the workload cap).
// Run: ./build/release/bench/nri_bench [--benchmark_repetitions=5]

#include <malloc.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "benchmark/benchmark.h"
#include "kubelet-hook/node_checkpoint.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/transport/mux_codec.h"
#include "kubelet-hook/transport/trunk_connection.h"
#include "kubelet-hook/transport/ttrpc_codec.h"
#include "nlohmann/json.hpp"
#include "spdlog/spdlog.h"

namespace {

using namespace headroom::nri;

// The recorded CreateContainer request body (ttrpc Request) from the 1.7.29 capture.
std::string RecordedCreateContainerBody() {
  std::ifstream in(std::string(HEADROOM_SOURCE_DIR) +
                   "/tests/testdata/nri-wire/1.7.29/messages.jsonl");
  std::string line;
  while (std::getline(in, line)) {
    const nlohmann::json m = nlohmann::json::parse(line);
    if (m["method"] == "CreateContainer" && m["type"] == 1) {
      return absl::HexStringToBytes(m["ttrpc_message_hex"].get<std::string>()).substr(10);
    }
  }
  return "";
}

// Sets p50/p99/p99.9/max counters (microseconds) from per-iteration latencies: Google
// Benchmark itself reports only means and medians of whole runs.
void ReportPercentiles(benchmark::State& state, std::vector<double>& micros) {
  if (micros.empty()) return;
  std::sort(micros.begin(), micros.end());
  const auto at = [&](double q) {
    return micros[std::min(micros.size() - 1, static_cast<size_t>(q * micros.size()))];
  };
  state.counters["p50_us"] = at(0.50);
  state.counters["p99_us"] = at(0.99);
  state.counters["p999_us"] = at(0.999);
  state.counters["max_us"] = micros.back();
}

void BM_HandleCreateContainer(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  const std::string body = RecordedCreateContainerBody();
  NodeState node;
  NriPlugin plugin({}, node, [] { return absl::FromUnixSeconds(1795331119); });
  NriStub stub(plugin.Handlers());
  std::vector<double> micros;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    absl::StatusOr<ttrpc::Request> request = DecodeRequest(body);
    benchmark::DoNotOptimize(stub.Handle(*request));
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  ReportPercentiles(state, micros);
  state.SetLabel(std::to_string(body.size()) + " byte request");
}
BENCHMARK(BM_HandleCreateContainer);

// The runtime's view: write the framed request, read the framed reply, over a socketpair with
// the plugin's reader thread answering. Each iteration is timed on its own for the percentiles.
void BM_CreateContainerRoundTrip(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  const std::string body = RecordedCreateContainerBody();
  NodeState node;
  NriPlugin plugin({}, node, [] { return absl::FromUnixSeconds(1795331119); });
  NriStub stub(plugin.Handlers());
  int fds[2];
  socketpair(AF_UNIX, SOCK_STREAM, 0, fds);
  TrunkConnection connection(fds[0], [&](const ttrpc::Request& r) { return stub.Handle(r); });
  connection.Start();
  MuxDecoder mux;
  TtrpcStreamDecoder replies;
  std::vector<char> buffer(65536);
  uint32_t stream = 1;
  std::vector<double> micros;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    const std::string frames =
        EncodeMuxMessage(kPluginServiceConn, EncodeTtrpcMessage(stream, TtrpcType::kRequest, body));
    stream += 2;
    if (write(fds[1], frames.data(), frames.size()) != static_cast<ssize_t>(frames.size())) {
      state.SkipWithError("write");
      break;
    }
    std::vector<TtrpcMessage> messages;
    while (messages.empty()) {
      const ssize_t n = read(fds[1], buffer.data(), buffer.size());
      if (n <= 0) break;
      std::vector<MuxFrame> out;
      (void)mux.Feed(absl::string_view(buffer.data(), n), out);
      for (const MuxFrame& f : out) replies.Feed(f.payload, messages);
    }
    micros.push_back(
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
            .count());
  }
  close(fds[1]);
  ReportPercentiles(state, micros);
}
BENCHMARK(BM_CreateContainerRoundTrip)->UseRealTime();

// The memory behind headroom-nri's workload cap (kubelet-hook/workload_budget.h): heap bytes
// per workload container, fed `hours` of one sample a minute (48 h fills every window and
// profile: the worst case), and the checkpoint's text per workload container, which the
// checkpoint holds once while it writes.
void BM_WorkloadContainerFootprint(benchmark::State& state) {
  spdlog::set_level(spdlog::level::off);
  const int hours = static_cast<int>(state.range(0));
  constexpr int kWorkloads = 200;
  const absl::Time start = absl::FromUnixSeconds(1795331100);
  for (auto _ : state) {
    const size_t before = mallinfo2().uordblks;
    auto node = std::make_unique<NodeState>();
    for (int minute = 0; minute < std::max(1, hours * 60); ++minute) {
      const absl::Time at = start + absl::Minutes(minute);
      for (int w = 0; w < kWorkloads; ++w) {
        const std::string key = "ns/Job/churn-" + std::to_string(w) + "#main";
        node->AddCpuSample(key, at, 100 + (minute * 7 + w) % 300);
        node->AddMemorySample(key, at, (64 << 20) + ((minute * 13 + w) % 97) * 4096);
      }
    }
    const size_t held = mallinfo2().uordblks - before;
    const absl::Time now = start + absl::Hours(hours);
    const std::string text = EncodeNodeCheckpoint({node->Records(now), {}}, now);
    state.counters["heap_bytes_per_workload"] = static_cast<double>(held) / kWorkloads;
    state.counters["checkpoint_bytes_per_workload"] = static_cast<double>(text.size()) / kWorkloads;
  }
}
BENCHMARK(BM_WorkloadContainerFootprint)
    ->Arg(0)
    ->Arg(1)
    ->Arg(48)
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
