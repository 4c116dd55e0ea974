// A pod's workload key from its controlling owner and labels.

#include "extender/kube/pod_decoder.h"

#include <string>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "shared/workload_key.h"

namespace headroom::extender {
namespace {

struct KeyCase {
  const char* name;
  const char* owners;
  const char* labels;
  const char* key;
};

class WorkloadKeyTest : public ::testing::TestWithParam<KeyCase> {};

TEST_P(WorkloadKeyTest, FollowsTheControllingOwner) {
  EXPECT_EQ(WorkloadKeyFromController("shop", "pod-x",
                                      WorkloadKeyLabels(nlohmann::json::parse(GetParam().labels)),
                                      ControllingOwner(nlohmann::json::parse(GetParam().owners))),
            GetParam().key);
}

INSTANTIATE_TEST_SUITE_P(
    Table, WorkloadKeyTest,
    ::testing::Values(
        KeyCase{"none", "null", "{}", "shop/Pod/pod-x"},
        KeyCase{"replicaset_of_deployment",
                R"([{"kind":"ReplicaSet","name":"checkout-6d9f7b","controller":true}])",
                R"({"pod-template-hash":"6d9f7b","app":"checkout"})", "shop/Deployment/checkout"},
        // Without the Deployment's hash label a ReplicaSet is its own workload, whatever its
        // name looks like.
        KeyCase{"replicaset_without_hash_label",
                R"([{"kind":"ReplicaSet","name":"checkout-6d9f7b","controller":true}])", "{}",
                "shop/ReplicaSet/checkout-6d9f7b"},
        KeyCase{"replicaset_other_hash",
                R"([{"kind":"ReplicaSet","name":"checkout-6d9f7b","controller":true}])",
                R"({"pod-template-hash":"abc"})", "shop/ReplicaSet/checkout-6d9f7b"},
        KeyCase{"argo_rollout",
                R"([{"kind":"ReplicaSet","name":"canary-5f8c9","controller":true}])",
                R"({"rollouts-pod-template-hash":"5f8c9"})", "shop/Rollout/canary"},
        KeyCase{"statefulset", R"([{"kind":"StatefulSet","name":"db","controller":true}])", "{}",
                "shop/StatefulSet/db"},
        KeyCase{"not_controller", R"([{"kind":"StatefulSet","name":"db"}])", "{}",
                "shop/Pod/pod-x"},
        KeyCase{"bare_replicaset", R"([{"kind":"ReplicaSet","name":"plain","controller":true}])",
                "{}", "shop/ReplicaSet/plain"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

}  // namespace
}  // namespace headroom::extender

namespace headroom::extender {
namespace {

// spec.resources (pod-level resources), read by the one decoder from the API's objects and the
// scheduler's requests alike; unset requests defaulted as the API does.
TEST(PodDecoder, ReadsPodLevelResources) {
  struct Case {
    const char* name;
    const char* spec;
    PodLevelResources want;
  };
  constexpr int64_t kMi = 1 << 20;
  const Case cases[] = {
      {"none", R"({"containers":[{"name":"a"}]})", {}},
      {"requests and limits",
       R"({"resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"2","memory":"2Gi"}},
           "containers":[{"name":"a"}]})",
       {{1000, 1024 * kMi}, {2000, 2048 * kMi}}},
      {"limits alone: requests from the containers, else the limit",
       R"({"resources":{"limits":{"cpu":"2","memory":"512Mi"}},
           "containers":[{"name":"a","resources":{"requests":{"cpu":"300m"}}},{"name":"b"}]})",
       {{300, 512 * kMi}, {2000, 512 * kMi}}},
      {"other resources only",
       R"({"resources":{"limits":{"hugepages-2Mi":"4Mi"}},
           "containers":[{"name":"a"}]})",
       {}},
  };
  for (const Case& c : cases) {
    const nlohmann::json pod = {{"metadata", {{"name", "p"}, {"namespace", "ns"}}},
                                {"spec", nlohmann::json::parse(c.spec)}};
    absl::StatusOr<PodSpec> spec = DecodePodObject(pod);
    ASSERT_TRUE(spec.ok()) << c.name << ": " << spec.status();
    EXPECT_EQ(spec->pod_level, c.want) << c.name;
  }
  const nlohmann::json bad = {{"metadata", {{"name", "p"}}},
                              {"spec",
                               {{"resources", {{"requests", {{"cpu", "lots"}}}}},
                                {"containers", nlohmann::json::array()}}}};
  absl::StatusOr<PodSpec> refused = DecodePodObject(bad);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("Pod.spec.resources.requests.cpu"), std::string::npos)
      << refused.status();
}

}  // namespace
}  // namespace headroom::extender
