// headroom-nri's pure parts and handlers: policy, workload identity, cgroup paths and files,
// the checkpoint, the Plugin service, and the trunk connection against a fake runtime (a unit-
// level fake over a socketpair; the real containerd is in e2e/local/nri-suite.sh).

#include "kubelet-hook/nri_plugin.h"

#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubelet-hook/cgroup_reader.h"
#include "kubelet-hook/container_policy.h"
#include "kubelet-hook/kernel_oom_log.h"
#include "kubelet-hook/node_checkpoint.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/sampler.h"
#include "kubelet-hook/transport/mux_codec.h"
#include "kubelet-hook/transport/plugin_runner.h"
#include "kubelet-hook/transport/trunk_connection.h"
#include "kubelet-hook/transport/ttrpc_codec.h"

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
  input.current = {512, 50000, 100000, 64 * kMi};
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
    input.declared = {256, std::nullopt, std::nullopt, declared_limit};
    input.current = {c.current_shares, std::nullopt, std::nullopt, declared_limit};
    input.memory = MemoryStats{200 << 10, 200 << 10, 200 << 10, 0};
    input.cpu_request_millis = 10;
    input.memory_usage_bytes = c.running ? 200 << 10 : 0;
    input.history = c.history;
    input.allow_below_declared = c.allow_below;
    input.running = c.running;
    input.now = kNow;
    if (c.last_shrink) input.last_shrink = {c.last_shrink, std::nullopt, c.last_shrink};
    input.guard.min_memory_limit_bytes = 50 * kMi;  // the floor (default 250Mi)
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
  input.declared = {256, std::nullopt, std::nullopt, 100 * kMi};
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

TEST(WithoutNoOps, DropsWhatIsAlreadySet) {
  ResourcePlan plan;
  plan.cpu_quota = -1;
  plan.cpu_shares = 256;
  plan.memory_limit_bytes = 64 * kMi;
  const ResourcePlan left = WithoutNoOps(plan, {256, -1, 100000, 32 * kMi});
  EXPECT_FALSE(left.cpu_quota.has_value());
  EXPECT_FALSE(left.cpu_shares.has_value());
  EXPECT_EQ(left.memory_limit_bytes, 64 * kMi);
}

TEST(DescribeContainerChange, EscapesNamesFromThePodSpec) {
  TrackedContainer container;
  container.pod_namespace = "shop";
  container.pod_name = "web\n[2026-11-24 00:00:00.000] [info] forged";
  container.name = "app";
  container.stats_key = "shop/Deployment/web#app";
  ResourcePlan plan;
  plan.cpu_quota = -1;
  const std::string line = DescribeContainerChange(container, {512, 50000, 100000, 64 * kMi}, plan);
  EXPECT_EQ(line.find('\n'), std::string::npos) << line;
  EXPECT_NE(line.find("shop/web\\x0a[2026-11-24"), std::string::npos) << line;
  EXPECT_NE(line.find(" container app (shop/Deployment/web#app): "), std::string::npos) << line;
}

TEST(CgroupRelativeDir, HandlesBothDrivers) {
  EXPECT_EQ(*CgroupRelativeDir("/kubepods/burstable/podabc/123"), "/kubepods/burstable/podabc/123");
  EXPECT_EQ(*CgroupRelativeDir("kubepods-burstable-podabc.slice:cri-containerd:123"),
            "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podabc.slice/"
            "cri-containerd-123.scope");
  EXPECT_FALSE(CgroupRelativeDir("").ok());
  EXPECT_FALSE(CgroupRelativeDir("/kubepods/../etc").ok());
  EXPECT_FALSE(CgroupRelativeDir("relative/path").ok());
}

