// HPA detection (codec/hpa_json.h), the keep rule (shared/hpa.h) and the index the webhook and
// the actuator ask (extender/kube/hpa_index.h).

#include "extender/kube/hpa_index.h"

#include "codec/hpa_json.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "shared/hpa.h"

namespace headroom {
namespace {

using json = nlohmann::json;

json Hpa(std::string name, std::string kind, std::string target, json metrics) {
  json spec = {{"scaleTargetRef", {{"apiVersion", "apps/v1"}, {"kind", kind}, {"name", target}}},
               {"minReplicas", 1},
               {"maxReplicas", 10}};
  if (!metrics.is_null()) spec["metrics"] = std::move(metrics);
  return {{"apiVersion", "autoscaling/v2"},
          {"kind", "HorizontalPodAutoscaler"},
          {"metadata", {{"namespace", "shop"}, {"name", name}}},
          {"spec", spec}};
}

json Resource(std::string name, std::string target_type) {
  return {{"type", "Resource"},
          {"resource",
           {{"name", name}, {"target", {{"type", target_type}, {"averageUtilization", 70}}}}}};
}

TEST(DecodeHpa, FindsUtilisationTargetsOnly) {
  const struct {
    std::string name;
    json metrics;
    bool cpu;
    bool memory;
  } cases[] = {
      {"no metrics: the API's default, 80% CPU", nullptr, true, false},
      {"cpu utilisation", json::array({Resource("cpu", "Utilization")}), true, false},
      {"memory utilisation", json::array({Resource("memory", "Utilization")}), false, true},
      {"both", json::array({Resource("cpu", "Utilization"), Resource("memory", "Utilization")}),
       true, true},
      {"an absolute target does not read requests", json::array({Resource("cpu", "AverageValue")}),
       false, false},
      {"container resource utilisation",
       json::array({{{"type", "ContainerResource"},
                     {"containerResource",
                      {{"name", "memory"},
                       {"container", "app"},
                       {"target", {{"type", "Utilization"}, {"averageUtilization", 60}}}}}}}),
       false, true},
      {"external and pods metrics do not read requests",
       json::array({{{"type", "External"}, {"external", {{"metric", {{"name", "queue"}}}}}},
                    {{"type", "Pods"}, {"pods", {{"metric", {{"name", "rps"}}}}}}}),
       false, false},
  };
  for (const auto& c : cases) {
    absl::StatusOr<codec::HpaObject> hpa =
        codec::DecodeHpa(Hpa("web", "Deployment", "web", c.metrics));
    ASSERT_TRUE(hpa.ok()) << c.name << ": " << hpa.status();
    EXPECT_EQ(hpa->key, "shop/web") << c.name;
    EXPECT_EQ(hpa->workload_key, "shop/Deployment/web") << c.name;
    EXPECT_EQ(hpa->scaling.cpu, c.cpu) << c.name;
    EXPECT_EQ(hpa->scaling.memory, c.memory) << c.name;
  }
}

TEST(DecodeHpa, RefusesObjectsWithoutATarget) {
  EXPECT_FALSE(codec::DecodeHpa(json::object()).ok());
  json no_target = Hpa("web", "Deployment", "web", nullptr);
  no_target["spec"].erase("scaleTargetRef");
  EXPECT_THAT(std::string(codec::DecodeHpa(no_target).status().message()),
              ::testing::HasSubstr("shop/web: spec.scaleTargetRef"));
}

TEST(KeepForHpa, KeepsTheScaledResourceOnlyInKeepMode) {
  const HpaScaling cpu{"shop/web", true, false};
  WorkloadTuning tuning;
  std::optional<Reason> reason = KeepForHpa(cpu, HpaResourcesMode::kKeep, tuning);
  ASSERT_TRUE(reason.has_value());
  EXPECT_EQ(reason->code, "ScaledByHpa");
  EXPECT_TRUE(tuning.keep_cpu);
  EXPECT_FALSE(tuning.keep_memory);
  EXPECT_THAT(tuning.keep_cpu_why, ::testing::HasSubstr("HPA shop/web scales the workload"));

  WorkloadTuning resized;
  EXPECT_FALSE(KeepForHpa(cpu, HpaResourcesMode::kResize, resized).has_value());
  EXPECT_EQ(resized, WorkloadTuning{});
  EXPECT_FALSE(KeepForHpa(std::nullopt, HpaResourcesMode::kKeep, resized).has_value());
  // Already kept by the annotation: nothing to add, and the annotation stays the reason.
  WorkloadTuning annotated;
  annotated.keep_cpu = true;
  EXPECT_FALSE(KeepForHpa(cpu, HpaResourcesMode::kKeep, annotated).has_value());
  EXPECT_EQ(annotated.keep_cpu_why, "");
}

TEST(KeepForHpa, ReachesTheGuardRails) {
  GuardInput input;
  input.declared = {1000, 1 << 30, std::nullopt};
  input.current = input.declared;
  input.proposed = {200, 1 << 28, std::nullopt};
  input.history = absl::Hours(30);
  input.allow_below_declared = true;
  input.running = false;
  (void)KeepForHpa(HpaScaling{"shop/web", true, false}, HpaResourcesMode::kKeep, input.tuning);
  const GuardResult result = ApplyGuardRails(input, GuardRailConfig{});
  EXPECT_EQ(result.values.cpu_request_millis, 1000);
  EXPECT_EQ(result.values.memory_request_bytes, 1 << 28);
  ASSERT_FALSE(result.reasons.empty());
  EXPECT_THAT(result.reasons[0].message,
              ::testing::StartsWith("cpu left as it is: HPA shop/web scales the workload"));
}

TEST(HpaResourcesMode, Parses) {
  EXPECT_EQ(*ParseHpaResourcesMode(" Keep "), HpaResourcesMode::kKeep);
  EXPECT_EQ(*ParseHpaResourcesMode("resize"), HpaResourcesMode::kResize);
  EXPECT_FALSE(ParseHpaResourcesMode("ignore").ok());
}

TEST(HpaIndex, FollowsTheWatchAndMergesTwoHpasOfOneWorkload) {
  extender::HpaIndex index;
  index.Replace({Hpa("web-cpu", "Deployment", "web", json::array({Resource("cpu", "Utilization")})),
                 Hpa("db", "StatefulSet", "db", json::array({Resource("memory", "Utilization")})),
                 json::object()});  // undecodable: skipped
  EXPECT_EQ(index.size(), 2u);
  EXPECT_EQ(index.For("shop/Deployment/web"), (HpaScaling{"shop/web-cpu", true, false}));
  EXPECT_FALSE(index.For("shop/Deployment/other").has_value());

  extender::WatchEvent added{
      extender::WatchEventType::kAdded,
      Hpa("web-mem", "Deployment", "web", json::array({Resource("memory", "Utilization")}))};
  index.Apply(added);
  EXPECT_EQ(index.For("shop/Deployment/web"), (HpaScaling{"shop/web-cpu", true, true}));

  // Retargeted to another workload: the old one loses it.
  extender::WatchEvent moved{
      extender::WatchEventType::kModified,
      Hpa("web-cpu", "Deployment", "api", json::array({Resource("cpu", "Utilization")}))};
  index.Apply(moved);
  EXPECT_EQ(index.For("shop/Deployment/web"), (HpaScaling{"shop/web-mem", false, true}));
  EXPECT_EQ(index.For("shop/Deployment/api"), (HpaScaling{"shop/web-cpu", true, false}));

  extender::WatchEvent deleted{extender::WatchEventType::kDeleted, added.object};
  index.Apply(deleted);
  EXPECT_FALSE(index.For("shop/Deployment/web").has_value());
  EXPECT_EQ(index.size(), 2u);  // web-cpu (now on api) and db
}

}  // namespace
}  // namespace headroom
