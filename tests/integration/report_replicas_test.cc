// headroom-nri's reports reach every extender replica (--extender-all-replicas): the real
// NodeReporter against two real report servers on two loopback addresses, one port.

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "extender/reports/report_service.h"
#include "extender/view/cluster_view.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "io/grpc_tls.h"
#include "kubelet-hook/node_reporter.h"
#include "tests/status_matchers.h"

namespace headroom::nri {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::Contains;
using ::testing::HasSubstr;

headroom::v1::NodeReport Report(const std::string& node) {
  headroom::v1::NodeReport report;
  report.set_node(node);
  report.mutable_allocatable()->set_cpu_millis(4000);
  report.mutable_allocatable()->set_memory_bytes(8LL << 30);
  return report;
}

TEST(ReportReplicasTest, EveryReplicaGetsTheReportAndOneDownIsNoFailure) {
  extender::ClusterView first_view{{}}, second_view{{}};
  extender::ReportServiceImpl first(first_view), second(second_view);
  absl::StatusOr<extender::RunningGrpcServer> first_server =
      extender::StartReportServer("127.0.0.1:0", first);
  ASSERT_THAT(first_server.status(), IsOk());
  const std::string port = std::to_string(first_server->port);
  absl::StatusOr<extender::RunningGrpcServer> second_server =
      extender::StartReportServer("127.0.0.2:" + port, second);
  ASSERT_THAT(second_server.status(), IsOk()) << "127.0.0.2 is loopback on Linux";

  std::vector<std::string> replicas = {"127.0.0.1", "127.0.0.2"};
  ReplicaOptions options;
  options.all_replicas = true;
  options.resolve =
      [&replicas](const std::string& host) -> absl::StatusOr<std::vector<std::string>> {
    EXPECT_EQ(host, "replicas.example");
    if (replicas.empty()) return absl::UnavailableError("replicas.example has no address");
    return replicas;
  };
  NodeReporter reporter("replicas.example:" + port, grpc::InsecureChannelCredentials(), "",
                        options);
  ASSERT_THAT(reporter.Send(Report("node-a"), absl::Seconds(5)).status(), IsOk());
  EXPECT_EQ(first_view.NodeCount(), 1u);
  EXPECT_EQ(second_view.NodeCount(), 1u);

  // One replica down: the report still counts, and the live one has it.
  second_server->Shutdown(absl::ZeroDuration());
  ASSERT_THAT(reporter.Send(Report("node-b"), absl::Seconds(2)).status(), IsOk());
  EXPECT_EQ(first_view.NodeCount(), 2u);

  // All down, or none resolved: the error names each.
  first_server->Shutdown(absl::ZeroDuration());
  EXPECT_THAT(reporter.Send(Report("node-c"), absl::Seconds(2)).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("127.0.0.2")));
  replicas.clear();
  EXPECT_THAT(reporter.Send(Report("node-c"), absl::Seconds(2)).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("no extender replica")));
}

TEST(ReportReplicasTest, TlsIsVerifiedAgainstTheServiceNameNotThePodAddress) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("headroom-replicas-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string script =
      "cd '" + dir.string() +
      "' && openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=ca -keyout ca.key "
      "-out ca.pem && openssl req -newkey rsa:2048 -nodes -subj /CN=extender -keyout "
      "server.key -out server.csr && printf 'subjectAltName=DNS:replicas.example\\n' > san.ext "
      "&& openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 1 "
      "-extfile san.ext -out server.pem";
  ASSERT_EQ(std::system(("(" + script + ") >/dev/null 2>&1").c_str()), 0) << "openssl is needed";
  const auto file = [&dir](const char* name) { return (dir / name).string(); };
  extender::ClusterView first_view{{}}, second_view{{}};
  extender::ReportServiceImpl first(first_view), second(second_view);
  const io::GrpcServerTls tls = {file("server.pem"), file("server.key"), ""};
  absl::StatusOr<extender::RunningGrpcServer> first_server =
      extender::StartReportServer("127.0.0.1:0", first, tls);
  ASSERT_THAT(first_server.status(), IsOk());
  const std::string port = std::to_string(first_server->port);
  absl::StatusOr<extender::RunningGrpcServer> second_server =
      extender::StartReportServer("127.0.0.2:" + port, second, tls);
  ASSERT_THAT(second_server.status(), IsOk());
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      io::ChannelCredentials({file("ca.pem"), "", ""});
  ASSERT_THAT(credentials.status(), IsOk());
  ReplicaOptions options;
  options.all_replicas = true;
  options.resolve = [](const std::string&) -> absl::StatusOr<std::vector<std::string>> {
    return std::vector<std::string>{"127.0.0.1", "127.0.0.2"};
  };
  NodeReporter reporter("replicas.example:" + port, *credentials, "", options);
  EXPECT_THAT(reporter.Send(Report("node-a"), absl::Seconds(5)).status(), IsOk());
  EXPECT_EQ(first_view.NodeCount(), 1u);
  EXPECT_EQ(second_view.NodeCount(), 1u);
  // A name the certificate does not carry fails on every replica.
  NodeReporter wrong("other.example:" + port, *credentials, "", options);
  EXPECT_THAT(wrong.Send(Report("node-b"), absl::Seconds(5)).status(),
              StatusIs(absl::StatusCode::kUnavailable));
  std::filesystem::remove_all(dir);
}

