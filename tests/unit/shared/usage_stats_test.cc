#include "shared/usage_stats.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;

// 2023-11-15 00:00:00 UTC; hours of the day below are UTC hours.
const absl::Time kDay0 = absl::FromUnixSeconds(1'700'006'400);

absl::Time At(int day, int hour, int minute) {
  return kDay0 + absl::Hours(24 * day + hour) + absl::Minutes(minute);
}

TEST(UsageStatsTest, NoHistoryMeansNoStatistics) {
  ContainerUsageStats stats;
  UsageSnapshot snapshot = stats.Snapshot(At(0, 12, 0));
  EXPECT_FALSE(snapshot.cpu.has_value());
  EXPECT_FALSE(snapshot.memory.has_value());
}

TEST(UsageStatsTest, BaseIsP75OverTenMinutesForCpuAndThirtyForMemory) {
  ContainerUsageStats stats;
  // Minute samples 0..39: CPU 100 x minute, memory 1000 x minute.
  for (int m = 0; m < 40; ++m) {
    ASSERT_THAT(stats.AddCpu(At(0, 12, m), 100 * m), IsOk());
    ASSERT_THAT(stats.AddMemory(At(0, 12, m), 1000 * m), IsOk());
  }
  UsageSnapshot snapshot = stats.Snapshot(At(0, 12, 39));
  ASSERT_TRUE(snapshot.cpu.has_value());
  ASSERT_TRUE(snapshot.memory.has_value());
  // CPU window holds minutes 30..39: P75 = 30 + 0.75 x 9 = 36.75 -> 3675.
  EXPECT_EQ(snapshot.cpu->base_millis, 3675);
  // Memory window holds minutes 10..39: P75 = 10 + 0.75 x 29 = 31.75 -> 31750.
  EXPECT_EQ(snapshot.memory->base_bytes, 31750);
  // Peak: the max of the last hour.
  EXPECT_EQ(snapshot.cpu->peak_millis, 3900);
  EXPECT_EQ(snapshot.memory->peak_bytes, 39000);
  EXPECT_EQ(snapshot.memory->max_7d_bytes, 39000);
  EXPECT_EQ(snapshot.memory->oom_bytes, 0);
  // A workload's own percentile (headroom.dev/base-percentile): P90 = 30 + 0.9 x 9 = 38.1.
  const UsageSnapshot p90 = stats.Snapshot(At(0, 12, 39), 0.9);
  EXPECT_EQ(p90.cpu->base_millis, 3810);
  EXPECT_EQ(p90.memory->base_bytes, 36100);  // 10 + 0.9 x 29 = 36.1
  EXPECT_EQ(p90.cpu->peak_millis, 3900);
}

// Feeds one CPU sample every `step` in [from, to], `spike` at `spike_at` and 100m otherwise.
void FeedCpu(ContainerUsageStats& stats, absl::Time from, absl::Time to, absl::Duration step,
             absl::Time spike_at, int64_t spike) {
  for (absl::Time t = from; t <= to; t += step) {
    ASSERT_THAT(stats.AddCpu(t, t == spike_at ? spike : 100), IsOk());
  }
}

TEST(UsageStatsTest, PeakIsTheSameHourOfDayOverTheLastWeek) {
  ContainerUsageStats stats;
  // A spike on day 1 at 14:20, then a flat line.
  FeedCpu(stats, kDay0, At(3, 14, 50), absl::Minutes(10), At(1, 14, 20), 2000);
  // On day 3 during 14:00-14:59 the peak is day 1's spike at the same hour of the day.
  EXPECT_EQ(stats.Snapshot(At(3, 14, 50)).cpu->peak_millis, 2000);
  // Base is unaffected: it is the recent P75.
  EXPECT_EQ(stats.Snapshot(At(3, 14, 50)).cpu->base_millis, 100);
  FeedCpu(stats, At(3, 15, 0), At(3, 16, 0), absl::Minutes(10), absl::InfinitePast(), 0);
  // At 16:00 the hour of day differs: flat again.
  EXPECT_EQ(stats.Snapshot(At(3, 16, 0)).cpu->peak_millis, 100);
}

TEST(UsageStatsTest, AFreshSpikeCountsForAnHour) {
  ContainerUsageStats stats;
  FeedCpu(stats, At(0, 10, 0), At(0, 11, 20), absl::Minutes(1), At(0, 10, 30), 5000);
  // 11:20 is another hour of the day than the spike, but the spike is within the last hour.
  EXPECT_EQ(stats.Snapshot(At(0, 11, 20)).cpu->peak_millis, 5000);
  FeedCpu(stats, At(0, 11, 21), At(0, 11, 31), absl::Minutes(1), absl::InfinitePast(), 0);
  // At 11:31 the minute 10:30 has left the last hour.
  EXPECT_EQ(stats.Snapshot(At(0, 11, 31)).cpu->peak_millis, 100);
}

TEST(UsageStatsTest, SpikesOlderThanTheHistoryAreForgotten) {
  ContainerUsageStats stats;
  for (absl::Time t = kDay0; t <= At(8, 9, 0); t += absl::Minutes(10)) {
    ASSERT_THAT(stats.AddMemory(t, t == At(0, 9, 0) ? 9000 : 1000), IsOk());
  }
  UsageSnapshot snapshot = stats.Snapshot(At(8, 9, 0));
  ASSERT_TRUE(snapshot.memory.has_value());
  EXPECT_EQ(snapshot.memory->peak_bytes, 1000);
  EXPECT_EQ(snapshot.memory->max_7d_bytes, 1000);

  // The same spike six days ago is within the history and sets the 7-day max.
  ContainerUsageStats recent;
  for (absl::Time t = kDay0; t <= At(6, 20, 0); t += absl::Minutes(10)) {
    ASSERT_THAT(recent.AddMemory(t, t == At(0, 22, 0) ? 9000 : 1000), IsOk());
  }
  EXPECT_EQ(recent.Snapshot(At(6, 20, 0)).memory->max_7d_bytes, 9000);
  EXPECT_EQ(recent.Snapshot(At(6, 20, 0)).memory->peak_bytes, 1000);
}

TEST(UsageStatsTest, OomMemoryIsKeptForTheRetentionAndTheLargestWins) {
  ContainerUsageStats stats;
  ASSERT_THAT(stats.AddMemory(At(0, 0, 0), 100), IsOk());
  stats.RecordOom(At(0, 0, 0), 500);
  stats.RecordOom(At(0, 1, 0), 300);
  ASSERT_THAT(stats.AddMemory(At(6, 23, 59), 100), IsOk());
  EXPECT_EQ(stats.Snapshot(At(6, 23, 59)).memory->oom_bytes, 500);
  ASSERT_THAT(stats.AddMemory(At(7, 0, 30), 100), IsOk());
  // The 500 record is now 7 days old; the 300 one is not yet.
  EXPECT_EQ(stats.Snapshot(At(7, 0, 30)).memory->oom_bytes, 300);
  ASSERT_THAT(stats.AddMemory(At(7, 2, 0), 100), IsOk());
  EXPECT_EQ(stats.Snapshot(At(7, 2, 0)).memory->oom_bytes, 0);
}

TEST(UsageStatsTest, MemoryPressureIsKeptLikeAnOomAndApart) {
  ContainerUsageStats stats;
  ASSERT_THAT(stats.AddMemory(At(0, 0, 0), 100), IsOk());
  stats.RecordPressure(At(0, 0, 0), 700);
  stats.RecordPressure(At(0, 3, 0), 400);
  for (int i = 0; i < 20; ++i) stats.RecordPressure(At(0, 3, 0), 1);
  EXPECT_EQ(stats.pressure_records().size(), ContainerUsageStats::kMaxOomRecords);
  stats.RecordPressure(At(0, 3, 0), 400);
  ASSERT_THAT(stats.AddMemory(At(1, 0, 0), 100), IsOk());
  const UsageSnapshot day_one = stats.Snapshot(At(1, 0, 0));
  // The 700 record was pushed out by the bound; no OOM was recorded.
  EXPECT_EQ(day_one.memory->pressure_bytes, 400);
  EXPECT_EQ(day_one.memory->oom_bytes, 0);
  ASSERT_THAT(stats.AddMemory(At(7, 3, 0), 100), IsOk());
  EXPECT_EQ(stats.Snapshot(At(7, 3, 0)).memory->pressure_bytes, 0);  // 7 days: gone
  // Without samples too (a workload between two runs): the same retention.
  EXPECT_EQ(stats.RecentPressure(At(1, 0, 0)), 400);
  EXPECT_FALSE(stats.RecentPressure(At(7, 3, 0)).has_value());
}

TEST(UsageStatsTest, OomRecordsAreBounded) {
  ContainerUsageStats stats;
  for (int i = 0; i < 100; ++i) stats.RecordOom(At(0, 0, i), i);
  EXPECT_EQ(stats.oom_records().size(), ContainerUsageStats::kMaxOomRecords);
}

TEST(UsageStatsTest, OutOfOrderSamplesAreRefusedWithoutSideEffects) {
  ContainerUsageStats stats;
  ASSERT_THAT(stats.AddCpu(At(0, 12, 0), 100), IsOk());
  EXPECT_THAT(stats.AddCpu(At(0, 11, 0), 9999),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("older")));
  EXPECT_EQ(stats.Snapshot(At(0, 12, 0)).cpu->peak_millis, 100);
}

