#pragma once

// ttrpc framing (containerd/ttrpc), as pure codecs. A message is a 10-byte header -- Length u32
// big-endian (body only), StreamID u32 big-endian, Type u8, Flags u8 -- and a body: a
// ttrpc.Request for type 1, a ttrpc.Response for type 2. Unary calls use flags 0; clients use
// odd stream IDs, 1, 3, 5, ...; the server echoes the ID. Upstream: containerd/ttrpc channel.go;
// captured bytes in tests/testdata/nri-wire/ (golden vectors, README per containerd version).

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ttrpc/ttrpc.pb.h"

namespace headroom::nri {

inline constexpr size_t kTtrpcHeaderBytes = 10;
inline constexpr uint32_t kTtrpcMaxBodyBytes = 4u << 20;

enum class TtrpcType : uint8_t { kRequest = 1, kResponse = 2, kData = 3 };

// gRPC status codes ttrpc carries.
enum class RpcCode : int32_t {
  kOk = 0,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kResourceExhausted = 8,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
};

struct TtrpcMessage {
  uint32_t stream_id = 0;
  uint8_t type = 0;  // a TtrpcType value; others are passed through (and ignored by servers)
  uint8_t flags = 0;
  std::string body;
  // Set instead of `body` when the header announced more than kTtrpcMaxBodyBytes: the body was
  // skipped, and a server answers the stream with RESOURCE_EXHAUSTED, as Go's does.
  uint32_t oversized_length = 0;

  friend bool operator==(const TtrpcMessage&, const TtrpcMessage&) = default;
};

std::string EncodeTtrpcMessage(uint32_t stream_id, TtrpcType type, absl::string_view body);

// Reassembles ttrpc messages from one mux connection's byte stream, in any chunking.
class TtrpcStreamDecoder {
 public:
  void Feed(absl::string_view bytes, std::vector<TtrpcMessage>& messages);
  size_t buffered() const { return buffer_.size(); }

 private:
  std::string buffer_;
  uint64_t skip_ = 0;  // body bytes of an oversized message still to drop
};

// Envelopes.
std::string EncodeRequest(absl::string_view service, absl::string_view method,
                          absl::string_view payload, int64_t timeout_nano);
// A success: no status field, the reply in payload (omitted when empty), as Go's server sends.
std::string EncodeOkResponse(absl::string_view payload);
std::string EncodeErrorResponse(RpcCode code, absl::string_view message);

absl::StatusOr<ttrpc::Request> DecodeRequest(absl::string_view body);
absl::StatusOr<ttrpc::Response> DecodeResponse(absl::string_view body);

// The reply payload of `response`, or the error it carries as an absl::Status (gRPC codes map
// one to one onto absl codes) naming `what` for context.
absl::StatusOr<std::string> ResponsePayload(const ttrpc::Response& response,
                                            absl::string_view what);

}  // namespace headroom::nri