TEST(CgroupFiles, ParseKeyedValuesAndPsi) {
  EXPECT_EQ(KeyedValue("oom_kill_disable 0\nunder_oom 0\noom_kill 3\n", "oom_kill"), 3u);
  EXPECT_EQ(KeyedValue("low 0\nhigh 0\nmax 9\noom 2\noom_kill 1\n", "oom"), 2u);
  EXPECT_FALSE(KeyedValue("oom_kill x\n", "oom_kill").has_value());
  EXPECT_EQ(PsiSomeTotal("some avg10=0.45 avg60=13.34 avg300=7.00 total=454171074\n"
                         "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"),
            454171074u);
  EXPECT_FALSE(PsiSomeTotal("").has_value());
}

class CgroupTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("headroom-cgroup-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& relative, const std::string& text) {
    const auto path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::filesystem::path root_;
};

TEST_F(CgroupTreeTest, ReadsVersion1) {
  Write("cpuacct/pods/c1/cpuacct.usage", "5000000000\n");
  Write("memory/pods/c1/memory.usage_in_bytes", "104857600\n");
  Write("memory/pods/c1/memory.stat", "cache 1\ntotal_inactive_file 4857600\n");
  Write("memory/pods/c1/memory.max_usage_in_bytes", "209715200\n");
  Write("memory/pods/c1/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n");
  CgroupReader reader(root_.string());
  ASSERT_EQ(reader.version(), CgroupVersion::kV1);
  absl::StatusOr<CgroupSample> sample = reader.Read("/pods/c1");
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->cpu_usage_nanos, 5000000000u);
  EXPECT_EQ(sample->memory_working_set_bytes, 100000000);
  EXPECT_EQ(sample->memory_max_usage_bytes, 209715200);
  EXPECT_EQ(sample->oom_kills, 2u);
  EXPECT_FALSE(sample->cpu_waiting_micros.has_value());
  EXPECT_EQ(*reader.ReadOomKills("/pods/c1"), 2u);
  EXPECT_EQ(reader.Read("/pods/gone").status().code(), absl::StatusCode::kNotFound);
}

TEST_F(CgroupTreeTest, ReadsVersion2) {
  Write("cgroup.controllers", "cpu memory\n");
  Write("pods/c1/cpu.stat", "usage_usec 2500000\nuser_usec 1\n");
  Write("pods/c1/cpu.pressure", "some avg10=0 avg60=0 avg300=0 total=123\nfull total=0\n");
  Write("pods/c1/memory.current", "1000\n");
  Write("pods/c1/memory.stat", "anon 900\ninactive_file 100\n");
  Write("pods/c1/memory.events", "low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\n");
  CgroupReader reader(root_.string());
  ASSERT_EQ(reader.version(), CgroupVersion::kV2);
  absl::StatusOr<CgroupSample> sample = reader.Read("/pods/c1");
  ASSERT_TRUE(sample.ok()) << sample.status();
  EXPECT_EQ(sample->cpu_usage_nanos, 2500000000u);
  EXPECT_EQ(sample->cpu_waiting_micros, 123u);
  EXPECT_EQ(sample->memory_working_set_bytes, 900);
  EXPECT_EQ(sample->oom_kills, 1u);
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

TEST(WithResources, TakesWhatTheUpdateSetAndKeepsTheRest) {
  napi::LinuxResources applied;
  applied.mutable_cpu()->mutable_quota()->set_value(-1);
  applied.mutable_memory()->mutable_limit()->set_value(64 * kMi);
  const RuntimeResources after = WithResources({512, 50000, 100000, 32 * kMi}, applied);
  EXPECT_EQ(after.cpu_shares, 512u);
  EXPECT_EQ(after.cpu_quota, -1);
  EXPECT_EQ(after.cpu_period, 100000u);
  EXPECT_EQ(after.memory_limit_bytes, 64 * kMi);
}

TEST(NodeCheckpoint, RoundTripsAndRejectsGarbage) {
  NodeState state;
  const absl::Time now = absl::FromUnixSeconds(1795331119);
  state.RecordOom("ns/Pod/a#c", now, 32 * kMi);
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

ttrpc::Request PluginRequest(const std::string& method, const google::protobuf::MessageLite& m) {
  ttrpc::Request request;
  request.set_service(kPluginService);
  request.set_method(method);
  request.set_payload(m.SerializeAsString());
  return request;
}

napi::CreateContainerRequest CreateRequest(const std::string& pod_name, const std::string& id,
                                           int64_t quota, int64_t memory) {
  napi::CreateContainerRequest request;
  request.mutable_pod()->set_id("pod-" + pod_name);
  request.mutable_pod()->set_name(pod_name);
  request.mutable_pod()->set_namespace_("ns");
  request.mutable_container()->set_id(id);
  request.mutable_container()->set_name("app");
  auto* resources = request.mutable_container()->mutable_linux()->mutable_resources();
  resources->mutable_cpu()->mutable_quota()->set_value(quota);
  resources->mutable_cpu()->mutable_period()->set_value(100000);
  resources->mutable_memory()->mutable_limit()->set_value(memory);
  request.mutable_container()->mutable_linux()->set_cgroups_path("/pods/" + id);
  return request;
}

napi::CreateContainerResponse Create(NriStub& stub, const napi::CreateContainerRequest& r) {
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(PluginRequest("CreateContainer", r)));
  EXPECT_TRUE(response.ok());
  EXPECT_FALSE(response->has_status());
  napi::CreateContainerResponse reply;
  EXPECT_TRUE(reply.ParseFromString(response->payload()));
  return reply;
}

TEST(NriPlugin, ConfigureSubscribesWithinNri08Events) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  napi::ConfigureRequest configure;
  configure.set_runtime_name("containerd");
  configure.set_runtime_version("v1.7.24");
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(PluginRequest("Configure", configure)));
  ASSERT_TRUE(response.ok());
  napi::ConfigureResponse reply;
  ASSERT_TRUE(reply.ParseFromString(response->payload()));
  // CreateContainer (event 4), UpdateContainer (8), RemoveContainer (11), RemovePodSandbox
  // (3): bits 1 << (event - 1), derived from the plugin's handlers.
  EXPECT_EQ(reply.events(), 0x0008 | 0x0080 | 0x0400 | 0x0004);
  EXPECT_EQ(reply.events() & ~0x7ff, 0);
  EXPECT_EQ(stub.runtime(), "containerd v1.7.24");
}

