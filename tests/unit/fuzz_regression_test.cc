// Every input in tests/testdata/fuzz-regressions/ goes through the decoders the fuzzers
// target: each must be answered (a value or a clear error) without a crash, under the
// sanitizers of the test build.

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "extender/cluster_view.h"
#include "extender/extender_wire.h"
#include "extender/judge.h"
#include "gtest/gtest.h"
#include "shared/quantity.h"
#include "tests/file_contents.h"

namespace headroom {
namespace {

using ::headroom::testing::FileContents;

const std::filesystem::path kRegressions =
    std::filesystem::path(HEADROOM_SOURCE_DIR) / "tests/testdata/fuzz-regressions";

TEST(FuzzRegressionTest, ExtenderRequestsAreAnsweredOrRefused) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "extender")) {
    const std::string body = FileContents(entry.path());
    absl::StatusOr<extender::ExtenderArgs> args = extender::DecodeExtenderArgs(body);
    if (args.ok()) {
      extender::ClusterView view({});
      const extender::FilterOutcome outcome =
          extender::FilterNodes(*args, view, absl::FromUnixSeconds(1));
      EXPECT_FALSE(extender::EncodeFilterResult(*args, outcome.result).empty())
          << entry.path().filename();
    } else {
      EXPECT_FALSE(args.status().message().empty()) << entry.path().filename();
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 7);
}

TEST(FuzzRegressionTest, QuantitiesParseOrAreRefused) {
  int inputs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kRegressions / "quantity")) {
    const std::string text = FileContents(entry.path());
    absl::StatusOr<int64_t> millis = ParseCpuMillis(text);
    if (millis.ok()) {
      EXPECT_EQ(ParseCpuMillis(FormatCpuMillis(*millis)).value_or(-1), *millis);
    }
    ++inputs;
  }
  EXPECT_GE(inputs, 6);
}

}  // namespace
}  // namespace headroom
