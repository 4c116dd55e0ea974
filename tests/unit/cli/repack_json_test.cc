#include "codec/repack_json.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom::codec {
namespace {

using ::testing::HasSubstr;

TEST(RepackJsonTest, DecodesOurInstanceFormat) {
  const nlohmann::json document = nlohmann::json::parse(R"({
    "nodes": [{"name": "a", "cpu": "4", "memory": "8Gi"}, {"name": "b", "cpu": 2, "memory": "4Gi"}],
    "pods": [{"name": "web-1", "cpu": "500m", "memory": "1Gi", "priority": 100, "node": "b",
              "owner": "shop/ReplicaSet/web"},
             {"name": "batch", "cpu": "1", "memory": "512Mi"}]
  })");
  absl::StatusOr<RepackInstance> instance = DecodeRepackInput(document);
  ASSERT_TRUE(instance.ok()) << instance.status();
  ASSERT_EQ(instance->nodes.size(), 2u);
  EXPECT_EQ(instance->nodes[1].cpu_milli, 2000);
  EXPECT_EQ(instance->nodes[0].memory_bytes, int64_t{8} << 30);
  ASSERT_EQ(instance->pods.size(), 2u);
  EXPECT_EQ(instance->pods[0].current_node, 1);
  EXPECT_EQ(instance->pods[0].priority, 100);
  EXPECT_EQ(instance->pods[0].owner, "shop/ReplicaSet/web");
  EXPECT_EQ(instance->pods[1].current_node, -1);
  EXPECT_EQ(instance->pods[1].priority, 0);
  // And back: the encoded form decodes to the same instance.
  absl::StatusOr<RepackInstance> again = DecodeRepackInput(EncodeRepackInstance(*instance));
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->pods[0].memory_bytes, instance->pods[0].memory_bytes);
  EXPECT_EQ(again->pods[0].current_node, 1);
}

TEST(RepackJsonTest, DecodesAKubectlListOfNodesAndPods) {
  const nlohmann::json document = nlohmann::json::parse(R"({
    "apiVersion": "v1", "kind": "List",
    "items": [
      {"kind": "Node", "metadata": {"name": "n1"},
       "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
      {"kind": "Pod", "metadata": {"name": "web", "namespace": "shop",
                                   "ownerReferences": [{"kind": "ReplicaSet", "name": "web-5d"}]},
       "spec": {"nodeName": "n1", "priority": 1000,
                "containers": [{"name": "a", "resources": {"requests": {"cpu": "250m", "memory": "1Gi"}}},
                               {"name": "b", "resources": {"requests": {"cpu": "250m"}}}],
                "initContainers": [{"name": "i", "resources": {"requests": {"cpu": "2"}}}]},
       "status": {"phase": "Running"}},
      {"kind": "Pod", "metadata": {"name": "agent", "namespace": "kube-system",
                                   "ownerReferences": [{"kind": "DaemonSet", "name": "agent"}]},
       "spec": {"nodeName": "n1", "containers": [{"name": "a", "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
       "status": {"phase": "Running"}},
      {"kind": "Pod", "metadata": {"name": "done"},
       "spec": {"nodeName": "n1", "containers": [{"name": "a"}]}, "status": {"phase": "Succeeded"}},
      {"kind": "Pod", "metadata": {"name": "waiting", "namespace": "shop"},
       "spec": {"containers": [{"name": "a", "resources": {"requests": {"memory": "2Gi"}}}]},
       "status": {"phase": "Pending"}}
    ]})");
  absl::StatusOr<RepackInstance> instance = DecodeRepackInput(document);
  ASSERT_TRUE(instance.ok()) << instance.status();
  ASSERT_EQ(instance->nodes.size(), 1u);
  // The DaemonSet pod stays: its requests come off the node.
  EXPECT_EQ(instance->nodes[0].cpu_milli, 3000);
  EXPECT_EQ(instance->nodes[0].memory_bytes, int64_t{7} << 30);
  ASSERT_EQ(instance->pods.size(), 2u);
  EXPECT_EQ(instance->pods[0].name, "shop/web");
  EXPECT_EQ(instance->pods[0].cpu_milli, 2000);  // the init container's 2 CPU beat 500m
  EXPECT_EQ(instance->pods[0].memory_bytes, int64_t{1} << 30);
  EXPECT_EQ(instance->pods[0].priority, 1000);
  EXPECT_EQ(instance->pods[0].current_node, 0);
  EXPECT_EQ(instance->pods[0].owner, "shop/ReplicaSet/web-5d");
  EXPECT_EQ(instance->pods[1].name, "shop/waiting");
  EXPECT_EQ(instance->pods[1].current_node, -1);
}

TEST(RepackJsonTest, ErrorsNameTheField) {
  struct Case {
    const char* json;
    const char* message;
  };
  const Case cases[] = {
      {R"({"pods": []})", "nodes: required"},
      {R"({"nodes": [{"name": "a", "cpu": "x", "memory": "1Gi"}]})", "nodes[0].cpu"},
      {R"({"nodes": [{"name": "a", "cpu": "1", "memory": "1Gi"}], "pods": [{"name": "p", "node": "b"}]})",
       "no node named \"b\""},
      {R"({"nodes": [{"name": "a", "cpu": "1", "memory": "1Gi"}], "pods": [{"name": "p", "priority": 1.5}]})",
       "pods[0].priority"},
      {R"({"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"}}]})",
       "status.allocatable"},
      {R"({"nodes": []})", "no nodes"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<RepackInstance> instance = DecodeRepackInput(nlohmann::json::parse(c.json));
    ASSERT_FALSE(instance.ok()) << c.json;
    EXPECT_EQ(instance.status().code(), absl::StatusCode::kInvalidArgument) << c.json;
    EXPECT_THAT(instance.status().message(), HasSubstr(c.message)) << c.json;
  }
}

TEST(RepackJsonTest, MalformedTextIsRefusedWithItsPosition) {
  absl::StatusOr<RepackInstance> instance = DecodeRepackInputText(R"({"nodes": [)");
  ASSERT_FALSE(instance.ok());
  EXPECT_EQ(instance.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(
      DecodeRepackInputText(R"({"nodes": [{"name": "a", "cpu": "1", "memory": "1Gi"}]})").ok());
}

}  // namespace
}  // namespace headroom::codec
