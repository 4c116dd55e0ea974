#include "kubelet-hook/transport/mux_codec.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "kubelet-hook/transport/big_endian.h"

namespace headroom::nri {

namespace {

void AppendFrame(uint32_t conn_id, absl::string_view payload, std::string& out) {
  AppendU32(conn_id, out);
  AppendU32(static_cast<uint32_t>(payload.size()), out);
  out.append(payload.data(), payload.size());
}

}  // namespace

std::string EncodeMuxMessage(uint32_t conn_id, absl::string_view message) {
  std::string out;
  out.reserve(message.size() + 2 * kMuxHeaderBytes);
  if (message.size() <= kGoReadBufferBytes) {
    AppendFrame(conn_id, message, out);
    return out;
  }
  AppendFrame(conn_id, message.substr(0, kGoReadBufferBytes), out);
  AppendFrame(conn_id, message.substr(kGoReadBufferBytes), out);
  return out;
}

absl::Status MuxDecoder::Feed(absl::string_view bytes, std::vector<MuxFrame>& frames) {
  if (!broken_.ok()) return broken_;
  buffer_.append(bytes.data(), bytes.size());
  size_t offset = 0;
  while (buffer_.size() - offset >= kMuxHeaderBytes) {
    const uint32_t conn_id = ReadU32(buffer_.data() + offset);
    const uint32_t length = ReadU32(buffer_.data() + offset + 4);
    if (conn_id == 0) {
      broken_ = absl::InvalidArgumentError("NRI mux frame for reserved connection 0");
      break;
    }
    if (length > kMaxMuxPayloadBytes) {
      broken_ = absl::InvalidArgumentError(absl::StrCat(
          "NRI mux frame of ", length, " bytes exceeds the maximum of ", kMaxMuxPayloadBytes));
      break;
    }
    if (buffer_.size() - offset - kMuxHeaderBytes < length) break;
    frames.push_back(MuxFrame{conn_id, buffer_.substr(offset + kMuxHeaderBytes, length)});
    offset += kMuxHeaderBytes + length;
  }
  buffer_.erase(0, offset);
  if (!broken_.ok()) buffer_.clear();
  return broken_;
}

}  // namespace headroom::nri
