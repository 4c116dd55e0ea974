// The HTTP/2 client meter of the report port's front door (extender/h2_meter.h): what a
// node reporter sends passes; floods and malformed framing are stopped, byte-split anyhow.

#include "extender/reports/h2_meter.h"

#include <string>
#include <vector>

#include "extender/reports/report_front_door.h"
#include "gtest/gtest.h"

namespace headroom::extender {
namespace {

constexpr char kPreface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

std::string Frame(uint8_t type, uint8_t flags, uint32_t stream, size_t length) {
  std::string frame = {static_cast<char>(length >> 16), static_cast<char>(length >> 8),
                       static_cast<char>(length),       static_cast<char>(type),
                       static_cast<char>(flags),        static_cast<char>(stream >> 24),
                       static_cast<char>(stream >> 16), static_cast<char>(stream >> 8),
                       static_cast<char>(stream)};
  return frame + std::string(length, 'x');
}
std::string Headers(uint32_t stream, uint8_t flags = 0x4, size_t length = 40) {
  return Frame(1, flags, stream, length);
}
std::string Reset(uint32_t stream) { return Frame(3, 0, stream, 4); }
std::string Settings(bool ack = false) { return Frame(4, ack ? 1 : 0, 0, ack ? 0 : 6); }
std::string Ping(bool ack = false) { return Frame(6, ack ? 1 : 0, 0, 8); }
std::string Data(uint32_t stream, size_t length, bool end) {
  return Frame(0, end ? 1 : 0, stream, length);
}
std::string Continuation(uint32_t stream, bool end, size_t length = 40) {
  return Frame(9, end ? 4 : 0, stream, length);
}

// n copies of what make(i) returns, i = 0..n-1.
template <typename Make>
std::string Repeat(int n, Make make) {
  std::string out;
  for (int i = 0; i < n; ++i) out += make(i);
  return out;
}

struct MeterCase {
  std::string name;
  std::string bytes;  // after the preface unless it says otherwise
  bool with_preface = true;
  absl::StatusCode want;  // kOk: every byte may go to gRPC
};

std::vector<MeterCase> Cases() {
  const std::string report =  // what headroom-nri sends for one report
      Settings() + Frame(8, 0, 0, 4) + Headers(1) + Data(1, 300, true) + Settings(true);
  return {
      {"a report", report, true, absl::StatusCode::kOk},
      {"thirty reports on one connection",
       Settings() +
           Repeat(30, [](int i) { return Headers(1 + 2 * i) + Data(1 + 2 * i, 300, true); }),
       true, absl::StatusCode::kOk},
      {"a report past its deadline, reset", report + Reset(1), true, absl::StatusCode::kOk},
      {"trailers on an open stream do not open a stream",
       Repeat(100, [](int) { return Headers(1); }), true, absl::StatusCode::kOk},
      {"a header block across CONTINUATIONs",
       Headers(1, 0) + Continuation(1, false) + Continuation(1, true), true, absl::StatusCode::kOk},
      {"acknowledgements are free", Repeat(500, [](int) { return Settings(true) + Ping(true); }),
       true, absl::StatusCode::kOk},
      {"rapid reset: 200 streams opened and reset at once",
       Repeat(200, [](int i) { return Headers(1 + 2 * i) + Reset(1 + 2 * i); }), true,
       absl::StatusCode::kResourceExhausted},
      {"200 streams opened at once", Repeat(200, [](int i) { return Headers(1 + 2 * i); }), true,
       absl::StatusCode::kResourceExhausted},
      {"resets of streams never opened", Repeat(50, [](int i) { return Reset(1 + 2 * i); }), true,
       absl::StatusCode::kResourceExhausted},
      {"a ping flood", Repeat(200, [](int) { return Ping(); }), true,
       absl::StatusCode::kResourceExhausted},
      {"a settings flood", Repeat(200, [](int) { return Settings(); }), true,
       absl::StatusCode::kResourceExhausted},
      {"empty DATA frames", Headers(1) + Repeat(200, [](int) { return Data(1, 0, false); }), true,
       absl::StatusCode::kResourceExhausted},
      {"a PRIORITY flood", Repeat(200, [](int i) { return Frame(2, 0, 1 + 2 * i, 5); }), true,
       absl::StatusCode::kResourceExhausted},
      {"endless CONTINUATION",
       Headers(1, 0) + Repeat(2000, [](int) { return Continuation(1, false); }), true,
       absl::StatusCode::kResourceExhausted},
      {"a CONTINUATION out of the blue", Continuation(1, true), true,
       absl::StatusCode::kInvalidArgument},
      {"a header block interrupted", Headers(1, 0) + Ping(), true,
       absl::StatusCode::kInvalidArgument},
      {"HTTP/1.1 instead of the preface", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", false,
       absl::StatusCode::kInvalidArgument},
      {"TLS to a plaintext port", std::string("\x16\x03\x01\x02\x00\x01", 6), false,
       absl::StatusCode::kInvalidArgument},
  };
}

class MeterTest : public ::testing::TestWithParam<MeterCase> {};

TEST_P(MeterTest, JudgesTheBytesHoweverTheyAreSplit) {
  const MeterCase& c = GetParam();
  const std::string bytes = (c.with_preface ? std::string(kPreface) : "") + c.bytes;
  const absl::Time now = absl::FromUnixSeconds(1000);
  for (size_t chunk : {bytes.size(), size_t{1}, size_t{7}, size_t{4096}}) {
    H2ClientMeter meter;
    absl::Status status;
    for (size_t at = 0; at < bytes.size() && status.ok(); at += chunk) {
      status = meter.Feed(absl::string_view(bytes).substr(at, chunk), now);
    }
    EXPECT_EQ(status.code(), c.want) << c.name << ", in chunks of " << chunk << ": " << status;
  }
}

INSTANTIATE_TEST_SUITE_P(Frames, MeterTest, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<MeterCase>& param) {
                           std::string name;
                           for (char ch : param.param.name) {
                             if (std::isalnum(static_cast<unsigned char>(ch))) name += ch;
                           }
                           return name;
                         });

TEST(MeterTest, StreamsRefillWithTime) {
  H2Limits limits;
  limits.stream_burst = 4;
  limits.streams_per_second = 2;
  H2ClientMeter meter(limits);
  absl::Time now = absl::FromUnixSeconds(1000);
  ASSERT_TRUE(meter.Feed(kPreface, now).ok());
  uint32_t stream = 1;
  for (int i = 0; i < 4; ++i, stream += 2) ASSERT_TRUE(meter.Feed(Headers(stream), now).ok());
  // A second later two more fit, a third does not.
  now += absl::Seconds(1);
  ASSERT_TRUE(meter.Feed(Headers(stream), now).ok());
  ASSERT_TRUE(meter.Feed(Headers(stream += 2), now).ok());
  EXPECT_EQ(meter.Feed(Headers(stream += 2), now).code(), absl::StatusCode::kResourceExhausted);
  // Once failed, always failed.
  EXPECT_FALSE(meter.Feed(Settings(true), now + absl::Hours(1)).ok());
  EXPECT_EQ(meter.streams_opened(), 7u);
}

TEST(MeterTest, OneReportAMinuteForADayPasses) {
  H2ClientMeter meter;
  absl::Time now = absl::FromUnixSeconds(1000);
  ASSERT_TRUE(meter.Feed(std::string(kPreface) + Settings(), now).ok());
  for (uint32_t i = 0; i < 24 * 60; ++i, now += absl::Minutes(1)) {
    ASSERT_TRUE(meter.Feed(Headers(1 + 2 * i) + Data(1 + 2 * i, 500, true) + Ping(), now).ok())
        << "report " << i;
  }
}

TEST(TokenBucketTest, NeverHoldsMoreThanItsBurst) {
  TokenBucket bucket(3, 1);
  const absl::Time start = absl::FromUnixSeconds(0);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(bucket.Take(start));
  EXPECT_FALSE(bucket.Take(start));
  const absl::Time later = start + absl::Hours(1);
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(bucket.Take(later));
  EXPECT_FALSE(bucket.Take(later));
  EXPECT_FALSE(bucket.Take(later - absl::Seconds(5))) << "time going back refills nothing";
}

TEST(FdOfGrpcPeerTest, ReadsOnlyFdPeers) {
  EXPECT_EQ(FdOfGrpcPeer("fd:13"), 13);
  EXPECT_EQ(FdOfGrpcPeer("fd:0"), 0);
  EXPECT_EQ(FdOfGrpcPeer("ipv4:127.0.0.1:5000"), std::nullopt);
  EXPECT_EQ(FdOfGrpcPeer("fd:"), std::nullopt);
  EXPECT_EQ(FdOfGrpcPeer("fd:-1"), std::nullopt);
  EXPECT_EQ(FdOfGrpcPeer("fd:12x"), std::nullopt);
  EXPECT_EQ(FdOfGrpcPeer("fd:99999999999"), std::nullopt);
}

TEST(FrontDoorPeersTest, FindsTheLatestPeerOfADescriptor) {
  FrontDoorPeers peers;
  peers.Set(7, {"10.0.0.1", PeerCertificate{{"node-a"}, {}}});
  EXPECT_EQ(peers.Find("fd:7")->certificate->common_names.at(0), "node-a");
  peers.Set(7, {"10.0.0.2", std::nullopt});  // the descriptor reused by a later connection
  EXPECT_EQ(peers.Find("fd:7")->address, "10.0.0.2");
  EXPECT_FALSE(peers.Find("fd:7")->certificate.has_value());
  EXPECT_FALSE(peers.Find("fd:8").has_value());
  EXPECT_FALSE(peers.Find("ipv4:10.0.0.1:1").has_value());
}

}  // namespace
}  // namespace headroom::extender
