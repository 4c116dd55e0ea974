// The report port's front door (extender/reports/report_front_door.h) in front of the real gRPC
// report service, attacked over raw loopback sockets: an HTTP/2 rapid reset is cut, a
// report still goes through, connections per address are capped, and a client that never
// says anything is closed.

#include "extender/reports/report_front_door.h"

#include <arpa/inet.h>
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "extender/reports/report_service.h"
#include "extender/serving/metrics.h"
#include "extender/view/cluster_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "headroom/v1/report.grpc.pb.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::IsOk;
using ::testing::HasSubstr;

int Connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

void Send(int fd, const std::string& bytes) {
  size_t at = 0;
  while (at < bytes.size()) {
    const ssize_t n = ::send(fd, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
    if (n <= 0) return;  // the server closed: the caller checks for that
    at += static_cast<size_t>(n);
  }
}

// Whether the server closes `fd` within `timeout` (whatever it sent first is read and dropped).
bool ClosedWithin(int fd, absl::Duration timeout) {
  const absl::Time until = absl::Now() + timeout;
  char buffer[4096];
  while (absl::Now() < until) {
    pollfd p{fd, POLLIN, 0};
    const int ready =
        ::poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(until - absl::Now())) + 1);
    if (ready <= 0) continue;
    const ssize_t n = ::recv(fd, buffer, sizeof(buffer), 0);
    if (n <= 0) return true;
  }
  return false;
}

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, const std::string& payload) {
  const size_t length = payload.size();
  return std::string{static_cast<char>(length >> 16), static_cast<char>(length >> 8),
                     static_cast<char>(length),       static_cast<char>(type),
                     static_cast<char>(flags),        static_cast<char>(stream >> 24),
                     static_cast<char>(stream >> 16), static_cast<char>(stream >> 8),
                     static_cast<char>(stream)} +
         payload;
}

// A valid HPACK block for a Report call: gRPC itself would serve these streams.
std::string ReportHeaders() {
  auto literal = [](char index, const std::string& value) {
    return std::string{index, static_cast<char>(value.size())} + value;
  };
  return std::string("\x83\x86") + literal(4, "/headroom.v1.ReportService/Report") +
         literal(1, "x") + std::string{0x0f, 0x10} + std::string{16} + "application/grpc" +
         std::string("\x00\x02te\x08trailers", 13);
}

const std::string kPreface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

// The preface, SETTINGS, then `streams` Report calls each opened and at once reset (CANCEL).
std::string OpenedAndReset(uint32_t streams) {
  std::string bytes = kPreface + Frame(4, 0, 0, "");
  for (uint32_t i = 0, stream = 1; i < streams; ++i, stream += 2) {
    bytes +=
        Frame(1, 0x4, stream, ReportHeaders()) + Frame(3, 0, stream, std::string("\0\0\0\x08", 4));
  }
  return bytes;
}

class ReportFrontDoorTest : public ::testing::Test {
 protected:
  int Serve(const ReportServerLimits& limits = {}) {
    absl::StatusOr<RunningGrpcServer> server =
        StartReportServer("127.0.0.1:0", service_, {}, limits, &metrics_);
    EXPECT_THAT(server.status(), IsOk());
    server_ = std::move(*server);
    return server_.port;
  }
  grpc::Status Report(int port) {
    auto stub = headroom::v1::ReportService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    headroom::v1::NodeReport report;
    report.set_node("node-a");
    report.mutable_allocatable()->set_cpu_millis(4000);
    report.mutable_allocatable()->set_memory_bytes(8LL << 30);
    headroom::v1::ReportReply reply;
    return stub->Report(&context, report, &reply);
  }
  std::string Rendered() const { return metrics_.Render({}); }

  ClusterView view_{{}};
  Metrics metrics_;
  ReportServiceImpl service_{view_, ReportServiceOptions{}};
  RunningGrpcServer server_;
};

TEST_F(ReportFrontDoorTest, RapidResetIsCutAndReportsStillGoThrough) {
  const int port = Serve();
  const int fd = Connect(port);
  ASSERT_GE(fd, 0);
  Send(fd, OpenedAndReset(200));
  EXPECT_TRUE(ClosedWithin(fd, absl::Seconds(5)));
  ::close(fd);
  EXPECT_THAT(Rendered(), HasSubstr("reason=\"http2_flood\"} 1"));
  const grpc::Status report = Report(port);
  EXPECT_TRUE(report.ok()) << report.error_message();
  EXPECT_EQ(view_.NodeCount(), 1u);
}

TEST_F(ReportFrontDoorTest, AFewStreamsResetOnOneConnectionPass) {
  const int port = Serve();
  const int fd = Connect(port);
  ASSERT_GE(fd, 0);
  Send(fd, OpenedAndReset(8));
  EXPECT_FALSE(ClosedWithin(fd, absl::Milliseconds(500)));
  ::close(fd);
}

TEST_F(ReportFrontDoorTest, ConnectionsFromOneAddressAreCapped) {
  ReportServerLimits limits;
  limits.max_connections_per_address = 2;
  const int port = Serve(limits);
  std::vector<int> fds;
  for (int i = 0; i < 3; ++i) {
    fds.push_back(Connect(port));
    ASSERT_GE(fds.back(), 0);
    Send(fds.back(), kPreface + Frame(4, 0, 0, ""));
  }
  EXPECT_TRUE(ClosedWithin(fds[2], absl::Seconds(2))) << "the third connection";
  EXPECT_FALSE(ClosedWithin(fds[0], absl::Milliseconds(300)));
  EXPECT_FALSE(ClosedWithin(fds[1], absl::Milliseconds(300)));
  EXPECT_THAT(Rendered(), HasSubstr("reason=\"address_cap\"} 1"));
  ::close(fds[0]);
  // Room again once one closes.
  absl::SleepFor(absl::Milliseconds(100));
  EXPECT_TRUE(Report(port).ok());
  for (int fd : fds) ::close(fd);
}

TEST_F(ReportFrontDoorTest, AClientThatSaysNothingIsClosed) {
  ReportServerLimits limits;
  limits.handshake_timeout = absl::Milliseconds(300);
  const int port = Serve(limits);
  const int silent = Connect(port);
  ASSERT_GE(silent, 0);
  EXPECT_TRUE(ClosedWithin(silent, absl::Seconds(3)));
  ::close(silent);
  EXPECT_THAT(Rendered(), HasSubstr("reason=\"handshake\"} 1"));
  // A client that sent its preface in time stays.
  const int talking = Connect(port);
  Send(talking, kPreface + Frame(4, 0, 0, ""));
  EXPECT_FALSE(ClosedWithin(talking, absl::Milliseconds(800)));
  ::close(talking);
}

TEST_F(ReportFrontDoorTest, HttpOneIsRefused) {
  const int port = Serve();
  const int fd = Connect(port);
  Send(fd, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_TRUE(ClosedWithin(fd, absl::Seconds(2)));
  ::close(fd);
  EXPECT_THAT(Rendered(), HasSubstr("reason=\"http2_protocol\"} 1"));
}

}  // namespace
}  // namespace headroom::extender
