// The actuator's pure parts: what to resize or evict (extender/actuation/actuation_plan.h over
// shared/node_actions.h), the API pod decoder (pod_index.h) and the declared annotation; the
// actuator's request bodies are tested in actuator_test.cc.

#include "extender/actuation/actuation_plan.h"

#include <gtest/gtest.h>

#include <string>

#include "extender/actuation/actuator.h"
#include "extender/kube/pod_index.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;
constexpr int64_t kMi = 1 << 20;

ApiPod Pod(std::string name, int64_t cpu_request, int64_t memory_request,
           std::optional<int64_t> memory_limit = std::nullopt) {
  ApiPod pod;
  pod.pod_namespace = "shop";
  pod.name = std::move(name);
  pod.uid = "uid-" + pod.name;
  pod.node = "n1";
  pod.owner_kind = "ReplicaSet";
  pod.containers = {{"app", cpu_request, std::nullopt, memory_request, memory_limit}};
  return pod;
}

constexpr absl::Duration kWarm = absl::Hours(30);
const absl::Time kNow = absl::FromUnixSeconds(1795341600);

// A reported pod of workload shop/Deployment/<name> whose one container has `history`.
ReportedPod Reported(std::string name, int64_t cpu_base, int64_t cpu_peak, int64_t mem_base,
                     int64_t mem_peak, absl::Duration history = kWarm) {
  ReportedPod pod;
  pod.pod_namespace = "shop";
  pod.name = name;
  pod.uid = "uid-" + name;
  pod.workload_key = "shop/Deployment/" + name;
  pod.requests = {1000, 512 * kMi};
  ContainerDemand container;
  container.name = "app";
  container.cpu = CpuStats{cpu_base, cpu_peak};
  container.memory = MemoryStats{mem_base, mem_peak, mem_peak, 0};
  container.history = history;
  pod.containers = {container};
  return pod;
}

NodeReport Report(std::vector<ReportedPod> pods, ResourceAmounts allocatable = {4000, 4096 * kMi}) {
  NodeReport report;
  report.node = "n1";
  report.reported_at = kNow;
  report.allocatable = allocatable;
  report.pods = std::move(pods);
  return report;
}

// The API's view: every reported pod exists as `Pod` (2 ready replicas per workload), with
// `change` applied; opted in below the declared requests unless `allow_below` is false.
ApiView Api(std::function<void(ApiPod&)> change = nullptr, bool allow_below = true,
            WorkloadCount count = {2, 2}) {
  ApiView api;
  api.find = [change](const ReportedPod& p) -> std::shared_ptr<const ApiPod> {
    ApiPod pod = Pod(p.name, 1000, 512 * kMi, 1024 * kMi);
    pod.owner_name = p.name + "-7d";
    pod.ready = true;
    if (change) change(pod);
    return std::make_shared<const ApiPod>(std::move(pod));
  };
  for (const std::string name : {"a", "b", "c", "d", "e", "f", "g"}) {
    api.counts["shop/ReplicaSet/" + name + "-7d"] = count;
  }
  api.defaults.allow_below_declared = allow_below;
  return api;
}

NodePlan Plan(const NodeReport& report, const ApiView& api, ActionConfig config = {}) {
  SustainedConditions cpu_over(config.cpu_eviction_after);
  return PlanNode(report, api, config, cpu_over, kNow);
}

std::string SkipReason(const NodePlan& plan, absl::string_view action) {
  for (const SkippedAction& s : plan.skipped) {
    if (s.action == action) return s.why;
  }
  return "";
}

// The operator let memory limits go below the declared ones (--allow-memory-limit-below-declared).
ActionConfig LimitsMayGoDown() {
  ActionConfig config;
  config.guard.allow_memory_limit_below_declared = true;
  return config;
}

