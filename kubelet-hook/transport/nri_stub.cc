#include "kubelet-hook/transport/nri_stub.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "kubelet-hook/transport/ttrpc_codec.h"
#include "spdlog/spdlog.h"

namespace headroom::nri {
namespace {

std::string Ok(const google::protobuf::MessageLite& reply) {
  return EncodeOkResponse(reply.SerializeAsString());
}

std::string EmptyOk() { return EncodeOkResponse(""); }

// A call with a reply that can adjust: without a handler or on an undecodable payload, an
// empty success (no adjustment), never an error that would fail the container.
template <typename Request, typename Reply>
std::string Call(const std::string& method, const std::string& payload,
                 const std::function<Reply(const Request&)>& handler) {
  if (!handler) return Ok(Reply());
  Request typed;
  if (!typed.ParseFromString(payload)) {
    spdlog::warn("nri: undecodable {} ({} bytes): no adjustment", method, payload.size());
    return EmptyOk();
  }
  return Ok(handler(typed));
}

constexpr int32_t EventBit(napi::Event event) { return int32_t{1} << (event - 1); }

// A node runs a few hundred containers; a runtime sending more than this is not believed.
constexpr size_t kMaxSynchronized = 20000;

}  // namespace

int32_t SubscribedEvents(const NriHandlers& handlers) {
  int32_t events = 0;
  if (handlers.create_container) events |= EventBit(napi::CREATE_CONTAINER);
  if (handlers.update_container) events |= EventBit(napi::UPDATE_CONTAINER);
  if (handlers.remove_container) events |= EventBit(napi::REMOVE_CONTAINER);
  if (handlers.remove_pod_sandbox) events |= EventBit(napi::REMOVE_POD_SANDBOX);
  return events;
}

NriStub::NriStub(NriHandlers handlers)
    : handlers_(std::move(handlers)), events_(SubscribedEvents(handlers_)) {}

std::string NriStub::runtime() const {
  absl::MutexLock lock(&mu_);
  return runtime_;
}

uint64_t NriStub::requests_served() const {
  absl::MutexLock lock(&mu_);
  return requests_served_;
}

std::string NriStub::Handle(const ttrpc::Request& request) {
  absl::MutexLock lock(&mu_);
  ++requests_served_;
  if (request.service() != kPluginService) {
    return EncodeErrorResponse(RpcCode::kUnimplemented,
                               absl::StrCat("service ", request.service()));
  }
  const std::string& method = request.method();
  const std::string& payload = request.payload();
  if (method == "Configure") return Configure(payload);
  if (method == "Synchronize") return Synchronize(payload);
  if (method == "CreateContainer") return Call(method, payload, handlers_.create_container);
  if (method == "UpdateContainer") return Call(method, payload, handlers_.update_container);
  // Not subscribed, but a runtime may still call it: nothing to adjust.
  if (method == "StopContainer") return Ok(napi::StopContainerResponse());
  if (method == "StateChange") return StateChange(payload);
  if (method == "Shutdown") return EmptyOk();
  // NRI >= v0.12 falls back to StateChange for events whose dedicated call we do not serve.
  return EncodeErrorResponse(RpcCode::kUnimplemented, absl::StrCat("method ", method));
}

std::string NriStub::Configure(const std::string& payload) {
  napi::ConfigureRequest request;
  if (!request.ParseFromString(payload)) {
    spdlog::warn("nri: undecodable Configure ({} bytes); subscribing anyway", payload.size());
  }
  runtime_ = absl::StrCat(request.runtime_name(), " ", request.runtime_version());
  // A new connection: what an earlier one's unfinished Synchronize left is not this node's
  // state any more.
  pending_pods_.clear();
  pending_containers_.clear();
  pending_pods_.shrink_to_fit();
  pending_containers_.shrink_to_fit();
  spdlog::info("nri: configured by {} (request timeout {} ms), events 0x{:x}", runtime_,
               request.request_timeout(), events_);
  if (handlers_.configure) handlers_.configure(runtime_);
  napi::ConfigureResponse reply;
  reply.set_events(events_);
  return Ok(reply);
}

std::string NriStub::Synchronize(const std::string& payload) {
  napi::SynchronizeRequest request;
  if (!request.ParseFromString(payload)) {
    spdlog::warn("nri: undecodable Synchronize ({} bytes): no updates", payload.size());
    return EmptyOk();
  }
  for (const auto& pod : request.pods()) {
    if (pending_pods_.size() < kMaxSynchronized) pending_pods_.push_back(pod);
  }
  for (const auto& container : request.containers()) {
    if (pending_containers_.size() < kMaxSynchronized) pending_containers_.push_back(container);
  }
  if (request.more()) {  // every part but the last is answered with more = true, no updates
    napi::SynchronizeResponse reply;
    reply.set_more(true);
    return Ok(reply);
  }
  napi::SynchronizeResponse reply;
  if (handlers_.synchronize) reply = handlers_.synchronize(pending_pods_, pending_containers_);
  pending_pods_.clear();
  pending_containers_.clear();
  return Ok(reply);
}

std::string NriStub::StateChange(const std::string& payload) {
  napi::StateChangeEvent event;
  if (!event.ParseFromString(payload)) return EmptyOk();
  if (event.event() == napi::REMOVE_CONTAINER && handlers_.remove_container) {
    handlers_.remove_container(event.container());
  } else if (event.event() == napi::REMOVE_POD_SANDBOX && handlers_.remove_pod_sandbox) {
    handlers_.remove_pod_sandbox(event.pod());
  }
  return EmptyOk();
}

}  // namespace headroom::nri
