#include "kubelet-hook/transport/ttrpc_codec.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kubelet-hook/transport/big_endian.h"

namespace headroom::nri {

std::string EncodeTtrpcMessage(uint32_t stream_id, TtrpcType type, absl::string_view body) {
  std::string out;
  out.reserve(kTtrpcHeaderBytes + body.size());
  AppendU32(static_cast<uint32_t>(body.size()), out);
  AppendU32(stream_id, out);
  out.push_back(static_cast<char>(type));
  out.push_back(0);  // flags: always 0 for unary calls
  out.append(body.data(), body.size());
  return out;
}

void TtrpcStreamDecoder::Feed(absl::string_view bytes, std::vector<TtrpcMessage>& messages) {
  if (skip_ > 0) {
    const size_t dropped = static_cast<size_t>(std::min<uint64_t>(skip_, bytes.size()));
    skip_ -= dropped;
    bytes.remove_prefix(dropped);
  }
  buffer_.append(bytes.data(), bytes.size());
  size_t offset = 0;
  while (buffer_.size() - offset >= kTtrpcHeaderBytes) {
    const char* header = buffer_.data() + offset;
    const uint32_t length = ReadU32(header);
    TtrpcMessage message;
    message.stream_id = ReadU32(header + 4);
    message.type = static_cast<uint8_t>(header[8]);
    message.flags = static_cast<uint8_t>(header[9]);
    if (length > kTtrpcMaxBodyBytes) {
      message.oversized_length = length;
      messages.push_back(std::move(message));
      offset += kTtrpcHeaderBytes;
      const size_t available = buffer_.size() - offset;
      const size_t dropped = std::min<size_t>(length, available);
      offset += dropped;
      skip_ = length - dropped;
      continue;
    }
    if (buffer_.size() - offset - kTtrpcHeaderBytes < length) break;
    message.body = buffer_.substr(offset + kTtrpcHeaderBytes, length);
    messages.push_back(std::move(message));
    offset += kTtrpcHeaderBytes + length;
  }
  buffer_.erase(0, offset);
}

std::string EncodeRequest(absl::string_view service, absl::string_view method,
                          absl::string_view payload, int64_t timeout_nano) {
  ttrpc::Request request;
  request.set_service(std::string(service));
  request.set_method(std::string(method));
  request.set_payload(std::string(payload));
  request.set_timeout_nano(timeout_nano);
  return request.SerializeAsString();
}

std::string EncodeOkResponse(absl::string_view payload) {
  ttrpc::Response response;
  response.set_payload(std::string(payload));
  return response.SerializeAsString();
}

std::string EncodeErrorResponse(RpcCode code, absl::string_view message) {
  ttrpc::Response response;
  response.mutable_status()->set_code(static_cast<int32_t>(code));
  response.mutable_status()->set_message(std::string(message));
  return response.SerializeAsString();
}

absl::StatusOr<ttrpc::Request> DecodeRequest(absl::string_view body) {
  ttrpc::Request request;
  if (!request.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ttrpc request (", body.size(), " bytes)"));
  }
  return request;
}

absl::StatusOr<ttrpc::Response> DecodeResponse(absl::string_view body) {
  ttrpc::Response response;
  if (!response.ParseFromArray(body.data(), static_cast<int>(body.size()))) {
    return absl::InvalidArgumentError(
        absl::StrCat("malformed ttrpc response (", body.size(), " bytes)"));
  }
  return response;
}

absl::StatusOr<std::string> ResponsePayload(const ttrpc::Response& response,
                                            absl::string_view what) {
  if (!response.has_status() || response.status().code() == 0) return response.payload();
  const int32_t code = response.status().code();
  const auto absl_code =
      (code > 0 && code <= 16) ? static_cast<absl::StatusCode>(code) : absl::StatusCode::kUnknown;
  return absl::Status(absl_code, absl::StrCat(what, ": ", response.status().message()));
}

}  // namespace headroom::nri
