#include "cli/node_json.h"

#include <string>

#include "cli/optimize_node_command.h"
#include "codec/json_fields.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom::cli {

using ::headroom::codec::ParseJson;
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

absl::StatusOr<NodeDemand> Decode(const std::string& text) {
  absl::StatusOr<nlohmann::json> json = ParseJson(text);
  if (!json.ok()) return json.status();
  return DecodeNodeDemand(*json);
}

constexpr char kMinimal[] = R"({"node":{"name":"n1","allocatable":{"cpu":"4","memory":"8Gi"}},
  "pods":[{"namespace":"ns","name":"p","requests":{"cpu":"100m","memory":"64Mi"},
           "containers":[{"name":"c","cpu":{"p75":"500m","max":"1500m"},
                          "memory":{"p75":"256Mi","max":"512Mi"}}]}]})";

TEST(NodeJsonTest, DecodesTheDocumentedShapeWithDefaults) {
  absl::StatusOr<NodeDemand> node = Decode(kMinimal);
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(node->name, "n1");
  EXPECT_EQ(node->allocatable.cpu_millis, 4000);
  EXPECT_EQ(node->allocatable.memory_bytes, 8LL << 30);
  ASSERT_EQ(node->pods.size(), 1u);
  const PodDemand& pod = node->pods[0];
  EXPECT_EQ(pod.Key(), "ns/p");
  EXPECT_FALSE(pod.daemonset);
  EXPECT_TRUE(pod.optimizable);
  EXPECT_EQ(pod.ranking, EvictionRanking::kLow);
  EXPECT_EQ(pod.requests.cpu_millis, 100);
  ASSERT_EQ(pod.containers.size(), 1u);
  const ContainerDemand& c = pod.containers[0];
  EXPECT_EQ(c.cpu->base_millis, 500);
  EXPECT_EQ(c.cpu->peak_millis, 1500);
  EXPECT_EQ(c.memory->max_7d_bytes, 512LL << 20);  // max7d defaults to max
  EXPECT_EQ(c.memory->oom_bytes, 0);               // oom defaults to 0
}

TEST(NodeJsonTest, AcceptsNumbersAsQuantitiesAndIgnoresUnknownFields) {
  absl::StatusOr<NodeDemand> node = Decode(
      R"({"node":{"name":"n","allocatable":{"cpu":2,"memory":1e9},"labels":{"x":"y"}},
          "apiVersion":"v9","pods":[{"name":"p","future":true,"containers":[
          {"name":"c","cpu":{"p75":0.25,"max":1},"memory":{"p75":1000,"max":2000}}]}]})");
  ASSERT_THAT(node, IsOk());
  EXPECT_EQ(node->allocatable.cpu_millis, 2000);
  EXPECT_EQ(node->allocatable.memory_bytes, 1'000'000'000);
  EXPECT_EQ(node->pods[0].pod_namespace, "default");
  EXPECT_EQ(node->pods[0].containers[0].cpu->base_millis, 250);
}

TEST(NodeJsonTest, ContainersWithoutStatsHaveNoHistory) {
  absl::StatusOr<NodeDemand> node = Decode(
      R"({"node":{"name":"n","allocatable":{"cpu":"1","memory":"1Gi"}},
          "pods":[{"name":"p","containers":[{"name":"c"}]}]})");
  ASSERT_THAT(node, IsOk());
  EXPECT_FALSE(node->pods[0].containers[0].cpu.has_value());
  EXPECT_FALSE(node->pods[0].containers[0].memory.has_value());
}

struct BadInput {
  const char* name;
  const char* json;
  const char* message;
};

class BadNodeJsonTest : public ::testing::TestWithParam<BadInput> {};