TEST(NriPlugin, RemovePodSandboxForgetsThePodsContainersOnly) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  Create(stub, CreateRequest("a", "c1", 0, kMi));
  napi::CreateContainerRequest sidecar = CreateRequest("a", "c2", 0, kMi);
  sidecar.mutable_container()->set_name("sidecar");
  Create(stub, sidecar);
  Create(stub, CreateRequest("b", "c3", 0, kMi));
  napi::StateChangeEvent removed;
  removed.set_event(napi::REMOVE_POD_SANDBOX);
  (void)stub.Handle(PluginRequest("StateChange", removed));  // no pod ID: nothing
  EXPECT_EQ(state.Containers().size(), 3u);
  removed.mutable_pod()->set_id("pod-a");
  (void)stub.Handle(PluginRequest("StateChange", removed));
  EXPECT_FALSE(state.Get("c1").has_value());
  EXPECT_FALSE(state.Get("c2").has_value());
  EXPECT_TRUE(state.Get("c3").has_value());
}

TEST(NriPlugin, CreateContainerRemovesQuotaThenRaisesMemoryAfterOom) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::FromUnixSeconds(1795331119); });
  NriStub stub(plugin.Handlers());
  napi::CreateContainerResponse reply = Create(stub, CreateRequest("hog", "c1", 50000, 32 * kMi));
  const auto& resources = reply.adjust().linux().resources();
  EXPECT_EQ(resources.cpu().quota().value(), -1);
  EXPECT_FALSE(resources.memory().has_limit());
  ASSERT_TRUE(state.Get("c1").has_value());
  EXPECT_EQ(state.Get("c1")->stats_key, "ns/Pod/hog#app");

  state.RecordOom("ns/Pod/hog#app", absl::FromUnixSeconds(1795331119), 32 * kMi);
  reply = Create(stub, CreateRequest("hog", "c2", 0, 32 * kMi));
  EXPECT_FALSE(reply.adjust().linux().resources().cpu().has_quota());
  EXPECT_EQ(reply.adjust().linux().resources().memory().limit().value(), 64 * kMi);
}

