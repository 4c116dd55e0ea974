// headroom-nri's checkpoint restores no more workload containers than the budget allows: a
// checkpoint written by an older version (no cap) or under a larger budget keeps those that
// ran last.

#include "kubelet-hook/node_checkpoint.h"

#include <map>
#include <string>

#include "gtest/gtest.h"

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

}  // namespace
}  // namespace headroom::nri