TEST(PlanNode, ResizesWhenAValueMovesEnough) {
  // One pod alone: cpu base 300m peak 300m, memory base = peak 200Mi: sized at its base.
  const NodePlan plan =
      Plan(Report({Reported("a", 300, 300, 200 * kMi, 200 * kMi)}), Api(), LimitsMayGoDown());
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  const PlannedResize& resize = plan.resizes[0];
  ASSERT_EQ(resize.containers.size(), 1u);
  // 1000m -> 300m is a 70% shrink: one bounded step (50%) -> 500m. Memory likewise.
  EXPECT_EQ(resize.containers[0].after.cpu_request_millis, 500);
  EXPECT_EQ(resize.containers[0].after.memory_request_bytes, 256 * kMi);
  // The limit: 2 x the 7-day max (400Mi), a step from 1Gi allows 512Mi: 512Mi.
  EXPECT_EQ(resize.containers[0].after.memory_limit_bytes, 512 * kMi);
  EXPECT_EQ(resize.containers[0].last_shrink.cpu_request, kNow);
  EXPECT_NE(resize.message.find("cpu request 1 -> 500m"), std::string::npos) << resize.message;
  EXPECT_EQ(ResizePatch(resize), json::parse(R"({"spec":{"containers":[{"name":"app","resources":{
              "requests":{"cpu":"500m","memory":"256Mi"},"limits":{"memory":"512Mi"}}}]}})"));
  // By default the declared 1Gi limit stays; only the requests move.
  const NodePlan kept = Plan(Report({Reported("a", 300, 300, 200 * kMi, 200 * kMi)}), Api());
  ASSERT_EQ(kept.resizes.size(), 1u) << SkipReason(kept, "resize");
  EXPECT_EQ(kept.resizes[0].containers[0].after.memory_limit_bytes, 1024 * kMi);
  EXPECT_EQ(kept.resizes[0].containers[0].after.memory_request_bytes, 256 * kMi);
}

TEST(PlanNode, DoesNotResize) {
  struct Case {
    std::string name;
    std::function<void(ApiPod&)> change;
    ReportedPod reported;
    std::string why;
  };
  const ReportedPod shrink = Reported("a", 300, 300, 200 * kMi, 200 * kMi);
  const std::vector<Case> cases = {
      {"small change", nullptr, Reported("a", 950, 950, 500 * kMi, 500 * kMi), "within 10%"},
      {"warming up (10 s of history)", nullptr,
       Reported("a", 300, 300, 200 * kMi, 200 * kMi, absl::Seconds(10)), "24h warm-up"},
      {"excluded", [](ApiPod& p) { p.annotations["headroom.dev/exclude"] = "true"; }, shrink,
       "headroom.dev/exclude"},
      {"pending",
       [](ApiPod& p) {
         p.resize_pending = "Infeasible";
         p.resize_message = "Node didn't have enough capacity";
       },
       shrink, "pending (Infeasible: Node didn't"},
      {"in progress", [](ApiPod& p) { p.resize_in_progress = true; }, shrink, "in progress"},
      {"QoS",
       [](ApiPod& p) {
         p.containers[0].memory_limit_bytes = 512 * kMi;
         p.containers[0].cpu_limit_millis = 1000;
       },
       shrink, "from Guaranteed to Burstable"},
      {"mirror", [](ApiPod& p) { p.mirror = true; }, shrink, "static pod"},
      {"pod-level resources",
       [](ApiPod& p) {
         p.pod_level = {{2000, 1024 * kMi}, {}};
       },
       shrink, "pod-level resources (spec.resources)"},
      {"recommend", [](ApiPod& p) { p.annotations["headroom.dev/mode"] = "recommend"; }, shrink,
       "mode observe (pod)"},
  };
  for (const Case& c : cases) {
    const NodePlan plan = Plan(Report({c.reported}), Api(c.change));
    EXPECT_TRUE(plan.resizes.empty()) << c.name;
    EXPECT_NE(SkipReason(plan, "resize").find(c.why), std::string::npos)
        << c.name << ": " << SkipReason(plan, "resize");
  }
}

