// The actuator's pure parts: what to resize or evict (extender/actuation_plan.h), the API
// pod decoder (pod_index.h), the rate limiter and the request bodies (actuator.h).

#include <gtest/gtest.h>

#include <string>

#include "extender/actuation_plan.h"
#include "extender/actuator.h"
#include "extender/pod_index.h"

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

ContainerSizing Sizing(int64_t cpu, int64_t memory, int64_t memory_limit) {
  return {cpu, std::nullopt, memory, memory_limit};
}

TEST(PlanResize, ResizesWhenARequestMovesEnough) {
  std::string why;
  std::optional<PlannedResize> resize = PlanResize(
      Pod("a", 1000, 512 * kMi, 1024 * kMi), {{"app", Sizing(300, 200 * kMi, 400 * kMi)}}, {}, why);
  ASSERT_TRUE(resize.has_value()) << why;
  ASSERT_EQ(resize->containers.size(), 1u);
  EXPECT_EQ(resize->containers[0].after.cpu_request_millis, 300);
  EXPECT_EQ(resize->containers[0].after.memory_request_bytes, 200 * kMi);
  EXPECT_EQ(resize->containers[0].after.memory_limit_bytes, 400 * kMi);
  EXPECT_NE(resize->message.find("cpu request 1 -> 300m"), std::string::npos) << resize->message;
  EXPECT_EQ(ResizePatch(*resize), json::parse(R"({"spec":{"containers":[{"name":"app","resources":{
              "requests":{"cpu":"300m","memory":"200Mi"},"limits":{"memory":"400Mi"}}}]}})"));
}

TEST(PlanResize, DoesNotResize) {
  struct Case {
    std::string name;
    ApiPod pod;
    ContainerSizing target;
    std::string why;
  };
  ApiPod excluded = Pod("b", 1000, 512 * kMi);
  excluded.annotations["headroom.dev/exclude"] = "true";
  ApiPod pending = Pod("c", 1000, 512 * kMi);
  pending.resize_pending = "Infeasible";
  pending.resize_message = "Node didn't have enough capacity";
  ApiPod in_progress = Pod("d", 1000, 512 * kMi);
  in_progress.resize_in_progress = true;
  ApiPod guaranteed = Pod("e", 1000, 512 * kMi, 512 * kMi);
  guaranteed.containers[0].cpu_limit_millis = 1000;
  ApiPod mirror = Pod("f", 1000, 512 * kMi);
  mirror.mirror = true;
  ApiPod recommend = Pod("g", 1000, 512 * kMi);
  recommend.annotations["headroom.dev/mode"] = "recommend";
  const std::vector<Case> cases = {
      {"small change", Pod("a", 1000, 512 * kMi), Sizing(950, 500 * kMi, 1024 * kMi), "within 10%"},
      {"excluded", excluded, Sizing(300, 200 * kMi, 400 * kMi), "headroom.dev/exclude"},
      {"pending", pending, Sizing(300, 200 * kMi, 400 * kMi), "pending (Infeasible: Node didn't"},
      {"in progress", in_progress, Sizing(300, 200 * kMi, 400 * kMi), "in progress"},
      {"QoS", guaranteed, Sizing(300, 200 * kMi, 400 * kMi), "from Guaranteed to Burstable"},
      {"mirror", mirror, Sizing(300, 200 * kMi, 400 * kMi), "static pod"},
      {"recommend", recommend, Sizing(300, 200 * kMi, 400 * kMi), "mode recommend"},
  };
  for (const Case& c : cases) {
    std::string why;
    EXPECT_FALSE(PlanResize(c.pod, {{"app", c.target}}, {}, why).has_value()) << c.name;
    EXPECT_NE(why.find(c.why), std::string::npos) << c.name << ": " << why;
  }
}

TEST(PlanResize, ACpuLimitStillDeclaredCapsTheRequest) {
  ApiPod pod = Pod("a", 100, 64 * kMi);
  pod.containers[0].cpu_limit_millis = 200;
  std::string why;
  std::optional<PlannedResize> resize =
      PlanResize(pod, {{"app", Sizing(900, 64 * kMi, 128 * kMi)}}, {}, why);
  ASSERT_TRUE(resize.has_value()) << why;
  EXPECT_EQ(resize->containers[0].after.cpu_request_millis, 200);
  EXPECT_FALSE(resize->containers[0].after.memory_limit_bytes.has_value());  // none added
}

TEST(EvictionGuards, ProtectedPodsAreNeverEvicted) {
  struct Case {
    std::string name;
    std::function<void(ApiPod&)> change;
    std::string why;  // "" : may be evicted
  };
  const std::vector<Case> cases = {
      {"ordinary", [](ApiPod&) {}, ""},
      {"DaemonSet", [](ApiPod& p) { p.owner_kind = "DaemonSet"; }, "DaemonSet"},
      {"mirror", [](ApiPod& p) { p.mirror = true; }, "static pod"},
      {"no-eviction",
       [](ApiPod& p) { p.annotations["headroom.dev/eviction-ranking"] = "no-eviction"; },
       "no-eviction"},
      {"do-not-disrupt", [](ApiPod& p) { p.annotations["headroom.dev/do-not-disrupt"] = "true"; },
       "do-not-disrupt"},
      {"karpenter", [](ApiPod& p) { p.annotations["karpenter.sh/do-not-disrupt"] = "true"; },
       "karpenter.sh/do-not-disrupt"},
      {"disabled", [](ApiPod& p) { p.annotations["headroom.dev/disable"] = "true"; }, "disable"},
      {"terminating", [](ApiPod& p) { p.terminating = true; }, "terminating"},
  };
  for (const Case& c : cases) {
    ApiPod pod = Pod("p", 100, kMi);
    c.change(pod);
    const std::string why = EvictionBlockedBy(pod);
    if (c.why.empty()) {
      EXPECT_EQ(why, "") << c.name;
    } else {
      EXPECT_NE(why.find(c.why), std::string::npos) << c.name << ": " << why;
    }
  }
}

