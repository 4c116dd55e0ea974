// The mutating admission webhook's decisions (extender/admission/admission.h).

#include "extender/admission/admission.h"

#include <gtest/gtest.h>

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "extender/kube/pod_resources.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

json Review(json pod, std::string operation = "CREATE", std::string resource = "pods") {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "u-1"},
            {"operation", operation},
            {"namespace", "shop"},
            {"resource", {{"group", ""}, {"version", "v1"}, {"resource", resource}}},
            {"object", std::move(pod)}}}};
}

// A Deployment's pod as the API server hands it to the webhook: no name yet, requests
// defaulted from limits.
json DeploymentPod(json resources, json annotations = nullptr) {
  json metadata = {{"generateName", "web-7d4b9c-"},
                   {"namespace", "shop"},
                   {"labels", {{"app", "web"}, {"pod-template-hash", "7d4b9c"}}},
                   {"ownerReferences",
                    {{{"apiVersion", "apps/v1"},
                      {"kind", "ReplicaSet"},
                      {"name", "web-7d4b9c"},
                      {"controller", true}}}}};
  if (!annotations.is_null()) metadata["annotations"] = annotations;
  return {{"metadata", metadata},
          {"spec", {{"containers", {{{"name", "app"}, {"resources", resources}}}}}}};
}

StatsLookup Stats(std::string key, std::string container, WorkloadContainerStats stats) {
  return [=](const std::string& k, const std::string& c) -> std::optional<WorkloadContainerStats> {
    if (k == key && c == container) return stats;
    return std::nullopt;
  };
}

// 30 h of history: past the 24 h warm-up.
const WorkloadContainerStats kHistory{
    CpuStats{100, 350}, MemoryStats{64 << 20, 96 << 20, 120 << 20, 0}, absl::Hours(30)};

// Opted in below the declared requests, and memory limits below the declared ones.
AdmissionOptions OptedIn() {
  AdmissionOptions options;
  options.guard.allow_below_declared = true;
  options.guard.allow_memory_limit_below_declared = true;
  return options;
}

json AppliedResources(const AdmissionDecision& decision) {
  for (const json& op : decision.patch) {
    if (op["path"] == "/spec/containers/0/resources") return op["value"];
  }
  return nullptr;
}

TEST(Admission, SizesAContainerFromItsWorkloadsHistory) {
  const json pod =
      DeploymentPod({{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}},
                     {"limits", {{"cpu", "2"}, {"memory", "1Gi"}, {"ephemeral-storage", "1Gi"}}}});
  absl::StatusOr<AdmissionDecision> decision =
      DecideAdmission(Review(pod), Stats("shop/Deployment/web", "app", kHistory), OptedIn());
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(decision->workload_key, "shop/Deployment/web");
  EXPECT_EQ(decision->skipped, "");
  ASSERT_EQ(decision->changes.size(), 1u);
  EXPECT_TRUE(decision->changes[0].from_history);
  // requests = peak, memory limit = 2 x 7-day max (240Mi) raised to the 250Mi floor, CPU limit
  // gone, other resources kept.
  EXPECT_EQ(AppliedResources(*decision),
            json({{"requests", {{"cpu", "350m"}, {"memory", "96Mi"}}},
                  {"limits", {{"memory", "250Mi"}, {"ephemeral-storage", "1Gi"}}}}));
  EXPECT_NE(decision->annotation.find("cpu 1/limit 2"), std::string::npos) << decision->annotation;
  EXPECT_NE(decision->annotation.find("the floor 250Mi"), std::string::npos)
      << decision->annotation;
  // The declared values go to headroom.dev/declared, for the actuator's floors.
  absl::StatusOr<std::vector<DeclaredResources>> declared =
      DecodeDeclaredAnnotation(decision->declared);
  ASSERT_TRUE(declared.ok()) << declared.status();
  EXPECT_EQ(declared->at(0).cpu_request_millis, 1000);
  EXPECT_EQ(declared->at(0).cpu_limit_millis, 2000);
  // Without --allow-memory-limit-below-declared the declared 1Gi limit stays.
  AdmissionOptions requests_only = OptedIn();
  requests_only.guard.allow_memory_limit_below_declared = false;
  decision =
      DecideAdmission(Review(pod), Stats("shop/Deployment/web", "app", kHistory), requests_only);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(AppliedResources(*decision),
            json({{"requests", {{"cpu", "350m"}, {"memory", "96Mi"}}},
                  {"limits", {{"memory", "1Gi"}, {"ephemeral-storage", "1Gi"}}}}));
}

