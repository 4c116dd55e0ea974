// What headroom-nri asks the runtime for one container: CPU shares, the quota removed, the memory
// limit, and the guard rails that shape them.

#include "kubelet-hook/container_policy.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

constexpr int64_t kMi = 1024 * 1024;

TEST(CpuSharesForMillis, FollowsKubelet) {
  struct Case {
    int64_t millis;
    uint64_t shares;
  } cases[] = {{0, 2}, {1, 2}, {100, 102}, {250, 256}, {1000, 1024}, {300000, 262144}};
  for (const Case& c : cases) EXPECT_EQ(CpuSharesForMillis(c.millis), c.shares) << c.millis;
}

constexpr absl::Duration kWarm = absl::Hours(30);

const absl::Time kNow = absl::FromUnixSeconds(1795331119);

// A warm container (30 h of history) with the guard rails' floors off unless a test sets them.
ContainerPolicyInput Warm() {
  ContainerPolicyInput input;
  input.history = kWarm;
  input.now = kNow;
  input.allow_below_declared = true;
  input.guard.min_cpu_request_millis = 0;
  input.guard.min_memory_limit_bytes = 0;
  return input;
}

TEST(PlanContainerResources, RemovesQuotaKeepsDeclaredMemoryWithoutHistory) {
  ContainerPolicyInput input;
  input.current = {512, 50000, 100000, 64 * kMi, std::nullopt};
  input.declared = input.current;
  const ResourcePlan plan = PlanContainerResources(input);
  EXPECT_EQ(plan.cpu_quota, -1);
  EXPECT_FALSE(plan.cpu_shares.has_value());
  EXPECT_FALSE(plan.memory_limit_bytes.has_value());
  ASSERT_EQ(plan.reasons.size(), 2u);
  EXPECT_EQ(plan.reasons[1].code, "memory-no-history");
}

TEST(PlanContainerResources, MemoryLimitIsTwiceTheLargerOfMaxAndOom) {
  struct Case {
    MemoryStats memory;
    int64_t usage;
    int64_t want;
  } cases[] = {
      {{10 * kMi, 20 * kMi, 30 * kMi, 0}, 0, 60 * kMi},         // 2 x 7-day max
      {{10 * kMi, 20 * kMi, 30 * kMi, 40 * kMi}, 0, 80 * kMi},  // 2 x OOM
      {{0, 0, 0, 32 * kMi}, 0, 64 * kMi},                       // OOM only, no samples
      {{10 * kMi, 20 * kMi, 30 * kMi, 0}, 70 * kMi, 70 * kMi},  // never below usage
  };
  for (const Case& c : cases) {
    ContainerPolicyInput input = Warm();
    input.memory = c.memory;
    input.memory_usage_bytes = c.usage;
    EXPECT_EQ(PlanContainerResources(input).memory_limit_bytes, c.want);
  }
}

TEST(PlanContainerResources, SharesFromSizedRequestAndNothingWhenNotEnforcing) {
  ContainerPolicyInput input = Warm();
  input.current.cpu_quota = 20000;
  input.cpu_request_millis = 250;
  input.memory = MemoryStats{1, 2, 3 * kMi, 0};
  ResourcePlan plan = PlanContainerResources(input);
  EXPECT_EQ(plan.cpu_shares, 256u);
  EXPECT_EQ(plan.memory_limit_bytes, 6 * kMi);
  input.enforce = false;
  plan = PlanContainerResources(input);
  EXPECT_FALSE(plan.changes_anything());
  EXPECT_EQ(plan.reasons.back().code, "recommend-only");
  input.enforce = true;
  input.excluded = true;
  EXPECT_FALSE(PlanContainerResources(input).changes_anything());
}

// The adoption step: observe sets nothing, admission sets a new container's values only,
// in-place also a running container's.
TEST(PlanContainerResources, TheStepDecidesWhatIsSet) {
  const struct {
    AdoptionStep step;
    bool running;
    bool changes;
    const char* reason;  // the last reason when nothing is set
  } cases[] = {
      {AdoptionStep::kObserve, false, false, "mode-observe"},
      {AdoptionStep::kObserve, true, false, "mode-observe"},
      {AdoptionStep::kAdmission, false, true, ""},
      {AdoptionStep::kAdmission, true, false, "mode-admission"},
      {AdoptionStep::kInPlace, false, true, ""},
      {AdoptionStep::kInPlace, true, true, ""},
  };
  for (const auto& c : cases) {
    ContainerPolicyInput input = Warm();
    input.current.cpu_quota = 20000;
    input.cpu_request_millis = 250;
    input.memory = MemoryStats{1, 2, 3 * kMi, 0};
    input.running = c.running;
    input.step = c.step;
    const ResourcePlan plan = PlanContainerResources(input);
    const std::string label =
        absl::StrCat(AdoptionStepName(c.step), c.running ? " running" : " new");
    EXPECT_EQ(plan.changes_anything(), c.changes) << label;
    if (!c.changes) {
      EXPECT_EQ(plan.reasons.back().code, c.reason) << label;
    }
  }
}

