// The one quantity reader (codec/json_fields.h) that the strict and lenient JSON readers,
// the extender's simdjson wire decoder and the CLI's CSV reader share.

#include <string>
#include <vector>

#include "codec/json_fields.h"
#include "gtest/gtest.h"

namespace headroom::codec {
namespace {

TEST(QuantityFromJson, StringsAndNumbersAsKubernetesWritesThem) {
  struct Row {
    nlohmann::json value;
    QuantityKind kind;
    int64_t want;
  };
  const std::vector<Row> rows = {
      {"500m", QuantityKind::kCpuMillis, 500},
      {"2", QuantityKind::kCpuMillis, 2000},
      {0.5, QuantityKind::kCpuMillis, 500},
      {3, QuantityKind::kCpuMillis, 3000},
      {"2Gi", QuantityKind::kMemoryBytes, int64_t{2} << 30},
      {"1e3", QuantityKind::kMemoryBytes, 1000},
      // nlohmann writes 1e12 as "1000000000000.0"; exponents may carry a sign.
      {1e12, QuantityKind::kMemoryBytes, 1'000'000'000'000},
      {"1E+3", QuantityKind::kMemoryBytes, 1000},
  };
  for (const Row& row : rows) {
    absl::StatusOr<int64_t> got = QuantityFromJson(row.value, "x", row.kind);
    ASSERT_TRUE(got.ok()) << row.value.dump() << ": " << got.status();
    EXPECT_EQ(*got, row.want) << row.value.dump();
  }
}

TEST(QuantityFromJson, AnythingElseNamesThePath) {
  for (const nlohmann::json& bad :
       {nlohmann::json(true), nlohmann::json::array(), nlohmann::json::object(),
        nlohmann::json("lots"), nlohmann::json(-1), nlohmann::json("1e+")}) {
    absl::StatusOr<int64_t> got = QuantityFromJson(bad, "spec.containers[0].resources.requests.cpu",
                                                   QuantityKind::kCpuMillis);
    ASSERT_FALSE(got.ok()) << bad.dump();
    EXPECT_NE(got.status().message().find("spec.containers[0].resources.requests.cpu"),
              std::string::npos)
        << got.status();
  }
}

TEST(QuantityFromText, TheSameAnswerFromTextAndFromJson) {
  for (const char* text : {"100m", "0.25", "1e+20", "64Mi", "7"}) {
    for (QuantityKind kind : {QuantityKind::kCpuMillis, QuantityKind::kMemoryBytes}) {
      absl::StatusOr<int64_t> from_text = QuantityFromText(text, "x", kind);
      absl::StatusOr<int64_t> from_json = QuantityFromJson(nlohmann::json(text), "x", kind);
      ASSERT_EQ(from_text.ok(), from_json.ok()) << text;
      if (from_text.ok()) EXPECT_EQ(*from_text, *from_json) << text;
    }
  }
}

}  // namespace
}  // namespace headroom::codec
