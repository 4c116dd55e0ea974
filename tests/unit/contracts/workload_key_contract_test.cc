// The workload key is a contract between headroom-nri (which files a container's statistics
// under it) and headroom-extender (which sizes pods, verifies reports and checkpoints under
// it). For pods as the real controllers create them, every reader of the key must agree:
// the webhook (which decides it and writes it on the pod), the filter's Pod decoder, the
// pod watch's decoder that verifies reports, and the node's NriPlugin, which sees only the
// sandbox's name, labels and annotations (shared/workload_key.h).

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "extender/admission/admission.h"
#include "extender/kube/pod_index.h"
#include "extender/reports/report_verification.h"
#include "extender/scheduler/extender_wire.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/transport/ttrpc_codec.h"  // ttrpc::Request
#include "shared/annotations.h"

namespace headroom {
namespace {

using json = nlohmann::json;
namespace napi = nri::napi;

struct RealPod {
  const char* what;
  // metadata as the controller sends it to the API server (before the webhook): labels,
  // ownerReferences, generateName or name.
  const char* metadata;
  const char* assigned_name;  // the name the API server gives it
  const char* key;            // the workload key every side must use
  bool node_alone_agrees;     // the node's inference gives `key` without the webhook's annotation
};

// Labels, owners and names as kube-controller-manager v1.34 (and Argo Rollouts, KubeVirt)
// write them.
const RealPod kPods[] = {
    {"Deployment",
     R"({"generateName":"web-5d8f9c7b4d-","labels":{"app":"web","pod-template-hash":"5d8f9c7b4d"},
         "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-5d8f9c7b4d",
           "uid":"0b6f5c1e-1","controller":true,"blockOwnerDeletion":true}]})",
     "web-5d8f9c7b4d-x7k2p", "shop/Deployment/web", true},
    {"Deployment named like its hash",
     R"({"generateName":"api-v2-7c9d-","labels":{"app":"api","pod-template-hash":"7c9d"},
         "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"api-v2-7c9d",
           "uid":"0b6f5c1e-2","controller":true,"blockOwnerDeletion":true}]})",
     "api-v2-7c9d-q2w3e", "shop/Deployment/api-v2", true},
    {"StatefulSet",
     R"({"name":"db-0","labels":{"app":"db","apps.kubernetes.io/pod-index":"0",
         "controller-revision-hash":"db-6b9c8d7f5","statefulset.kubernetes.io/pod-name":"db-0"},
         "ownerReferences":[{"apiVersion":"apps/v1","kind":"StatefulSet","name":"db",
           "uid":"0b6f5c1e-3","controller":true,"blockOwnerDeletion":true}]})",
     "db-0", "shop/StatefulSet/db", true},
    {"DaemonSet",
     R"({"generateName":"agent-","labels":{"app":"agent","controller-revision-hash":"6f9c8b7d5",
         "pod-template-generation":"1"},
         "ownerReferences":[{"apiVersion":"apps/v1","kind":"DaemonSet","name":"agent",
           "uid":"0b6f5c1e-4","controller":true,"blockOwnerDeletion":true}]})",
     "agent-4hx2p", "shop/DaemonSet/agent", true},
    {"Job",
     R"({"generateName":"migrate-","labels":{"batch.kubernetes.io/controller-uid":"0b6f5c1e-5",
         "batch.kubernetes.io/job-name":"migrate","controller-uid":"0b6f5c1e-5",
         "job-name":"migrate"},
         "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"migrate",
           "uid":"0b6f5c1e-5","controller":true,"blockOwnerDeletion":true}]})",
     "migrate-q8k2l", "shop/Job/migrate", true},
    {"CronJob's Job",
     R"({"generateName":"nightly-29400000-","labels":{
         "batch.kubernetes.io/controller-uid":"0b6f5c1e-6",
         "batch.kubernetes.io/job-name":"nightly-29400000","controller-uid":"0b6f5c1e-6",
         "job-name":"nightly-29400000"},
         "ownerReferences":[{"apiVersion":"batch/v1","kind":"Job","name":"nightly-29400000",
           "uid":"0b6f5c1e-6","controller":true,"blockOwnerDeletion":true}]})",
     "nightly-29400000-h5t7z", "shop/CronJob/nightly", true},
    {"bare pod", R"({"name":"lonely","labels":{"app":"lonely"}})", "lonely", "shop/Pod/lonely",
     true},
    {"bare pod with generateName", R"({"generateName":"scratch-"})", "scratch-m4n5b",
     "shop/Pod/scratch-m4n5b", true},
    {"ReplicaSet without a Deployment",
     R"({"generateName":"plain-","labels":{"app":"plain"},
         "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"plain",
           "uid":"0b6f5c1e-7","controller":true,"blockOwnerDeletion":true}]})",
     "plain-x2x9k", "shop/ReplicaSet/plain", false},
    {"Argo Rollout",
     R"({"generateName":"canary-5f8c9d6b7-","labels":{"app":"canary",
         "rollouts-pod-template-hash":"5f8c9d6b7"},
         "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"canary-5f8c9d6b7",
           "uid":"0b6f5c1e-8","controller":true,"blockOwnerDeletion":true}]})",
     "canary-5f8c9d6b7-q2w3e", "shop/Rollout/canary", true},
    {"custom controller (KubeVirt)",
     R"({"generateName":"virt-launcher-vm1-","labels":{"kubevirt.io":"virt-launcher",
         "vm.kubevirt.io/name":"vm1"},
         "ownerReferences":[{"apiVersion":"kubevirt.io/v1","kind":"VirtualMachineInstance",
           "name":"vm1","uid":"0b6f5c1e-9","controller":true,"blockOwnerDeletion":true}]})",
     "virt-launcher-vm1-abcde", "shop/VirtualMachineInstance/vm1", false},
};

