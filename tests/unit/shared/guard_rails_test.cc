// The guard rails (shared/guard_rails.h), table-driven: warm-up, floors, bounded shrinking.

#include "shared/guard_rails.h"

#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom {
namespace {

constexpr int64_t kMi = 1 << 20;
const absl::Time kNow = absl::FromUnixSeconds(1'795'331'119);

// Declared 1 CPU / 1Gi / limit 2Gi, running at that; the algorithm wants 100m / 100Mi / 200Mi.
GuardInput Input(absl::Duration history) {
  GuardInput input;
  input.declared = {1000, 1024 * kMi, 2048 * kMi};
  input.current = input.declared;
  input.proposed = {100, 100 * kMi, 200 * kMi};
  input.history = history;
  input.max_memory_bytes = 90 * kMi;
  input.memory_in_use_bytes = 80 * kMi;
  input.allow_below_declared = true;
  input.now = kNow;
  return input;
}

// The cases below lower memory limits: the operator allowed it.
GuardRailConfig LimitsMayGoDown() {
  GuardRailConfig config;
  config.allow_memory_limit_below_declared = true;
  return config;
}

TEST(GuardRails, Table) {
  struct Case {
    std::string name;
    GuardInput input;
    SizedValues want;
    std::vector<std::string> codes;  // the reasons, in order
  };
  std::vector<Case> cases;
  cases.push_back({"10 s old: the declared values",
                   Input(absl::Seconds(10)),
                   {1000, 1024 * kMi, 2048 * kMi},
                   {"WarmingUp"}});
  cases.push_back({"30 h of history: one bounded step down",
                   Input(absl::Hours(30)),
                   {500, 512 * kMi, 1024 * kMi},
                   {"ShrinkStepBounded", "ShrinkStepBounded", "MemoryLimitFloor", "RequestFloor",
                    "ShrinkStepBounded"}});
  {
    GuardInput input = Input(absl::Hours(30));
    input.allow_below_declared = false;
    cases.push_back({"without the opt-in: never below the declared requests",
                     input,
                     {1000, 1024 * kMi, 1024 * kMi},
                     {"DeclaredFloor", "DeclaredFloor", "MemoryLimitFloor", "RequestFloor"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.running = false;
    cases.push_back({"a container being created: no steps, only floors",
                     input,
                     {100, 100 * kMi, 250 * kMi},
                     {"MemoryLimitFloor"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.last_shrink = {kNow - absl::Minutes(30), kNow - absl::Hours(2), std::nullopt};
    cases.push_back({"shrank 30 minutes ago: kept; 2 hours ago: the next step",
                     input,
                     {1000, 512 * kMi, 1024 * kMi},
                     {"ShrinkTooSoon", "ShrinkStepBounded", "MemoryLimitFloor", "RequestFloor",
                      "ShrinkStepBounded"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.proposed = {3000, 2048 * kMi, 4096 * kMi};
    input.last_shrink = {kNow, kNow, kNow};
    cases.push_back({"growth is immediate, even right after a shrink",
                     input,
                     {3000, 2048 * kMi, 4096 * kMi},
                     {}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.running = false;
    input.proposed = {10, 100 * kMi, 200 * kMi};
    input.max_memory_bytes = 300 * kMi;
    input.oom_memory_bytes = 400 * kMi;
    input.memory_in_use_bytes = 0;
    cases.push_back({"floors: CPU 25m, memory limit max(2 x max, floor, 2 x OOM)",
                     input,
                     {25, 100 * kMi, 800 * kMi},
                     {"CpuFloor", "MaxFloor", "OomFloor"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.allow_below_declared = false;
    input.running = false;
    input.declared.cpu_request_millis = 10;
    input.proposed.cpu_request_millis = 5;
    input.proposed.memory_request_bytes = 1024 * kMi;
    input.proposed.memory_limit_bytes = 2048 * kMi;
    cases.push_back({"a declared request below the floor: the floor, with or without the opt-in",
                     input,
                     {25, 1024 * kMi, 2048 * kMi},
                     {"CpuFloor"}});
  }
  {
    GuardInput input = Input(absl::Seconds(10));
    input.oom_memory_bytes = 1500 * kMi;
    cases.push_back({"warming up, an OOM kill still raises the limit",
                     input,
                     {1000, 1024 * kMi, 3000 * kMi},
                     {"WarmingUp", "OomFloor"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.running = false;
    input.memory_in_use_bytes = 0;
    input.pressure_memory_bytes = 400 * kMi;
    cases.push_back({"a sustained memory stall at 400Mi: request 400Mi, limit 25% above",
                     input,
                     {100, 400 * kMi, 500 * kMi},
                     {"PressureRequestFloor", "MemoryLimitFloor", "PressureFloor"}});
    input.tuning.max_memory_bytes = 300 * kMi;
    cases.push_back({"the same under a max-memory bound of 300Mi: the request stops there",
                     input,
                     {100, 300 * kMi, 500 * kMi},
                     {"PressureRequestFloor", "MemoryLimitFloor", "PressureFloor"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.running = false;
    input.memory_in_use_bytes = 0;
    input.declared.memory_limit_bytes = 300 * kMi;
    input.pressure_memory_bytes = 600 * kMi;
    cases.push_back({"stall after stall: the limit stops at 2 x the declared 300Mi",
                     input,
                     {100, 600 * kMi, 600 * kMi},
                     {"PressureRequestFloor", "MemoryLimitFloor", "PressureFloor"}});
  }
  {
    GuardInput input = Input(absl::Seconds(10));
    input.pressure_memory_bytes = 1800 * kMi;
    cases.push_back({"warming up, a sustained memory stall still raises request and limit",
                     input,
                     {1000, 1800 * kMi, 2250 * kMi},
                     {"WarmingUp", "PressureRequestFloor", "PressureFloor"}});
  }
  {
    GuardInput input = Input(absl::Seconds(10));
    input.declared.memory_limit_bytes.reset();
    input.current.memory_limit_bytes.reset();
    cases.push_back({"warming up without a declared limit: still unlimited",
                     input,
                     {1000, 1024 * kMi, std::nullopt},
                     {"WarmingUp"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.proposed.memory_request_bytes.reset();
    input.proposed.memory_limit_bytes.reset();
    cases.push_back({"values the caller does not manage stay as they are",
                     input,
                     {500, 1024 * kMi, 2048 * kMi},
                     {"ShrinkStepBounded"}});
  }
  for (const Case& c : cases) {
    const GuardResult result = ApplyGuardRails(c.input, LimitsMayGoDown());
    EXPECT_EQ(result.values, c.want) << c.name;
    std::vector<std::string> codes;
    for (const Reason& reason : result.reasons) codes.push_back(reason.code);
    EXPECT_EQ(codes, c.codes) << c.name;
  }
}

// The workload's own tuning (headroom.dev/min-cpu, max-memory, cpu-margin, keep-declared, ...):
// a new container (no shrink steps) with 30 h of history, so only the tuning and the floors act.
TEST(GuardRails, WorkloadTuningTable) {
  struct Case {
    std::string name;
    WorkloadTuning tuning;
    absl::Duration history;
    SizedValues want;
    std::vector<std::string> codes;
  };
  auto created = [](absl::Duration history) {
    GuardInput input = Input(history);
    input.running = false;
    input.proposed = {400, 300 * kMi, 600 * kMi};
    return input;
  };
  const absl::Duration warm = absl::Hours(30);
  std::vector<Case> cases;
  cases.push_back({"no tuning: the proposal", {}, warm, {400, 300 * kMi, 600 * kMi}, {}});
  {
    WorkloadTuning t;
    t.max_cpu_millis = 250;
    t.max_memory_bytes = 200 * kMi;
    cases.push_back({"max bounds cap the requests, not the limit",
                     t,
                     warm,
                     {250, 200 * kMi, 600 * kMi},
                     {"MaxBound", "MaxBound"}});
  }
  {
    WorkloadTuning t;
    t.min_cpu_millis = 500;
    t.min_memory_bytes = 700 * kMi;
    cases.push_back({"min bounds raise the requests, and the limit follows the request",
                     t,
                     warm,
                     {500, 700 * kMi, 700 * kMi},
                     {"MinBound", "MinBound", "RequestFloor"}});
  }
  {
    WorkloadTuning t;
    t.cpu_margin = 0.25;
    t.memory_margin = 1.0;
    cases.push_back(
        {"margins on the requests", t, warm, {500, 600 * kMi, 600 * kMi}, {"Margin", "Margin"}});
  }
  {
    WorkloadTuning t;
    t.cpu_margin = 1.0;
    t.max_cpu_millis = 600;
    cases.push_back({"the max bounds the margin",
                     t,
                     warm,
                     {600, 300 * kMi, 600 * kMi},
                     {"Margin", "MaxBound"}});
  }
  {
    WorkloadTuning t;
    t.max_cpu_millis = 5;
    cases.push_back({"the CPU floor wins over a max below it",
                     t,
                     warm,
                     {25, 300 * kMi, 600 * kMi},
                     {"MaxBound", "CpuFloor"}});
  }
  {
    WorkloadTuning t;
    t.keep_memory = true;
    cases.push_back({"memory kept: request and limit stay as they are",
                     t,
                     warm,
                     {400, 1024 * kMi, 2048 * kMi},
                     {"KeptByWorkload"}});
  }
  {
    WorkloadTuning t;
    t.keep_cpu = true;
    t.keep_memory = true;
    t.min_cpu_millis = 4000;
    cases.push_back({"both kept: nothing changes, not even by a min bound",
                     t,
                     warm,
                     {1000, 1024 * kMi, 2048 * kMi},
                     {"KeptByWorkload", "KeptByWorkload"}});
  }
  {
    WorkloadTuning t;
    t.min_cpu_millis = 1500;
    t.max_memory_bytes = 10 * kMi;
    cases.push_back({"warming up: a min still raises, a max does not tighten",
                     t,
                     absl::Seconds(10),
                     {1500, 1024 * kMi, 2048 * kMi},
                     {"WarmingUp", "MinBound"}});
  }
  for (const Case& c : cases) {
    GuardInput input = created(c.history);
    input.tuning = c.tuning;
    const GuardResult result = ApplyGuardRails(input, LimitsMayGoDown());
    EXPECT_EQ(result.values, c.want) << c.name;
    std::vector<std::string> codes;
    for (const Reason& reason : result.reasons) codes.push_back(reason.code);
    EXPECT_EQ(codes, c.codes) << c.name;
  }
}

// By default a memory limit is only ever raised: the declared limit is a floor, warm or not,
// running or being created; a container without a declared limit follows the other floors.
TEST(GuardRails, TheDeclaredMemoryLimitIsAFloorByDefault) {
  struct Case {
    std::string name;
    GuardInput input;
    std::optional<int64_t> want_limit;
    std::vector<std::string> codes;
  };
  std::vector<Case> cases;
  cases.push_back({"running: the requests shrink a step, the limit stays declared",
                   Input(absl::Hours(30)),
                   2048 * kMi,
                   {"ShrinkStepBounded", "ShrinkStepBounded", "DeclaredLimitFloor"}});
  {
    GuardInput input = Input(absl::Hours(30));
    input.running = false;
    cases.push_back(
        {"being created: the declared limit", input, 2048 * kMi, {"DeclaredLimitFloor"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.running = false;
    input.max_memory_bytes = 1500 * kMi;
    cases.push_back({"2 x the observed max above the declared limit: raised past it",
                     input,
                     3000 * kMi,
                     {"MaxFloor"}});
  }
  {
    GuardInput input = Input(absl::Hours(30));
    input.running = false;
    input.declared.memory_limit_bytes.reset();
    input.current.memory_limit_bytes.reset();
    cases.push_back(
        {"no declared limit: the other floors", input, 250 * kMi, {"MemoryLimitFloor"}});
  }
  for (const Case& c : cases) {
    const GuardResult result = ApplyGuardRails(c.input, GuardRailConfig{});
    EXPECT_EQ(result.values.memory_limit_bytes, c.want_limit) << c.name;
    std::vector<std::string> codes;
    for (const Reason& reason : result.reasons) codes.push_back(reason.code);
    EXPECT_EQ(codes, c.codes) << c.name;
  }
  const GuardResult lowered = ApplyGuardRails(cases[1].input, LimitsMayGoDown());
  EXPECT_EQ(lowered.values.memory_limit_bytes, 250 * kMi) << "allowed: down to the floors";
}

TEST(GuardRails, TuningReasonsNameTheAnnotation) {
  GuardInput input = Input(absl::Hours(30));
  input.running = false;
  input.tuning.max_memory_bytes = 64 * kMi;
  const GuardResult result = ApplyGuardRails(input, GuardRailConfig{});
  ASSERT_FALSE(result.reasons.empty());
  EXPECT_EQ(result.reasons[0].message,
            "memory request 100Mi lowered to 64Mi: the workload's headroom.dev/max-memory");
}

TEST(GuardRails, AShrinkIsRecordedForTheNextStep) {
  GuardResult result = ApplyGuardRails(Input(absl::Hours(30)), LimitsMayGoDown());
  EXPECT_EQ(result.last_shrink.cpu_request, kNow);
  EXPECT_EQ(result.last_shrink.memory_limit, kNow);
  EXPECT_FALSE(result.warming_up);
  // Growth leaves the record alone.
  GuardInput grow = Input(absl::Hours(30));
  grow.proposed = {2000, 2048 * kMi, 4096 * kMi};
  result = ApplyGuardRails(grow, GuardRailConfig{});
  EXPECT_EQ(result.last_shrink, ShrinkTimes{});
}

TEST(GuardRails, MessagesCarryTheNumbers) {
  const GuardResult result = ApplyGuardRails(Input(absl::Seconds(90)), GuardRailConfig{});
  ASSERT_FALSE(result.reasons.empty());
  EXPECT_THAT(result.reasons[0].message, ::testing::HasSubstr("observed for 1m of the 24h"));
  GuardInput input = Input(absl::Hours(30));
  input.last_shrink.cpu_request = kNow - absl::Minutes(30);
  const GuardResult kept = ApplyGuardRails(input, GuardRailConfig{});
  EXPECT_THAT(kept.reasons[0].message,
              ::testing::HasSubstr("kept at 1 (wanted 100m): it shrank 30m ago, at most one "
                                   "step per 1h"));
}

TEST(GuardRails, ConfigIsValidated) {
  EXPECT_TRUE(GuardRailConfig{}.Validate().ok());
  GuardRailConfig bad;
  bad.max_shrink_step = 0;
  EXPECT_FALSE(bad.Validate().ok());
  bad = {};
  bad.min_history = -absl::Hours(1);
  EXPECT_FALSE(bad.Validate().ok());
  bad = {};
  bad.min_memory_limit_bytes = -1;
  EXPECT_FALSE(bad.Validate().ok());
}

}  // namespace
}  // namespace headroom