// The ladder at admission: the Namespace's step (or the cluster's) decides whether a new pod
// is sized, and goes on the pod for headroom-nri.
TEST(Admission, TheNamespacesStepDecidesAndIsWrittenOnThePod) {
  const json pod = DeploymentPod({{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}});
  const struct {
    const char* name;
    std::optional<Annotations> shop;  // nullopt: Namespaces not listed yet
    AdoptionStep cluster;
    bool sized;
    std::string step;
    std::string why;
  } cases[] = {
      {"observe namespace", Annotations{{"headroom.dev/mode", "observe"}}, AdoptionStep::kInPlace,
       false, "observe", "mode observe (namespace)"},
      {"admission namespace", Annotations{{"headroom.dev/mode", "admission"}},
       AdoptionStep::kObserve, true, "admission", ""},
      {"plain namespace, cluster observe", Annotations{}, AdoptionStep::kObserve, false, "observe",
       "mode observe (cluster default)"},
      {"plain namespace, cluster in-place", Annotations{}, AdoptionStep::kInPlace, true, "in-place",
       ""},
      {"not listed yet", std::nullopt, AdoptionStep::kInPlace, false, "observe",
       "mode observe (not listed yet)"},
  };
  for (const auto& c : cases) {
    AdmissionOptions options = OptedIn();
    options.default_step = c.cluster;
    options.layers.namespaces = [&c](const std::string& name) -> std::optional<Annotations> {
      EXPECT_EQ(name, "shop");
      return c.shop;
    };
    absl::StatusOr<AdmissionDecision> decision =
        DecideAdmission(Review(pod), Stats("shop/Deployment/web", "app", kHistory), options);
    ASSERT_TRUE(decision.ok()) << c.name << ": " << decision.status();
    EXPECT_EQ(!AppliedResources(*decision).is_null(), c.sized) << c.name;
    EXPECT_EQ(decision->skipped, c.why) << c.name;
    bool stamped = false;
    for (const json& op : decision->patch) {
      if (op["path"] == "/metadata/annotations") {
        stamped = op["value"].value("headroom.dev/admitted-mode", "") == c.step;
      }
    }
    EXPECT_TRUE(stamped) << c.name << ": " << decision->patch.dump();
  }
}

json AppliedPodLevel(const AdmissionDecision& decision) {
  for (const json& op : decision.patch) {
    if (op["path"] == "/spec/resources") return op["value"];
  }
  return nullptr;
}

// The value the patch writes to annotation `key` ("" when none).
std::string WrittenAnnotation(const AdmissionDecision& decision, const std::string& key) {
  std::string escaped = key;
  escaped.replace(escaped.find('/'), 1, "~1");
  for (const json& op : decision.patch) {
    const json* value = &op["value"];
    if (op["path"] == "/metadata") value = &(*value)["annotations"];
    if (op["path"] == "/metadata/annotations/" + escaped) return *value;
    if ((op["path"] == "/metadata" || op["path"] == "/metadata/annotations") &&
        value->contains(key)) {
      return (*value)[key];
    }
  }
  return "";
}

