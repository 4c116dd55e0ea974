// Latency of a kube-scheduler extender as the scheduler sees it: one keep-alive connection,
// for each scheduling cycle a filter call and then a prioritize call with the same body.
// Builds ExtenderArgs with N nodes from a recorded kube-scheduler request (names, or whole
// Node objects), sends R cycles after W warm-up cycles, and prints p50/p99/mean per call and
// per cycle as one JSON line. With --report, first gives headroom-extender a report for every
// node over gRPC (node-0..node-N-1, each with --pods pods); with --go-state, writes the same
// state for the Go baseline.
//
// The client is a plain blocking socket speaking HTTP/1.1 with keep-alive and TCP_NODELAY,
// as Go's net/http (and so kube-scheduler) does, so that its own cost stays far below the
// servers'. With --gzip it sends `Accept-Encoding: gzip`, as Go's transport does; the JSON
// line counts the connections it had to open and the answers that came back compressed.
//
// Usage: extender_latency --url http://127.0.0.1:8888 --nodes 500 --mode names|nodes
//                         [--requests 200] [--warmup 20] [--gzip 1]
//                         [--report 127.0.0.1:9090 [--pods 1] [--node-cpus 4] [--node-memory-gi 8]]
//                         [--go-state FILE] --fixture tests/testdata/.../run1-002-filter.json

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "codec/report_codec.h"
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

struct ReportShape {
  int pods_per_node = 1;
  int64_t cpu_millis = 4000;  // each node's allocatable
  int64_t memory_bytes = 8 * kGi;
};

// Each node reports on its own connection, as a fleet does: the extender's front door allows a
// connection only a few new streams per second (rapid-reset protection), so one connection
// carrying every node's report would be cut after the first 32.
void Report(const std::string& address, int nodes, const ReportShape& shape) {
  grpc::ChannelArguments own_connection;
  own_connection.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  for (int i = 0; i < nodes; ++i) {
    auto stub = headroom::v1::ReportService::NewStub(
        grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), own_connection));
    headroom::NodeReport report;
    report.node = NodeName(i);
    // Reports from the future are refused; the extender runs with --report-stale-after=1h so
    // these stay fresh for the whole run.
    report.reported_at = absl::Now();
    report.allocatable = {shape.cpu_millis, shape.memory_bytes};
    report.cpus = static_cast<int>(shape.cpu_millis / 1000);
    report.load1 = 0.5;
    for (int p = 0; p < shape.pods_per_node; ++p) {
      headroom::ReportedPod pod;
      pod.pod_namespace = "bench";
      pod.name = "busy-" + std::to_string(p);
      pod.containers.push_back({"c", headroom::CpuStats{BaseMillis(i), BaseMillis(i) + 500},
                                headroom::MemoryStats{kGi, kGi, kGi, 0}});
      report.pods.push_back(pod);
    }
    grpc::ClientContext context;
    headroom::v1::ReportReply reply;
    const grpc::Status status =
        stub->Report(&context, headroom::codec::NodeReportToProto(report), &reply);
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

// One keep-alive HTTP/1.1 connection, reopened when the server closes it.
class Client {
 public:
  Client(const std::string& url, bool gzip) : gzip_(gzip) {
    const std::string rest = url.substr(url.find("://") + 3);
    host_ = rest.substr(0, rest.find(':'));
    port_ = std::stoi(rest.substr(rest.find(':') + 1));
  }
  ~Client() {
    if (fd_ >= 0) close(fd_);
  }

  // The status (0: failed); the answer's body in `body`.
  int Post(const std::string& path, const std::string& request, std::string& body) {
    for (int attempt = 0; attempt < 2; ++attempt) {
      if (fd_ < 0 && !Connect()) return 0;
      std::string head = "POST " + path + " HTTP/1.1\r\nHost: " + host_ +
                         "\r\nUser-Agent: extender-latency\r\nContent-Type: application/json\r\n"
                         "Content-Length: " +
                         std::to_string(request.size()) + "\r\n";
      if (gzip_) head += "Accept-Encoding: gzip\r\n";
      head += "\r\n";
      head += request;
      if (!SendAll(head)) {
        Reset();
        continue;
      }
      const int status = Read(body);
      if (status > 0) return status;
      Reset();
      if (!fresh_) continue;  // a kept-alive connection the server had closed: retry once
      return 0;
    }
    return 0;
  }

  int connections() const { return connections_; }
  int compressed() const { return compressed_; }