// A pod that declares pod-level resources: resized at both levels where the cluster resizes
// them in place (1.36+), the pod-level request following the containers' within its limits.
TEST(PlanNode, ResizesPodLevelResourcesWhereTheClusterDoes) {
  const ReportedPod pod = Reported("a", 300, 300, 200 * kMi, 200 * kMi);
  const auto pod_level = [](ApiPod& p) { p.pod_level = {{1000, 512 * kMi}, {0, 2048 * kMi}}; };
  ApiView api = Api(pod_level);
  NodePlan plan = Plan(Report({pod}), api);
  EXPECT_TRUE(plan.resizes.empty());
  EXPECT_NE(SkipReason(plan, "resize").find("does not resize in place"), std::string::npos)
      << SkipReason(plan, "resize");

  api.pod_level_resize = true;
  plan = Plan(Report({pod}), api);
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  const PlannedResize& resize = plan.resizes[0];
  ASSERT_TRUE(resize.pod_level_after.has_value());
  EXPECT_EQ(resize.pod_level_after->cpu_request_millis, 500);
  EXPECT_EQ(resize.pod_level_after->memory_request_bytes, 256 * kMi);
  EXPECT_EQ(resize.pod_level_after->memory_limit_bytes, 2048 * kMi);  // limits stay
  EXPECT_NE(resize.message.find("pod level: cpu 1/limit -, memory 512Mi/limit 2Gi -> cpu "
                                "500m/limit -, memory 256Mi/limit 2Gi"),
            std::string::npos)
      << resize.message;
  EXPECT_EQ(ResizePatch(resize), json::parse(R"({"spec":{
      "containers":[{"name":"app","resources":{"requests":{"cpu":"500m","memory":"256Mi"},
                                               "limits":{"memory":"1Gi"}}}],
      "resources":{"requests":{"cpu":"500m","memory":"256Mi"}}}})"));

  // Without the opt-in, the floor is the pod-level request the webhook recorded as declared.
  api = Api(
      [&](ApiPod& p) {
        pod_level(p);
        p.containers[0].cpu_request_millis = 300;
        p.annotations["headroom.dev/declared"] =
            R"([{"name":"app","resources":{"requests":{"cpu":"300m","memory":"512Mi"}}}])";
        p.annotations["headroom.dev/declared-pod"] = R"({"requests":{"cpu":"700m"}})";
      },
      /*allow_below=*/false);
  api.pod_level_resize = true;
  plan = Plan(Report({Reported("a", 450, 450, 600 * kMi, 600 * kMi)}), api);
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  ASSERT_TRUE(plan.resizes[0].pod_level_after.has_value());
  EXPECT_EQ(plan.resizes[0].pod_level_after->cpu_request_millis, 700);  // not the sum, 450m
  EXPECT_EQ(plan.resizes[0].pod_level_after->memory_request_bytes, 600 * kMi);

  // Guaranteed at pod level: shrinking its requests would make it Burstable.
  api = Api([](ApiPod& p) {
    p.pod_level = {{1000, 512 * kMi}, {1000, 512 * kMi}};
    p.containers[0].memory_limit_bytes = 512 * kMi;
  });
  api.pod_level_resize = true;
  plan = Plan(Report({pod}), api);
  EXPECT_TRUE(plan.resizes.empty());
  EXPECT_NE(SkipReason(plan, "resize").find("from Guaranteed to Burstable"), std::string::npos)
      << SkipReason(plan, "resize");
}

TEST(PlanNode, NeverBelowTheDeclaredRequestWithoutTheOptIn) {
  const ReportedPod pod = Reported("a", 300, 300, 200 * kMi, 200 * kMi);
  // Declared 1 CPU / 512Mi: without the opt-in the requests stay; only the limit may move.
  NodePlan plan = Plan(Report({pod}), Api(nullptr, /*allow_below=*/false), LimitsMayGoDown());
  ASSERT_EQ(plan.resizes.size(), 1u);
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 1000);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_request_bytes, 512 * kMi);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_limit_bytes, 512 * kMi);
  // The floor is what the webhook recorded as declared, not what the spec says now.
  plan = Plan(Report({pod}),
              Api(
                  [](ApiPod& p) {
                    p.containers[0].cpu_request_millis = 2000;
                    p.annotations["headroom.dev/declared"] =
                        R"([{"name":"app","resources":{"requests":{"cpu":"1500m"}}}])";
                  },
                  /*allow_below=*/false),
              LimitsMayGoDown());
  ASSERT_EQ(plan.resizes.size(), 1u);
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 1500);
}

