// The namespace layer of the policy (extender/kube/namespace_index.h): what the watch keeps,
// and what a pod's policy is before and after the Namespaces are listed.

#include "extender/kube/namespace_index.h"

#include "gtest/gtest.h"

namespace headroom::extender {
namespace {

using json = nlohmann::json;

json Namespace(const std::string& name, json annotations) {
  json metadata = {{"name", name}};
  if (!annotations.is_null()) metadata["annotations"] = std::move(annotations);
  return {{"metadata", metadata}};
}

TEST(NamespaceIndexTest, KeepsHeadroomAnnotationsOnly) {
  NamespaceIndex index;
  index.Replace({Namespace("shop", {{"headroom.dev/mode", "observe"}, {"team", "a"}}),
                 Namespace("plain", {{"team", "b"}}), Namespace("bare", nullptr)});
  EXPECT_EQ(index.For("shop"), (Annotations{{"headroom.dev/mode", "observe"}}));
  EXPECT_TRUE(index.For("plain").empty());
  EXPECT_TRUE(index.For("nowhere").empty());
  ASSERT_EQ(index.Annotated().size(), 1u);

  // The operator moves shop up a step, annotates plain, then deletes shop.
  index.Apply({WatchEventType::kModified, Namespace("shop", {{"headroom.dev/mode", "admission"}})});
  index.Apply({WatchEventType::kAdded, Namespace("plain", {{"headroom.dev/mode", "in-place"}})});
  EXPECT_EQ(index.For("shop").at("headroom.dev/mode"), "admission");
  EXPECT_EQ(index.For("plain").at("headroom.dev/mode"), "in-place");
  index.Apply({WatchEventType::kModified, Namespace("plain", {{"team", "b"}})});
  EXPECT_TRUE(index.For("plain").empty());
  index.Apply({WatchEventType::kDeleted, Namespace("shop", nullptr)});
  EXPECT_TRUE(index.For("shop").empty());
  EXPECT_TRUE(index.Annotated().empty());
  // A non-string value is not a mode.
  index.Apply({WatchEventType::kAdded, Namespace("odd", {{"headroom.dev/mode", 3}})});
  EXPECT_TRUE(index.For("odd").empty());
}

TEST(ResolvePodPolicyTest, NamespaceLayerAndTheTimeBeforeTheList) {
  NamespaceIndex index;
  index.Replace({Namespace("shop", {{"headroom.dev/mode", "admission"}})});
  bool listed = true;
  const NamespaceLookup lookup = [&](const std::string& name) -> std::optional<Annotations> {
    if (!listed) return std::nullopt;
    return index.For(name);
  };
  const struct {
    const char* name;
    bool listed;
    std::string pod_namespace;
    Annotations pod;
    AdoptionStep want;
    std::string from;
  } cases[] = {
      {"namespace step", true, "shop", {}, AdoptionStep::kAdmission, "namespace"},
      {"unannotated namespace: cluster",
       true,
       "other",
       {},
       AdoptionStep::kInPlace,
       "cluster default"},
      {"pod over namespace",
       true,
       "shop",
       {{"headroom.dev/mode", "in-place"}},
       AdoptionStep::kInPlace,
       "pod"},
      {"not listed yet: observe",
       false,
       "other",
       {},
       AdoptionStep::kObserve,
       "namespaces not listed yet"},
      {"not listed yet, pod says",
       false,
       "shop",
       {{"headroom.dev/mode", "admission"}},
       AdoptionStep::kAdmission,
       "pod"},
  };
  for (const auto& c : cases) {
    listed = c.listed;
    const WorkloadPolicy p =
        ResolvePodPolicy({}, c.pod, "Deployment", 2, {}, c.pod_namespace, lookup);
    EXPECT_EQ(p.step, c.want) << c.name;
    EXPECT_EQ(p.step_from, c.from) << c.name;
  }
  // Without an API there is no namespace layer.
  EXPECT_EQ(ResolvePodPolicy({}, {}, "Deployment", 2, {}, "shop", nullptr).step,
            AdoptionStep::kInPlace);
}

}  // namespace
}  // namespace headroom::extender