TEST_P(BadNodeJsonTest, NamesTheField) {
  EXPECT_THAT(OptimizeNodeJson(GetParam().json, false),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

#define NODE R"("node":{"name":"n","allocatable":{"cpu":"1","memory":"1Gi"}})"

INSTANTIATE_TEST_SUITE_P(
    Table, BadNodeJsonTest,
    ::testing::Values(
        BadInput{"not_json", "{", "not valid JSON"},
        BadInput{"array", "[]", "input: expected an object, got array"},
        BadInput{"no_node", R"({"pods":[]})", "node: required"},
        BadInput{"node_name", R"({"node":{"allocatable":{"cpu":"1","memory":"1"}}})",
                 "node.name: required"},
        BadInput{"empty_name", R"({"node":{"name":"","allocatable":{}}})",
                 "node.name: must not be empty"},
        BadInput{"allocatable", R"({"node":{"name":"n"}})", "node.allocatable: required"},
        BadInput{"allocatable_cpu", R"({"node":{"name":"n","allocatable":{"memory":"1"}}})",
                 "node.allocatable.cpu: required"},
        BadInput{"bad_quantity",
                 R"({"node":{"name":"n","allocatable":{"cpu":"1","memory":"8GB"}}})",
                 "node.allocatable.memory: invalid quantity \"8GB\""},
        BadInput{"bool_quantity",
                 R"({"node":{"name":"n","allocatable":{"cpu":true,"memory":"1"}}})",
                 "node.allocatable.cpu: expected a quantity"},
        BadInput{"pods_object", "{" NODE R"(,"pods":{}})", "pods: expected an array, got object"},
        BadInput{"pod_not_object", "{" NODE R"(,"pods":[1]})", "pods[0]: expected an object"},
        BadInput{"pod_name", "{" NODE R"(,"pods":[{"namespace":"x"}]})", "pods[0].name: required"},
        BadInput{"ranking", "{" NODE R"(,"pods":[{"name":"p","evictionRanking":"max"}]})",
                 "pods[0].evictionRanking: unknown eviction ranking \"max\""},
        BadInput{"daemonset_type", "{" NODE R"(,"pods":[{"name":"p","daemonset":"yes"}]})",
                 "pods[0].daemonset: expected true or false, got string"},
        BadInput{"container_name", "{" NODE R"(,"pods":[{"name":"p","containers":[{"cpu":{}}]}]})",
                 "pods[0].containers[0].name: required"},
        BadInput{"p75_missing",
                 "{" NODE
                 R"(,"pods":[{"name":"p","containers":[{"name":"c","cpu":{"max":"1"}}]}]})",
                 "pods[0].containers[0].cpu.p75: required"},
        BadInput{"negative_memory",
                 "{" NODE
                 R"(,"pods":[{"name":"p","containers":[{"name":"c","cpu":{"p75":"1","max":"1"},
                 "memory":{"p75":"-1Mi","max":"1"}}]}]})",
                 "pods[0].containers[0].memory.p75: quantity \"-1Mi\" must not be negative"},
        BadInput{"peak_below_base",
                 "{" NODE
                 R"(,"pods":[{"name":"p","containers":[{"name":"c","cpu":{"p75":"2","max":"1"},
                 "memory":{"p75":"1","max":"1"}}]}]})",
                 "pods[0].containers[0].cpu.max: peak 1 is below the base (p75) 2"},
        BadInput{"requests_type", "{" NODE R"(,"pods":[{"name":"p","requests":"1"}]})",
                 "pods[0].requests: expected an object, got string"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(NodeJsonTest, OversizedNumbersAreOutOfRangeNotWrapped) {
  EXPECT_THAT(
      OptimizeNodeJson(R"({"node":{"name":"n","allocatable":{"cpu":1e30,"memory":"1"}}})", false),
      StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("node.allocatable.cpu")));
}

TEST(NodeJsonTest, EncodesTheDocumentedOutput) {
  absl::StatusOr<std::string> text = OptimizeNodeJson(kMinimal, false);
  ASSERT_THAT(text, IsOk());
  const nlohmann::json out = nlohmann::json::parse(*text);
  EXPECT_EQ(out["node"], "n1");
  EXPECT_TRUE(out["evictions"].is_array());
  ASSERT_EQ(out["containers"].size(), 1u);
  const nlohmann::json& c = out["containers"][0];
  EXPECT_EQ(c["pod"], "ns/p");
  EXPECT_EQ(c["container"], "c");
  // A lone container gets all of its own headroom: final = peak.
  EXPECT_EQ(c["cpuRequestMillis"], 1500);
  EXPECT_TRUE(c["cpuLimitMillis"].is_null());
  EXPECT_EQ(c["memoryRequestBytes"], 512 << 20);
  EXPECT_EQ(c["memoryLimitBytes"], 1024 << 20);
  EXPECT_EQ(out["summary"]["cpu"]["fits"], true);
  EXPECT_EQ(out["summary"]["memory"]["allocatable"], "8Gi");
}

}  // namespace
}  // namespace headroom::cli
