// The simulator's Memory QoS model (sim/memory_qos.h): memory.high as the kubelet computes it,
// and the stall above it.

#include "sim/memory_qos.h"

#include <cstdint>
#include <string>

#include "gtest/gtest.h"

namespace headroom::sim {
namespace {

constexpr int64_t kMi = 1LL << 20;
constexpr int64_t kGi = 1LL << 30;

struct HighCase {
  const char* name;
  int64_t request;
  int64_t limit;
  double factor;
  int64_t high;
};

class MemoryHighTest : public ::testing::TestWithParam<HighCase> {};

TEST_P(MemoryHighTest, AsTheKubeletSetsIt) {
  EXPECT_EQ(MemoryHigh(GetParam().request, GetParam().limit, GetParam().factor), GetParam().high);
}

INSTANTIATE_TEST_SUITE_P(
    Table, MemoryHighTest,
    ::testing::Values(
        // 1Gi + 0.9 x 1Gi, a whole number of pages.
        HighCase{"burstable", kGi, 2 * kGi, 0.9, kGi + 966'365'184},
        // Rounded down to a 4096-byte page: 100 + 0.9 x 10000 bytes is 9100, two pages.
        HighCase{"page_rounding", 100, 10'100, 0.9, 8192},
        HighCase{"guaranteed_memory", kGi, kGi, 0.9, 0},
        HighCase{"memory_qos_off", kGi, 2 * kGi, 0, 0}, HighCase{"no_limit", kGi, 0, 0.9, 0},
        // Not above the request after rounding: not set.
        HighCase{"not_above_the_request", 4096, 4097, 0.9, 0},
        HighCase{"no_request", 0, kGi, 0.9, 966'365'184}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

struct StallCase {
  const char* name;
  int64_t usage;
  int64_t high;
  int64_t limit;
  double share;
};

class MemoryStallShareTest : public ::testing::TestWithParam<StallCase> {};

TEST_P(MemoryStallShareTest, GrowsWithTheSquareOfTheOverage) {
  EXPECT_DOUBLE_EQ(MemoryStallShare(GetParam().usage, GetParam().high, GetParam().limit),
                   GetParam().share);
}

INSTANTIATE_TEST_SUITE_P(
    Table, MemoryStallShareTest,
    ::testing::Values(StallCase{"below_high", 800 * kMi, 900 * kMi, kGi, 0},
                      StallCase{"at_high", 900 * kMi, 900 * kMi, kGi, 0},
                      StallCase{"a_quarter_into_the_band", 925 * kMi, 900 * kMi, 1000 * kMi,
                                0.0625},
                      StallCase{"half_way", 950 * kMi, 900 * kMi, 1000 * kMi, 0.25},
                      StallCase{"at_the_limit", 1000 * kMi, 900 * kMi, 1000 * kMi, 1},
                      StallCase{"above_the_limit", 2000 * kMi, 900 * kMi, 1000 * kMi, 1},
                      StallCase{"no_memory_high", 2000 * kMi, 0, 1000 * kMi, 0}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace headroom::sim