TEST(NriPlugin, AWorkloadThatKeepsItsMemoryGetsNoLimitAfterAnOom) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::FromUnixSeconds(1795331119); });
  NriStub stub(plugin.Handlers());
  state.RecordOom("ns/Pod/hog#app", absl::FromUnixSeconds(1795331119), 32 * kMi);
  napi::CreateContainerRequest request = CreateRequest("hog", "c1", 0, 32 * kMi);
  napi::StringEntry* annotation = request.mutable_pod()->add_annotations();
  annotation->set_key("headroom.dev/keep-declared");
  annotation->set_value("memory");
  EXPECT_FALSE(Create(stub, request).adjust().linux().resources().memory().has_limit());
  ASSERT_TRUE(state.Get("c1").has_value());
  EXPECT_TRUE(state.Get("c1")->tuning.keep_memory);
  // Without the annotation the OOM raises the limit (the control).
  EXPECT_EQ(Create(stub, CreateRequest("hog", "c2", 0, 32 * kMi))
                .adjust()
                .linux()
                .resources()
                .memory()
                .limit()
                .value(),
            64 * kMi);
}

TEST(NriPlugin, AWorkloadsBasePercentileShapesItsStatistics) {
  const absl::Time now = absl::FromUnixSeconds(1795331119);
  NodeState state;
  NriPlugin plugin({}, state, [now] { return now; });
  NriStub stub(plugin.Handlers());
  for (int m = 0; m < 10; ++m) {  // CPU 100m x minute over the 10-minute base window
    state.AddCpuSample("ns/Pod/a#app", now - absl::Minutes(9 - m), 100 * m);
  }
  Create(stub, CreateRequest("a", "c1", 0, kMi));
  EXPECT_EQ(state.CpuHistory("ns/Pod/a#app", now)->base_millis, 675);  // P75 of 0..900
  napi::CreateContainerRequest request = CreateRequest("a", "c2", 0, kMi);
  napi::StringEntry* annotation = request.mutable_pod()->add_annotations();
  annotation->set_key("headroom.dev/base-percentile");
  annotation->set_value("P90");
  Create(stub, request);
  EXPECT_EQ(state.CpuHistory("ns/Pod/a#app", now)->base_millis, 810);  // P90
}

TEST(NriPlugin, DryRunAndExcludedNamespacesChangeNothing) {
  NodeState state;
  NriPlugin dry({.dry_run = true}, state, [] { return absl::UnixEpoch(); });
  NriStub dry_stub(dry.Handlers());
  EXPECT_FALSE(Create(dry_stub, CreateRequest("a", "c1", 50000, kMi)).has_adjust());
  NriPlugin plugin({.excluded_namespaces = {"ns"}}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  EXPECT_FALSE(Create(stub, CreateRequest("a", "c2", 50000, kMi)).has_adjust());
}

TEST(NriPlugin, PodAnnotationsThatLeaveThePodAloneChangeNothing) {
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"headroom.dev/policy", "static"},
                                                        {"headroom.dev/disable", "true"},
                                                        {"headroom.dev/exclude", "true"},
                                                        {"headroom.dev/mode", "recommend"}}) {
    NodeState state;
    NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
    NriStub stub(plugin.Handlers());
    napi::CreateContainerRequest request = CreateRequest("a", "c1", 50000, kMi);
    napi::StringEntry* annotation = request.mutable_pod()->add_annotations();
    annotation->set_key(key);
    annotation->set_value(value);
    EXPECT_FALSE(Create(stub, request).has_adjust()) << key;
  }
}

