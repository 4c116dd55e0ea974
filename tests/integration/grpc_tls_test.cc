// TLS and mutual TLS on the node-report gRPC channel: a real gRPC server (the extender's
// ReportService) and real clients, with certificates made by openssl for the test.

#include "io/grpc_tls.h"

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "extender/reports/report_service.h"
#include "extender/view/cluster_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "headroom/v1/report.grpc.pb.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

class GrpcTlsTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::filesystem::temp_directory_path() /
           ("headroom-grpc-tls-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    const std::string d = dir_.string();
    // A CA signing the server (for 127.0.0.1) and a client; another CA signing nothing here.
    const std::string script = "cd '" + d +
                               "' && "
                               "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ca "
                               "-keyout ca.key -out ca.pem && "
                               "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=other "
                               "-keyout other.key -out other.pem && "
                               "openssl req -newkey rsa:2048 -nodes -subj /CN=extender -keyout "
                               "server.key -out server.csr && "
                               "printf 'subjectAltName=IP:127.0.0.1\\n' > san.ext && "
                               "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
                               "-CAcreateserial -days 1 -extfile san.ext -out server.pem && "
                               "openssl req -newkey rsa:2048 -nodes -subj /CN=node-a -keyout "
                               "client.key -out client.csr && "
                               "openssl x509 -req -in client.csr -CA ca.pem -CAkey ca.key "
                               "-CAcreateserial -days 1 -out client.pem && "
                               "openssl req -newkey rsa:2048 -nodes -subj /CN=extender -keyout "
                               "renewed.key -out renewed.csr && "
                               "openssl x509 -req -in renewed.csr -CA other.pem -CAkey other.key "
                               "-CAcreateserial -days 1 -extfile san.ext -out renewed.pem";
    ASSERT_EQ(std::system(("(" + script + ") >/dev/null 2>&1").c_str()), 0) << "openssl is needed";
  }
  static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
  static std::string File(const std::string& name) { return (dir_ / name).string(); }

  // Starts the report service with `tls`; returns its port.
  int Serve(const io::GrpcServerTls& tls) {
    absl::StatusOr<RunningGrpcServer> server = StartReportServer("127.0.0.1:0", service_, tls);
    EXPECT_THAT(server.status(), IsOk());
    server_ = std::move(*server);
    return server_.port;
  }

  // One report over a channel with `tls`; the gRPC status.
  grpc::Status Report(int port, const io::GrpcClientTls& tls, const std::string& node = "node-a",
                      const std::string& token = "") {
    absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
        io::ChannelCredentials(tls);
    EXPECT_THAT(credentials.status(), IsOk());
    auto stub = headroom::v1::ReportService::NewStub(
        grpc::CreateChannel("127.0.0.1:" + std::to_string(port), *credentials));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    headroom::v1::NodeReport report;
    report.set_node(node);
    report.mutable_allocatable()->set_cpu_millis(4000);
    report.mutable_allocatable()->set_memory_bytes(8LL << 30);
    headroom::v1::ReportReply reply;
    return stub->Report(&context, report, &reply);
  }

  void TearDown() override { server_.Shutdown(absl::ZeroDuration()); }

  static std::filesystem::path dir_;
  ClusterView view_{{}};
  Metrics metrics_;
  ReportServiceImpl service_{view_, ReportServiceOptions{}};
  RunningGrpcServer server_;
};

std::filesystem::path GrpcTlsTest::dir_;

TEST_F(GrpcTlsTest, TlsServerAcceptsClientsThatTrustItsCaOnly) {
  const int port = Serve({File("server.pem"), File("server.key"), ""});
  EXPECT_TRUE(Report(port, {File("ca.pem"), "", ""}).ok());
  EXPECT_EQ(view_.NodeCount(), 1u);
  EXPECT_FALSE(Report(port, {}).ok()) << "plaintext to a TLS server";
  EXPECT_FALSE(Report(port, {File("other.pem"), "", ""}).ok()) << "a CA that did not sign it";
}

TEST_F(GrpcTlsTest, MutualTlsRequiresAClientCertificateFromTheClientCa) {
  const int port = Serve({File("server.pem"), File("server.key"), File("ca.pem")});
  EXPECT_FALSE(Report(port, {File("ca.pem"), "", ""}).ok()) << "no client certificate";
  EXPECT_FALSE(Report(port, {File("ca.pem"), File("server.pem"), File("client.key")}).ok())
      << "certificate and key do not match";
  const grpc::Status ok = Report(port, {File("ca.pem"), File("client.pem"), File("client.key")});
  EXPECT_TRUE(ok.ok()) << ok.error_message();
}

