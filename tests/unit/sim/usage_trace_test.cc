// The usage trace reader (bad rows refused with their line, gaps, replicas, repeated minutes)
// and its replay (lifetimes, steps, day-offset copies), on traces small enough to check by
// hand; and, where ../shared/data is present, the Bitbrains trace itself.

#include "sim/usage_trace.h"

#include <filesystem>
#include <string>
#include <vector>

#include "cli/usage_trace_file.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int64_t kMiB = 1 << 20;
constexpr char kWorkloads[] =
    "pod,workload,cpu_request_millicores,memory_request_mib\n"
    "a-1,a,1000,512\n"
    "a-2,a,1000,512\n"
    "b,b,2000,1024\n";

struct BadTrace {
  const char* name;
  std::string workloads;
  std::string usage;
  std::string message;  // expected in the error
};

class UsageTraceRefusesTest : public ::testing::TestWithParam<BadTrace> {};

TEST_P(UsageTraceRefusesTest, WithFileAndLine) {
  EXPECT_THAT(ParseUsageTrace(GetParam().workloads, GetParam().usage),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

const std::string kUsageHeader = "pod,minute,cpu_millicores,memory_mib\n";

INSTANTIATE_TEST_SUITE_P(
    Table, UsageTraceRefusesTest,
    ::testing::Values(
        BadTrace{"workloads_missing_column", "pod,workload,cpu_request_millicores\na,a,1\n",
                 kUsageHeader + "a,0,1,1\n", "workloads.csv: line 1: missing column"},
        BadTrace{"workloads_negative", std::string(kWorkloads) + "c,c,-5,1\n",
                 kUsageHeader + "a-1,0,1,1\n", "workloads.csv: line 5: cpu_request"},
        BadTrace{"workloads_pod_twice", std::string(kWorkloads) + "b,c,1,1\n",
                 kUsageHeader + "a-1,0,1,1\n", "line 5: pod b appears twice"},
        BadTrace{"replicas_disagree", std::string(kWorkloads) + "a-3,a,500,512\n",
                 kUsageHeader + "a-1,0,1,1\n",
                 "line 5: pod a-3 is a replica of workload a but declares other requests than "
                 "the replica on line 2"},
        BadTrace{"workloads_fields",
                 "pod,workload,cpu_request_millicores,memory_request_mib\n"
                 "a,a,1\n",
                 kUsageHeader + "a,0,1,1\n", "line 2: expected 4 fields, got 3"},
        BadTrace{"usage_columns_order", kWorkloads, "pod,cpu_millicores,minute,memory_mib\n",
                 "usage.csv: line 1: the columns must be"},
        BadTrace{"unknown_pod", kWorkloads, kUsageHeader + "a-1,0,1,1\nzz,5,1,1\n",
                 "usage.csv: line 3: pod \"zz\" is not in the workloads file"},
        BadTrace{"minute_backwards", kWorkloads, kUsageHeader + "a-1,10,1,1\na-1,5,1,1\n",
                 "line 3: minute 5 of pod a-1 comes after minute 10"},
        BadTrace{"pod_rows_split", kWorkloads, kUsageHeader + "a-1,0,1,1\nb,0,1,1\na-1,5,1,1\n",
                 "line 4: rows of pod a-1 resume after other pods' rows"},
        BadTrace{"negative_cpu", kWorkloads, kUsageHeader + "a-1,0,-1,1\n",
                 "line 2: cpu_millicores and memory_mib must be non-negative"},
        BadTrace{"not_a_number", kWorkloads, kUsageHeader + "a-1,0,1,lots\n",
                 "line 2: cpu_millicores and memory_mib"},
        BadTrace{"fractional_minute", kWorkloads, kUsageHeader + "a-1,0.5,1,1\n",
                 "line 2: minute \"0.5\" is not a whole number"},
        BadTrace{"too_many_fields", kWorkloads, kUsageHeader + "a-1,0,1,1,1\n",
                 "line 2: expected 4 fields, got more"},
        BadTrace{"too_few_fields", kWorkloads, kUsageHeader + "a-1,0,1\n",
                 "line 2: expected 4 fields, got 3"},
        BadTrace{"no_rows", kWorkloads, kUsageHeader, "usage.csv: no usage rows"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(UsageTraceTest, ReadsReplicasRepeatedMinutesAndResolution) {
  const absl::StatusOr<UsageTrace> trace = ParseUsageTrace(
      kWorkloads, kUsageHeader +
                      "a-1,3,100,10\r\na-1,8,200.2,10.5\na-1,8,300,20\na-1,13,100,10\n"
                      "\n"
                      "b,0,50,100\nb,5,60,100\n");
  ASSERT_THAT(trace, IsOk());
  ASSERT_EQ(trace->pods.size(), 2);  // a-2 has no rows: it never runs
  EXPECT_EQ(trace->pods[0].workload, "a");
  EXPECT_EQ(trace->pods[1].name, "b");
  EXPECT_EQ(trace->pods[0].requests.memory_bytes, 512 * kMiB);
  // The later row of minute 8 wins; decimals round up.
  ASSERT_EQ(trace->pods[0].samples.size(), 3);
  EXPECT_EQ(trace->pods[0].samples[1].cpu_millis, 300);
  EXPECT_EQ(trace->rows, 6);
  EXPECT_EQ(trace->first_minute, 0);
  EXPECT_EQ(trace->last_minute, 13);
  EXPECT_EQ(trace->resolution_minutes, 5);
}

TEST(UsageTraceTest, DecimalsRoundUp) {
  const absl::StatusOr<UsageTrace> trace =
      ParseUsageTrace(kWorkloads, kUsageHeader + "b,0,0.1,10.2\n");
  ASSERT_THAT(trace, IsOk());
  EXPECT_EQ(trace->pods.back().samples[0].cpu_millis, 1);
  EXPECT_EQ(trace->pods.back().samples[0].memory_mib, 11);
}

TEST(TraceStepTest, FiveMinutesWhereTheResolutionAllows) {
  EXPECT_EQ(TraceStepMinutes(5), 5);
  EXPECT_EQ(TraceStepMinutes(15), 5);
  EXPECT_EQ(TraceStepMinutes(1), 1);
  EXPECT_EQ(TraceStepMinutes(3), 1);
  EXPECT_EQ(TraceStepMinutes(0), 1);
}

// One pod, rows every 5 minutes from minute 0, with a 30-minute gap after minute 20.
UsageTrace GapTrace() {
  absl::StatusOr<UsageTrace> trace =
      ParseUsageTrace("pod,workload,cpu_request_millicores,memory_request_mib\np,w,1000,100\n",
                      kUsageHeader +
                          "p,0,100,1\np,5,200,2\np,10,300,3\np,15,400,4\np,20,500,5\np,50,600,6\n"
                          "p,55,700,7\n");
  EXPECT_THAT(trace, IsOk());
  return *trace;
}

TEST(ReplayTraceTest, ValuesHoldUntilTheNextRowAndAGapIsZero) {
  const absl::StatusOr<TraceReplay> replay = ReplayTrace(GapTrace(), 24 * 60, 0, 1);
  ASSERT_THAT(replay, IsOk());
  ASSERT_EQ(replay->pods.size(), 1);
  const UsageTraces& usage = replay->usage;
  EXPECT_EQ(usage.step_minutes, 5);
  EXPECT_EQ(usage.steps(), 288);
  // Minute 20's row holds for the resolution (5 minutes); the rest of the gap is 0.
  EXPECT_THAT(std::vector<int64_t>(usage.cpu_millis[0].begin(), usage.cpu_millis[0].begin() + 13),
              ElementsAre(100, 200, 300, 400, 500, 0, 0, 0, 0, 0, 600, 700, 0));
  EXPECT_EQ(usage.memory_bytes[0][4], 5 * kMiB);
  EXPECT_EQ(usage.memory_bytes[0][6], 0);
  // It exists from its first row through its last row's resolution.
  EXPECT_EQ(replay->pods[0].start_minute, 0);
  EXPECT_EQ(replay->pods[0].end_minute, 60);
}

TEST(ReplayTraceTest, AStepAveragesCpuAndKeepsTheMemoryPeak) {
  // Rows at minutes 3 and 8 (offset from the 5-minute grid): step [5, 10) holds 100 for
  // minutes 5-7 and 400 for 8-9.
  const absl::StatusOr<UsageTrace> trace =
      ParseUsageTrace("pod,workload,cpu_request_millicores,memory_request_mib\np,w,1000,100\n",
                      kUsageHeader + "p,3,100,1\np,8,400,9\np,13,100,1\n");
  ASSERT_THAT(trace, IsOk());
  const absl::StatusOr<TraceReplay> replay = ReplayTrace(*trace, 60, 0, 1);
  ASSERT_THAT(replay, IsOk());
  EXPECT_EQ(replay->usage.cpu_millis[0][1], (3 * 100 + 2 * 400) / 5);
  EXPECT_EQ(replay->usage.memory_bytes[0][1], 9 * kMiB);
  // Step [0, 5): the pod exists from minute 3 only; its CPU is the mean over the whole step.
  EXPECT_EQ(replay->usage.cpu_millis[0][0], (2 * 100 + 2) / 5);
  EXPECT_EQ(replay->pods[0].start_minute, 0);
}

// Two days of rows for pod "early" (from day 0) and one day for "late" (day 1 only).
UsageTrace TwoDays() {
  std::string usage = kUsageHeader;
  for (int m = 0; m < 2 * 1440; m += 5) {
    usage += "early," + std::to_string(m) + "," + std::to_string(m < 1440 ? 100 : 900) + ",1\n";
  }
  for (int m = 1440; m < 2 * 1440; m += 5) usage += "late," + std::to_string(m) + ",50,1\n";
  absl::StatusOr<UsageTrace> trace = ParseUsageTrace(
      "pod,workload,cpu_request_millicores,memory_request_mib\nearly,e,1000,100\n"
      "late,l,1000,100\n",
      usage);
  EXPECT_THAT(trace, IsOk());
  return *trace;
}

TEST(ReplayTraceTest, PodsStartWhereTheirRowsStart) {
  const absl::StatusOr<TraceReplay> replay = ReplayTrace(TwoDays(), 2 * 1440, 0, 1);
  ASSERT_THAT(replay, IsOk());
  ASSERT_EQ(replay->pods.size(), 2);
  EXPECT_EQ(replay->pods[1].name, "late");
  EXPECT_EQ(replay->pods[1].start_minute, 1440);
  EXPECT_EQ(replay->pods[1].end_minute, PodSpec::kNeverEnds);
  EXPECT_EQ(replay->usage.cpu_millis[1][0], 0);
}

TEST(ReplayTraceTest, CopiesReadTheTraceWholeDaysLater) {
  // A one-day window in a two-day trace: one day of room, so a copy is shifted by a day. Only
  // "early" runs on day 0, so it is the only pod present and the only source of copies.
  const absl::StatusOr<TraceReplay> replay = ReplayTrace(TwoDays(), 1440, 2, 7);
  ASSERT_THAT(replay, IsOk());
  ASSERT_EQ(replay->pods.size(), 2);
  EXPECT_EQ(replay->copies, 1);
  EXPECT_EQ(replay->pods[1].name, "early+1d");
  EXPECT_EQ(replay->pods[1].workload, "e+1d");  // a workload of its own
  EXPECT_EQ(replay->usage.cpu_millis[0][0], 100);
  EXPECT_EQ(replay->usage.cpu_millis[1][0], 900);  // day 1's value
  EXPECT_EQ(replay->pods[1].start_minute, 0);
  EXPECT_EQ(replay->pods[1].end_minute, PodSpec::kNeverEnds);
}

TEST(ReplayTraceTest, FewerPodsThanTheTraceIsASeededSample) {
  const absl::StatusOr<TraceReplay> one = ReplayTrace(TwoDays(), 2 * 1440, 1, 1);
  ASSERT_THAT(one, IsOk());
  EXPECT_EQ(one->pods.size(), 1);
  EXPECT_EQ(one->copies, 0);
}

TEST(ReplayTraceTest, RefusesWhatTheTraceCannotGive) {
  EXPECT_THAT(
      ReplayTrace(TwoDays(), 3 * 1440, 0, 1),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("longer than the usage trace")));
  EXPECT_THAT(ReplayTrace(TwoDays(), 1440, 10, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 2 distinct pods")));
}

TEST(ReplayTraceTest, AWindowAsLongAsTheTraceWrapsCopiesAroundIt) {
  const absl::StatusOr<TraceReplay> replay = ReplayTrace(TwoDays(), 2 * 1440, 3, 1);
  ASSERT_THAT(replay, IsOk());
  ASSERT_EQ(replay->pods.size(), 3);
  const PodSpec& copy = replay->pods[2];
  EXPECT_THAT(copy.name, HasSubstr("+1d"));
  // Shifted by a day and wrapped: day 0 of the copy is day 1 of its source, day 1 is day 0.
  const std::vector<int64_t>& cpu = replay->usage.cpu_millis[2];
  if (copy.name == "early+1d") {
    EXPECT_EQ(cpu[0], 900);
    EXPECT_EQ(cpu[288], 100);
  } else {
    EXPECT_EQ(cpu[0], 50);
    EXPECT_EQ(cpu[288], 0);  // "late" did not run on day 0: the copy ends after its day 0
    EXPECT_EQ(copy.start_minute, 0);
    EXPECT_EQ(copy.end_minute, 1440);
  }
}

TEST(LoadUsageTraceTest, AMissingDirectoryIsNotFound) {
  EXPECT_THAT(cli::LoadUsageTrace("/nonexistent/trace"),
              StatusIs(absl::StatusCode::kNotFound, HasSubstr("workloads.csv")));
}

// The trace the project replays, where the shared data is checked out beside the sources.
TEST(LoadUsageTraceTest, TheBitbrainsTrace) {
  const std::string dir = std::string(HEADROOM_SOURCE_DIR) + "/../shared/data/bitbrains-rnd";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << dir << " is not here";
  const absl::StatusOr<UsageTrace> trace = cli::LoadUsageTrace(dir);
  ASSERT_THAT(trace, IsOk());
  EXPECT_EQ(trace->pods.size(), 349);
  EXPECT_EQ(trace->resolution_minutes, 5);
  EXPECT_GT(trace->rows, 8'000'000);
  const absl::StatusOr<TraceReplay> replay = ReplayTrace(*trace, 21 * 1440, 1400, 1);
  ASSERT_THAT(replay, IsOk());
  EXPECT_EQ(replay->pods.size(), 1400);
  EXPECT_GT(replay->copies, 1000);
}

}  // namespace
}  // namespace headroom::sim