// The API's validation of pod-level resources (shared/pod_level_resources.h), on what the
// patch leaves: "" when the pod would be accepted.
std::string PodLevelViolation(const json& pod_level, const json& container) {
  const auto amount = [](const json& resources, const char* list, const char* name) {
    if (!resources.is_object() || !resources.contains(list) || !resources[list].contains(name)) {
      return std::optional<int64_t>();
    }
    const std::string text = resources[list][name];
    absl::StatusOr<std::vector<DeclaredResources>> decoded = DecodeDeclaredResources(
        json{
            {"spec", {{"containers", {{{"name", "x"}, {"resources", {{list, {{name, text}}}}}}}}}}},
        "containers");
    const DeclaredResources& r = decoded->at(0);
    const std::string l = list;
    const std::string n = name;
    return n == "cpu" ? (l == "requests" ? r.cpu_request_millis : r.cpu_limit_millis)
                      : (l == "requests" ? r.memory_request_bytes : r.memory_limit_bytes);
  };
  for (const char* name : {"cpu", "memory"}) {
    const auto pod_request = amount(pod_level, "requests", name);
    const auto pod_limit = amount(pod_level, "limits", name);
    const auto request = amount(container, "requests", name);
    const auto limit = amount(container, "limits", name);
    if (pod_request && request && *request > *pod_request) return std::string(name) + " request";
    if (pod_limit && limit && *limit > *pod_limit) return std::string(name) + " limit";
    if (pod_request && pod_limit && *pod_request > *pod_limit) return std::string(name) + " pod";
  }
  return "";
}

// A pod that declares pod-level resources (Kubernetes 1.34+): the containers sized, the pod
// level sized to their sum, and nothing the API's validation would refuse.
TEST(Admission, PodLevelResourcesAreSizedAndStayValid) {
  struct Case {
    std::string name;
    json pod_level;       // spec.resources as declared (defaulted by the API)
    bool opted_in;        // headroom.dev/allow-below-declared
    json want_container;  // the container's resources after the patch
    json want_pod_level;  // spec.resources after the patch
    std::vector<std::string> want_container_codes;  // the pod-level reasons the container got
  };
  const std::vector<Case> cases = {
      {"opted in: the pod level follows the containers; the memory limit capped at the pod's",
       {{"requests", {{"cpu", "1"}, {"memory", "128Mi"}}},
        {"limits", {{"cpu", "2"}, {"memory", "200Mi"}}}},
       true,
       {{"requests", {{"cpu", "350m"}, {"memory", "96Mi"}}}, {"limits", {{"memory", "200Mi"}}}},
       {{"requests", {{"cpu", "350m"}, {"memory", "96Mi"}}}, {"limits", {{"memory", "200Mi"}}}},
       {"CappedAtPodLimit"}},
      {"not opted in: the pod level never below its declared requests",
       {{"requests", {{"cpu", "1"}, {"memory", "128Mi"}}},
        {"limits", {{"cpu", "2"}, {"memory", "200Mi"}}}},
       false,
       {{"requests", {{"cpu", "350m"}, {"memory", "96Mi"}}}, {"limits", {{"memory", "200Mi"}}}},
       {{"requests", {{"cpu", "1"}, {"memory", "128Mi"}}}, {"limits", {{"memory", "200Mi"}}}},
       {"CappedAtPodLimit"}},
      {"sized above the pod-level limit: that resource's requests as declared",
       {{"requests", {{"cpu", "1"}, {"memory", "64Mi"}}}, {"limits", {{"memory", "64Mi"}}}},
       true,
       {{"requests", {{"cpu", "350m"}}}, {"limits", {{"memory", "64Mi"}}}},
       {{"requests", {{"cpu", "350m"}, {"memory", "64Mi"}}}, {"limits", {{"memory", "64Mi"}}}},
       {"CappedAtPodLimit", "PodLimitBound"}},
      {"pod-level requests alone: raised to the containers' sum when they ask more",
       {{"requests", {{"cpu", "100m"}}}},
       false,
       {{"requests", {{"cpu", "350m"}, {"memory", "96Mi"}}}, {"limits", {{"memory", "250Mi"}}}},
       {{"requests", {{"cpu", "350m"}}}},
       {}},
  };
  for (const Case& c : cases) {
    json pod = DeploymentPod(
        json::object(),
        c.opted_in ? json{{"headroom.dev/allow-below-declared", "true"}} : json(nullptr));
    pod["spec"]["resources"] = c.pod_level;
    absl::StatusOr<AdmissionDecision> decision =
        DecideAdmission(Review(pod), Stats("shop/Deployment/web", "app", kHistory), {});
    ASSERT_TRUE(decision.ok()) << c.name << ": " << decision.status();
    EXPECT_EQ(AppliedResources(*decision), c.want_container) << c.name;
    EXPECT_EQ(AppliedPodLevel(*decision), c.want_pod_level) << c.name;
    EXPECT_EQ(PodLevelViolation(AppliedPodLevel(*decision), AppliedResources(*decision)), "")
        << c.name;
    ASSERT_FALSE(decision->changes.empty()) << c.name;
    EXPECT_EQ(decision->changes[0].name, "app") << c.name;
    std::vector<std::string> codes;
    for (const Reason& reason : decision->changes[0].guard_reasons) {
      if (absl::StartsWith(reason.code, "CappedAtPod") || reason.code == "PodLimitBound") {
        codes.push_back(reason.code);
      }
    }
    EXPECT_EQ(codes, c.want_container_codes) << c.name;
    // The declared pod level is kept for the actuator's later resizes.
    absl::StatusOr<std::optional<DeclaredResources>> kept =
        DecodeDeclaredPodAnnotation(WrittenAnnotation(*decision, "headroom.dev/declared-pod"));
    ASSERT_TRUE(kept.ok()) << c.name << ": " << kept.status();
    EXPECT_EQ(*kept, *DecodePodLevelResources(pod)) << c.name;
  }
}

