// Checkpoints survive restarts and crashes: the extender's workload statistics come back
// after a restart and change a decision, and a process killed while writing leaves either the
// old or the new checkpoint, never a broken one.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "extender/scheduler/judge.h"
#include "extender/view/cluster_view.h"
#include "extender/view/workload_checkpoint.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "io/atomic_file.h"
#include "tests/status_matchers.h"

namespace headroom::extender {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::IsOkAndHolds;
using ::headroom::testing::StatusIs;
using ::testing::ElementsAre;

constexpr int64_t kGi = 1LL << 30;

class StateDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("headroom-state-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

NodeReport NodeA(std::vector<ReportedPod> pods) {
  NodeReport report;
  report.node = "node-a";
  report.reported_at = absl::Now();
  report.allocatable = {4000, 8 * kGi};
  report.cpus = 4;
  report.load1 = 0.1;
  report.pods = std::move(pods);
  return report;
}

ReportedPod Pod(std::string name, std::string workload, int64_t base, int64_t peak) {
  ReportedPod pod;
  pod.pod_namespace = "default";
  pod.name = std::move(name);
  pod.workload_key = std::move(workload);
  // Observed for 30 h: past the warm-up, so the statistics are trusted.
  pod.containers.push_back(
      {"c", CpuStats{base, peak}, MemoryStats{kGi, kGi, kGi, 0}, absl::Hours(30)});
  return pod;
}

ExtenderArgs Candidate() {
  ExtenderArgs args;
  args.pod = {"default", "web-2", "uid", "default/Deployment/web", {}, {}};
  args.pod.containers.push_back({"c", {500, 256 << 20}, {1000, 256 << 20}});
  args.nodes.push_back({"node-a", {}, {}});
  return args;
}

TEST_F(StateDir, RestartKeepsWorkloadStatisticsAndTheirDecisions) {
  {
    ClusterView before({});
    // The "web" workload is known to use 100m steadily.
    ASSERT_THAT(before.ApplyReport(NodeA({Pod("web-1", "default/Deployment/web", 100, 100)})),
                IsOk());
    ASSERT_THAT(SaveWorkloads(before, dir_.string(), absl::Now()), IsOk());
  }
  ClusterView after({});
  ASSERT_THAT(LoadWorkloads(after, dir_.string()), IsOkAndHolds(1u));
  // node-a now runs a 3100m pod with a 500m spike. Declared, web-2 would need
  // 3100 + 500 + 500 = 4100m; from the checkpoint it needs 3100 + 100 + 500 = 3700m.
  ASSERT_THAT(after.ApplyReport(NodeA({Pod("big", "default/Deployment/big", 3100, 3600)})), IsOk());
  EXPECT_THAT(FilterNodes(Candidate(), after, absl::Now()).result.passed, ElementsAre("node-a"));
  ClusterView without({});
  ASSERT_THAT(without.ApplyReport(NodeA({Pod("big", "default/Deployment/big", 3100, 3600)})),
              IsOk());
  EXPECT_TRUE(FilterNodes(Candidate(), without, absl::Now()).result.passed.empty());
}

TEST_F(StateDir, NoCheckpointIsNotFoundAndAGarbledOneIsRefused) {
  ClusterView view({});
  EXPECT_THAT(LoadWorkloads(view, dir_.string()), StatusIs(absl::StatusCode::kNotFound));
  ASSERT_THAT(io::WriteFileAtomically((dir_ / kWorkloadCheckpointFile).string(), "{\"vers"),
              IsOk());
  EXPECT_THAT(LoadWorkloads(view, dir_.string()),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("unreadable")));
}

TEST_F(StateDir, AProcessKilledMidWriteLeavesAReadableCheckpoint) {
  // A large checkpoint (about 2 MB) so the writes take long enough to be interrupted.
  std::map<std::string, ClusterView::ContainerStats> workloads;
  for (int i = 0; i < 20000; ++i) {
    workloads["ns/Deployment/w" + std::to_string(i) + "#c"] = {CpuStats{i, i + 1},
                                                               MemoryStats{i, i + 1, i + 2, 0}};
  }
  const std::string path = (dir_ / kWorkloadCheckpointFile).string();
  for (int round = 0; round < 6; ++round) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      // Rewrite the checkpoint as fast as possible until killed.
      for (int64_t n = 0;; ++n) {
        const absl::Status status =
            io::WriteFileAtomically(path, EncodeWorkloads(workloads, absl::FromUnixSeconds(n)));
        if (!status.ok()) ::_exit(3);
      }
    }
    ::usleep(static_cast<useconds_t>(30'000 + 37'000 * round));
    ::kill(child, SIGKILL);
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "the writer stopped on its own: " << status;
    absl::StatusOr<std::string> text = io::ReadFile(path);
    if (absl::IsNotFound(text.status())) continue;  // killed before the first rename
    ASSERT_THAT(text, IsOk());
    absl::StatusOr<std::map<std::string, ClusterView::ContainerStats>> decoded =
        DecodeWorkloads(*text);
    ASSERT_THAT(decoded, IsOk()) << "round " << round;
    EXPECT_EQ(decoded->size(), workloads.size());
  }
  // What the killed writers left behind is removed at the next start, and only that.
  io::RemoveStaleTemporaries(path);
  for (const auto& entry : std::filesystem::directory_iterator(dir_)) {
    EXPECT_FALSE(entry.path().filename().string().rfind(".workloads.json.", 0) == 0)
        << entry.path();
  }
}

TEST_F(StateDir, StaleTemporariesAreRemovedAndNothingElse) {
  const std::string path = (dir_ / kWorkloadCheckpointFile).string();
  ASSERT_THAT(io::WriteFileAtomically(path, "{}"), IsOk());
  for (const std::string name : {".workloads.json.AbC123", ".workloads.json.zz9999"}) {
    std::ofstream(dir_ / name) << "half";
  }
  std::ofstream(dir_ / ".workloads.json.keep-me") << "not ours";
  std::ofstream(dir_ / ".node-stats.json.AbC123") << "another file's";
  EXPECT_EQ(io::RemoveStaleTemporaries(path), 2u);
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_TRUE(std::filesystem::exists(dir_ / ".workloads.json.keep-me"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / ".node-stats.json.AbC123"));
  EXPECT_EQ(io::RemoveStaleTemporaries(path), 0u);
}

TEST_F(StateDir, MovingAsideSaysWhenItFailed) {
  const std::string path = (dir_ / kWorkloadCheckpointFile).string();
  ASSERT_THAT(io::WriteFileAtomically(path, "garbage"), IsOk());
  EXPECT_THAT(io::MoveAside(path), IsOkAndHolds(path + ".corrupt"));
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_THAT(io::MoveAside(path),
              StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr("cannot move aside")));
}

TEST(AtomicFileTest, AFailedWriteKeepsTheOldFile) {
  EXPECT_THAT(io::WriteFileAtomically("/nonexistent-dir/x", "data"),
              StatusIs(absl::StatusCode::kNotFound, ::testing::HasSubstr("/nonexistent-dir/x")));
  EXPECT_THAT(io::ReadFile("/nonexistent-dir/x"), StatusIs(absl::StatusCode::kNotFound));
}

}  // namespace
}  // namespace headroom::extender