void PrintTo(const RealPod& pod, std::ostream* out) { *out << pod.what; }

json PodObject(const RealPod& real) {
  json metadata = json::parse(real.metadata);
  metadata["namespace"] = "shop";
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", metadata},
          {"spec",
           {{"containers",
             {{{"name", "app"},
               {"resources", {{"requests", {{"cpu", "500m"}, {"memory", "256Mi"}}}}}}}}}}};
}

json Review(const json& pod) {
  return {{"apiVersion", "admission.k8s.io/v1"},
          {"kind", "AdmissionReview"},
          {"request",
           {{"uid", "review-1"},
            {"operation", "CREATE"},
            {"namespace", "shop"},
            {"resource", {{"group", ""}, {"version", "v1"}, {"resource", "pods"}}},
            {"object", pod}}}};
}

// The pod as stored: the webhook's patch applied, then the name, UID and node the API server
// and the scheduler give it.
json Stored(json pod, const json& patch, const RealPod& real) {
  pod = pod.patch(patch);
  pod["metadata"]["name"] = real.assigned_name;
  pod["metadata"]["uid"] = std::string("uid-") + real.assigned_name;
  pod["spec"]["nodeName"] = "node-a";
  return pod;
}

// The workload key headroom-nri gives the pod's container: the sandbox as the kubelet asks
// containerd for it (the pod's labels plus the kubelet's own, its annotations), through the
// plugin's CreateContainer.
std::string NodeKey(const json& pod) {
  nri::NodeState state;
  nri::NriPlugin plugin({}, state, [] { return absl::FromUnixSeconds(1'795'300'000); });
  nri::NriStub stub(plugin.Handlers());
  napi::CreateContainerRequest request;
  napi::PodSandbox& sandbox = *request.mutable_pod();
  const json& metadata = pod["metadata"];
  sandbox.set_id("sandbox-1");
  sandbox.set_name(metadata["name"].get<std::string>());
  sandbox.set_namespace_(metadata["namespace"].get<std::string>());
  sandbox.set_uid(metadata["uid"].get<std::string>());
  auto add = [](google::protobuf::RepeatedPtrField<napi::StringEntry>& entries,
                const std::string& key, const std::string& value) {
    napi::StringEntry* entry = entries.Add();
    entry->set_key(key);
    entry->set_value(value);
  };
  if (metadata.contains("labels")) {
    for (const auto& [key, value] : metadata["labels"].items()) {
      add(*sandbox.mutable_labels(), key, value.get<std::string>());
    }
  }
  add(*sandbox.mutable_labels(), "io.kubernetes.pod.name", sandbox.name());
  add(*sandbox.mutable_labels(), "io.kubernetes.pod.namespace", sandbox.namespace_());
  add(*sandbox.mutable_labels(), "io.kubernetes.pod.uid", sandbox.uid());
  if (metadata.contains("annotations")) {
    for (const auto& [key, value] : metadata["annotations"].items()) {
      add(*sandbox.mutable_annotations(), key, value.get<std::string>());
    }
  }
  add(*sandbox.mutable_annotations(), "kubernetes.io/config.source", "api");
  request.mutable_container()->set_id("container-1");
  request.mutable_container()->set_name("app");
  request.mutable_container()->set_pod_sandbox_id("sandbox-1");
  ttrpc::Request call;
  call.set_service(nri::kPluginService);
  call.set_method("CreateContainer");
  call.set_payload(request.SerializeAsString());
  stub.Handle(call);
  const std::optional<nri::TrackedContainer> tracked = state.Get("container-1");
  return tracked.has_value() ? tracked->workload_key : "(not tracked)";
}

class WorkloadKeyContract : public ::testing::TestWithParam<RealPod> {};

TEST_P(WorkloadKeyContract, EverySideGivesThePodTheSameKey) {
  const RealPod& real = GetParam();
  const json created = PodObject(real);

  // The webhook decides the key and writes it on the pod.
  const absl::StatusOr<extender::AdmissionDecision> decision =
      extender::DecideAdmission(Review(created),
                                [](const std::string&, const std::string&) {
                                  return std::optional<extender::WorkloadContainerStats>();
                                },
                                {});
  ASSERT_TRUE(decision.ok()) << decision.status();
  const json stored = Stored(created, decision->patch, real);
  const json annotations = stored["metadata"].value("annotations", json::object());
  if (created["metadata"].contains("name") || created["metadata"].contains("ownerReferences")) {
    EXPECT_EQ(decision->workload_key, real.key);
    EXPECT_EQ(annotations.value(std::string(kWorkloadAnnotation), ""), real.key);
  } else {
    // No owner and no name yet: nothing to write; the node names it as the cluster does.
    EXPECT_FALSE(annotations.contains(std::string(kWorkloadAnnotation)));
  }

  // The extender's two decoders of the stored pod: the filter's and the pod watch's.
  absl::StatusOr<extender::PodSpec> filtered = extender::DecodePodObject(stored);
  ASSERT_TRUE(filtered.ok()) << filtered.status();
  EXPECT_EQ(filtered->workload_key, real.key);
  absl::StatusOr<extender::ApiPod> watched = extender::DecodeApiPod(stored);
  ASSERT_TRUE(watched.ok()) << watched.status();
  EXPECT_EQ(extender::ApiWorkloadKey(*watched), real.key);

  // The node, from the sandbox, reports that key, and the extender verifies it.
  const std::string node_key = NodeKey(stored);
  EXPECT_EQ(node_key, real.key);
  headroom::ReportedPod reported;
  reported.pod_namespace = "shop";
  reported.name = real.assigned_name;
  reported.uid = std::string("uid-") + real.assigned_name;
  reported.workload_key = node_key;
  EXPECT_EQ(extender::PodMismatch(reported, "node-a", *watched), "");

  // Without the webhook (it was down: failurePolicy Ignore) the node infers the key from the
  // labels and name; where that cannot name the owner, the extender refuses the report's key
  // for this pod rather than file its statistics under the wrong workload.
  json unannotated = stored;
  unannotated["metadata"]["annotations"] = annotations;
  unannotated["metadata"]["annotations"].erase(std::string(kWorkloadAnnotation));
  reported.workload_key = NodeKey(unannotated);
  EXPECT_EQ(reported.workload_key == real.key, real.node_alone_agrees) << reported.workload_key;
  EXPECT_EQ(extender::PodMismatch(reported, "node-a", *watched).empty(), real.node_alone_agrees);
}

INSTANTIATE_TEST_SUITE_P(RealPods, WorkloadKeyContract, ::testing::ValuesIn(kPods),
                         [](const ::testing::TestParamInfo<RealPod>& info) {
                           std::string name;
                           for (const char* c = info.param.what; *c != '\0'; ++c) {
                             if (std::isalnum(static_cast<unsigned char>(*c))) name += *c;
                           }
                           return name;
                         });

// A pod that comes with someone else's key (copied from another pod, or forged) has it
// replaced by the webhook; if the webhook did not run, the node files under the forged key
// but the extender refuses it.
TEST(WorkloadKeyContract, AForgedKeyIsReplacedOrRefused) {
  RealPod real = kPods[0];
  json created = PodObject(real);
  created["metadata"]["annotations"] = {{std::string(kWorkloadAnnotation), "shop/Deployment/pay"}};
  const absl::StatusOr<extender::AdmissionDecision> decision =
      extender::DecideAdmission(Review(created),
                                [](const std::string&, const std::string&) {
                                  return std::optional<extender::WorkloadContainerStats>();
                                },
                                {});
  ASSERT_TRUE(decision.ok());
  const json stored = Stored(created, decision->patch, real);
  EXPECT_EQ(NodeKey(stored), "shop/Deployment/web");

  const json forged = Stored(created, json::array(), real);
  headroom::ReportedPod reported;
  reported.pod_namespace = "shop";
  reported.name = real.assigned_name;
  reported.uid = std::string("uid-") + real.assigned_name;
  reported.workload_key = NodeKey(forged);
  EXPECT_EQ(reported.workload_key, "shop/Deployment/pay");
  EXPECT_NE(extender::PodMismatch(reported, "node-a", *extender::DecodeApiPod(forged)), "");
}

}  // namespace
}  // namespace headroom