TEST(Admission, NeverBelowTheDeclaredRequestsWithoutTheOptIn) {
  const json pod = DeploymentPod({{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}},
                                  {"limits", {{"cpu", "2"}, {"memory", "2Gi"}}}});
  absl::StatusOr<AdmissionDecision> decision =
      DecideAdmission(Review(pod), Stats("shop/Deployment/web", "app", kHistory), {});
  ASSERT_TRUE(decision.ok()) << decision.status();
  // Requests stay, and so does the declared memory limit; the CPU limit goes.
  EXPECT_EQ(AppliedResources(*decision), json({{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}},
                                               {"limits", {{"memory", "2Gi"}}}}));
  // The pod's own annotation opts in.
  decision = DecideAdmission(Review(DeploymentPod({{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}},
                                                  {{"headroom.dev/allow-below-declared", "true"}})),
                             Stats("shop/Deployment/web", "app", kHistory), {});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(AppliedResources(*decision)["requests"]["cpu"], "350m");
}

// Per-workload tuning on the pod template reaches the webhook's sizing (shared/guard_rails.h).
TEST(Admission, TheWorkloadsBoundsAndOptOutsApply) {
  const json declared = {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}};
  const struct {
    json annotations;
    std::string cpu;
    std::string memory;
  } cases[] = {
      {nullptr, "350m", "96Mi"},
      {{{"headroom.dev/max-cpu", "200m"}}, "200m", "96Mi"},
      {{{"headroom.dev/min-memory", "300Mi"}}, "350m", "300Mi"},
      {{{"headroom.dev/cpu-margin", "100%"}}, "700m", "96Mi"},
      {{{"headroom.dev/keep-declared", "cpu"}}, "1", "96Mi"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<AdmissionDecision> decision =
        DecideAdmission(Review(DeploymentPod(declared, c.annotations)),
                        Stats("shop/Deployment/web", "app", kHistory), OptedIn());
    ASSERT_TRUE(decision.ok()) << decision.status();
    const json applied = AppliedResources(*decision);
    EXPECT_EQ(applied["requests"]["cpu"], c.cpu) << c.annotations;
    EXPECT_EQ(applied["requests"]["memory"], c.memory) << c.annotations;
    EXPECT_TRUE(decision->warnings.empty());
  }
}

