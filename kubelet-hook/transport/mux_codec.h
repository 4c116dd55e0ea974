#pragma once

// NRI's connection multiplexer (containerd/nri pkg/net/multiplex), as pure codecs. The unix
// socket (the "trunk") carries frames: ConnID u32 big-endian, Length u32 big-endian, then Length
// payload bytes. Per ConnID the payloads form one byte stream; frames of different ConnIDs
// interleave anywhere. Connection 1 carries the plugin's ttrpc service, connection 2 the
// runtime's. Upstream: containerd/nri pkg/net/multiplex/mux.go; captured bytes in
// tests/testdata/nri-wire/.

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace headroom::nri {

inline constexpr uint32_t kPluginServiceConn = 1;   // runtime calls the plugin
inline constexpr uint32_t kRuntimeServiceConn = 2;  // plugin calls the runtime
inline constexpr size_t kMuxHeaderBytes = 8;
// Largest payload a Go peer writes in one frame (ttrpc header + ttrpc's maximum message).
inline constexpr uint32_t kMaxMuxPayloadBytes = 10 + (4u << 20);
// Go's ttrpc reads through a 4096-byte bufio.Reader; a larger frame arriving while it reads a
// header fails with ENOMEM, so no frame we send may start a message with more than this.
inline constexpr size_t kGoReadBufferBytes = 4096;

struct MuxFrame {
  uint32_t conn_id = 0;
  std::string payload;

  friend bool operator==(const MuxFrame&, const MuxFrame&) = default;
};

// Frames one whole ttrpc message for `conn_id` exactly as Go's writer does: one frame when it is
// at most 4096 bytes, otherwise the first 4096 bytes and then the rest. Never mixes messages.
std::string EncodeMuxMessage(uint32_t conn_id, absl::string_view message);

// Splits a trunk byte stream into frames. Bytes may arrive in any chunking.
class MuxDecoder {
 public:
  // Appends every frame completed by `bytes` to `frames`. InvalidArgument (and the decoder
  // refuses further input) on ConnID 0 or a length above kMaxMuxPayloadBytes: the trunk is
  // then out of step and must be closed.
  absl::Status Feed(absl::string_view bytes, std::vector<MuxFrame>& frames);

  // Bytes held for a frame not yet complete.
  size_t buffered() const { return buffer_.size(); }

 private:
  std::string buffer_;
  absl::Status broken_;
};

}  // namespace headroom::nri
