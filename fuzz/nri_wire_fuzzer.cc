// libFuzzer target for everything headroom-nri decodes from the runtime: the mux framing, ttrpc
// messages and envelopes, and the NRI protobuf messages through the Plugin service's handlers
// (as the reader thread would run them). Seeds: the recorded containerd streams in
// tests/testdata/nri-wire. The first byte picks the chunk size, so frames and messages split at
// every boundary.

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "absl/time/time.h"
#include "kubelet-hook/node_state.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/transport/mux_codec.h"
#include "kubelet-hook/transport/ttrpc_codec.h"
#include "spdlog/spdlog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace headroom::nri;
  static const bool quiet = [] {
    spdlog::set_level(spdlog::level::off);
    return true;
  }();
  (void)quiet;
  if (size == 0) return 0;
  const size_t chunk = 1 + data[0] % 64 * 97;
  absl::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  NodeState state;
  NriPlugin plugin({}, state, [] { return absl::FromUnixSeconds(1795331119); });
  NriStub stub(plugin.Handlers());
  MuxDecoder mux;
  std::map<uint32_t, TtrpcStreamDecoder> connections;
  for (size_t offset = 0; offset < input.size(); offset += chunk) {
    std::vector<MuxFrame> frames;
    const bool ok = mux.Feed(input.substr(offset, chunk), frames).ok();
    for (const MuxFrame& frame : frames) {
      std::vector<TtrpcMessage> messages;
      connections[frame.conn_id].Feed(frame.payload, messages);
      for (const TtrpcMessage& message : messages) {
        if (message.type == static_cast<uint8_t>(TtrpcType::kRequest)) {
          absl::StatusOr<ttrpc::Request> request = DecodeRequest(message.body);
          if (request.ok()) {
            // Route everything to the Plugin service, whatever the recorded service was.
            request->set_service(kPluginService);
            const std::string reply = stub.Handle(*request);
            if (!DecodeResponse(reply).ok()) __builtin_trap();  // our replies always decode
          }
        } else {
          absl::StatusOr<ttrpc::Response> response = DecodeResponse(message.body);
          if (response.ok()) ResponsePayload(*response, "fuzz").IgnoreError();
        }
      }
    }
    if (!ok) break;
  }
  return 0;
}
