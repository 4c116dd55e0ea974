// NRI mux, ttrpc and NRI protobuf codecs against real traffic between containerd (1.7.29 and
// 2.1.5) and an NRI plugin (tests/testdata/nri-wire, see its README): every message must decode
// and re-encode to the same bytes, and our framing must reproduce Go's byte stream.

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "kubelet-hook/nri_plugin.h"
#include "kubelet-hook/transport/mux_codec.h"
#include "kubelet-hook/transport/ttrpc_codec.h"
#include "nlohmann/json.hpp"
#include "nri/v1alpha1/api.pb.h"
#include "tests/file_contents.h"

namespace headroom::nri {
namespace {

using ::headroom::testing::FileContents;
using ::headroom::testing::SourceFile;

struct RecordedMessage {
  std::string dir;  // "plugin->runtime" or "runtime->plugin"
  uint32_t mux_conn = 0;
  uint32_t stream_id = 0;
  int type = 0;
  std::string method;
  std::string message;  // 10-byte ttrpc header + body
  std::string payload;  // the NRI message
};

std::vector<RecordedMessage> LoadMessages(const std::string& dir) {
  std::vector<RecordedMessage> out;
  const std::string text =
      FileContents(SourceFile("tests/testdata/nri-wire/" + dir + "/messages.jsonl"));
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (end > start) {
      const nlohmann::json line = nlohmann::json::parse(text.substr(start, end - start));
      RecordedMessage m;
      m.dir = line["dir"];
      m.mux_conn = line["mux_conn"];
      m.stream_id = line["stream_id"];
      m.type = line["type"];
      m.method = line["method"];
      m.message = absl::HexStringToBytes(line["ttrpc_message_hex"].get<std::string>());
      m.payload = absl::HexStringToBytes(line["payload_hex"].get<std::string>());
      out.push_back(std::move(m));
    }
    start = end + 1;
  }
  return out;
}

// Decodes a trunk byte stream fed in `chunk`-byte pieces into ttrpc messages, per connection,
// in arrival order.
std::vector<std::pair<uint32_t, std::string>> DecodeStream(const std::string& stream,
                                                           size_t chunk) {
  MuxDecoder mux;
  std::map<uint32_t, TtrpcStreamDecoder> connections;
  std::vector<std::pair<uint32_t, std::string>> out;
  for (size_t offset = 0; offset < stream.size(); offset += chunk) {
    std::vector<MuxFrame> frames;
    EXPECT_TRUE(mux.Feed(absl::string_view(stream).substr(offset, chunk), frames).ok());
    for (const MuxFrame& frame : frames) {
      std::vector<TtrpcMessage> messages;
      connections[frame.conn_id].Feed(frame.payload, messages);
      for (const TtrpcMessage& m : messages) {
        out.emplace_back(frame.conn_id,
                         EncodeTtrpcMessage(m.stream_id, static_cast<TtrpcType>(m.type), m.body));
      }
    }
  }
  EXPECT_EQ(mux.buffered(), 0u);
  return out;
}

std::unique_ptr<google::protobuf::Message> NriMessageFor(const RecordedMessage& m) {
  const bool request = m.type == 1;
  const std::string& k = m.method;
  if (k == "RegisterPlugin") {
    if (request) return std::make_unique<napi::RegisterPluginRequest>();
    return std::make_unique<napi::Empty>();
  }
  if (k == "Configure") {
    if (request) return std::make_unique<napi::ConfigureRequest>();
    return std::make_unique<napi::ConfigureResponse>();
  }
  if (k == "Synchronize") {
    if (request) return std::make_unique<napi::SynchronizeRequest>();
    return std::make_unique<napi::SynchronizeResponse>();
  }
  if (k == "CreateContainer") {
    if (request) return std::make_unique<napi::CreateContainerRequest>();
    return std::make_unique<napi::CreateContainerResponse>();
  }
  if (k == "UpdateContainer") {
    if (request) return std::make_unique<napi::UpdateContainerRequest>();
    return std::make_unique<napi::UpdateContainerResponse>();
  }
  if (k == "StopContainer") {
    if (request) return std::make_unique<napi::StopContainerRequest>();
    return std::make_unique<napi::StopContainerResponse>();
  }
  if (k == "StateChange") {
    if (request) return std::make_unique<napi::StateChangeEvent>();
    return std::make_unique<napi::Empty>();
  }
  return nullptr;
}

class NriWireTest : public ::testing::TestWithParam<std::string> {};

TEST_P(NriWireTest, EveryMessageDecodesAndReencodesByteForByte) {
  const std::vector<RecordedMessage> messages = LoadMessages(GetParam());
  ASSERT_EQ(messages.size(), 36u);
  for (const RecordedMessage& m : messages) {
    SCOPED_TRACE(m.dir + " " + m.method + " stream " + std::to_string(m.stream_id));
    std::vector<TtrpcMessage> decoded;
    TtrpcStreamDecoder decoder;
    decoder.Feed(m.message, decoded);
    ASSERT_EQ(decoded.size(), 1u);
    EXPECT_EQ(decoded[0].stream_id, m.stream_id);
    EXPECT_EQ(decoded[0].type, m.type);
    EXPECT_EQ(EncodeTtrpcMessage(decoded[0].stream_id, static_cast<TtrpcType>(decoded[0].type),
                                 decoded[0].body),
              m.message);
    std::string payload;
    if (m.type == 1) {
      absl::StatusOr<ttrpc::Request> request = DecodeRequest(decoded[0].body);
      ASSERT_TRUE(request.ok());
      EXPECT_EQ(request->method(), m.method);
      EXPECT_EQ(request->SerializeAsString(), decoded[0].body);
      payload = request->payload();
    } else {
      absl::StatusOr<ttrpc::Response> response = DecodeResponse(decoded[0].body);
      ASSERT_TRUE(response.ok());
      EXPECT_FALSE(response->has_status());  // Go sends no status on success
      EXPECT_EQ(response->SerializeAsString(), decoded[0].body);
      payload = response->payload();
    }
    EXPECT_EQ(payload, m.payload);
    std::unique_ptr<google::protobuf::Message> nri = NriMessageFor(m);
    ASSERT_NE(nri, nullptr) << m.method;
    ASSERT_TRUE(nri->ParseFromString(payload));
    // Nothing the runtime sent is unknown to our .proto, and it re-encodes identically.
    EXPECT_EQ(nri->SerializeAsString(), payload);
  }
}

TEST_P(NriWireTest, TrunkStreamsSplitIntoTheRecordedMessagesInAnyChunking) {
  const std::vector<RecordedMessage> messages = LoadMessages(GetParam());
  for (const std::string dir : {"runtime-to-plugin", "plugin-to-runtime"}) {
    const std::string arrow = dir == "runtime-to-plugin" ? "runtime->plugin" : "plugin->runtime";
    std::vector<std::pair<uint32_t, std::string>> expected;
    for (const RecordedMessage& m : messages) {
      if (m.dir == arrow) expected.emplace_back(m.mux_conn, m.message);
    }
    const std::string stream =
        FileContents(SourceFile("tests/testdata/nri-wire/" + GetParam() + "/" + dir + ".bin"));
    ASSERT_FALSE(stream.empty());
    for (size_t chunk : {size_t{1}, size_t{7}, size_t{4096}, size_t{65536}}) {
      SCOPED_TRACE(dir + " chunk " + std::to_string(chunk));
      EXPECT_EQ(DecodeStream(stream, chunk), expected);
    }
  }
}

TEST_P(NriWireTest, OurFramingReproducesGosByteStream) {
  const std::vector<RecordedMessage> messages = LoadMessages(GetParam());
  for (const std::string dir : {"runtime-to-plugin", "plugin-to-runtime"}) {
    const std::string arrow = dir == "runtime-to-plugin" ? "runtime->plugin" : "plugin->runtime";
    std::string framed;
    for (const RecordedMessage& m : messages) {
      if (m.dir == arrow) framed += EncodeMuxMessage(m.mux_conn, m.message);
    }
    EXPECT_EQ(framed, FileContents(
                          SourceFile("tests/testdata/nri-wire/" + GetParam() + "/" + dir + ".bin")))
        << dir;
  }
}

TEST_P(NriWireTest, RejectedRegistrationCarriesTheRuntimesError) {
  const std::vector<RecordedMessage> messages = LoadMessages(GetParam() + "/register-error");
  ASSERT_EQ(messages.size(), 2u);
  ASSERT_EQ(messages[1].type, 2);
  absl::StatusOr<ttrpc::Response> response = DecodeResponse(messages[1].message.substr(10));
  ASSERT_TRUE(response.ok());
  absl::StatusOr<std::string> payload = ResponsePayload(*response, "RegisterPlugin");
  EXPECT_EQ(payload.status().code(), absl::StatusCode::kUnknown);
  EXPECT_THAT(std::string(payload.status().message()), ::testing::HasSubstr("RegisterPlugin: "));
  EXPECT_EQ(response->SerializeAsString(), messages[1].message.substr(10));
}

INSTANTIATE_TEST_SUITE_P(ContainerdVersions, NriWireTest, ::testing::Values("1.7.29", "2.1.5"),
                         [](const auto& instantiation) {
                           std::string name = "containerd_" + instantiation.param;
                           for (char& c : name) {
                             if (c == '.') c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace headroom::nri
