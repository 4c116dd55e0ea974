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

}  // namespace
}  // namespace headroom::cli
