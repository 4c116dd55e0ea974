// Latency of a kube-scheduler extender as the scheduler sees it: one keep-alive connection,
// for each scheduling cycle a filter call and then a prioritize call with the same body.
// Builds ExtenderArgs with N nodes from a recorded kube-scheduler request (names, or whole
// Node objects), sends R cycles after W warm-up cycles, and prints p50/p99/mean per call and
// per cycle as one JSON line. With --report, first gives headroom-extender a report for every
// node over gRPC (and writes the same state for the Go baseline with --go-state).
//
// Usage: extender_latency --url http://127.0.0.1:8888 --nodes 500 --mode names|nodes
//                         [--requests 200] [--warmup 20] [--report 127.0.0.1:9090]
//                         [--go-state FILE] --fixture tests/testdata/.../run1-002-filter.json

#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "extender/report_codec.h"
#include "headroom/v1/report.grpc.pb.h"
#include "nlohmann/json.hpp"

namespace {

using nlohmann::json;
constexpr int64_t kGi = 1LL << 30;

std::map<std::string, std::string> ParseArgs(int argc, char** argv) {
  std::map<std::string, std::string> args;
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  return args;
}

std::string NodeName(int i) { return "node-" + std::to_string(i); }

// Node i runs pods whose bases add up to 1000 + (i % 20) x 100 millicores, with a 500m
// headroom: some nodes fit the pod, some do not, as in a busy cluster.
int64_t BaseMillis(int i) { return 1000 + (i % 20) * 100; }

std::string Body(const json& fixture, int nodes, bool names) {
  json body = {{"Pod", fixture["Pod"]}};
  if (names) {
    json list = json::array();
    for (int i = 0; i < nodes; ++i) list.push_back(NodeName(i));
    body["Nodes"] = nullptr;
    body["NodeNames"] = std::move(list);
  } else {
    json items = json::array();
    const json& node = fixture["Nodes"]["items"][0];
    for (int i = 0; i < nodes; ++i) {
      json copy = node;
      copy["metadata"]["name"] = NodeName(i);
      items.push_back(std::move(copy));
    }
    body["Nodes"] = {{"metadata", json::object()}, {"items", std::move(items)}};
    body["NodeNames"] = nullptr;
  }
  return body.dump();
}

void Report(const std::string& address, int nodes) {
  auto stub = headroom::v1::ReportService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  for (int i = 0; i < nodes; ++i) {
    headroom::extender::NodeReport report;
    report.node = NodeName(i);
    // Reports from the future are refused; the extender runs with --report-stale-after=1h so
    // these stay fresh for the whole run.
    report.reported_at = absl::Now();
    report.allocatable = {4000, 8 * kGi};
    report.cpus = 4;
    report.load1 = 0.5;
    headroom::extender::ReportedPod pod;
    pod.pod_namespace = "bench";
    pod.name = "busy";
    pod.containers.push_back({"c", headroom::CpuStats{BaseMillis(i), BaseMillis(i) + 500},
                              headroom::MemoryStats{kGi, kGi, kGi, 0}});
    report.pods.push_back(pod);
    grpc::ClientContext context;
    headroom::v1::ReportReply reply;
    const grpc::Status status = stub->Report(&context, headroom::extender::ToProto(report), &reply);
    if (!status.ok()) {
      std::cerr << "report failed: " << status.error_message() << "\n";
      std::exit(1);
    }
  }
}

void WriteGoState(const std::string& path, int nodes) {
  json state = json::object();
  for (int i = 0; i < nodes; ++i) {
    state[NodeName(i)] = {
        {"allocatableMillis", 4000}, {"baseMillis", BaseMillis(i)}, {"maxHeadroomMillis", 500}};
  }
  std::ofstream(path) << state.dump();
}

double Percentile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))];
}

json Stats(const std::vector<double>& ms) {
  double sum = 0;
  for (double v : ms) sum += v;
  return {{"p50", Percentile(ms, 0.5)}, {"p99", Percentile(ms, 0.99)}, {"mean", sum / ms.size()}};
}

}  // namespace

int main(int argc, char** argv) {
  std::map<std::string, std::string> args = ParseArgs(argc, argv);
  const int nodes = std::stoi(args.count("--nodes") ? args["--nodes"] : "100");
  const bool names = (args.count("--mode") ? args["--mode"] : "names") == "names";
  const int requests = std::stoi(args.count("--requests") ? args["--requests"] : "200");
  const int warmup = std::stoi(args.count("--warmup") ? args["--warmup"] : "20");
  if (args.count("--go-state")) {
    WriteGoState(args["--go-state"], nodes);
    return 0;
  }
  if (args.count("--report")) {
    Report(args["--report"], nodes);
    return 0;
  }
  std::ifstream in(args["--fixture"]);
  std::stringstream fixture_text;
  fixture_text << in.rdbuf();
  const json fixture = json::parse(fixture_text.str());
  const std::string body = Body(fixture, nodes, names);

  httplib::Client client(args["--url"]);
  client.set_keep_alive(true);
  client.set_tcp_nodelay(true);  // as Go's net/http, and so kube-scheduler, does
  client.set_read_timeout(60);
  std::vector<double> filter_ms, prioritize_ms, cycle_ms;
  for (int i = 0; i < warmup + requests; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    httplib::Result filter = client.Post("/filter", body, "application/json");
    const auto t1 = std::chrono::steady_clock::now();
    httplib::Result prioritize = client.Post("/prioritize", body, "application/json");
    const auto t2 = std::chrono::steady_clock::now();
    if (!filter || filter->status != 200 || !prioritize || prioritize->status != 200) {
      std::cerr << "request failed\n";
      return 1;
    }
    if (i < warmup) continue;
    filter_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    prioritize_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    cycle_ms.push_back(std::chrono::duration<double, std::milli>(t2 - t0).count());
  }
  std::cout << json{{"nodes", nodes},
                    {"mode", names ? "names" : "nodes"},
                    {"bodyBytes", body.size()},
                    {"filter", Stats(filter_ms)},
                    {"prioritize", Stats(prioritize_ms)},
                    {"cycle", Stats(cycle_ms)}}
                   .dump()
            << "\n";
  return 0;
}
