#include "cli/flag_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom::cli {
namespace {

using ::testing::ElementsAre;

TEST(FlagArgsTest, DashesInNamesBecomeUnderscoresButValuesStay) {
  EXPECT_THAT(NormalizeFlagArgs({"--output-dir", "a-b", "--node-shape=4,8Gi",
                                 "-memory-limit-ratio=2", "--input=my-file.json"}),
              ElementsAre("--output_dir", "a-b", "--node_shape=4,8Gi", "-memory_limit_ratio=2",
                          "--input=my-file.json"));
}

TEST(FlagArgsTest, LoneDashJoinsItsFlag) {
  EXPECT_THAT(NormalizeFlagArgs({"--input", "-", "--nopretty"}),
              ElementsAre("--input=-", "--nopretty"));
  EXPECT_THAT(NormalizeFlagArgs({"-"}), ElementsAre("-"));
}

TEST(FlagArgsTest, NothingAfterDoubleDashIsRewritten) {
  EXPECT_THAT(NormalizeFlagArgs({"--a-b", "--", "--c-d"}), ElementsAre("--a_b", "--", "--c-d"));
}

TEST(ParseHostPort, SplitsAtTheLastColonAndChecksThePort) {
  struct Case {
    std::string address;
    bool ok;
    std::string host;
    int port;
  } cases[] = {
      {"0.0.0.0:8888", true, "0.0.0.0", 8888},
      {"127.0.0.1:0", true, "127.0.0.1", 0},
      {":9101", true, "", 9101},
      {"[::1]:80", true, "[::1]", 80},
      {"localhost", false, "", 0},
      {"host:x", false, "", 0},
      {"host:65536", false, "", 0},
      {"host:-1", false, "", 0},
  };
  for (const Case& c : cases) {
    absl::StatusOr<HostPort> parsed = ParseHostPort(c.address, "--http-address");
    ASSERT_EQ(parsed.ok(), c.ok) << c.address;
    if (!c.ok) {
      EXPECT_EQ(parsed.status().message(),
                "--http-address must be host:port, got \"" + c.address + "\"");
      continue;
    }
    EXPECT_EQ(parsed->host, c.host) << c.address;
    EXPECT_EQ(parsed->port, c.port) << c.address;
  }
}

}  // namespace
}  // namespace headroom::cli
