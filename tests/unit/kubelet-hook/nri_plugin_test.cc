// headroom-nri's Plugin service: the NRI events it subscribes to and what each answers, through
// the stub the runtime calls (the real containerd is in e2e/local/nri-suite.sh).

#include "kubelet-hook/nri_plugin.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kubelet-hook/node_checkpoint.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "kubelet-hook/transport/ttrpc_codec.h"
#include "nri/v1alpha1/api.pb.h"
#include "tests/unit/kubelet-hook/nri_test_support.h"

namespace headroom::nri {
namespace {

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

// The kubelet's Memory QoS (beta, on by default from 1.37, cgroup v2) sets memory.high at
// request + 0.9 x (limit - request). A limit headroom raises takes memory.high with it: left
// where it was, it would throttle the container below the limit headroom just raised.
TEST(NriPlugin, MemoryHighMovesWithTheLimit) {
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::FromUnixSeconds(1795331119); });
  NriStub stub(plugin.Handlers());
  state.RecordOom("ns/Pod/hog#app", absl::FromUnixSeconds(1795331119), 32 * kMi);
  // Declared: request 16Mi, limit 32Mi -> memory.high 16Mi + 0.9 x 16Mi = 30.4Mi (31129.6 KiB,
  // 7782 pages: 31875072 bytes).
  napi::CreateContainerRequest request = CreateRequest("hog", "c1", 0, 32 * kMi);
  napi::StringEntry* high =
      request.mutable_container()->mutable_linux()->mutable_resources()->add_unified();
  high->set_key("memory.high");
  high->set_value("31875072");
  const napi::CreateContainerResponse reply = Create(stub, request);
  const auto& resources = reply.adjust().linux().resources();
  EXPECT_EQ(resources.memory().limit().value(), 64 * kMi);
  ASSERT_EQ(resources.unified_size(), 1);
  EXPECT_EQ(resources.unified(0).key(), "memory.high");
  // The same fraction of the limit: 31875072 x 2, page-aligned.
  EXPECT_EQ(resources.unified(0).value(), "63750144");
  ASSERT_TRUE(state.Get("c1").has_value());
  EXPECT_EQ(state.Get("c1")->current.memory_high_bytes, 63750144);

  // Without Memory QoS ("max", or no entry) nothing is added.
  high->set_value("max");
  request.mutable_container()->set_id("c2");
  EXPECT_EQ(Create(stub, request).adjust().linux().resources().unified_size(), 0);
}

TEST(ContainerPolicy, MemoryHighFor) {
  struct Case {
    int64_t high, old_limit, new_limit, want;
  };
  const Case cases[] = {
      {31875072, 32 * kMi, 64 * kMi, 63750144},        // raised: same fraction
      {31875072, 32 * kMi, 16 * kMi, 15937536},        // lowered: same fraction
      {8 * 1024 * kMi, 0, 100 * kMi, 94371840},        // no old limit: 0.9 x the new one
      {50 * kMi, 0, 100 * kMi, 50 * kMi},              // ... unless it was lower already
      {4096, 32 * kMi, 8192, 4096},                    // at least a page, below the limit
      {32 * kMi, 32 * kMi, 64 * kMi + 100, 64 * kMi},  // page-aligned below the new limit
  };
  for (const Case& c : cases) {
    EXPECT_EQ(MemoryHighFor(c.high, c.old_limit, c.new_limit), c.want)
        << c.high << " " << c.old_limit << " " << c.new_limit;
  }
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

// The ladder on the node: the step the webhook wrote on the pod decides what a new container
// gets; a running one changes only while the pod's step is in-place, and the extender's word
// (ReportReply.pod_modes) moves it.
TEST(NriPlugin, TheAdmittedStepAndTheExtendersWordDecide) {
  const auto update_quota = [](NriStub& stub) -> std::optional<int64_t> {
    napi::UpdateContainerRequest update;
    *update.mutable_pod() = CreateRequest("a", "c1", 0, 0).pod();
    update.mutable_pod()->set_uid("uid-a");
    napi::StringEntry* annotation = update.mutable_pod()->add_annotations();
    annotation->set_key("headroom.dev/admitted-mode");
    annotation->set_value("admission");
    *update.mutable_container() = CreateRequest("a", "c1", 0, 0).container();
    update.mutable_linux_resources()->mutable_cpu()->mutable_quota()->set_value(25000);
    absl::StatusOr<ttrpc::Response> response =
        DecodeResponse(stub.Handle(PluginRequest("UpdateContainer", update)));
    EXPECT_TRUE(response.ok());
    napi::UpdateContainerResponse reply;
    EXPECT_TRUE(reply.ParseFromString(response->payload()));
    if (reply.update_size() == 0) return std::nullopt;
    return reply.update(0).linux().resources().cpu().quota().value();
  };
  const auto create = [](NriStub& stub, const std::string& admitted) {
    napi::CreateContainerRequest request = CreateRequest("a", "c1", 50000, kMi);
    request.mutable_pod()->set_uid("uid-a");
    if (!admitted.empty()) {
      napi::StringEntry* annotation = request.mutable_pod()->add_annotations();
      annotation->set_key("headroom.dev/admitted-mode");
      annotation->set_value(admitted);
    }
    return Create(stub, request).has_adjust();
  };
  {
    NodeState state;
    NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
    NriStub stub(plugin.Handlers());
    EXPECT_FALSE(create(stub, "observe"));
  }
  {
    NodeState state;
    NriPlugin plugin({}, state, [] { return absl::UnixEpoch(); });
    NriStub stub(plugin.Handlers());
    EXPECT_TRUE(create(stub, "admission"));       // the CPU quota goes when it starts
    EXPECT_EQ(update_quota(stub), std::nullopt);  // but a running container is left alone
    state.SetPodModes({{"uid-a", AdoptionStep::kInPlace}});
    EXPECT_EQ(update_quota(stub), -1);
    state.SetPodModes({{"uid-a", AdoptionStep::kObserve}});
    EXPECT_EQ(update_quota(stub), std::nullopt);
  }
  {
    // Without the webhook's word, the node's own default.
    NodeState state;
    NriPlugin plugin({.default_step = AdoptionStep::kObserve}, state,
                     [] { return absl::UnixEpoch(); });
    NriStub stub(plugin.Handlers());
    EXPECT_FALSE(create(stub, ""));
    EXPECT_TRUE(create(stub, "in-place"));
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

}  // namespace
}  // namespace headroom::nri
