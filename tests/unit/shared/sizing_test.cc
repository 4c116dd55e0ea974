#include "shared/sizing.h"

#include <limits>

#include "gtest/gtest.h"

namespace headroom {
namespace {

constexpr int64_t kMi = 1 << 20;

TEST(SizingTest, AdmissionRequestsThePeakWithNoCpuLimit) {
  const ContainerSizing sizing =
      SizeForAdmission(CpuStats{200, 900}, MemoryStats{300 * kMi, 400 * kMi, 450 * kMi, 0});
  EXPECT_EQ(sizing.cpu_request_millis, 900);
  EXPECT_FALSE(sizing.cpu_limit_millis.has_value());
  EXPECT_EQ(sizing.memory_request_bytes, 400 * kMi);
  EXPECT_EQ(sizing.memory_limit_bytes, 900 * kMi);  // 2 x 7-day max
}

TEST(SizingTest, AdmissionRequestsTheSpikeWhereItIsKnown) {
  // The spike (what the container needs alone) replaces the hour-of-day peak; at least the
  // daily base; the memory limit still follows the 7-day max.
  CpuStats cpu{200, 900, 300, 950, 500};
  MemoryStats memory{300 * kMi, 400 * kMi, 450 * kMi, 0, 320 * kMi, 420 * kMi, 380 * kMi};
  ContainerSizing sizing = SizeForAdmission(cpu, memory);
  EXPECT_EQ(sizing.cpu_request_millis, 500);
  EXPECT_EQ(sizing.memory_request_bytes, 380 * kMi);
  EXPECT_EQ(sizing.memory_limit_bytes, 900 * kMi);
  cpu.spike_millis = 250;  // below the daily base
  EXPECT_EQ(SizeForAdmission(cpu, memory).cpu_request_millis, 300);
}

struct LimitCase {
  const char* name;
  MemoryStats memory;
  int64_t request;
  int64_t limit;
};

class MemoryLimitTest : public ::testing::TestWithParam<LimitCase> {};

TEST_P(MemoryLimitTest, IsTwiceTheLargerOfWeekMaxAndOom) {
  EXPECT_EQ(MemoryLimitBytes(GetParam().memory, GetParam().request), GetParam().limit);
}

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

INSTANTIATE_TEST_SUITE_P(
    Seed000, MemoryLimitTest,
    ::testing::Values(LimitCase{"week_max", {100, 200, 300, 0}, 150, 600},
                      LimitCase{"oom_above_week_max", {100, 200, 300, 700}, 150, 1400},
                      LimitCase{"never_below_request", {100, 200, 300, 0}, 800, 800},
                      LimitCase{"zero_history", {0, 0, 0, 0}, 0, 0},
                      LimitCase{"saturates", {0, 0, kMax / 2 + 1, 0}, 0, kMax},
                      LimitCase{"exactly_half_of_max", {0, 0, kMax / 2, 0}, 0, kMax - 1}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace headroom
