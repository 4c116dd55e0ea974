// The ttrpc stream decoder skips a body over its bound and stays in step.

#include "kubelet-hook/transport/ttrpc_codec.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

TEST(TtrpcStreamDecoder, SkipsOversizedBodiesAndStaysInStep) {
  std::string header;
  header += std::string("\x00\x50\x00\x01", 4);  // length 0x500001 > 4 MiB
  header += std::string("\x00\x00\x00\x03\x01\x00", 6);
  TtrpcStreamDecoder decoder;
  std::vector<TtrpcMessage> messages;
  decoder.Feed(header, messages);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].oversized_length, 0x500001u);
  decoder.Feed(std::string(0x500001, 'x'), messages);
  decoder.Feed(EncodeTtrpcMessage(5, TtrpcType::kRequest, "abc"), messages);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].stream_id, 5u);
  EXPECT_EQ(messages[1].body, "abc");
}

}  // namespace
}  // namespace headroom::nri
