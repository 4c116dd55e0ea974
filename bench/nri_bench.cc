// headroom-nri's added latency per CreateContainer: the handler alone (decode, policy, encode)
// on the real 14 KB CreateContainer containerd 1.7.29 sent (tests/testdata/nri-wire), and the
// full round trip through our mux + ttrpc over a unix socketpair, as the runtime sees it.
// Run: ./build/release/bench/nri_bench [--benchmark_repetitions=5]

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "benchmark/benchmark.h"
#include "kubelet-hook/mux_codec.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/trunk_connection.h"
#include "kubelet-hook/ttrpc_codec.h"
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

}  // namespace

BENCHMARK_MAIN();