// The pod template's tuning reaches the actuator's resizes (shared/guard_rails.h).
TEST(PlanNode, TheWorkloadsBoundsShapeTheResize) {
  // Memory grows from 512Mi to the 900Mi in use: at once, capped by the max-memory.
  const ReportedPod pod = Reported("a", 300, 300, 900 * kMi, 900 * kMi);
  NodePlan plan = Plan(Report({pod}), Api());
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 500);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_request_bytes, 900 * kMi);
  // A min above the one step (500m) wins; the max-memory caps the growth.
  plan = Plan(Report({pod}), Api([](ApiPod& p) {
                p.annotations["headroom.dev/min-cpu"] = "800m";
                p.annotations["headroom.dev/max-memory"] = "700Mi";
              }));
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 800);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_request_bytes, 700 * kMi);
  EXPECT_NE(plan.resizes[0].message.find("headroom.dev/min-cpu"), std::string::npos)
      << plan.resizes[0].message;
  // CPU and memory both kept: nothing to resize.
  plan = Plan(Report({pod}),
              Api([](ApiPod& p) { p.annotations["headroom.dev/keep-declared"] = "cpu,memory"; }));
  EXPECT_TRUE(plan.resizes.empty());
}

TEST(PlanNode, AResourceAnHpaScalesOnIsNotResized) {
  const ReportedPod pod = Reported("a", 300, 300, 200 * kMi, 200 * kMi);
  ApiView api = Api([](ApiPod& p) { p.key_labels = {{"pod-template-hash", "7d"}}; });
  std::string asked;
  api.hpa_for = [&asked](const std::string& key) -> std::optional<HpaScaling> {
    asked = key;
    return HpaScaling{"shop/a", false, true};
  };
  const NodePlan plan = Plan(Report({pod}), api);
  // The Deployment's key, not its ReplicaSet's.
  EXPECT_EQ(asked, "shop/Deployment/a");
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 500);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_request_bytes, 512 * kMi);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_limit_bytes, 1024 * kMi);
}

TEST(PlanNode, AShrinkIsBoundedPerStepAndPerInterval) {
  ShrinkLedger ledger;
  ApiView api = Api();
  api.ledger = &ledger;
  const NodeReport report = Report({Reported("a", 100, 100, 200 * kMi, 200 * kMi)});
  NodePlan plan = Plan(report, api);
  ASSERT_EQ(plan.resizes.size(), 1u);
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 500);  // 1 -> 500m, not 100m
  // It shrank just now: the next round within the hour keeps it.
  ledger[ShrinkKey("uid-a", "app")] = plan.resizes[0].containers[0].last_shrink;
  api.find = [](const ReportedPod& p) -> std::shared_ptr<const ApiPod> {
    ApiPod pod = Pod(p.name, 500, 256 * kMi, 512 * kMi);
    pod.owner_name = p.name + "-7d";
    pod.ready = true;
    return std::make_shared<const ApiPod>(std::move(pod));
  };
  plan = Plan(report, api);
  EXPECT_TRUE(plan.resizes.empty());
  // Growth is immediate.
  plan = Plan(Report({Reported("a", 900, 900, 200 * kMi, 200 * kMi)}), api);
  ASSERT_EQ(plan.resizes.size(), 1u);
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 900);
}

TEST(PlanNode, ACpuLimitStillDeclaredCapsTheRequest) {
  const NodePlan plan =
      Plan(Report({Reported("a", 900, 900, 64 * kMi, 64 * kMi)}), Api([](ApiPod& p) {
             p.containers = {{"app", 100, 200, 64 * kMi, std::nullopt}};
           }));
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 200);
  EXPECT_FALSE(plan.resizes[0].containers[0].after.memory_limit_bytes.has_value());  // none added
  // The log and the Event say what is sent, not the plan's uncapped 900m alone.
  EXPECT_NE(plan.resizes[0].message.find("app: cpu request capped at its CPU limit 200m"),
            std::string::npos)
      << plan.resizes[0].message;
}