TEST(PlanContainerResources, NoQuotaDeclaredMeansNothingToRemove) {
  ContainerPolicyInput input;
  input.current.cpu_quota = -1;
  EXPECT_FALSE(PlanContainerResources(input).cpu_quota.has_value());
}

// The guard rails as headroom-nri applies them: declared 256 shares (250m) and a 100Mi limit,
// a workload that used 200KiB and was sized at 10m.
TEST(PlanContainerResources, GuardRails) {
  struct Case {
    std::string name;
    absl::Duration history;
    bool allow_below;
    bool running;
    std::optional<absl::Time> last_shrink;
    uint64_t current_shares;
    uint64_t want_shares;
    int64_t want_limit;
  };
  const int64_t declared_limit = 100 * kMi;
  const std::vector<Case> cases = {
      // The cold-start incident: 10 s old, declared values kept (not 2 shares, not 400KiB).
      {"10 s old keeps its declared weight and limit", absl::Seconds(10), true, true, std::nullopt,
       256, 256, declared_limit},
      {"30 h of history: tightened, one bounded step", kWarm, true, true, std::nullopt, 256, 128,
       50 * kMi},
      {"a new container of a warm workload starts sized, no steps", kWarm, true, false,
       std::nullopt, 256, 25, 50 * kMi},
      {"without the opt-in, never below the declared weight", kWarm, false, true, std::nullopt, 256,
       256, 50 * kMi},
      {"shrank 10 minutes ago: kept", kWarm, true, true, kNow - absl::Minutes(10), 256, 256,
       declared_limit},
      {"shrank 2 hours ago: the next step", kWarm, true, true, kNow - absl::Hours(2), 256, 128,
       50 * kMi},
  };
  for (const Case& c : cases) {
    ContainerPolicyInput input;
    input.declared = {256, std::nullopt, std::nullopt, declared_limit, std::nullopt};
    input.current = {c.current_shares, std::nullopt, std::nullopt, declared_limit, std::nullopt};
    input.memory = MemoryStats{200 << 10, 200 << 10, 200 << 10, 0};
    input.cpu_request_millis = 10;
    input.memory_usage_bytes = c.running ? 200 << 10 : 0;
    input.history = c.history;
    input.allow_below_declared = c.allow_below;
    input.running = c.running;
    input.now = kNow;
    if (c.last_shrink) input.last_shrink = {c.last_shrink, std::nullopt, c.last_shrink};
    input.guard.min_memory_limit_bytes = 50 * kMi;  // the floor (default 250Mi)
    input.guard.resize_threshold = {0, 0, 0};       // ChangesTooSmallToMatterAreHeld's rule
    input.guard.allow_memory_limit_below_declared = true;
    const ResourcePlan plan = PlanContainerResources(input);
    EXPECT_EQ(plan.cpu_shares.value_or(c.current_shares), c.want_shares) << c.name;
    EXPECT_EQ(plan.memory_limit_bytes.value_or(-1), c.want_limit) << c.name;
    // By default the declared limit is a floor: the limit never goes below it.
    input.guard.allow_memory_limit_below_declared = false;
    EXPECT_EQ(PlanContainerResources(input).memory_limit_bytes.value_or(declared_limit),
              declared_limit)
        << c.name;
  }
}

TEST(PlanContainerResources, GrowthIsImmediateAndTheOomRaisesTheLimitEvenWhileWarming) {
  ContainerPolicyInput input;
  input.declared = {256, std::nullopt, std::nullopt, 100 * kMi, std::nullopt};
  input.current = input.declared;
  input.memory = MemoryStats{0, 0, 0, 80 * kMi};  // an OOM kill at 80Mi, no samples yet
  input.now = kNow;
  ResourcePlan plan = PlanContainerResources(input);  // warming up
  EXPECT_EQ(plan.memory_limit_bytes, 160 * kMi);
  input.history = kWarm;
  input.cpu_request_millis = 2000;
  input.last_shrink.cpu_request = kNow;  // a shrink just now does not hold back growth
  plan = PlanContainerResources(input);
  EXPECT_EQ(plan.cpu_shares, 2048u);
}

// Guard rail 5 at the runtime: a running container's weight or limit moves only by at least
// the resize threshold (10% and 25m / 64Mi), or when the memory limit must rise; a change held
// back keeps the value's shrink step for the real one that follows.
// Shares 512 (500m) and a 1000Mi limit, sized to `millis` and a limit of `limit_mi`.
ContainerPolicyInput RunningAt500m(int64_t millis, int64_t limit_mi) {
  ContainerPolicyInput input = Warm();
  input.guard.allow_memory_limit_below_declared = true;
  input.declared = {512, std::nullopt, std::nullopt, 1000 * kMi, std::nullopt};
  input.current = input.declared;
  input.cpu_request_millis = millis;
  const int64_t max = limit_mi * kMi / 2;  // the limit is 2 x the 7-day max
  input.memory = MemoryStats{max / 2, max, max, 0};
  return input;
}