TEST(NriPlugin, UpdateContainerKeepsThePolicysValues) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  Create(stub, CreateRequest("a", "c1", 50000, kMi));
  napi::UpdateContainerRequest update;
  *update.mutable_pod() = CreateRequest("a", "c1", 0, 0).pod();
  *update.mutable_container() = CreateRequest("a", "c1", 0, 0).container();
  update.mutable_linux_resources()->mutable_cpu()->mutable_quota()->set_value(25000);
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(PluginRequest("UpdateContainer", update)));
  ASSERT_TRUE(response.ok());
  napi::UpdateContainerResponse reply;
  ASSERT_TRUE(reply.ParseFromString(response->payload()));
  ASSERT_EQ(reply.update_size(), 1);
  EXPECT_EQ(reply.update(0).container_id(), "c1");
  EXPECT_EQ(reply.update(0).linux().resources().cpu().quota().value(), -1);
}

TEST(NriPlugin, AResizeThatLowersAValueIsThisHoursShrinkStep) {
  NodeState state;
  const absl::Time now = absl::FromUnixSeconds(1795331119);
  NriPlugin plugin({}, state, [now] { return now; });
  NriStub stub(plugin.Handlers());
  napi::CreateContainerRequest create = CreateRequest("a", "c1", 0, 512 * kMi);
  create.mutable_container()
      ->mutable_linux()
      ->mutable_resources()
      ->mutable_cpu()
      ->mutable_shares()
      ->set_value(1024);
  Create(stub, create);
  // The actuator resized the pod from 1 CPU to 500m: kubelet's UpdateContainer shows it.
  napi::UpdateContainerRequest update;
  *update.mutable_pod() = create.pod();
  *update.mutable_container() = create.container();
  update.mutable_linux_resources()->mutable_cpu()->mutable_shares()->set_value(512);
  update.mutable_linux_resources()->mutable_memory()->mutable_limit()->set_value(512 * kMi);
  ASSERT_TRUE(DecodeResponse(stub.Handle(PluginRequest("UpdateContainer", update))).ok());
  ASSERT_TRUE(state.Get("c1").has_value());
  EXPECT_EQ(state.Get("c1")->last_shrink.cpu_request, now);  // no second step from the plugin
  EXPECT_FALSE(state.Get("c1")->last_shrink.memory_limit.has_value());  // unchanged
  EXPECT_EQ(state.Get("c1")->declared.cpu_shares, 512u);
}

TEST(NriPlugin, UnknownMethodsAreUnimplementedAndGarbageFailsOpen) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  ttrpc::Request request;
  request.set_service(kPluginService);
  request.set_method("RunPodSandbox");
  absl::StatusOr<ttrpc::Response> response = DecodeResponse(stub.Handle(request));
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status().code(), static_cast<int>(RpcCode::kUnimplemented));
  request.set_method("CreateContainer");
  request.set_payload("\xff\xff\xff");
  response = DecodeResponse(stub.Handle(request));
  ASSERT_TRUE(response.ok());
  EXPECT_FALSE(response->has_status());  // an error here would fail the container's creation
}

TEST(NriPlugin, SplitSynchronizeAnswersMoreWithoutUpdatesThenUpdates) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  const napi::CreateContainerRequest c = CreateRequest("a", "c1", 50000, kMi);
  napi::SynchronizeRequest first;
  *first.add_pods() = c.pod();
  first.set_more(true);
  napi::SynchronizeRequest last;
  *last.add_containers() = c.container();
  last.mutable_containers(0)->set_pod_sandbox_id(c.pod().id());
  last.mutable_containers(0)->set_state(napi::CONTAINER_RUNNING);
  napi::SynchronizeResponse reply;
  ASSERT_TRUE(reply.ParseFromString(
      DecodeResponse(stub.Handle(PluginRequest("Synchronize", first)))->payload()));
  EXPECT_TRUE(reply.more());
  EXPECT_EQ(reply.update_size(), 0);
  ASSERT_TRUE(reply.ParseFromString(
      DecodeResponse(stub.Handle(PluginRequest("Synchronize", last)))->payload()));
  EXPECT_FALSE(reply.more());
  ASSERT_EQ(reply.update_size(), 1);
  EXPECT_EQ(reply.update(0).linux().resources().cpu().quota().value(), -1);
  EXPECT_EQ(state.Get("c1")->pod_name, "a");
}

