#pragma once

// What headroom-nri's unit tests share: a container's CreateContainer request as containerd
// sends it, the Plugin service's answer through the stub, and a cgroup tree in a temporary
// directory.

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "kubelet-hook/transport/nri_stub.h"
#include "kubelet-hook/transport/ttrpc_codec.h"
#include "nri/v1alpha1/api.pb.h"

namespace headroom::nri {

inline constexpr int64_t kMi = 1024 * 1024;

inline ttrpc::Request PluginRequest(const std::string& method,
                                    const google::protobuf::MessageLite& m) {
  ttrpc::Request request;
  request.set_service(kPluginService);
  request.set_method(method);
  request.set_payload(m.SerializeAsString());
  return request;
}

inline napi::CreateContainerRequest CreateRequest(const std::string& pod_name,
                                                  const std::string& id, int64_t quota,
                                                  int64_t memory) {
  napi::CreateContainerRequest request;
  request.mutable_pod()->set_id("pod-" + pod_name);
  request.mutable_pod()->set_name(pod_name);
  request.mutable_pod()->set_namespace_("ns");
  request.mutable_container()->set_id(id);
  request.mutable_container()->set_name("app");
  auto* resources = request.mutable_container()->mutable_linux()->mutable_resources();
  resources->mutable_cpu()->mutable_quota()->set_value(quota);
  resources->mutable_cpu()->mutable_period()->set_value(100000);
  resources->mutable_memory()->mutable_limit()->set_value(memory);
  request.mutable_container()->mutable_linux()->set_cgroups_path("/pods/" + id);
  return request;
}

inline napi::CreateContainerResponse Create(NriStub& stub, const napi::CreateContainerRequest& r) {
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(PluginRequest("CreateContainer", r)));
  EXPECT_TRUE(response.ok());
  EXPECT_FALSE(response->has_status());
  napi::CreateContainerResponse reply;
  EXPECT_TRUE(reply.ParseFromString(response->payload()));
  return reply;
}

class CgroupTreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("headroom-cgroup-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& relative, const std::string& text) {
    const auto path = root_ / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path) << text;
  }
  std::filesystem::path root_;
};

}  // namespace headroom::nri