 private:
  bool Connect() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port_));
    inet_pton(AF_INET, host_.c_str(), &addr.sin_addr);
    if (connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      Reset();
      return false;
    }
    const int one = 1;
    setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    ++connections_;
    fresh_ = true;
    buffer_.clear();
    return true;
  }
  void Reset() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }
  bool SendAll(const std::string& data) {
    size_t sent = 0;
    while (sent < data.size()) {
      const ssize_t n = send(fd_, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }
  bool Fill() {
    char chunk[64 << 10];
    const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
    if (n <= 0) return false;
    buffer_.append(chunk, static_cast<size_t>(n));
    return true;
  }
  // Reads one answer (Content-Length or chunked); the status, or 0.
  int Read(std::string& body) {
    size_t end;
    while ((end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return 0;
    }
    std::string head = buffer_.substr(0, end);
    buffer_.erase(0, end + 4);
    for (char& c : head) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const int status = std::atoi(head.c_str() + head.find(' ') + 1);
    if (head.find("content-encoding: gzip") != std::string::npos) ++compressed_;
    const bool close_after = head.find("connection: close") != std::string::npos;
    body.clear();
    if (head.find("transfer-encoding: chunked") != std::string::npos) {
      for (;;) {
        size_t line;
        while ((line = buffer_.find("\r\n")) == std::string::npos) {
          if (!Fill()) return 0;
        }
        const size_t size = std::stoul(buffer_.substr(0, line), nullptr, 16);
        while (buffer_.size() < line + 2 + size + 2) {
          if (!Fill()) return 0;
        }
        body.append(buffer_, line + 2, size);
        buffer_.erase(0, line + 2 + size + 2);
        if (size == 0) break;
      }
    } else {
      const size_t at = head.find("content-length:");
      const size_t length = at == std::string::npos ? 0 : std::stoul(head.substr(at + 15));
      while (buffer_.size() < length) {
        if (!Fill()) return 0;
      }
      body = buffer_.substr(0, length);
      buffer_.erase(0, length);
    }
    fresh_ = false;
    if (close_after) Reset();
    return status;
  }

  std::string host_;
  int port_ = 0;
  bool gzip_ = false;
  int fd_ = -1;
  bool fresh_ = false;
  std::string buffer_;
  int connections_ = 0;
  int compressed_ = 0;
};

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
    ReportShape shape;
    if (args.count("--pods")) shape.pods_per_node = std::stoi(args["--pods"]);
    if (args.count("--node-cpus")) shape.cpu_millis = 1000 * std::stoll(args["--node-cpus"]);
    if (args.count("--node-memory-gi"))
      shape.memory_bytes = kGi * std::stoll(args["--node-memory-gi"]);
    Report(args["--report"], nodes, shape);
    return 0;
  }
  if (!args.count("--url") || !args.count("--fixture")) {
    std::cerr << "usage: extender_latency --url http://HOST:PORT --fixture FILTER_REQUEST.json "
                 "[--nodes N] [--mode names|nodes] [--requests R] [--warmup W] [--gzip 0|1]\n"
                 "       extender_latency --report HOST:PORT --nodes N [--pods P] [--node-cpus C] "
                 "[--node-memory-gi M]\n"
                 "       extender_latency --go-state FILE --nodes N\n";
    return 2;
  }
  std::ifstream in(args["--fixture"]);
  std::stringstream fixture_text;
  fixture_text << in.rdbuf();
  const json fixture = json::parse(fixture_text.str(), nullptr, false);
  if (!fixture.is_object() || !fixture.contains("Pod")) {
    std::cerr << "extender_latency: " << args["--fixture"]
              << " is not a recorded filter request (a JSON object with a Pod)\n";
    return 2;
  }
  const std::string body = Body(fixture, nodes, names);

  const bool gzip = args.count("--gzip") && args["--gzip"] != "0";
  Client client(args["--url"], gzip);
  std::vector<double> filter_ms, prioritize_ms, cycle_ms;
  std::string answer;
  for (int i = 0; i < warmup + requests; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const int filter = client.Post("/filter", body, answer);
    const auto t1 = std::chrono::steady_clock::now();
    const int prioritize = client.Post("/prioritize", body, answer);
    const auto t2 = std::chrono::steady_clock::now();
    if (filter != 200 || prioritize != 200) {
      std::cerr << "request failed: filter " << filter << ", prioritize " << prioritize << "\n";
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
                    {"gzip", gzip},
                    {"connections", client.connections()},
                    {"compressedAnswers", client.compressed()},
                    {"filter", Stats(filter_ms)},
                    {"prioritize", Stats(prioritize_ms)},
                    {"cycle", Stats(cycle_ms)}}
                   .dump()
            << "\n";
  return 0;
}
