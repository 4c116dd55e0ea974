// The NRI stub (kubelet-hook/transport/nri_stub.h): the subscribed events follow the handlers that
// are set, each call reaches its typed handler, and what it cannot decode fails open.

#include "kubelet-hook/transport/nri_stub.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "kubelet-hook/transport/ttrpc_codec.h"

namespace headroom::nri {
namespace {

ttrpc::Request Call(const std::string& method, const std::string& payload) {
  ttrpc::Request request;
  request.set_service(kPluginService);
  request.set_method(method);
  request.set_payload(payload);
  return request;
}

int32_t Configure(NriStub& stub) {
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(Call("Configure", napi::ConfigureRequest().SerializeAsString())));
  EXPECT_TRUE(response.ok());
  napi::ConfigureResponse reply;
  EXPECT_TRUE(reply.ParseFromString(response->payload()));
  return reply.events();
}

TEST(SubscribedEvents, OneBitPerHandlerAsNriNumbersEvents) {
  struct Row {
    const char* name;
    void (*set)(NriHandlers&);
    int32_t bits;
  };
  const std::vector<Row> rows = {
      {"none", [](NriHandlers&) {}, 0},
      {"create (event 4)",
       [](NriHandlers& h) {
         h.create_container = [](const auto&) { return napi::CreateContainerResponse(); };
       },
       0x0008},
      {"update (event 8)",
       [](NriHandlers& h) {
         h.update_container = [](const auto&) { return napi::UpdateContainerResponse(); };
       },
       0x0080},
      {"remove container (event 11)",
       [](NriHandlers& h) { h.remove_container = [](const napi::Container&) {}; }, 0x0400},
      {"remove pod sandbox (event 3)",
       [](NriHandlers& h) { h.remove_pod_sandbox = [](const napi::PodSandbox&) {}; }, 0x0004},
      {"configure and synchronize are no events",
       [](NriHandlers& h) {
         h.configure = [](const std::string&) {};
         h.synchronize = [](const auto&, const auto&) { return napi::SynchronizeResponse(); };
       },
       0},
  };
  for (const Row& row : rows) {
    NriHandlers handlers;
    row.set(handlers);
    EXPECT_EQ(SubscribedEvents(handlers), row.bits) << row.name;
    NriStub stub(handlers);
    EXPECT_EQ(Configure(stub), row.bits) << row.name;
  }
}

TEST(NriStub, EachCallReachesItsTypedHandler) {
  std::vector<std::string> seen;
  NriHandlers handlers;
  handlers.configure = [&](const std::string& runtime) { seen.push_back("configure " + runtime); };
  handlers.create_container = [&](const napi::CreateContainerRequest& r) {
    seen.push_back("create " + r.container().id());
    napi::CreateContainerResponse reply;
    reply.mutable_adjust()
        ->mutable_linux()
        ->mutable_resources()
        ->mutable_cpu()
        ->mutable_quota()
        ->set_value(-1);
    return reply;
  };
  handlers.remove_container = [&](const napi::Container& c) { seen.push_back("remove " + c.id()); };
  handlers.remove_pod_sandbox = [&](const napi::PodSandbox& p) {
    seen.push_back("remove pod " + p.id());
  };
  NriStub stub(handlers);

  napi::ConfigureRequest configure;
  configure.set_runtime_name("containerd");
  configure.set_runtime_version("v2.1.5");
  (void)stub.Handle(Call("Configure", configure.SerializeAsString()));
  EXPECT_EQ(stub.runtime(), "containerd v2.1.5");

  napi::CreateContainerRequest create;
  create.mutable_container()->set_id("c1");
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(Call("CreateContainer", create.SerializeAsString())));
  ASSERT_TRUE(response.ok());
  napi::CreateContainerResponse reply;
  ASSERT_TRUE(reply.ParseFromString(response->payload()));
  EXPECT_EQ(reply.adjust().linux().resources().cpu().quota().value(), -1);

  napi::StateChangeEvent removed;
  removed.set_event(napi::REMOVE_CONTAINER);
  removed.mutable_container()->set_id("c1");
  (void)stub.Handle(Call("StateChange", removed.SerializeAsString()));
  napi::StateChangeEvent pod_removed;
  pod_removed.set_event(napi::REMOVE_POD_SANDBOX);
  pod_removed.mutable_pod()->set_id("p1");
  (void)stub.Handle(Call("StateChange", pod_removed.SerializeAsString()));
  napi::StateChangeEvent started;  // not subscribed: ignored
  started.set_event(napi::START_CONTAINER);
  (void)stub.Handle(Call("StateChange", started.SerializeAsString()));

  EXPECT_EQ(seen, (std::vector<std::string>{"configure containerd v2.1.5", "create c1", "remove c1",
                                            "remove pod p1"}));
  EXPECT_EQ(stub.requests_served(), 5u);
}

TEST(NriStub, SynchronizeJoinsItsPartsBeforeTheHandler) {
  size_t pods = 0, containers = 0;
  int calls = 0;
  NriHandlers handlers;
  handlers.synchronize = [&](const std::vector<napi::PodSandbox>& p,
                             const std::vector<napi::Container>& c) {
    ++calls;
    pods = p.size();
    containers = c.size();
    return napi::SynchronizeResponse();
  };
  NriStub stub(handlers);
  napi::SynchronizeRequest first;
  first.add_pods()->set_id("p1");
  first.add_containers()->set_id("c1");
  first.set_more(true);
  napi::SynchronizeRequest last;
  last.add_pods()->set_id("p2");
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(Call("Synchronize", first.SerializeAsString())));
  napi::SynchronizeResponse reply;
  ASSERT_TRUE(reply.ParseFromString(response->payload()));
  EXPECT_TRUE(reply.more());
  EXPECT_EQ(calls, 0);
  (void)stub.Handle(Call("Synchronize", last.SerializeAsString()));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(pods, 2u);
  EXPECT_EQ(containers, 1u);
}

TEST(NriStub, WhatItCannotHandleFailsOpen) {
  int creates = 0;
  NriHandlers handlers;
  handlers.create_container = [&](const napi::CreateContainerRequest&) {
    ++creates;
    return napi::CreateContainerResponse();
  };
  NriStub stub(handlers);
  // Undecodable: an empty success (no adjustment), never an error that fails the container.
  absl::StatusOr<ttrpc::Response> response =
      DecodeResponse(stub.Handle(Call("CreateContainer", std::string("\xff\xff\xff", 3))));
  ASSERT_TRUE(response.ok());
  EXPECT_FALSE(response->has_status());
  EXPECT_EQ(creates, 0);
  // A call with no handler: nothing to adjust.
  response = DecodeResponse(stub.Handle(Call("UpdateContainer", "")));
  ASSERT_TRUE(response.ok());
  EXPECT_FALSE(response->has_status());
  // Another service or an unknown method: Unimplemented.
  ttrpc::Request other = Call("CreateContainer", "");
  other.set_service("other.Service");
  response = DecodeResponse(stub.Handle(other));
  ASSERT_TRUE(response.ok());
  EXPECT_TRUE(response->has_status());
  response = DecodeResponse(stub.Handle(Call("Frobnicate", "")));
  ASSERT_TRUE(response.ok());
  EXPECT_TRUE(response->has_status());
}

}  // namespace
}  // namespace headroom::nri