TEST(NriPlugin, ANewConnectionForgetsAnUnfinishedSynchronize) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  const napi::CreateContainerRequest stale = CreateRequest("stale", "c-stale", 50000, kMi);
  napi::SynchronizeRequest aborted;
  *aborted.add_pods() = stale.pod();
  *aborted.add_containers() = stale.container();
  aborted.mutable_containers(0)->set_pod_sandbox_id(stale.pod().id());
  aborted.mutable_containers(0)->set_state(napi::CONTAINER_RUNNING);
  aborted.set_more(true);
  (void)stub.Handle(PluginRequest("Synchronize", aborted));
  // The connection drops; the runtime connects again: Configure, then a whole Synchronize.
  (void)stub.Handle(PluginRequest("Configure", napi::ConfigureRequest()));
  const napi::CreateContainerRequest live = CreateRequest("live", "c-live", 50000, kMi);
  napi::SynchronizeRequest fresh;
  *fresh.add_pods() = live.pod();
  *fresh.add_containers() = live.container();
  fresh.mutable_containers(0)->set_pod_sandbox_id(live.pod().id());
  fresh.mutable_containers(0)->set_state(napi::CONTAINER_RUNNING);
  napi::SynchronizeResponse reply;
  ASSERT_TRUE(reply.ParseFromString(
      DecodeResponse(stub.Handle(PluginRequest("Synchronize", fresh)))->payload()));
  ASSERT_EQ(reply.update_size(), 1);
  EXPECT_EQ(reply.update(0).container_id(), "c-live");
  EXPECT_FALSE(state.Get("c-stale").has_value());
  EXPECT_EQ(state.Get("c-live")->pod_name, "live");
}

TEST(NriPlugin, SynchronizeUsesTheCheckpointedRecordsThenDropsThem) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
  NriStub stub(plugin.Handlers());
  // Before a restart the plugin had adjusted c1 (declared 1 CPU) and c-gone, which ended
  // while it was down.
  ContainerRecord adjusted;
  adjusted.declared = {1024, 100000, 100000, 256 * kMi};
  adjusted.last_shrink.cpu_request = absl::UnixEpoch() - absl::Minutes(5);
  state.RestoreContainers({{"c1", adjusted}, {"c-gone", adjusted}});
  const napi::CreateContainerRequest c = CreateRequest("a", "c1", -1, 64 * kMi);
  napi::SynchronizeRequest sync;
  *sync.add_pods() = c.pod();
  *sync.add_containers() = c.container();
  sync.mutable_containers(0)->set_pod_sandbox_id(c.pod().id());
  sync.mutable_containers(0)->set_state(napi::CONTAINER_RUNNING);
  (void)stub.Handle(PluginRequest("Synchronize", sync));
  ASSERT_TRUE(state.Get("c1").has_value());
  EXPECT_EQ(state.Get("c1")->declared, adjusted.declared) << "the checkpoint's, not the runtime's";
  EXPECT_EQ(state.Get("c1")->last_shrink.cpu_request, adjusted.last_shrink.cpu_request);
  EXPECT_FALSE(state.RestoredContainer("c-gone").has_value());
  EXPECT_FALSE(state.RestoredContainer("c1").has_value());
  EXPECT_EQ(state.ForgetRestoredContainers(), 0u);
}

TEST(ValidatePluginIdentity, FollowsNriRules) {
  EXPECT_TRUE(ValidatePluginIdentity("headroom", "50").ok());
  EXPECT_FALSE(ValidatePluginIdentity("headroom", "7").ok());
  EXPECT_FALSE(ValidatePluginIdentity("headroom", "5a").ok());
  EXPECT_FALSE(ValidatePluginIdentity("", "50").ok());
  EXPECT_FALSE(ValidatePluginIdentity("bad name", "50").ok());
}