TEST(ReportReplicasTest, ResolvesNamesAndNumbers) {
  absl::StatusOr<std::vector<std::string>> local = ResolveAddresses("localhost");
  ASSERT_THAT(local.status(), IsOk());
  EXPECT_THAT(*local, Contains("127.0.0.1"));
  EXPECT_THAT(*ResolveAddresses("10.1.2.3"), ::testing::ElementsAre("10.1.2.3"));
  // (No name that needs a DNS server: the test machine may have none.)
  EXPECT_THAT(ResolveAddresses("").status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot resolve")));
}

TEST(ReportReplicasTest, MergedReplyKeepsTheLongestHistoryAndMostNodes) {
  headroom::v1::ReportReply a, b;
  a.set_nodes_known(3);
  (*a.mutable_history_seconds())["w/c"] = 100;
  (*a.mutable_history_seconds())["only-a"] = 5;
  b.set_nodes_known(5);
  (*b.mutable_history_seconds())["w/c"] = 700;
  absl::StatusOr<headroom::v1::ReportReply> merged = MergeReplicaReplies(
      {{"10.0.0.1", a}, {"10.0.0.2", b}, {"10.0.0.3", absl::UnavailableError("down")}});
  ASSERT_THAT(merged.status(), IsOk());
  EXPECT_EQ(merged->nodes_known(), 5);
  EXPECT_EQ(merged->history_seconds().at("w/c"), 700);
  EXPECT_EQ(merged->history_seconds().at("only-a"), 5);
  EXPECT_THAT(
      MergeReplicaReplies({{"10.0.0.1", absl::UnavailableError("refused")},
                           {"10.0.0.2", absl::DeadlineExceededError("slow")}})
          .status(),
      StatusIs(absl::StatusCode::kUnavailable,
               ::testing::AllOf(HasSubstr("10.0.0.1: refused"), HasSubstr("10.0.0.2: slow"))));
  EXPECT_THAT(MergeReplicaReplies({}).status(), StatusIs(absl::StatusCode::kUnavailable));
}

// Replicas that disagree on a pod's step: the lower one holds (one saw the operator move the
// Namespace down first); a value that is not a step is dropped.
TEST(MergeReplicaReplies, TheLowerStepOfAPodHolds) {
  headroom::v1::ReportReply a, b;
  (*a.mutable_pod_modes())["uid-1"] = "in-place";
  (*b.mutable_pod_modes())["uid-1"] = "admission";
  (*a.mutable_pod_modes())["uid-2"] = "observe";
  (*b.mutable_pod_modes())["uid-2"] = "in-place";
  (*b.mutable_pod_modes())["uid-3"] = "bogus";
  absl::StatusOr<headroom::v1::ReportReply> merged =
      MergeReplicaReplies({{"10.0.0.1", a}, {"10.0.0.2", b}});
  ASSERT_THAT(merged.status(), IsOk());
  const absl::flat_hash_map<std::string, AdoptionStep> modes = PodModesOf(*merged);
  EXPECT_EQ(modes.size(), 2u);
  EXPECT_EQ(modes.at("uid-1"), AdoptionStep::kAdmission);
  EXPECT_EQ(modes.at("uid-2"), AdoptionStep::kObserve);
}

}  // namespace
}  // namespace headroom::nri