TEST(Admission, AResourceAnHpaScalesOnKeepsItsDeclaredRequest) {
  const json declared = {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}};
  AdmissionOptions options = OptedIn();
  options.hpa_for = [](const std::string& key) -> std::optional<HpaScaling> {
    if (key == "shop/Deployment/web") return HpaScaling{"shop/web", true, false};
    return std::nullopt;
  };
  absl::StatusOr<AdmissionDecision> decision = DecideAdmission(
      Review(DeploymentPod(declared)), Stats("shop/Deployment/web", "app", kHistory), options);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(AppliedResources(*decision)["requests"]["cpu"], "1");
  EXPECT_EQ(AppliedResources(*decision)["requests"]["memory"], "96Mi");
  EXPECT_NE(decision->annotation.find("cpu left as it is: HPA shop/web"), std::string::npos)
      << decision->annotation;
  // --hpa-scaled-resources=resize: sized as any other workload.
  options.hpa_mode = HpaResourcesMode::kResize;
  decision = DecideAdmission(Review(DeploymentPod(declared)),
                             Stats("shop/Deployment/web", "app", kHistory), options);
  ASSERT_TRUE(decision.ok()) << decision.status();
  EXPECT_EQ(AppliedResources(*decision)["requests"]["cpu"], "350m");
}

TEST(Admission, IgnoredAnnotationsComeBackAsWarnings) {
  absl::StatusOr<AdmissionDecision> decision = DecideAdmission(
      Review(DeploymentPod({{"requests", {{"cpu", "1"}}}},
                           {{"headroom.dev/max-cpus", "200m"}, {"headroom.dev/mode", "dry"}})),
      Stats("shop/Deployment/web", "app", kHistory), OptedIn());
  ASSERT_TRUE(decision.ok()) << decision.status();
  ASSERT_EQ(decision->warnings.size(), 2u);
  const json response = AdmissionResponse(*decision, true)["response"];
  ASSERT_TRUE(response.contains("warnings"));
  EXPECT_EQ(response["warnings"].size(), 2u);
  EXPECT_NE(response["warnings"].dump().find("did you mean headroom.dev/max-cpu?"),
            std::string::npos)
      << response.dump();
  // Without warnings the field is absent, as the API expects.
  decision->warnings.clear();
  EXPECT_FALSE(AdmissionResponse(*decision, true)["response"].contains("warnings"));
}