// A write that fails (here: the runtime stopped reading; in life, a write torn halfway) closes
// the trunk, so the runner reconnects instead of framing the next message after a torn one.
TEST(TrunkConnection, AFailedWriteClosesTheConnection) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  TrunkConnection plugin(fds[0], [](const ttrpc::Request&) { return EncodeOkResponse(""); });
  plugin.Start();
  ASSERT_EQ(::shutdown(fds[1], SHUT_RD), 0);
  const absl::StatusOr<std::string> sent =
      plugin.Call(kRuntimeService, "UpdateContainers", std::string(1 << 20, 'x'), absl::Seconds(2));
  EXPECT_EQ(sent.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(sent.status().message().find("connection closed"), std::string::npos) << sent.status();
  EXPECT_TRUE(plugin.closed());
  EXPECT_EQ(plugin.Wait().code(), absl::StatusCode::kUnavailable);
  ::close(fds[1]);
}

// A fake runtime on the other end of a socketpair: it calls Configure on connection 1 *before*
// answering RegisterPlugin (as containerd does), so a plugin that blocks its reader on its own
// call would deadlock here.
TEST(TrunkConnection, ServesTheRuntimeWhileItsOwnCallIsPending) {
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  int served = 0;
  TrunkConnection plugin(fds[0], [&](const ttrpc::Request& request) {
    ++served;
    EXPECT_EQ(request.method(), "Configure");
    napi::ConfigureResponse reply;
    reply.set_events(0x0008);
    return EncodeOkResponse(reply.SerializeAsString());
  });
  plugin.Start();
  std::thread runtime([&] {
    MuxDecoder mux;
    TtrpcStreamDecoder conn1, conn2;
    std::vector<TtrpcMessage> register_calls, configure_replies;
    char buffer[8192];
    auto read_until = [&](auto done) {
      while (!done()) {
        const ssize_t n = ::read(fds[1], buffer, sizeof(buffer));
        ASSERT_GT(n, 0);
        std::vector<MuxFrame> frames;
        ASSERT_TRUE(mux.Feed(absl::string_view(buffer, n), frames).ok());
        for (const MuxFrame& f : frames) {
          (f.conn_id == kRuntimeServiceConn ? conn2 : conn1)
              .Feed(f.payload,
                    f.conn_id == kRuntimeServiceConn ? register_calls : configure_replies);
        }
      }
    };
    read_until([&] { return !register_calls.empty(); });
    EXPECT_EQ(DecodeRequest(register_calls[0].body)->method(), "RegisterPlugin");
    const std::string configure = EncodeMuxMessage(
        kPluginServiceConn,
        EncodeTtrpcMessage(1, TtrpcType::kRequest,
                           EncodeRequest(kPluginService, "Configure", "", 2000000000)));
    ASSERT_EQ(::write(fds[1], configure.data(), configure.size()),
              static_cast<ssize_t>(configure.size()));
    read_until([&] { return !configure_replies.empty(); });
    EXPECT_EQ(configure_replies[0].stream_id, 1u);
    const std::string ok =
        EncodeMuxMessage(kRuntimeServiceConn,
                         EncodeTtrpcMessage(register_calls[0].stream_id, TtrpcType::kResponse, ""));
    ASSERT_EQ(::write(fds[1], ok.data(), ok.size()), static_cast<ssize_t>(ok.size()));
  });
  absl::StatusOr<std::string> registered =
      plugin.Call(kRuntimeService, "RegisterPlugin", "", absl::Seconds(5));
  runtime.join();
  EXPECT_TRUE(registered.ok()) << registered.status();
  EXPECT_EQ(served, 1);
  ::close(fds[1]);
  EXPECT_EQ(plugin.Wait().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(plugin.Call(kRuntimeService, "UpdateContainers", "", absl::Seconds(1)).status().code(),
            absl::StatusCode::kUnavailable);
}

TEST(TtrpcStreamDecoder, SkipsOversizedBodiesAndStaysInStep) {
  std::string header;
  header += std::string("\x00\x50\x00\x01", 4);  // length 0x500001 > 4 MiB
  header += std::string("\x00\x00\x00\x03\x01\x00", 6);
  TtrpcStreamDecoder decoder;
  std::vector<TtrpcMessage> messages;
  decoder.Feed(header, messages);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].oversized_length, 0x500001u);
  decoder.Feed(std::string(0x500001, 'x'), messages);
  decoder.Feed(EncodeTtrpcMessage(5, TtrpcType::kRequest, "abc"), messages);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].stream_id, 5u);
  EXPECT_EQ(messages[1].body, "abc");
}