TEST(UsageStatsTest, BaseNeverExceedsPeakNorPeakTheWeekMax) {
  ContainerUsageStats stats;
  uint64_t x = 12345;
  for (int i = 0; i < 3000; ++i) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;  // fixed-seed LCG
    const absl::Time t = kDay0 + absl::Minutes(3 * i);
    ASSERT_THAT(stats.AddMemory(t, static_cast<int64_t>(x >> 40)), IsOk());
    ASSERT_THAT(stats.AddCpu(t, static_cast<int64_t>((x >> 20) & 0xffff)), IsOk());
    const UsageSnapshot s = stats.Snapshot(t);
    ASSERT_LE(s.cpu->base_millis, s.cpu->peak_millis);
    ASSERT_LE(s.memory->base_bytes, s.memory->peak_bytes);
    ASSERT_LE(s.memory->peak_bytes, s.memory->max_7d_bytes);
  }
}

struct ConfigCase {
  const char* name;
  void (*mutate)(UsageStatsConfig&);
  const char* message;
};

TEST(UsageStatsTest, TheDailyBaseIsTheDaysLargestSteadyStateNotItsSpikes) {
  ContainerUsageStats stats;
  // A day of minute samples: 200m overnight, 800m from 12:00 to 16:00 (the daily peak), and
  // one 5-minute spike to 5000m at 20:00.
  for (int m = 0; m < 24 * 60; ++m) {
    const int hour = m / 60;
    int64_t cpu = hour >= 12 && hour < 16 ? 800 : 200;
    if (m >= 20 * 60 && m < 20 * 60 + 5) cpu = 5000;
    ASSERT_THAT(stats.AddCpu(At(0, 0, m), cpu), IsOk());
  }
  const CpuStats cpu = *stats.Snapshot(At(0, 23, 59)).cpu;
  EXPECT_EQ(cpu.base_millis, 200);         // the 10-minute P75 now
  EXPECT_EQ(cpu.daily_base_millis, 800);   // the afternoon's steady state
  EXPECT_EQ(cpu.daily_peak_millis, 5000);  // the spike is headroom, not base
  // A day later the afternoon has left the window.
  for (int m = 0; m < 24 * 60; ++m) ASSERT_THAT(stats.AddCpu(At(1, 0, m), 200), IsOk());
  EXPECT_EQ(stats.Snapshot(At(1, 23, 59)).cpu->daily_base_millis, 200);
}