ReportedPod Reported(std::string name, int64_t cpu_base, int64_t cpu_peak, int64_t mem_base,
                     int64_t mem_peak) {
  ReportedPod pod;
  pod.pod_namespace = "shop";
  pod.name = name;
  pod.uid = "uid-" + name;
  pod.workload_key = "shop/Deployment/" + name;
  pod.requests = {1000, 512 * kMi};
  pod.containers = {
      {"app", CpuStats{cpu_base, cpu_peak}, MemoryStats{mem_base, mem_peak, mem_peak, 0}}};
  return pod;
}

TEST(PlanNode, ResizesFittingPodsAndEvictsWhenTheNodeDoesNotFit) {
  NodeReport report;
  report.node = "n1";
  report.allocatable = {4000, 1024 * kMi};
  report.pods = {Reported("a", 200, 400, 100 * kMi, 200 * kMi),
                 Reported("b", 200, 400, 100 * kMi, 200 * kMi),
                 Reported("gone", 100, 100, kMi, kMi)};
  report.pods[2].requests = {100, kMi};  // not in the API: counted at its requests
  const auto find = [](const ReportedPod& p) -> std::optional<ApiPod> {
    if (p.name == "gone") return std::nullopt;
    return Pod(p.name, 1000, 512 * kMi, 1024 * kMi);
  };
  NodePlan plan = PlanNode(report, find, {});
  EXPECT_EQ(plan.resizes.size(), 2u);
  EXPECT_TRUE(plan.evictions.empty());

  // Memory no longer fits: base 100+100 Mi + headroom 100 Mi > 250 Mi; one pod must go.
  report.allocatable.memory_bytes = 250 * kMi;
  plan = PlanNode(report, find, {});
  ASSERT_EQ(plan.evictions.size(), 1u);
  EXPECT_EQ(plan.evictions[0].reason, "NodeOverCommitted");
  EXPECT_FALSE(plan.evictions[0].message.empty());

  // ... unless that pod is protected: then nothing is evicted.
  const auto protect = [&](const ReportedPod& p) -> std::optional<ApiPod> {
    std::optional<ApiPod> pod = find(p);
    if (pod) pod->annotations["karpenter.sh/do-not-disrupt"] = "true";
    return pod;
  };
  plan = PlanNode(report, protect, {});
  EXPECT_TRUE(plan.evictions.empty());
  bool skipped = false;
  for (const SkippedAction& s : plan.skipped) skipped = skipped || s.action == "evict";
  EXPECT_TRUE(skipped);
}

TEST(PlanNode, APodWithAnotherUidIsNotActedOn) {
  NodeReport report;
  report.node = "n1";
  report.allocatable = {4000, 1024 * kMi};
  report.pods = {Reported("a", 200, 400, 100 * kMi, 200 * kMi)};
  const auto namesake = [](const ReportedPod& p) -> std::optional<ApiPod> {
    ApiPod pod = Pod(p.name, 1000, 512 * kMi);
    pod.uid = "a-recreated-pod";
    return pod;
  };
  EXPECT_TRUE(PlanNode(report, namesake, {}).resizes.empty());
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
}

TEST(RateLimiter, AllowsABurstThenTheRate) {
  RateLimiter limiter(/*per_minute=*/2, /*burst=*/2);
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  EXPECT_TRUE(limiter.TryTake(t0));
  EXPECT_TRUE(limiter.TryTake(t0));
  EXPECT_FALSE(limiter.TryTake(t0 + absl::Seconds(10)));
  EXPECT_TRUE(limiter.TryTake(t0 + absl::Seconds(40)));  // 40 s at 2/min: one more token
  EXPECT_FALSE(limiter.TryTake(t0 + absl::Seconds(41)));
}

TEST(ActuatorBodies, EvictionCarriesAUidPreconditionAndEventsNameThePod) {
  const PlannedEviction eviction{"shop", "web-1", "u1", "n1", "OOMKilled", "container app"};
  const json body = EvictionBody(eviction);
  EXPECT_EQ(body["apiVersion"], "policy/v1");
  EXPECT_EQ(body["kind"], "Eviction");
  EXPECT_EQ(body["deleteOptions"]["preconditions"]["uid"], "u1");
  const json event = PodEvent("shop", "web-1", "u1", "Warning", "EvictionBlocked", "why",
                              absl::FromUnixSeconds(0));
  EXPECT_EQ(event["involvedObject"]["name"], "web-1");
  EXPECT_EQ(event["involvedObject"]["uid"], "u1");
  EXPECT_EQ(event["metadata"]["namespace"], "shop");
  EXPECT_EQ(event["lastTimestamp"], "1970-01-01T00:00:00Z");
}

}  // namespace
}  // namespace headroom::extender
