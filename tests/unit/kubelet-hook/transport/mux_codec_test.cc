// The mux framing: connection 0 and huge frames refused, messages split as Go splits them.

#include "kubelet-hook/transport/mux_codec.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace headroom::nri {
namespace {

TEST(MuxDecoder, RefusesConnectionZeroAndHugeFrames) {
  MuxDecoder zero;
  std::vector<MuxFrame> frames;
  EXPECT_FALSE(zero.Feed(std::string("\0\0\0\0\0\0\0\1x", 9), frames).ok());
  EXPECT_FALSE(zero.Feed("more", frames).ok());  // stays broken
  MuxDecoder huge;
  EXPECT_FALSE(huge.Feed(std::string("\0\0\0\1\x7f\0\0\0", 8), frames).ok());
  EXPECT_TRUE(frames.empty());
}

TEST(EncodeMuxMessage, SplitsLikeGoAt4096) {
  const std::string small = EncodeMuxMessage(1, std::string(4096, 'a'));
  EXPECT_EQ(small.size(), 8u + 4096u);
  const std::string big = EncodeMuxMessage(2, std::string(5000, 'b'));
  MuxDecoder decoder;
  std::vector<MuxFrame> frames;
  ASSERT_TRUE(decoder.Feed(big, frames).ok());
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].payload.size(), 4096u);
  EXPECT_EQ(frames[1].payload.size(), 904u);
  EXPECT_EQ(frames[1].conn_id, 2u);
}

}  // namespace
}  // namespace headroom::nri