TEST(UsageStatsTest, HistoryCountsFromTheFirstSampleAndSurvivesARestore) {
  ContainerUsageStats stats;
  EXPECT_EQ(stats.History(At(0, 12, 0)), absl::ZeroDuration());
  ASSERT_THAT(stats.AddMemory(At(0, 12, 0), 1), IsOk());
  ASSERT_THAT(stats.AddCpu(At(0, 12, 1), 1), IsOk());
  EXPECT_EQ(stats.Snapshot(At(1, 18, 0)).history, absl::Hours(30));
  ContainerUsageStats restored;
  restored.RestoreFirstSample(At(0, 12, 0));
  ASSERT_THAT(restored.AddCpu(At(1, 17, 0), 1), IsOk());
  EXPECT_EQ(restored.History(At(1, 18, 0)), absl::Hours(30));
}

TEST(MergeSnapshotsTest, TheUnionOfReplicasTakesTheLargerOfEverything) {
  const UsageSnapshot a{CpuStats{100, 300, 150, 400}, std::nullopt, absl::Hours(2)};
  const UsageSnapshot b{CpuStats{200, 250, 100, 500}, MemoryStats{1, 2, 3, 4, 1, 2},
                        absl::Hours(30)};
  const UsageSnapshot merged = MergeSnapshots(a, b);
  EXPECT_EQ(merged.history, absl::Hours(30));
  ASSERT_TRUE(merged.cpu.has_value());
  EXPECT_EQ(merged.cpu->base_millis, 200);
  EXPECT_EQ(merged.cpu->peak_millis, 300);
  EXPECT_EQ(merged.cpu->daily_base_millis, 150);
  EXPECT_EQ(merged.cpu->daily_peak_millis, 500);
  ASSERT_TRUE(merged.memory.has_value());  // known to one replica: known
  EXPECT_EQ(merged.memory->oom_bytes, 4);
}