TEST(PlanNode, ARisingMemoryLimitIsSentWhenTheCappedRequestsDoNotMove) {
  // The plan wants 900m (capped back to the declared 200m limit: no CPU change), the same
  // memory request, and a memory limit of 2 x 64Mi = 128Mi against 120Mi now: under 10%, but
  // a limit that must rise always does, in the plan and in what the actuator sends.
  ActionConfig config;
  config.guard.min_memory_limit_bytes = 8 * kMi;
  const NodePlan plan =
      Plan(Report({Reported("a", 900, 900, 64 * kMi, 64 * kMi)}), Api([](ApiPod& p) {
             p.containers = {{"app", 200, 200, 64 * kMi, 120 * kMi}};
           }),
           config);
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 200);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_limit_bytes, 128 * kMi);
}

TEST(EvictionGuards, ProtectedPodsAreNeverEvicted) {
  struct Case {
    std::string name;
    std::function<void(ApiPod&)> change;
    WorkloadCount count;
    std::string why;  // "" : may be evicted
  };
  const WorkloadCount two{2, 2};
  const std::vector<Case> cases = {
      {"ordinary replica", [](ApiPod&) {}, two, ""},
      {"DaemonSet", [](ApiPod& p) { p.owner_kind = "DaemonSet"; }, two, "DaemonSet"},
      {"mirror", [](ApiPod& p) { p.mirror = true; }, two, "static pod"},
      {"no-eviction",
       [](ApiPod& p) { p.annotations["headroom.dev/eviction-ranking"] = "no-eviction"; }, two,
       "no-eviction"},
      {"do-not-disrupt", [](ApiPod& p) { p.annotations["headroom.dev/do-not-disrupt"] = "true"; },
       two, "do-not-disrupt"},
      {"karpenter", [](ApiPod& p) { p.annotations["karpenter.sh/do-not-disrupt"] = "true"; }, two,
       "do-not-disrupt"},
      {"disabled", [](ApiPod& p) { p.annotations["headroom.dev/disable"] = "true"; }, two,
       "disable"},
      {"terminating", [](ApiPod& p) { p.terminating = true; }, two, "terminating"},
      {"StatefulSet", [](ApiPod& p) { p.owner_kind = "StatefulSet"; }, two, "StatefulSet"},
      {"StatefulSet opted in",
       [](ApiPod& p) {
         p.owner_kind = "StatefulSet";
         p.annotations["headroom.dev/allow-disruption"] = "true";
       },
       two, ""},
      {"single replica", [](ApiPod&) {}, {1, 1}, "only replica"},
      {"last ready replica", [](ApiPod&) {}, {3, 1}, "last ready replica"},
      {"last ready replica opted in",
       [](ApiPod& p) { p.annotations["headroom.dev/allow-disruption"] = "true"; },
       {3, 1},
       ""},
      {"a not-ready replica beside a ready one", [](ApiPod& p) { p.ready = false; }, {2, 1}, ""},
      {"no controller", [](ApiPod& p) { p.owner_kind.clear(); }, two, "without a controller"},
  };
  for (const Case& c : cases) {
    ApiPod pod = Pod("p", 100, kMi);
    pod.ready = true;
    c.change(pod);
    const std::string why =
        EvictionBlockedBy(pod, c.count, absl::UnixEpoch(), PolicyOf(pod, c.count));
    if (c.why.empty()) {
      EXPECT_EQ(why, "") << c.name;
    } else {
      EXPECT_NE(why.find(c.why), std::string::npos) << c.name << ": " << why;
    }
  }
}

TEST(PlanNode, EvictsForMemoryOnlyPodsThePolicyAllows) {
  // Memory base 100+100 Mi + headroom 100 Mi > 250 Mi: one pod must go.
  const NodeReport report = Report({Reported("a", 200, 400, 100 * kMi, 200 * kMi),
                                    Reported("b", 200, 400, 100 * kMi, 200 * kMi)},
                                   {4000, 250 * kMi});
  NodePlan plan = Plan(report, Api());
  ASSERT_EQ(plan.evictions.size(), 1u);
  EXPECT_EQ(plan.evictions[0].reason, "NodeOverCommitted");
  EXPECT_FALSE(plan.evictions[0].message.empty());
  // Single-replica workloads are protected: nothing is evicted, and the plan says why not.
  plan = Plan(report, Api(nullptr, true, {1, 1}));
  EXPECT_TRUE(plan.evictions.empty());
  // So are pods annotated do-not-disrupt.
  plan =
      Plan(report, Api([](ApiPod& p) { p.annotations["karpenter.sh/do-not-disrupt"] = "true"; }));
  EXPECT_TRUE(plan.evictions.empty());
  // And pods the API does not show: counted, never acted on.
  ApiView unknown = Api();
  unknown.find = [](const ReportedPod&) -> std::shared_ptr<const ApiPod> { return nullptr; };
  plan = Plan(report, unknown);
  EXPECT_TRUE(plan.evictions.empty());
  EXPECT_TRUE(plan.resizes.empty());
}

