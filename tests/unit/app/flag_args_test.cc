#include "app/flag_args.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace headroom::app {
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

TEST(ConfigFileArgs, EachKeyBecomesAFlagBeforeTheCommandLine) {
  absl::StatusOr<std::vector<std::string>> args =
      ConfigFileArgs("scoring: pack\nplacement-ttl: 90s\ncordon_above: 1.5\n");
  ASSERT_TRUE(args.ok()) << args.status();
  EXPECT_EQ(*args, (std::vector<std::string>{"--scoring=pack", "--placement-ttl=90s",
                                             "--cordon_above=1.5"}));
  EXPECT_TRUE(ConfigFileArgs("").ok());
  EXPECT_TRUE(ConfigFileArgs("")->empty());
}

TEST(ConfigFileArgs, RefusesWhatIsNotAFlatMap) {
  struct Case {
    const char* yaml;
    const char* message;
  };
  for (const Case& c : {Case{"- a\n- b\n", "map"}, Case{"scoring: [pack]\n", "scoring"},
                        Case{"tls: {cert: a}\n", "tls"}, Case{"config: other.yaml\n", "nest"},
                        Case{"a: [\n", "YAML"}}) {
    absl::StatusOr<std::vector<std::string>> args = ConfigFileArgs(c.yaml);
    ASSERT_FALSE(args.ok()) << c.yaml;
    EXPECT_THAT(std::string(args.status().message()), ::testing::HasSubstr(c.message)) << c.yaml;
  }
}

TEST(ConfigFlagValue, FindsBothSpellingsAndStopsAtDoubleDash) {
  EXPECT_EQ(ConfigFlagValue({"--config=/etc/h.yaml"}), "/etc/h.yaml");
  EXPECT_EQ(ConfigFlagValue({"--scoring=pack", "--config", "c.yaml"}), "c.yaml");
  EXPECT_EQ(ConfigFlagValue({"--scoring=pack"}), "");
  EXPECT_EQ(ConfigFlagValue({"--", "--config=x"}), "");
  EXPECT_EQ(ConfigFlagValue({"--config"}), "");
}

TEST(FlagHelp, DashedSortedWrappedAndWithoutFileNames) {
  const std::string help =
      FlagHelp("headroom-nri", "NRI plugin.\nUsage: headroom-nri [--socket=S]",
               {{"state_dir", "", "Directory for node-stats.json; empty: none."},
                {"interval", "1m",
                 std::string(30, 'x') + " " + std::string(30, 'y') + " " + std::string(30, 'z')}});
  EXPECT_EQ(help,
            "headroom-nri: NRI plugin.\nUsage: headroom-nri [--socket=S]\n\n"
            "Flags (also as \"name: value\" lines of --config):\n"
            "  --interval=1m\n"
            "      " +
                std::string(30, 'x') + " " + std::string(30, 'y') +
                "\n"
                "      " +
                std::string(30, 'z') +
                "\n"
                "  --state-dir=\"\"\n"
                "      Directory for node-stats.json; empty: none.\n");
}

}  // namespace
}  // namespace headroom::app