TEST(MergeSnapshotsTest, AMemoryStallOfAnyReplicaIsKept) {
  const UsageSnapshot stalled{std::nullopt, MemoryStats{1, 2, 3, 0, 1, 2, 0, 64}, absl::Hours(1)};
  const UsageSnapshot calm{std::nullopt, MemoryStats{5, 6, 7, 0, 5, 6, 0, 0}, absl::Hours(1)};
  EXPECT_EQ(MergeSnapshots(stalled, calm).memory->pressure_bytes, 64);
  EXPECT_EQ(MergeSnapshots(calm, stalled).memory->pressure_bytes, 64);
}

TEST(MayLowerUnionTest, OnlyAPartThatHeldTheUnionAndShrinksCallsForAFreshMerge) {
  const UsageSnapshot merged{CpuStats{200, 300, 150, 500}, MemoryStats{10, 20, 30, 0, 5, 6},
                             absl::Hours(30)};
  const UsageSnapshot holder{CpuStats{200, 250, 100, 400}, MemoryStats{1, 2, 3, 0, 1, 2},
                             absl::Hours(3)};
  struct Case {
    const char* name;
    UsageSnapshot before;
    UsageSnapshot after;
    bool may_lower;
  };
  UsageSnapshot grows = holder;
  grows.cpu->base_millis = 260;
  UsageSnapshot shrinks_held = holder;
  shrinks_held.cpu->base_millis = 199;  // it held the union's 200
  UsageSnapshot shrinks_other = holder;
  shrinks_other.cpu->peak_millis = 100;  // 250 was never the union's 300
  UsageSnapshot loses_memory = holder;
  loses_memory.memory.reset();
  UsageSnapshot holds_history = holder;
  holds_history.history = absl::Hours(30);
  UsageSnapshot history_shrinks = holds_history;
  history_shrinks.history = absl::Hours(29);
  UsageSnapshot gains_cpu{std::nullopt, MemoryStats{1, 2, 3, 0, 1, 2}, absl::Hours(3)};
  const std::vector<Case> cases = {
      {"unchanged", holder, holder, false},
      {"grows", holder, grows, false},
      {"shrinks an amount it held", holder, shrinks_held, true},
      {"shrinks an amount it did not hold", holder, shrinks_other, false},
      {"loses a resource", holder, loses_memory, true},
      {"history it held shrinks", holds_history, history_shrinks, true},
      {"gains a resource", gains_cpu, holder, false},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MayLowerUnion(merged, c.before, c.after), c.may_lower) << c.name;
  }
}

class UsageStatsConfigTest : public ::testing::TestWithParam<ConfigCase> {};

TEST_P(UsageStatsConfigTest, RejectsBadValues) {
  UsageStatsConfig config;
  GetParam().mutate(config);
  EXPECT_THAT(config.Validate(), StatusIs(absl::StatusCode::kInvalidArgument,
                                          ::testing::HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, UsageStatsConfigTest,
    ::testing::Values(
        ConfigCase{"zero_window", [](UsageStatsConfig& c) { c.cpu_base_window = {}; }, "positive"},
        ConfigCase{"window_beyond_peak",
                   [](UsageStatsConfig& c) { c.memory_base_window = absl::Hours(2); },
                   "must not exceed"},
        ConfigCase{"percentile", [](UsageStatsConfig& c) { c.base_percentile = 0; }, "percentile"},
        ConfigCase{"days", [](UsageStatsConfig& c) { c.peak_history_days = 0; }, "1..28"},
        ConfigCase{"samples", [](UsageStatsConfig& c) { c.max_window_samples = 0; }, "at least 1"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(UsageStatsConfigTest, DefaultsAreTheSeedsAndValid) {
  UsageStatsConfig config;
  EXPECT_THAT(config.Validate(), IsOk());
  EXPECT_EQ(config.cpu_base_window, absl::Minutes(10));
  EXPECT_EQ(config.memory_base_window, absl::Minutes(30));
  EXPECT_EQ(config.base_percentile, 0.75);
  EXPECT_EQ(config.peak_history_days, 7);
}

}  // namespace
}  // namespace headroom
