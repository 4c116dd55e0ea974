// The statistics' JSON shape both daemons' checkpoints use (codec/stats_json.h).

#include "codec/stats_json.h"

#include <gtest/gtest.h>

#include "extender/view/workload_checkpoint.h"
#include "kubelet-hook/node_checkpoint.h"

namespace headroom::codec {
namespace {

using nlohmann::json;

TEST(StatsJson, RoundTrips) {
  const CpuStats cpu{100, 900, 300, 1200};
  const MemoryStats memory{1 << 20, 2 << 20, 3 << 20, 4 << 20, 5 << 20, 6 << 20, 7 << 20, 8 << 20};
  absl::StatusOr<CpuStats> cpu_again = CpuStatsFromJson(CpuStatsToJson(cpu), "cpu");
  absl::StatusOr<MemoryStats> memory_again =
      MemoryStatsFromJson(MemoryStatsToJson(memory), "memory");
  ASSERT_TRUE(cpu_again.ok()) << cpu_again.status();
  ASSERT_TRUE(memory_again.ok()) << memory_again.status();
  EXPECT_EQ(cpu_again->base_millis, 100);
  EXPECT_EQ(cpu_again->peak_millis, 900);
  EXPECT_EQ(cpu_again->daily_base_millis, 300);
  EXPECT_EQ(cpu_again->daily_peak_millis, 1200);
  EXPECT_EQ(memory_again->max_7d_bytes, 3 << 20);
  EXPECT_EQ(memory_again->oom_bytes, 4 << 20);
  EXPECT_EQ(memory_again->daily_base_bytes, 5 << 20);
  EXPECT_EQ(memory_again->daily_peak_bytes, 6 << 20);
  EXPECT_EQ(memory_again->spike_bytes, 7 << 20);
  EXPECT_EQ(memory_again->pressure_bytes, 8 << 20);
}

TEST(StatsJson, TheDailyValuesMayBeAbsent) {
  absl::StatusOr<CpuStats> cpu =
      CpuStatsFromJson(json{{"baseMillis", 1}, {"peakMillis", 2}}, "cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_EQ(cpu->daily_base_millis, 0);
  EXPECT_EQ(cpu->daily_peak_millis, 0);
}

TEST(StatsJson, RefusesWhatIsNotTheShape) {
  const json bad_cpu[] = {
      json::array(),
      json{{"peakMillis", 2}},
      json{{"baseMillis", -1}, {"peakMillis", 2}},
      json{{"baseMillis", "1"}, {"peakMillis", 2}},
      json{{"baseMillis", 1}, {"peakMillis", 2}, {"dailyBaseMillis", -5}},
  };
  for (const json& bad : bad_cpu) {
    absl::StatusOr<CpuStats> decoded = CpuStatsFromJson(bad, "w.cpu");
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument) << bad.dump();
    EXPECT_NE(decoded.status().message().find("w.cpu"), std::string::npos) << bad.dump();
  }
  EXPECT_FALSE(
      MemoryStatsFromJson(json{{"baseBytes", 1}, {"peakBytes", 2}, {"max7dBytes", 3}}, "m").ok());
}

// Both daemons' checkpoints share one envelope (checkpoint_json.h): the same documents are
// refused by both, for the same reason, without an exception escaping.
TEST(CheckpointEnvelope, BothDaemonsRefuseTheSameDocuments) {
  struct Row {
    const char* text;
    const char* reason;
  };
  const Row rows[] = {
      {"{\"vers", "unreadable"},
      {"[1]", "not a JSON object"},
      {"{}", "version-1"},
      {"{\"version\": 2, \"workloads\": {}}", "version-1"},
      {"{\"version\": \"1\", \"workloads\": {}}", "version-1"},
      {"{\"version\": 1e300, \"workloads\": {}}", "version-1"},
      {"{\"version\": 1, \"workloads\": {\"k\": {\"cpu\": {\"baseMillis\": -1}}}}",
       "non-negative integer"},
      {"{\"version\": 1, \"workloads\": {\"k\": 3}}", "expected an object"},
  };
  for (const Row& row : rows) {
    const absl::Status extender = extender::DecodeWorkloads(row.text).status();
    const absl::Status node = nri::DecodeNodeCheckpoint(row.text).status();
    EXPECT_EQ(extender.code(), absl::StatusCode::kInvalidArgument) << row.text;
    EXPECT_EQ(node.code(), absl::StatusCode::kInvalidArgument) << row.text;
    EXPECT_NE(extender.message().find(row.reason), absl::string_view::npos)
        << row.text << " -> " << extender;
    EXPECT_NE(node.message().find(row.reason), absl::string_view::npos)
        << row.text << " -> " << node;
  }
  EXPECT_TRUE(extender::DecodeWorkloads("{\"version\": 1, \"workloads\": {}}").ok());
  EXPECT_TRUE(nri::DecodeNodeCheckpoint("{\"version\": 1, \"workloads\": {}}").ok());
}

}  // namespace
}  // namespace headroom::codec