TEST(MuxDecoder, RefusesConnectionZeroAndHugeFrames) {
  MuxDecoder zero;
  std::vector<MuxFrame> frames;
  EXPECT_FALSE(zero.Feed(std::string("\0\0\0\0\0\0\0\1x", 9), frames).ok());
  EXPECT_FALSE(zero.Feed("more", frames).ok());  // stays broken
  MuxDecoder huge;
  EXPECT_FALSE(huge.Feed(std::string("\0\0\0\1\x7f\0\0\0", 8), frames).ok());
  EXPECT_TRUE(frames.empty());
}

TEST(EncodeMuxMessage, SplitsLikeGoAt4096) {
  const std::string small = EncodeMuxMessage(1, std::string(4096, 'a'));
  EXPECT_EQ(small.size(), 8u + 4096u);
  const std::string big = EncodeMuxMessage(2, std::string(5000, 'b'));
  MuxDecoder decoder;
  std::vector<MuxFrame> frames;
  ASSERT_TRUE(decoder.Feed(big, frames).ok());
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].payload.size(), 4096u);
  EXPECT_EQ(frames[1].payload.size(), 904u);
  EXPECT_EQ(frames[1].conn_id, 2u);
}

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

TEST(OomKilledCgroup, ReadsTheKilledTasksCgroupFromKernelRecords) {
  // A real record from this VM's /dev/kmsg (cgroup v1, memcg OOM).
  EXPECT_EQ(OomKilledCgroup("6,1724,10154604789,-;oom-kill:constraint=CONSTRAINT_MEMCG,nodemask=("
                            "null),cpuset=/,mems_allowed=0,oom_memcg=/hr-test/child,task_memcg=/"
                            "hr-test/child,task=tail,pid=24225,uid=0\n"),
            "/hr-test/child");
  // The pod's limit was hit, a container's task was killed: the task's cgroup counts.
  EXPECT_EQ(OomKilledCgroup("oom-kill:constraint=CONSTRAINT_MEMCG,oom_memcg=/kubepods/pod1,"
                            "task_memcg=/kubepods/pod1/c1,task=app,pid=7,uid=0"),
            "/kubepods/pod1/c1");
  for (const char* other :
       {"3,1725,1,-;Memory cgroup out of memory: Killed process 24225 (tail)",
        "oom-kill:constraint=CONSTRAINT_NONE,task=x,pid=1", "oom-kill:xtask_memcg=/a,task=x",
        "oom-kill:constraint=CONSTRAINT_MEMCG,task_memcg=,task=x", "unrelated"}) {
    EXPECT_FALSE(OomKilledCgroup(other).has_value()) << other;
  }
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

// The node optimisation sizes a container from memory it used: one whose only memory record is
// an OOM kill is not optimised yet (its report still carries the kill: TrackedDemand).
TEST(Sampler, AContainerKnownOnlyByAnOomKillIsNotOptimised) {
  const CgroupReader reader("/nonexistent-cgroup-root", CgroupVersion::kV1);
  const absl::Time start = absl::FromUnixSeconds(1795300000);
  const absl::Time now = start + absl::Hours(30);
  for (const bool memory_sampled : {false, true}) {
    NodeState state;
    TrackedContainer c;
    c.id = "c1";
    c.name = "app";
    c.pod_id = "pod-1";
    c.pod_namespace = "ns";
    c.pod_name = "p";
    c.stats_key = "ns/Deployment/web#app";
    c.declared = {512, std::nullopt, std::nullopt, 256 * kMi};
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

}  // namespace
}  // namespace headroom::nri