TEST_F(GrpcTlsTest, ACertificateReportsOnlyForTheNodeItNames) {
  ReportServiceImpl service(view_,
                            ReportServiceOptions{ReportAuth::kCertificate, nullptr, {}, &metrics_});
  absl::StatusOr<RunningGrpcServer> server = StartReportServer(
      "127.0.0.1:0", service, {File("server.pem"), File("server.key"), File("ca.pem")});
  ASSERT_THAT(server.status(), IsOk());
  const io::GrpcClientTls node_a = {File("ca.pem"), File("client.pem"), File("client.key")};
  const grpc::Status own = Report(server->port, node_a, "node-a");
  EXPECT_TRUE(own.ok()) << own.error_message();
  const grpc::Status other = Report(server->port, node_a, "node-b");
  EXPECT_EQ(other.error_code(), grpc::StatusCode::PERMISSION_DENIED) << other.error_message();
  EXPECT_EQ(view_.NodeCount(), 1u);
  server->Shutdown(absl::ZeroDuration());
}

TEST_F(GrpcTlsTest, ATokenReportsOnlyForItsPodsNode) {
  TokenAuthenticator tokens(
      [](const std::string& body) -> absl::StatusOr<nlohmann::json> {
        const std::string token = nlohmann::json::parse(body)["spec"]["token"];
        return nlohmann::json{
            {"status",
             {{"authenticated", token == "token-of-node-a"},
              {"audiences", {"headroom-extender"}},
              {"user",
               {{"username", "system:serviceaccount:headroom-system:headroom-nri"},
                {"extra", {{kNodeNameExtra, {"node-a"}}}}}}}}};
      },
      {});
  ReportServiceImpl service(view_,
                            ReportServiceOptions{ReportAuth::kToken, &tokens, {}, &metrics_});
  absl::StatusOr<RunningGrpcServer> server = StartReportServer("127.0.0.1:0", service);
  ASSERT_THAT(server.status(), IsOk());
  EXPECT_TRUE(Report(server->port, {}, "node-a", "token-of-node-a").ok());
  EXPECT_EQ(Report(server->port, {}, "node-b", "token-of-node-a").error_code(),
            grpc::StatusCode::PERMISSION_DENIED);
  EXPECT_EQ(Report(server->port, {}, "node-a", "forged").error_code(),
            grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(Report(server->port, {}, "node-a").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(view_.NodeCount(), 1u);
  server->Shutdown(absl::ZeroDuration());
}

TEST_F(GrpcTlsTest, ARenewedCertificateIsServedWithoutARestart) {
  namespace fs = std::filesystem;
  fs::copy_file(File("server.pem"), File("live.pem"), fs::copy_options::overwrite_existing);
  fs::copy_file(File("server.key"), File("live.key"), fs::copy_options::overwrite_existing);
  const int port = Serve({File("live.pem"), File("live.key"), ""});
  EXPECT_TRUE(Report(port, {File("ca.pem"), "", ""}).ok());
  // Renewed in place by another CA (cert-manager rewrites the Secret's files).
  fs::copy_file(File("renewed.key"), File("live.key"), fs::copy_options::overwrite_existing);
  fs::copy_file(File("renewed.pem"), File("live.pem"), fs::copy_options::overwrite_existing);
  const auto later = fs::file_time_type::clock::now() + std::chrono::seconds(2);
  fs::last_write_time(File("live.key"), later);
  fs::last_write_time(File("live.pem"), later);
  const grpc::Status renewed = Report(port, {File("other.pem"), "", ""});
  EXPECT_TRUE(renewed.ok()) << renewed.error_message();
  EXPECT_FALSE(Report(port, {File("ca.pem"), "", ""}).ok()) << "the old certificate is gone";
}

TEST_F(GrpcTlsTest, PlaintextStaysTheDefault) {
  const int port = Serve({});
  EXPECT_TRUE(Report(port, {}).ok());
}

TEST_F(GrpcTlsTest, BadSettingsNameTheFlag) {
  ReportServiceImpl service(view_, ReportServiceOptions{});
  const auto start = [&](const io::GrpcServerTls& tls) {
    return StartReportServer("127.0.0.1:0", service, tls).status();
  };
  EXPECT_THAT(start({File("server.pem"), "", ""}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("go together")));
  EXPECT_THAT(start({"", "", File("ca.pem")}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--grpc-client-ca-file")));
  EXPECT_THAT(start({File("nope.pem"), File("server.key"), ""}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--grpc-tls-cert-file")));
  EXPECT_THAT(start({File("san.ext"), File("server.key"), ""}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--grpc-tls-cert-file")));
  EXPECT_THAT(start({File("server.pem"), File("server.key"), File("nope.pem")}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--grpc-client-ca-file")));
  EXPECT_THAT(StartReportServer("127.0.0.1", service).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--grpc-address")));
  EXPECT_THAT(io::ChannelCredentials({"", File("client.pem"), File("client.key")}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("CA")));
  EXPECT_THAT(io::ChannelCredentials({File("ca.pem"), File("client.pem"), ""}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("go together")));
  EXPECT_THAT(io::ChannelCredentials({File("missing-ca.pem"), "", ""}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("--extender-ca-file")));
}

}  // namespace
}  // namespace headroom::extender
