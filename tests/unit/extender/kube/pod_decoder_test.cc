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