bool HasReason(const ResourcePlan& plan, const std::string& code) {
  for (const Reason& reason : plan.reasons) {
    if (reason.code == code) return true;
  }
  return false;
}

TEST(PlanContainerResources, ChangesTooSmallToMatterAreHeld) {
  struct Case {
    std::string name;
    int64_t millis;
    int64_t limit_mi;
    uint64_t want_shares;
    int64_t want_limit_mi;
    bool held;       // a "below-resize-threshold" reason
    bool cpu_spent;  // last_shrink.cpu_request set: the hour's shrink step taken
    bool memory_spent;
  };
  const std::vector<Case> cases = {
      {"500m to 496m: held, the shrink step kept", 496, 1000, 512, 1000, true, false, false},
      {"500m to 300m: made", 300, 1000, 307, 1000, false, true, false},
      {"500m to 540m (8%): held", 540, 1000, 512, 1000, true, false, false},
      {"500m to 560m: made", 560, 1000, 573, 1000, false, false, false},
      {"limit 1000Mi to 980Mi: held", 500, 980, 512, 1000, true, false, false},
      {"limit 1000Mi to 800Mi: made", 500, 800, 512, 800, false, false, true},
      {"limit 1000Mi to 1010Mi: growth is always made", 500, 1010, 512, 1010, false, false, false},
  };
  for (const Case& c : cases) {
    const ContainerPolicyInput input = RunningAt500m(c.millis, c.limit_mi);
    const ResourcePlan plan = WithoutNoOps(PlanContainerResources(input), input.current);
    EXPECT_EQ(plan.cpu_shares.value_or(512), c.want_shares) << c.name;
    EXPECT_EQ(plan.memory_limit_bytes.value_or(1000 * kMi), c.want_limit_mi * kMi) << c.name;
    EXPECT_EQ(HasReason(plan, "below-resize-threshold"), c.held) << c.name;
    EXPECT_EQ(plan.last_shrink.cpu_request.has_value(), c.cpu_spent) << c.name;
    EXPECT_EQ(plan.last_shrink.memory_limit.has_value(), c.memory_spent) << c.name;
  }
  // Between 100m and 120m: 20%, but under 25m.
  ContainerPolicyInput small = RunningAt500m(120, 1000);
  small.current.cpu_shares = small.declared.cpu_shares = 102;
  EXPECT_FALSE(WithoutNoOps(PlanContainerResources(small), small.current).cpu_shares.has_value());

  // A container being created starts at its sizing, whatever the threshold.
  ContainerPolicyInput created = RunningAt500m(496, 980);
  created.running = false;
  ResourcePlan plan = PlanContainerResources(created);
  EXPECT_EQ(plan.cpu_shares, 507u);  // 496m
  EXPECT_EQ(plan.memory_limit_bytes, 980 * kMi);

  // Threshold 0 (--resize-min-change 0 --resize-min-cpu 0 --resize-min-memory 0): every change.
  ContainerPolicyInput any = RunningAt500m(496, 980);
  any.guard.resize_threshold = {0, 0, 0};
  plan = PlanContainerResources(any);
  EXPECT_EQ(plan.cpu_shares, 507u);
  EXPECT_EQ(plan.memory_limit_bytes, 980 * kMi);
  EXPECT_EQ(plan.last_shrink.cpu_request, kNow);
  EXPECT_EQ(plan.last_shrink.memory_limit, kNow);
}

TEST(WithoutNoOps, DropsWhatIsAlreadySet) {
  ResourcePlan plan;
  plan.cpu_quota = -1;
  plan.cpu_shares = 256;
  plan.memory_limit_bytes = 64 * kMi;
  const ResourcePlan left = WithoutNoOps(plan, {256, -1, 100000, 32 * kMi, std::nullopt});
  EXPECT_FALSE(left.cpu_quota.has_value());
  EXPECT_FALSE(left.cpu_shares.has_value());
  EXPECT_EQ(left.memory_limit_bytes, 64 * kMi);
}

TEST(CpuShares, ConvertBothWays) {
  EXPECT_EQ(MillisForCpuShares(1024), 1000);
  EXPECT_EQ(MillisForCpuShares(512), 500);
  EXPECT_EQ(MillisForCpuShares(2), 1);
  EXPECT_EQ(MillisForCpuShares(CpuSharesForMillis(250)), 250);
}

TEST(RuntimeRequests, CpuFromSharesMemoryFromTheLimit) {
  RuntimeResources resources;
  EXPECT_EQ(RuntimeRequests(resources), (ResourceAmounts{0, 0}));
  resources.cpu_shares = 512;
  resources.memory_limit_bytes = int64_t{64} << 20;
  resources.cpu_quota = 50000;  // a quota is no request
  EXPECT_EQ(RuntimeRequests(resources), (ResourceAmounts{500, int64_t{64} << 20}));
}

}  // namespace
}  // namespace headroom::nri