TEST(Admission, AWorkloadStillWarmingUpKeepsItsDeclaredValues) {
  WorkloadContainerStats young = kHistory;
  young.history = absl::Minutes(10);
  const json pod = DeploymentPod(
      {{"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}, {"limits", {{"memory", "1Gi"}}}});
  absl::StatusOr<AdmissionDecision> decision =
      DecideAdmission(Review(pod), Stats("shop/Deployment/web", "app", young), OptedIn());
  ASSERT_TRUE(decision.ok());
  // Only the workload key is written; the resources stay as declared.
  ASSERT_EQ(decision->patch.size(), 1u);
  EXPECT_EQ(decision->patch[0]["path"], "/metadata/annotations");
  EXPECT_NE(decision->skipped.find("warming up"), std::string::npos) << decision->skipped;
  EXPECT_NE(decision->skipped.find("observed for 10m of the 24h warm-up"), std::string::npos)
      << decision->skipped;
}

TEST(Admission, MemoryAtOomRaisesTheLimit) {
  WorkloadContainerStats stats = kHistory;
  stats.memory->oom_bytes = 200 << 20;
  absl::StatusOr<AdmissionDecision> decision = DecideAdmission(
      Review(DeploymentPod(json::object())), Stats("shop/Deployment/web", "app", stats), {});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(AppliedResources(*decision)["limits"]["memory"], "400Mi");
  // Even while the workload warms up, the memory at OOM raises a declared limit.
  stats.history = absl::Minutes(5);
  decision = DecideAdmission(Review(DeploymentPod({{"limits", {{"memory", "128Mi"}}}})),
                             Stats("shop/Deployment/web", "app", stats), {});
  ASSERT_TRUE(decision.ok());
  EXPECT_EQ(AppliedResources(*decision)["limits"]["memory"], "400Mi");
}

TEST(Admission, WithoutHistoryOnlyTheCpuLimitGoesAndItsValueStaysAsRequest) {
  const json pod = DeploymentPod({{"limits", {{"cpu", "500m"}, {"memory", "128Mi"}}}});
  absl::StatusOr<AdmissionDecision> decision = DecideAdmission(Review(pod), Stats("", "", {}), {});
  ASSERT_TRUE(decision.ok());
  ASSERT_EQ(decision->changes.size(), 1u);
  EXPECT_FALSE(decision->changes[0].from_history);
  EXPECT_EQ(AppliedResources(*decision),
            json({{"requests", {{"cpu", "500m"}}}, {"limits", {{"memory", "128Mi"}}}}));
}

TEST(Admission, AKeptCpuLimitCapsTheRequest) {
  // Workload peak 2000m, the pod keeps its 1-CPU limit (--admission-strip-cpu-limits=false):
  // a request of 2 would be refused by the API server (request above limit).
  WorkloadContainerStats busy = kHistory;
  busy.cpu = CpuStats{1500, 2000};
  AdmissionOptions options = OptedIn();
  options.strip_cpu_limits = false;
  absl::StatusOr<AdmissionDecision> decision = DecideAdmission(
      Review(DeploymentPod({{"requests", {{"cpu", "500m"}}}, {"limits", {{"cpu", "1"}}}})),
      Stats("shop/Deployment/web", "app", busy), options);
  ASSERT_TRUE(decision.ok()) << decision.status();
  const json resources = AppliedResources(*decision);
  EXPECT_EQ(resources["requests"]["cpu"], "1") << resources;
  EXPECT_EQ(resources["limits"]["cpu"], "1") << resources;
  EXPECT_NE(decision->annotation.find("capped at the declared limit"), std::string::npos)
      << decision->annotation;
}

TEST(Admission, AddsItsAnnotationToExistingAnnotations) {
  const json pod = DeploymentPod({{"limits", {{"cpu", "1"}}}}, {{"team", "a"}});
  absl::StatusOr<AdmissionDecision> decision = DecideAdmission(Review(pod), Stats("", "", {}), {});
  ASSERT_TRUE(decision.ok());
  ASSERT_GE(decision->patch.size(), 2u);
  EXPECT_EQ(decision->patch[decision->patch.size() - 2]["path"],
            "/metadata/annotations/headroom.dev~1admission");
  EXPECT_EQ(decision->patch.back()["path"], "/metadata/annotations/headroom.dev~1declared");
}

// The API server applies the patch to the pod it sent: every shape of metadata must take it.
TEST(Admission, ThePatchAppliesWhateverMetadataThePodHas) {
  const json spec = {
      {"containers", {{{"name", "app"}, {"resources", {{"limits", {{"cpu", "1"}}}}}}}}};
  struct Case {
    const char* name;
    json pod;
  };
  const std::vector<Case> cases = {
      {"annotations",
       {{"metadata", {{"name", "p"}, {"annotations", {{"team", "a"}}}}}, {"spec", spec}}},
      {"metadata without annotations", {{"metadata", {{"name", "p"}}}, {"spec", spec}}},
      {"no metadata at all", {{"spec", spec}}},
  };
  for (const Case& c : cases) {
    absl::StatusOr<AdmissionDecision> decision =
        DecideAdmission(Review(c.pod), Stats("", "", {}), {});
    ASSERT_TRUE(decision.ok()) << c.name << ": " << decision.status();
    ASSERT_FALSE(decision->patch.empty()) << c.name;
    json patched;
    ASSERT_NO_THROW(patched = c.pod.patch(decision->patch))
        << c.name << ": " << decision->patch.dump();
    EXPECT_TRUE(patched["metadata"]["annotations"].contains("headroom.dev/admission")) << c.name;
    EXPECT_EQ(patched["spec"]["containers"][0]["resources"].contains("limits"),
              AppliedResources(*decision).contains("limits"))
        << c.name;
  }
}

// The API server refuses an answer in another version than its review's.
TEST(Admission, AnswersInTheReviewsVersion) {
  const json pod = DeploymentPod({{"limits", {{"cpu", "1"}}}});
  for (const char* version : {"admission.k8s.io/v1", "admission.k8s.io/v1beta1"}) {
    json review = Review(pod);
    review["apiVersion"] = version;
    absl::StatusOr<AdmissionDecision> decision = DecideAdmission(review, Stats("", "", {}), {});
    ASSERT_TRUE(decision.ok()) << version;
    EXPECT_EQ(AdmissionResponse(*decision, true)["apiVersion"], version);
  }
  for (const char* version : {"admission.k8s.io/v2", "", "v1"}) {
    json review = Review(pod);
    review["apiVersion"] = version;
    const absl::StatusOr<AdmissionDecision> refused =
        DecideAdmission(review, Stats("", "", {}), {});
    ASSERT_FALSE(refused.ok()) << version;
    EXPECT_NE(refused.status().message().find("apiVersion"), std::string::npos) << version;
  }
}

TEST(Admission, LeavesAlone) {
  struct Case {
    std::string name;
    json review;
    std::string why;
    // The only changes: the workload key and the step annotations (not on a pod that is
    // disabled nor on anything but a pod creation in a namespace headroom serves).
    bool key_written = true;
    std::string step = "in-place";
  };
  const json sized = DeploymentPod({{"limits", {{"cpu", "1"}}}});
  json system_pod = sized;
  system_pod["metadata"]["namespace"] = "kube-system";
  const std::vector<Case> cases = {
      {"update", Review(sized, "UPDATE"), "not a pod creation", false, ""},
      {"another resource", Review(sized, "CREATE", "deployments"), "not a pod creation", false, ""},
      {"excluded namespace", Review(system_pod), "namespace kube-system is excluded", false, ""},
      {"disabled",
       Review(DeploymentPod({{"limits", {{"cpu", "1"}}}}, {{"headroom.dev/disable", "true"}})),
       "annotated headroom.dev/disable", false, ""},
      {"key already written",
       Review(DeploymentPod({{"requests", {{"cpu", "1"}}}},
                            {{"headroom.dev/workload", "shop/Deployment/web"}})),
       "no history", false},
      {"keys already written",
       Review(DeploymentPod({{"requests", {{"cpu", "1"}}}},
                            {{"headroom.dev/workload", "shop/Deployment/web"},
                             {"headroom.dev/admitted-mode", "in-place"}})),
       "no history", false, ""},
      {"excluded",
       Review(DeploymentPod({{"limits", {{"cpu", "1"}}}}, {{"headroom.dev/exclude", "true"}})),
       "annotated headroom.dev/exclude"},
      {"recommend",
       Review(DeploymentPod({{"limits", {{"cpu", "1"}}}}, {{"headroom.dev/mode", "recommend"}})),
       "mode observe (pod)", true, "observe"},
      {"static",
       Review(DeploymentPod({{"limits", {{"cpu", "1"}}}}, {{"headroom.dev/policy", "static"}})),
       "policy static"},
      {"nothing to do", Review(DeploymentPod({{"requests", {{"cpu", "1"}}}})), "no history"},
      {"unreadable quantity", Review(DeploymentPod({{"requests", {{"cpu", "lots"}}}})),
       "unreadable pod"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<AdmissionDecision> decision =
        DecideAdmission(c.review, Stats("shop/Deployment/web", "other", kHistory), {});
    ASSERT_TRUE(decision.ok()) << c.name << ": " << decision.status();
    EXPECT_NE(decision->skipped.find(c.why), std::string::npos)
        << c.name << ": " << decision->skipped;
    json written = json::object();  // the annotations the patch adds
    for (const json& op : decision->patch) {
      const std::string path = op["path"];
      if (path == "/metadata/annotations") {
        written.update(op["value"]);
      } else {
        ASSERT_EQ(path.rfind("/metadata/annotations/", 0), 0u) << c.name << ": " << path;
        std::string key = path.substr(std::string("/metadata/annotations/").size());
        key.replace(key.find("~1"), 2, "/");
        written[key] = op["value"];
      }
    }
    json expected = json::object();
    if (c.key_written) expected["headroom.dev/workload"] = "shop/Deployment/web";
    if (!c.step.empty()) expected["headroom.dev/admitted-mode"] = c.step;
    EXPECT_EQ(written, expected) << c.name;
    if (expected.empty()) {
      EXPECT_FALSE(AdmissionResponse(*decision, true)["response"].contains("patch")) << c.name;
    }
  }
}

TEST(Admission, RefusesWhatIsNotAnAdmissionReview) {
  for (const json& body :
       {json::array(), json{{"kind", "Pod"}}, json{{"kind", "AdmissionReview"}},
        json{{"kind", "AdmissionReview"}, {"request", {{"operation", "CREATE"}}}}}) {
    EXPECT_FALSE(DecideAdmission(body, Stats("", "", {}), {}).ok()) << body.dump();
  }
}

TEST(Admission, ResponseCarriesTheBase64PatchOnlyWhenApplied) {
  absl::StatusOr<AdmissionDecision> decision =
      DecideAdmission(Review(DeploymentPod({{"limits", {{"cpu", "1"}}}})), Stats("", "", {}), {});
  ASSERT_TRUE(decision.ok());
  const json applied = AdmissionResponse(*decision, true);
  EXPECT_EQ(applied["apiVersion"], "admission.k8s.io/v1");
  EXPECT_EQ(applied["response"]["uid"], "u-1");
  EXPECT_EQ(applied["response"]["allowed"], true);
  EXPECT_EQ(applied["response"]["patchType"], "JSONPatch");
  std::string patch;
  ASSERT_TRUE(absl::Base64Unescape(applied["response"]["patch"].get<std::string>(), &patch));
  EXPECT_EQ(json::parse(patch), decision->patch);
  const json withheld = AdmissionResponse(*decision, false);
  EXPECT_EQ(withheld["response"]["allowed"], true);
  EXPECT_FALSE(withheld["response"].contains("patch"));
}

TEST(PodResources, DecodesDeclaredAmountsAndRefusesBadOnes) {
  absl::StatusOr<std::vector<DeclaredResources>> declared = DecodeDeclaredResources(
      DeploymentPod({{"requests", {{"cpu", "250m"}}}, {"limits", {{"memory", "1Gi"}}}}),
      "containers");
  ASSERT_TRUE(declared.ok()) << declared.status();
  ASSERT_EQ(declared->size(), 1u);
  EXPECT_EQ((*declared)[0], (DeclaredResources{"app", 250, std::nullopt, std::nullopt, 1 << 30}));
  EXPECT_TRUE(DecodeDeclaredResources(json::object(), "initContainers")->empty());
  const absl::StatusOr<std::vector<DeclaredResources>> bad =
      DecodeDeclaredResources(DeploymentPod({{"limits", {{"memory", "-1"}}}}), "containers");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("spec.containers[0].resources.limits.memory"),
            std::string::npos)
      << bad.status();
}

}  // namespace
}  // namespace headroom::extender