// Disruption windows (kNow is a Sunday, 10:00 UTC): outside them no eviction and no shrink,
// while a pod that needs more still grows; inside, everything as usual.
TEST(PlanNode, DisruptionWindowsHoldEvictionsAndShrinks) {
  const std::vector<DisruptionWindow> weeknights = *ParseDisruptionWindows("Mon-Fri 22:00-06:00");
  const std::vector<DisruptionWindow> weekends = *ParseDisruptionWindows("Sat,Sun 00:00-24:00");
  const NodeReport crowded = Report({Reported("a", 200, 400, 100 * kMi, 200 * kMi),
                                     Reported("b", 200, 400, 100 * kMi, 200 * kMi)},
                                    {4000, 250 * kMi});
  ApiView api = Api();
  api.defaults.disruption_windows = weekends;
  EXPECT_EQ(Plan(crowded, api).evictions.size(), 1u);
  api.defaults.disruption_windows = weeknights;
  EXPECT_TRUE(Plan(crowded, api).evictions.empty());
  // A Namespace's window (here, the pod's own annotation) wins over the cluster's.
  ApiView annotated =
      Api([](ApiPod& p) { p.annotations["headroom.dev/disruption-window"] = "Sun 09:00-11:00"; });
  annotated.defaults.disruption_windows = weeknights;
  EXPECT_EQ(Plan(crowded, annotated).evictions.size(), 1u);
  // An unreadable window allows nothing.
  EXPECT_TRUE(Plan(crowded,
                   Api([](ApiPod& p) { p.annotations["headroom.dev/disruption-window"] = "soon"; }))
                  .evictions.empty());

  // Shrinking CPU, growing memory (800Mi used, 512Mi requested): outside the window only the
  // memory moves; inside both.
  const NodeReport mixed = Report({Reported("a", 300, 300, 800 * kMi, 800 * kMi)});
  api.defaults.disruption_windows = weeknights;
  NodePlan plan = Plan(mixed, api);
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 1000);
  EXPECT_EQ(plan.resizes[0].containers[0].after.memory_request_bytes, 800 * kMi);
  api.defaults.disruption_windows = weekends;
  plan = Plan(mixed, api);
  ASSERT_EQ(plan.resizes.size(), 1u) << SkipReason(plan, "resize");
  EXPECT_EQ(plan.resizes[0].containers[0].after.cpu_request_millis, 500);
  // A shrink alone waits for the window, and says so.
  api.defaults.disruption_windows = weeknights;
  plan = Plan(Report({Reported("a", 300, 300, 200 * kMi, 200 * kMi)}), api);
  EXPECT_TRUE(plan.resizes.empty());
  EXPECT_NE(SkipReason(plan, "resize")
                .find("no shrink: outside its disruption window "
                      "(Mon,Tue,Wed,Thu,Fri 22:00-06:00 UTC)"),
            std::string::npos)
      << SkipReason(plan, "resize");
}

TEST(PlanNode, AShortSharedCpuHeadroomAloneNeverEvicts) {
  // CPU bases 1500m + 1500m fit 4 cores; base + the largest headroom (3 cores) do not.
  const NodeReport report = Report({Reported("a", 1500, 4500, 100 * kMi, 100 * kMi),
                                    Reported("b", 1500, 4500, 100 * kMi, 100 * kMi)});
  ActionConfig config;
  SustainedConditions cpu_over(config.cpu_eviction_after);
  for (int round = 0; round < 10; ++round) {
    EXPECT_TRUE(PlanNode(report, Api(), config, cpu_over, kNow + absl::Minutes(5 * round))
                    .evictions.empty())
        << round;
  }
}

