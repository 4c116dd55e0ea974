// HTTPS on headroom-extender's listener, and a certificate rotated under a running server:
// new connections get the new certificate without a restart; a broken new pair is refused and
// the old one kept.

#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "extender/http_server.h"
#include "extender/serving/metrics.h"
#include "extender/serving/tls_certificate.h"
#include "extender/view/cluster_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("headroom-tls-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // A self-signed certificate for 127.0.0.1 named `name` (name.pem, name.key).
  void MakeCertificate(const std::string& name) {
    const std::string command =
        "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=" + name +
        " -addext subjectAltName=IP:127.0.0.1 -keyout '" + (dir_ / (name + ".key")).string() +
        "' -out '" + (dir_ / (name + ".pem")).string() + "' >/dev/null 2>&1";
    ASSERT_EQ(std::system(command.c_str()), 0) << "openssl is needed for this test";
  }

  // Whether a fresh HTTPS connection verifying against `ca` succeeds.
  bool Trusts(int port, const std::string& ca) {
    httplib::SSLClient client("127.0.0.1", port);
    client.set_ca_cert_path((dir_ / (ca + ".pem")).c_str());
    client.enable_server_certificate_verification(true);
    client.set_connection_timeout(2);
    httplib::Result result = client.Get("/healthz");
    return result && result->status == 200;
  }

  std::filesystem::path dir_;
};

TEST_F(TlsTest, ServesHttpsAndPicksUpARotatedCertificate) {
  MakeCertificate("first");
  MakeCertificate("second");
  const std::string cert = (dir_ / "serving.pem").string();
  const std::string key = (dir_ / "serving.key").string();
  std::filesystem::copy_file(dir_ / "first.pem", cert);
  std::filesystem::copy_file(dir_ / "first.key", key);
  ReloadingCertificate certificate(cert, key);
  ASSERT_THAT(certificate.Load(), IsOk());

  ClusterView view({});
  Metrics metrics;
  ServerOptions options;
  options.tls = &certificate;
  ExtenderHttpServer server(view, metrics, options);
  absl::StatusOr<int> port = server.Bind("127.0.0.1", 0);
  ASSERT_TRUE(port.ok()) << port.status();
  std::thread serving([&] { (void)server.Serve(); });
  for (int i = 0; i < 500 && !server.serving(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }

  EXPECT_TRUE(Trusts(*port, "first"));
  EXPECT_FALSE(Trusts(*port, "second"));
  // Plain HTTP on the TLS port does not get an answer.
  httplib::Client plain("127.0.0.1", *port);
  plain.set_read_timeout(2);
  httplib::Result plain_result = plain.Get("/healthz");
  EXPECT_TRUE(!plain_result || plain_result->status != 200);

  // Rotate in place, as a renewed Secret does; the next connection sees the new pair.
  std::filesystem::copy_file(dir_ / "second.pem", cert,
                             std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir_ / "second.key", key,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_TRUE(Trusts(*port, "second"));
  EXPECT_FALSE(Trusts(*port, "first"));
  EXPECT_EQ(certificate.reloads(), 1);

  // A half-written rotation (a key that does not match) is refused; the last good pair stays.
  std::filesystem::copy_file(dir_ / "first.key", key,
                             std::filesystem::copy_options::overwrite_existing);
  EXPECT_TRUE(Trusts(*port, "second"));
  EXPECT_EQ(certificate.reloads(), 1);

  server.Stop();
  serving.join();
}

TEST_F(TlsTest, BadFilesAreRefusedWithTheirNames) {
  MakeCertificate("a");
  MakeCertificate("b");
  EXPECT_THAT(ReloadingCertificate((dir_ / "a.pem").string(), (dir_ / "b.key").string()).Load(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("does not match")));
  EXPECT_THAT(ReloadingCertificate((dir_ / "none.pem").string(), (dir_ / "a.key").string()).Load(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("none.pem")));
  EXPECT_THAT(
      ReloadingCertificate((dir_ / "a.key").string(), (dir_ / "a.key").string()).Load(),
      StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("no PEM certificate")));
}

}  // namespace
}  // namespace headroom::extender
