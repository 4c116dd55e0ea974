// The sampler: OOM kills counted once (from cgroup counters and from the kernel log), and what
// the node optimisation sizes.

#include "kubelet-hook/sampler.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "kubelet-hook/cgroup_reader.h"
#include "kubelet-hook/kernel_oom_log.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "nri/v1alpha1/api.pb.h"
#include "tests/unit/kubelet-hook/nri_test_support.h"

namespace headroom::nri {
namespace {

TEST_F(CgroupTreeTest, OomKillsBeforeWeWatchedAreABaselineNotAnOom) {
  auto oom_control = [&](const std::string& id, int kills) {
    Write("memory/pods/" + id + "/memory.oom_control",
          "oom_kill_disable 0\nunder_oom 0\noom_kill " + std::to_string(kills) + "\n");
  };
  const CgroupReader reader(root_.string(), CgroupVersion::kV1);
  NodeState state;
  const absl::Time now = absl::FromUnixSeconds(1795331119);
  NriPlugin plugin({}, state, [&] { return now; });
  NriStub stub(plugin.Handlers());
  Sampler sampler(state, reader, plugin.config().guard, {4000, 8 * 1024 * kMi});

  // Found running at (re)connection, with kills counted before we watched it.
  napi::SynchronizeRequest sync;
  const napi::CreateContainerRequest old = CreateRequest("old", "c-old", 0, 32 * kMi);
  *sync.add_pods() = old.pod();
  *sync.add_containers() = old.container();
  sync.mutable_containers(0)->set_pod_sandbox_id(old.pod().id());
  sync.mutable_containers(0)->set_state(napi::CONTAINER_RUNNING);
  stub.Handle(PluginRequest("Synchronize", sync));
  // Created under our eyes: its first kill counts.
  Create(stub, CreateRequest("new", "c-new", 0, 32 * kMi));
  oom_control("c-old", 3);
  oom_control("c-new", 1);
  EXPECT_EQ(sampler.PollOoms(now), 1);  // recorded: the caller reports at once
  EXPECT_EQ(sampler.stats().ooms, 1u);
  EXPECT_FALSE(state.MemoryHistory("ns/Pod/old#app", now).has_value());
  ASSERT_TRUE(state.MemoryHistory("ns/Pod/new#app", now).has_value());
  EXPECT_EQ(state.MemoryHistory("ns/Pod/new#app", now)->oom_bytes, 32 * kMi);

  // A reconnection's Synchronize re-describes the container; what the sampler knew stays.
  stub.Handle(PluginRequest("Synchronize", sync));
  EXPECT_EQ(state.Get("c-old")->oom_kills_seen, 3u);
  oom_control("c-old", 4);
  EXPECT_EQ(sampler.PollOoms(now), 1);
  EXPECT_EQ(sampler.stats().ooms, 2u);
  EXPECT_EQ(state.MemoryHistory("ns/Pod/old#app", now)->oom_bytes, 32 * kMi);
}

class FakeOomKills : public OomKillSource {
 public:
  std::vector<std::string> KilledCgroups() override { return std::exchange(pending, {}); }
  std::vector<std::string> pending;
};

// A container whose process is killed is usually deleted before the next poll of its counter;
// the kernel log still names its cgroup.
TEST(Sampler, RecordsKernelLoggedKillsOfContainersWhoseCgroupIsGone) {
  const CgroupReader reader("/nonexistent-cgroup-root", CgroupVersion::kV1);
  NodeState state;
  const absl::Time now = absl::FromUnixSeconds(1795331119);
  NriPlugin plugin({}, state, [&] { return now; });
  NriStub stub(plugin.Handlers());
  FakeOomKills kills;
  Sampler sampler(state, reader, plugin.config().guard, {4000, 8 * 1024 * kMi}, &kills);
  napi::CreateContainerRequest request = CreateRequest("hog", "c-hog", 0, 32 * kMi);
  request.mutable_container()->mutable_linux()->set_cgroups_path("/kubepods/pod-hog/c-hog");
  Create(stub, request);
  Create(stub, CreateRequest("calm", "c-calm", 0, 16 * kMi));

  kills.pending = {"/kubepods/pod-hog/c-hog", "/system.slice/some-daemon.service"};
  EXPECT_EQ(sampler.PollOoms(now), 1);
  EXPECT_EQ(sampler.stats().ooms, 1u);
  ASSERT_TRUE(state.MemoryHistory("ns/Pod/hog#app", now).has_value());
  EXPECT_EQ(state.MemoryHistory("ns/Pod/hog#app", now)->oom_bytes, 32 * kMi);
  EXPECT_FALSE(state.MemoryHistory("ns/Pod/calm#app", now).has_value());
  EXPECT_EQ(sampler.PollOoms(now), 0);  // each kill once
  EXPECT_EQ(sampler.stats().ooms, 1u);
}

// The kubelet restarts an OOM-killed container within a second, often before the next poll;
// the restart replaces the killed container's record (same pod, same name). Settled first, the
// kill is matched to the killed container and the restart is created with the raised limit;
// the next poll still counts it, so the node loop reports it at once.
TEST(Sampler, AKillIsSettledBeforeTheRestartReplacesTheKilledContainer) {
  for (const bool settle : {false, true}) {
    SCOPED_TRACE(settle ? "settled by the plugin" : "left to the next poll");
    const CgroupReader reader("/nonexistent-cgroup-root", CgroupVersion::kV1);
    NodeState state;
    const absl::Time now = absl::FromUnixSeconds(1795331119);
    FakeOomKills kills;
    Sampler sampler(state, reader, GuardRailConfig{}, {4000, 8 * 1024 * kMi}, &kills);
    std::function<void()> settle_ooms;
    if (settle) settle_ooms = [&] { sampler.SettleLoggedOoms(now); };
    NriPlugin plugin(
        {}, state, [&] { return now; }, settle_ooms);
    NriStub stub(plugin.Handlers());
    Create(stub, CreateRequest("hog", "c-hog-1", 0, 32 * kMi));

    kills.pending = {"/pods/c-hog-1"};
    const napi::CreateContainerResponse restart =
        Create(stub, CreateRequest("hog", "c-hog-2", 0, 32 * kMi));
    EXPECT_FALSE(state.Get("c-hog-1").has_value());  // replaced by the restart

    EXPECT_EQ(sampler.PollOoms(now), settle ? 1 : 0);
    EXPECT_EQ(sampler.stats().ooms, settle ? 1u : 0u);
    EXPECT_EQ(restart.adjust().linux().resources().memory().limit().value(),
              settle ? 64 * kMi : 0);     // 2 x the memory at the kill; no adjustment otherwise
    EXPECT_EQ(sampler.PollOoms(now), 0);  // reported once
  }
}

// A container of a Deployment's pod: declared 512 shares (500m) and a 256Mi limit.
TrackedContainer WebApp() {
  TrackedContainer c;
  c.id = "c1";
  c.name = "app";
  c.pod_id = "pod-1";
  c.pod_namespace = "ns";
  c.pod_name = "p";
  c.stats_key = "ns/Deployment/web#app";
  c.declared = {512, std::nullopt, std::nullopt, 256 * kMi};
  return c;
}

// The node optimisation sizes a container from memory it used: one whose only memory record is
// an OOM kill is not optimised yet (its report still carries the kill: TrackedDemand).
TEST(Sampler, AContainerKnownOnlyByAnOomKillIsNotOptimised) {
  const CgroupReader reader("/nonexistent-cgroup-root", CgroupVersion::kV1);
  const absl::Time start = absl::FromUnixSeconds(1795300000);
  const absl::Time now = start + absl::Hours(30);
  for (const bool memory_sampled : {false, true}) {
    NodeState state;
    const TrackedContainer c = WebApp();
    state.Upsert(c);
    for (int h = 0; h <= 30; ++h) {
      state.AddCpuSample(c.stats_key, start + absl::Hours(h), 100);
      if (memory_sampled) state.AddMemorySample(c.stats_key, start + absl::Hours(h), 64 * kMi);
    }
    state.RecordOom(c.stats_key, now, 300 * kMi);
    Sampler sampler(state, reader, GuardRailConfig{}, {4000, 8 * 1024 * kMi});
    const OptimizeOutcome outcome = sampler.Optimize(now);
    EXPECT_EQ(outcome.pods, 1u);
    EXPECT_EQ(outcome.optimized_containers, memory_sampled ? 1u : 0u) << memory_sampled;
  }
}

// Memory pressure (shared/memory_pressure.h) from a cgroup v2 tree: a container stalled on
// memory half of two minutes is recorded at the memory then in use, and its limit goes a step
// above that, before any OOM kill and in its warm-up.
TEST_F(CgroupTreeTest, SustainedMemoryPressureRaisesTheLimitAStepAboveTheMemoryInUse) {
  Write("cgroup.controllers", "cpu memory\n");
  Write("pods/c1/cpu.stat", "usage_usec 1000000\n");
  Write("pods/c1/cpu.pressure", "some avg10=0 avg60=0 avg300=0 total=0\n");
  Write("pods/c1/memory.current", std::to_string(250 * kMi) + "\n");
  Write("pods/c1/memory.stat", "inactive_file " + std::to_string(10 * kMi) + "\n");
  Write("pods/c1/memory.events", "oom_kill 0\n");
  const auto stalled = [&](int64_t micros) {
    Write("pods/c1/memory.pressure",
          "some avg10=50 avg60=50 avg300=10 total=" + std::to_string(micros) + "\nfull total=0\n");
  };
  const CgroupReader reader(root_.string());
  NodeState state;
  TrackedContainer c = WebApp();
  c.cgroups_path = "/pods/c1";
  c.current = c.declared;
  state.Upsert(c);
  Sampler sampler(state, reader, GuardRailConfig{}, {4000, 8 * 1024 * kMi});
  const absl::Time start = absl::FromUnixSeconds(1795300000);
  stalled(0);
  sampler.Sample(start);
  stalled(30'000'000);  // 50% of the first minute
  sampler.Sample(start + absl::Minutes(1));
  EXPECT_EQ(sampler.stats().memory_pressure_records, 0u);
  EXPECT_EQ(state.MemoryHistory(c.stats_key, start + absl::Minutes(1))->pressure_bytes, 0);
  stalled(60'000'000);  // and of the second: sustained
  const absl::Time now = start + absl::Minutes(2);
  sampler.Sample(now);
  EXPECT_EQ(sampler.stats().memory_pressure_records, 1u);
  EXPECT_EQ(state.MemoryHistory(c.stats_key, now)->pressure_bytes, 240 * kMi);
  const ResourcePlan plan = PlanTrackedContainer(state, *state.Get("c1"), GuardRailConfig{}, now);
  EXPECT_EQ(plan.memory_limit_bytes, 300 * kMi);  // 1.25 x 240Mi, above the declared 256Mi
  bool said_why = false;
  for (const Reason& reason : plan.reasons) said_why = said_why || reason.code == "PressureFloor";
  EXPECT_TRUE(said_why) << PlanReasons(plan);

  // A calm minute ends the stretch: no second record.
  sampler.Sample(now + absl::Minutes(1));
  EXPECT_EQ(sampler.stats().memory_pressure_records, 1u);
}

}  // namespace
}  // namespace headroom::nri