TEST(PlanNode, CpuBasesOverAllocatableEvictOnlyOnceSustained) {
  // CPU bases 3 + 3 cores > 4 cores: the node is short even without headroom.
  const NodeReport report = Report({Reported("a", 3000, 3000, 100 * kMi, 100 * kMi),
                                    Reported("b", 3000, 3000, 100 * kMi, 100 * kMi)});
  ActionConfig config;
  config.cpu_eviction_after = absl::Minutes(15);
  SustainedConditions cpu_over(config.cpu_eviction_after);
  EXPECT_TRUE(PlanNode(report, Api(), config, cpu_over, kNow).evictions.empty());
  EXPECT_TRUE(
      PlanNode(report, Api(), config, cpu_over, kNow + absl::Minutes(10)).evictions.empty());
  EXPECT_EQ(PlanNode(report, Api(), config, cpu_over, kNow + absl::Minutes(15)).evictions.size(),
            1u);
}

TEST(PlanNode, OnlyTheApisOwnPodOnThisNodeIsActedOn) {
  const NodeReport report = Report({Reported("a", 300, 300, 200 * kMi, 200 * kMi)});
  ASSERT_EQ(Plan(report, Api()).resizes.size(), 1u);  // the control: the same pod, verified
  EXPECT_TRUE(Plan(report, Api([](ApiPod& p) { p.uid = "a-recreated-pod"; })).resizes.empty());
  EXPECT_TRUE(Plan(report, Api([](ApiPod& p) { p.node = "n2"; })).resizes.empty());
  EXPECT_TRUE(Plan(report, Api([](ApiPod& p) { p.node = ""; })).resizes.empty());
  NodeReport no_uid = report;
  no_uid.pods[0].uid.clear();
  EXPECT_TRUE(Plan(no_uid, Api([](ApiPod& p) { p.uid.clear(); })).resizes.empty());
  NodeReport unverified = report;
  unverified.pods[0].verified = false;
  EXPECT_TRUE(Plan(unverified, Api()).resizes.empty());
}

TEST(PlanNode, AnUnverifiedPodIsNeverEvicted) {
  // The memory eviction of EvictsForMemoryOnlyPodsThePolicyAllows, with the pod unverified.
  NodeReport report = Report({Reported("a", 200, 400, 100 * kMi, 200 * kMi),
                              Reported("b", 200, 400, 100 * kMi, 200 * kMi)},
                             {4000, 250 * kMi});
  ASSERT_FALSE(Plan(report, Api()).evictions.empty());
  for (ReportedPod& pod : report.pods) pod.verified = false;
  EXPECT_TRUE(Plan(report, Api()).evictions.empty());
}

TEST(DeclaredAnnotation, RoundTripsAndRefusesGarbage) {
  const std::vector<DeclaredResources> declared = {
      {"app", 1500, 2000, 256 * kMi, 512 * kMi},
      {"side", std::nullopt, std::nullopt, kMi, std::nullopt}};
  absl::StatusOr<std::vector<DeclaredResources>> decoded =
      DecodeDeclaredAnnotation(EncodeDeclaredAnnotation(declared));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, declared);
  for (const char* bad : {"", "{}", "[1]", "[{\"resources\":{\"requests\":{\"cpu\":\"x\"}}}]",
                          "[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]"}) {
    EXPECT_FALSE(DecodeDeclaredAnnotation(bad).ok()) << bad;
  }
}

