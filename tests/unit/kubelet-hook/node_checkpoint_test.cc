// headroom-nri's checkpoint restores no more workload containers than the budget allows: a
// checkpoint written by an older version (no cap) or under a larger budget keeps those that
// ran last.

#include "kubelet-hook/node_checkpoint.h"

#include <map>
#include <string>

#include "gtest/gtest.h"
#include "kubelet-hook/node_state.h"

namespace headroom::nri {
namespace {

const absl::Time kStart = absl::FromUnixSeconds(1795331100);

TEST(KeepLastLiveWorkloads, KeepsThoseThatRanLast) {
  struct Case {
    const char* name;
    size_t max;
    std::vector<std::string> kept;
  };
  const std::vector<Case> cases = {
      {"under the cap: all", 5, {"a", "b", "c", "d"}},
      {"at the cap: all", 4, {"a", "b", "c", "d"}},
      // b ran last; d has no lastLive (an older checkpoint): its first sample counts; c has
      // neither and goes first.
      {"two", 2, {"b", "d"}},
      {"one", 1, {"b"}},
      {"none", 0, {}},
  };
  for (const Case& c : cases) {
    std::map<std::string, WorkloadRecord> workloads;
    workloads["a"].last_live = kStart + absl::Hours(1);
    workloads["b"].last_live = kStart + absl::Hours(3);
    workloads["c"] = WorkloadRecord{};
    workloads["d"].first_sample = kStart + absl::Hours(2);
    const size_t dropped = KeepLastLiveWorkloads(workloads, c.max);
    std::vector<std::string> kept;
    for (const auto& [key, record] : workloads) kept.push_back(key);
    EXPECT_EQ(kept, c.kept) << c.name;
    EXPECT_EQ(dropped, 4 - c.kept.size()) << c.name;
  }
}

TEST(NodeCheckpointText, CarriesLastLiveAndIsOneDocument) {
  NodeCheckpoint checkpoint;
  checkpoint.workloads["ns/Job/a#c"].last_live = kStart;
  checkpoint.workloads["ns/Job/\"quoted\"#c"].first_sample = kStart;
  checkpoint.containers["id-1"].declared.memory_limit_bytes = 1 << 20;
  const std::string text = EncodeNodeCheckpoint(checkpoint, kStart);
  absl::StatusOr<NodeCheckpoint> decoded = DecodeNodeCheckpoint(text);
  ASSERT_TRUE(decoded.ok()) << decoded.status() << "\n" << text;
  EXPECT_EQ(decoded->workloads.at("ns/Job/a#c").last_live, kStart);
  EXPECT_EQ(decoded->workloads.at("ns/Job/\"quoted\"#c").first_sample, kStart);
  EXPECT_EQ(decoded->containers.at("id-1").declared.memory_limit_bytes, 1 << 20);
  // Empty maps are still one valid document.
  ASSERT_TRUE(DecodeNodeCheckpoint(EncodeNodeCheckpoint({}, kStart)).ok());
}

constexpr int64_t kMi = 1024 * 1024;

TEST(NodeCheckpoint, RoundTripsAndRejectsGarbage) {
  NodeState state;
  const absl::Time now = absl::FromUnixSeconds(1795331119);
  state.RecordOom("ns/Pod/a#c", now, 32 * kMi);
  state.RecordPressure("ns/Pod/a#c", now - absl::Minutes(3), 24 * kMi);
  state.SetSizedCpu("ns/Pod/a#c", 250);
  state.AddMemorySample("ns/Pod/a#c", now - absl::Hours(30), 16 * kMi);
  TrackedContainer container;
  container.id = "c1";
  container.declared = {1024, 50000, 100000, 256 * kMi};
  container.last_shrink.cpu_request = now - absl::Minutes(20);
  state.Upsert(container);
  const std::string text =
      EncodeNodeCheckpoint({state.Records(now), state.ContainerRecords()}, now);
  absl::StatusOr<NodeCheckpoint> decoded = DecodeNodeCheckpoint(text);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  NodeState restored;
  restored.Restore(decoded->workloads);
  restored.RestoreContainers(decoded->containers);
  EXPECT_EQ(restored.SizedCpu("ns/Pod/a#c"), 250);
  ASSERT_TRUE(restored.MemoryHistory("ns/Pod/a#c", now).has_value());
  EXPECT_EQ(restored.MemoryHistory("ns/Pod/a#c", now)->oom_bytes, 32 * kMi);
  EXPECT_EQ(restored.MemoryHistory("ns/Pod/a#c", now)->pressure_bytes, 24 * kMi);
  {
    // The records themselves, not only the last snapshot: fresh samples after the restart
    // leave the pressure on record.
    NodeState sampled_again;
    sampled_again.Restore(decoded->workloads);
    sampled_again.AddMemorySample("ns/Pod/a#c", now, 8 * kMi);
    EXPECT_EQ(sampled_again.MemoryHistory("ns/Pod/a#c", now)->pressure_bytes, 24 * kMi);
  }
  // The warm-up counts from the first sample before the restart.
  EXPECT_EQ(restored.History("ns/Pod/a#c", now), absl::Hours(30));
  ASSERT_TRUE(restored.RestoredContainer("c1").has_value());
  EXPECT_EQ(restored.RestoredContainer("c1")->declared, container.declared);
  // The shrink step survives the restart too.
  EXPECT_EQ(restored.RestoredContainer("c1")->last_shrink.cpu_request, now - absl::Minutes(20));
  EXPECT_EQ(EncodeNodeCheckpoint({restored.Records(now), decoded->containers}, now), text);
  for (const char* bad : {"", "[]", "{\"version\": 2, \"workloads\": {}}",
                          "{\"version\": 1, \"workloads\": {\"k\": {\"ooms\": [{}]}}}",
                          // A negative amount is refused, never read as a 0 memory limit.
                          "{\"version\": 1, \"workloads\": {\"k\": {\"memory\": {\"baseBytes\": 1, "
                          "\"peakBytes\": 2, \"max7dBytes\": -3, \"oomBytes\": 0}}}}",
                          "{\"version\": 1, \"workloads\": {}, \"containers\": {\"c\": "
                          "{\"memoryLimitBytes\": -1}}}"}) {
    EXPECT_EQ(DecodeNodeCheckpoint(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace headroom::nri
