#include "cli/usage_input.h"

#include "cli/recommend_command.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/status_matchers.h"

namespace headroom::cli {
namespace {

using ::headroom::testing::IsOk;
using ::headroom::testing::IsOkAndHolds;
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

TEST(TimestampTest, UnixSecondsAndRfc3339) {
  EXPECT_THAT(ParseTimestamp("1700000000"), IsOkAndHolds(absl::FromUnixSeconds(1700000000)));
  EXPECT_THAT(ParseTimestamp("1700000000.5"), IsOkAndHolds(absl::FromUnixMillis(1700000000500)));
  EXPECT_THAT(ParseTimestamp("2023-11-14T22:13:20Z"),
              IsOkAndHolds(absl::FromUnixSeconds(1700000000)));
  EXPECT_THAT(ParseTimestamp("2023-11-14T23:13:20+01:00"),
              IsOkAndHolds(absl::FromUnixSeconds(1700000000)));
  EXPECT_THAT(ParseTimestamp("1700000000000"),  // milliseconds by mistake
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("between 1970 and 9999")));
  EXPECT_THAT(ParseTimestamp("yesterday"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("RFC 3339")));
  EXPECT_THAT(ParseTimestamp("nan"), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(UsageCsvTest, GroupsByContainerAndSortsByTime) {
  absl::StatusOr<UsageByContainer> usage = ParseUsage(
      "container,timestamp,cpu,memory,oom\n"
      "b,200,1,1Gi,\n"
      "a,300,250m,,\n"
      "a,100,,512Mi,600Mi\r\n"
      "# a comment\n"
      "\n",
      UsageFormat::kAuto);
  ASSERT_THAT(usage, IsOk());
  ASSERT_EQ(usage->size(), 2u);
  const ContainerUsage& a = usage->at("a");
  ASSERT_EQ(a.samples.size(), 2u);
  EXPECT_EQ(a.samples[0].at, absl::FromUnixSeconds(100));
  EXPECT_FALSE(a.samples[0].cpu_millis.has_value());
  EXPECT_EQ(a.samples[0].memory_bytes, 512LL << 20);
  EXPECT_EQ(a.samples[1].cpu_millis, 250);
  ASSERT_EQ(a.ooms.size(), 1u);
  EXPECT_EQ(a.ooms[0].memory_bytes, 600LL << 20);
  EXPECT_EQ(usage->at("b").samples[0].cpu_millis, 1000);
}

struct BadCase {
  const char* name;
  const char* text;
  const char* message;
};

class BadUsageTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadUsageTest, SaysWhereAndWhy) {
  EXPECT_THAT(ParseUsage(GetParam().text, UsageFormat::kAuto),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(GetParam().message)));
}

INSTANTIATE_TEST_SUITE_P(
    Table, BadUsageTest,
    ::testing::Values(
        BadCase{"empty", "", "input is empty"},
        BadCase{"header_only", "container,timestamp,cpu,memory\n", "no samples"},
        BadCase{"bad_header", "name,time,cpu,mem\n", "line 1: expected the header"},
        BadCase{"field_count", "container,timestamp,cpu,memory\na,1,1\n",
                "line 2: expected 4 fields, got 3"},
        BadCase{"bad_cpu", "container,timestamp,cpu,memory\na,1,lots,1\n",
                "line 2 cpu: invalid quantity"},
        BadCase{"bad_time", "container,timestamp,cpu,memory\na,noon,1,1\n", "line 2: timestamp"},
        BadCase{"empty_container", "container,timestamp,cpu,memory\n,1,1,1\n",
                "line 2: container: must not be empty"},
        BadCase{"negative", "container,timestamp,cpu,memory\na,1,-1,1\n", "must not be negative"},
        BadCase{"json_no_samples", "{}", "samples: required"},
        BadCase{"json_type", R"({"samples":{}})", "samples: expected an array"},
        BadCase{"json_container", R"({"samples":[{"timestamp":1}]})",
                "samples[0].container: required"},
        BadCase{"json_time", R"({"samples":[{"container":"a","timestamp":true}]})",
                "samples[0].timestamp: expected a number or an RFC 3339 string"},
        BadCase{"json_quantity", R"({"samples":[{"container":"a","timestamp":1,"memory":"1GB"}]})",
                "samples[0].memory: invalid quantity"},
        BadCase{"json_truncated", R"({"samples":[)", "not valid JSON"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

TEST(UsageJsonTest, ParsesTheDocumentedShape) {
  absl::StatusOr<UsageByContainer> usage = ParseUsage(
      R"({"samples":[{"container":"app","timestamp":"2023-11-14T22:13:20Z","cpu":0.5,
          "memory":"1Gi"},{"container":"app","timestamp":1700000060,"oom":"2Gi"}]})",
      UsageFormat::kJson);
  ASSERT_THAT(usage, IsOk());
  EXPECT_EQ(usage->at("app").samples.size(), 1u);
  EXPECT_EQ(usage->at("app").samples[0].cpu_millis, 500);
  EXPECT_EQ(usage->at("app").ooms[0].memory_bytes, 2LL << 30);
}

TEST(RecommendTextTest, EveryPolicyAnswersForEveryContainer) {
  std::string csv = "container,timestamp,cpu,memory\n";
  for (int minute = 0; minute < 120; ++minute) {
    csv += "app," + std::to_string(1700000000 + minute * 60) + "," +
           (minute % 30 == 0 ? "1" : "200m") + ",256Mi\n";
  }
  absl::StatusOr<std::string> text = RecommendText(csv, UsageFormat::kCsv, RecommendOutput::kJson);
  ASSERT_THAT(text, IsOk());
  const nlohmann::json out = nlohmann::json::parse(*text);
  const nlohmann::json& policies = out["containers"][0]["policies"];
  // headroom requests the peak (1 core spikes within the last hour) and sets no CPU limit;
  // the memory limit is 2 x the 7-day max.
  EXPECT_EQ(policies["headroom"]["request"]["cpuMillis"], 1000);
  EXPECT_EQ(policies["headroom"]["base"]["cpuMillis"], 200);
  EXPECT_TRUE(policies["headroom"]["cpuLimitMillis"].is_null());
  EXPECT_EQ(policies["headroom"]["memoryLimitBytes"], 512LL << 20);
  EXPECT_TRUE(policies["vpa"].contains("upperBound"));
  EXPECT_TRUE(policies["crane"].contains("request"));
  EXPECT_EQ(out["containers"][0]["samples"], 120);
}

}  // namespace
}  // namespace headroom::cli