TEST(DeclaredPodAnnotation, RoundTripsAndRefusesGarbage) {
  const DeclaredResources declared{"", 1500, 2000, 256 * kMi, std::nullopt};
  absl::StatusOr<std::optional<DeclaredResources>> decoded =
      DecodeDeclaredPodAnnotation(EncodeDeclaredPodAnnotation(declared));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(*decoded, declared);
  EXPECT_EQ(*DecodeDeclaredPodAnnotation("{}"), std::nullopt);
  for (const char* bad : {"", "[]", "{\"requests\":{\"cpu\":\"x\"}}", "{\"requests\":[]}",
                          "{\"a\":[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}"}) {
    const absl::Status status = DecodeDeclaredPodAnnotation(bad).status();
    EXPECT_FALSE(status.ok()) << bad;
    EXPECT_NE(status.message().find("headroom.dev/declared-pod"), std::string::npos) << status;
  }
  // The actuator's floor: the annotation's requests, the spec's limits and other requests.
  ApiPod pod = Pod("a", 300, 300 * kMi);
  pod.pod_level = {{400, 256 * kMi}, {0, 1024 * kMi}};
  EXPECT_EQ(DeclaredPodLevelOf(pod), (DeclaredResources{"", 400, {}, 256 * kMi, 1024 * kMi}));
  pod.annotations["headroom.dev/declared-pod"] =
      R"({"requests":{"cpu":"1"},"limits":{"cpu":"2","memory":"1Gi"}})";
  EXPECT_EQ(DeclaredPodLevelOf(pod), (DeclaredResources{"", 1000, {}, 256 * kMi, 1024 * kMi}));
  pod.annotations["headroom.dev/declared-pod"] = "not json";
  EXPECT_EQ(DeclaredPodLevelOf(pod), (DeclaredResources{"", 400, {}, 256 * kMi, 1024 * kMi}));
  pod.pod_level = {};
  EXPECT_EQ(DeclaredPodLevelOf(pod), std::nullopt);
}

TEST(DecodeApiPod, ReadsResizeConditionsAndOomKills) {
  const json object = json::parse(R"({
    "metadata": {"namespace": "shop", "name": "web-1", "uid": "u1",
                 "ownerReferences": [{"kind": "ReplicaSet", "name": "web-7d", "controller": true}],
                 "annotations": {"headroom.dev/exclude": "true"}},
    "spec": {"nodeName": "n1", "containers": [{"name": "app",
             "resources": {"requests": {"cpu": "250m", "memory": "64Mi"}}}]},
    "status": {
      "conditions": [{"type": "PodResizePending", "status": "True", "reason": "Deferred",
                      "message": "not enough room"}],
      "containerStatuses": [{"name": "app", "lastState": {"terminated": {
          "reason": "OOMKilled", "containerID": "containerd://abc",
          "finishedAt": "2026-11-22T10:00:00Z"}}}]}})");
  absl::StatusOr<ApiPod> pod = DecodeApiPod(object);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->node, "n1");
  EXPECT_EQ(pod->owner_kind, "ReplicaSet");
  EXPECT_EQ(pod->resize_pending, "Deferred");
  EXPECT_EQ(pod->resize_message, "not enough room");
  EXPECT_EQ(pod->containers[0].cpu_request_millis, 250);
  ASSERT_EQ(pod->oom_kills.size(), 1u);
  EXPECT_EQ(pod->oom_kills[0].container_id, "containerd://abc");
  EXPECT_EQ(pod->oom_kills[0].finished_at, absl::FromUnixSeconds(1795341600));
  EXPECT_FALSE(DecodeApiPod(json::parse(R"({"metadata": {"name": "x"}})")).ok());
  EXPECT_FALSE(pod->pod_level.Any());
}

TEST(DecodeApiPod, ReadsPodLevelResources) {
  json object = json::parse(R"({
    "metadata": {"namespace": "shop", "name": "web-1", "uid": "u1"},
    "spec": {"nodeName": "n1", "resources": {"requests": {"cpu": "2", "memory": "1Gi"},
                                             "limits": {"memory": "2Gi"}},
             "containers": [{"name": "app"}]}})");
  absl::StatusOr<ApiPod> pod = DecodeApiPod(object);
  ASSERT_TRUE(pod.ok()) << pod.status();
  EXPECT_EQ(pod->pod_level, (PodLevelResources{{2000, 1024 * kMi}, {0, 2048 * kMi}}));
  // What the scheduler counts: the pod level, not the containers' nothing.
  EXPECT_EQ(EffectivePodRequests(RequestsOf(pod->containers), pod->pod_level),
            (ResourceAmounts{2000, 1024 * kMi}));
  object["spec"]["resources"]["requests"]["cpu"] = "two";
  EXPECT_FALSE(DecodeApiPod(object).ok());
}

}  // namespace
}  // namespace headroom::extender
