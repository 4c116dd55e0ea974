// The policy's middle layers (extender/kube/policy_layers.h): what the watches keep, and what
// a pod's policy is before and after its owner and its Namespace are listed.

#include "extender/kube/policy_layers.h"

#include "gtest/gtest.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

json Object(const std::string& ns, const std::string& name, json annotations) {
  json metadata = {{"name", name}};
  if (!ns.empty()) metadata["namespace"] = ns;
  if (!annotations.is_null()) metadata["annotations"] = std::move(annotations);
  return {{"metadata", metadata}};
}

TEST(AnnotationIndexTest, NamespacesKeepHeadroomAnnotationsOnly) {
  AnnotationIndex index(NamespaceKey());
  index.Replace({Object("", "shop", {{"headroom.dev/mode", "observe"}, {"team", "a"}}),
                 Object("", "plain", {{"team", "b"}}), Object("", "bare", nullptr)});
  EXPECT_EQ(index.For("shop"), (Annotations{{"headroom.dev/mode", "observe"}}));
  EXPECT_TRUE(index.For("plain").empty());
  EXPECT_TRUE(index.For("nowhere").empty());
  EXPECT_EQ(index.annotated(), 1u);

  // The operator moves shop up a step, annotates plain, then deletes shop.
  index.Apply(
      {WatchEventType::kModified, Object("", "shop", {{"headroom.dev/mode", "admission"}})});
  index.Apply({WatchEventType::kAdded, Object("", "plain", {{"headroom.dev/mode", "in-place"}})});
  EXPECT_EQ(index.For("shop").at("headroom.dev/mode"), "admission");
  EXPECT_EQ(index.For("plain").at("headroom.dev/mode"), "in-place");
  index.Apply({WatchEventType::kModified, Object("", "plain", {{"team", "b"}})});
  EXPECT_TRUE(index.For("plain").empty());
  index.Apply({WatchEventType::kDeleted, Object("", "shop", nullptr)});
  EXPECT_TRUE(index.For("shop").empty());
  EXPECT_EQ(index.annotated(), 0u);
  // A non-string value is not a mode.
  index.Apply({WatchEventType::kAdded, Object("", "odd", {{"headroom.dev/mode", 3}})});
  EXPECT_TRUE(index.For("odd").empty());
}

TEST(AnnotationIndexTest, OwnersAreKeyedAsWorkloads) {
  AnnotationIndex index(OwnerKey("Deployment"));
  index.Replace({Object("shop", "web", {{"headroom.dev/cpu-margin", "20%"}}),
                 Object("", "no-namespace", {{"headroom.dev/mode", "observe"}})});
  EXPECT_EQ(index.For("shop/Deployment/web").at("headroom.dev/cpu-margin"), "20%");
  EXPECT_EQ(index.annotated(), 1u);
}

TEST(ResolvePodPolicyTest, OwnerAndNamespaceLayersAndTheTimeBeforeTheyAreListed) {
  AnnotationIndex namespaces(NamespaceKey());
  namespaces.Replace({Object("", "shop", {{"headroom.dev/mode", "admission"}})});
  AnnotationIndex deployments(OwnerKey("Deployment"));
  deployments.Replace({Object("shop", "batch", {{"headroom.dev/mode", "observe"}})});
  bool namespaces_listed = true;
  bool owners_listed = true;
  PolicyLayers layers;
  layers.namespaces = [&](const std::string& name) -> std::optional<Annotations> {
    if (!namespaces_listed) return std::nullopt;
    return namespaces.For(name);
  };
  layers.owners = [&](const std::string& key) -> std::optional<Annotations> {
    if (!owners_listed) return std::nullopt;
    return deployments.For(key);
  };
  const struct {
    const char* name;
    bool namespaces_listed, owners_listed;
    std::string pod_namespace, workload;
    Annotations pod;
    AdoptionStep want;
    std::string from;
  } cases[] = {
      {"namespace step",
       true,
       true,
       "shop",
       "shop/Deployment/web",
       {},
       AdoptionStep::kAdmission,
       "namespace"},
      {"owner over namespace",
       true,
       true,
       "shop",
       "shop/Deployment/batch",
       {},
       AdoptionStep::kObserve,
       "owner"},
      {"pod over owner",
       true,
       true,
       "shop",
       "shop/Deployment/batch",
       {{"headroom.dev/mode", "in-place"}},
       AdoptionStep::kInPlace,
       "pod"},
      {"unannotated namespace: cluster",
       true,
       true,
       "other",
       "other/Deployment/web",
       {},
       AdoptionStep::kInPlace,
       "cluster default"},
      {"namespaces not listed yet: observe",
       false,
       true,
       "other",
       "other/Deployment/web",
       {},
       AdoptionStep::kObserve,
       "not listed yet"},
      {"owners not listed yet: observe",
       true,
       false,
       "shop",
       "shop/Deployment/web",
       {},
       AdoptionStep::kObserve,
       "not listed yet"},
      {"not listed yet, the pod says",
       false,
       false,
       "shop",
       "shop/Deployment/web",
       {{"headroom.dev/mode", "admission"}},
       AdoptionStep::kAdmission,
       "pod"},
      {"no workload key: no owner layer",
       true,
       false,
       "shop",
       "",
       {},
       AdoptionStep::kAdmission,
       "namespace"},
  };
  for (const auto& c : cases) {
    namespaces_listed = c.namespaces_listed;
    owners_listed = c.owners_listed;
    const WorkloadPolicy p =
        ResolvePodPolicy(c.pod, "ReplicaSet", 2, {}, c.pod_namespace, c.workload, layers);
    EXPECT_EQ(p.step, c.want) << c.name;
    EXPECT_EQ(p.step_from, c.from) << c.name;
  }
  // Without an API there are no middle layers.
  EXPECT_EQ(ResolvePodPolicy({}, "ReplicaSet", 2, {}, "shop", "shop/Deployment/batch", {}).step,
            AdoptionStep::kInPlace);
}

}  // namespace
}  // namespace headroom::extender
