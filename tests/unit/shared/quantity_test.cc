#include "shared/quantity.h"

#include <cstdint>
#include <limits>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/status_matchers.h"

namespace headroom {
namespace {

using ::headroom::testing::IsOkAndHolds;
using ::headroom::testing::StatusIs;
using ::testing::HasSubstr;

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

struct MilliCase {
  const char* text;
  int64_t millis;
};

class CpuMillisTest : public ::testing::TestWithParam<MilliCase> {};

TEST_P(CpuMillisTest, ParsesExactly) {
  EXPECT_THAT(ParseCpuMillis(GetParam().text), IsOkAndHolds(GetParam().millis)) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, CpuMillisTest,
    ::testing::Values(MilliCase{"500m", 500}, MilliCase{"1.5", 1500}, MilliCase{"0.1", 100},
                      MilliCase{"1e3", 1'000'000}, MilliCase{"1E3", 1'000'000},
                      MilliCase{"2", 2000}, MilliCase{"0", 0}, MilliCase{"0.0", 0},
                      MilliCase{"+3", 3000}, MilliCase{".5", 500}, MilliCase{"5.", 5000},
                      MilliCase{"007", 7000}, MilliCase{"2k", 2'000'000},
                      MilliCase{"1M", 1'000'000'000}, MilliCase{"100u", 1},  // rounds up
                      MilliCase{"1n", 1}, MilliCase{"0.0001", 1}, MilliCase{"1500000n", 2},
                      MilliCase{"1000000n", 1}, MilliCase{"1.0001", 1001}, MilliCase{"2.5e-3", 3},
                      MilliCase{"1e-3", 1}, MilliCase{"1Ki", 1'024'000},
                      MilliCase{"0.5Ki", 512'000}, MilliCase{"1.000000000000000000000", 1000},
                      MilliCase{"9223372036854775.807", kMax},
                      MilliCase{"9223372036854775807m", kMax}));

struct ByteCase {
  const char* text;
  int64_t bytes;
};

class MemoryBytesTest : public ::testing::TestWithParam<ByteCase> {};

TEST_P(MemoryBytesTest, ParsesExactly) {
  EXPECT_THAT(ParseMemoryBytes(GetParam().text), IsOkAndHolds(GetParam().bytes)) << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, MemoryBytesTest,
    ::testing::Values(ByteCase{"2Gi", 2LL << 30}, ByteCase{"100M", 100'000'000},
                      ByteCase{"128974848", 128'974'848}, ByteCase{"129e6", 129'000'000},
                      ByteCase{"129M", 129'000'000}, ByteCase{"123Mi", 123LL << 20},
                      ByteCase{"1.5Gi", 3LL << 29}, ByteCase{"1Ki", 1024},
                      ByteCase{"1Ti", 1LL << 40}, ByteCase{"1Pi", 1LL << 50},
                      ByteCase{"7Ei", 7LL << 60}, ByteCase{"500m", 1},  // 0.5 byte rounds up
                      ByteCase{"1k", 1000}, ByteCase{"1G", 1'000'000'000},
                      ByteCase{"0.1Ki", 103},  // 102.4 rounds up
                      ByteCase{"9223372036854775807", kMax}));

TEST(QuantityTest, EightExbibytesIsOneBeyondInt64) {
  EXPECT_THAT(ParseMemoryBytes("8Ei"),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("too large")));
}

TEST(QuantityTest, RejectsOverflowByOne) {
  EXPECT_THAT(ParseMemoryBytes("9223372036854775808"),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("too large")));
  EXPECT_THAT(ParseCpuMillis("9223372036854775.808"),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("too large")));
  // A fraction that must round up past the maximum.
  EXPECT_THAT(ParseCpuMillis("9223372036854775.8071"),
              StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("too large")));
  EXPECT_THAT(ParseCpuMillis("1e400"), StatusIs(absl::StatusCode::kOutOfRange, HasSubstr("cpu")));
}

TEST(QuantityTest, TinyPositiveValuesRoundUpToOneUnit) {
  EXPECT_THAT(ParseMemoryBytes("1e-400"), IsOkAndHolds(1));
  EXPECT_THAT(ParseCpuMillis("0.000000000000000000000001"), IsOkAndHolds(1));
  EXPECT_THAT(ParseCpuMillis("0e-400"), IsOkAndHolds(0));
}

struct BadCase {
  const char* text;
  const char* message;
};

class BadQuantityTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(BadQuantityTest, IsRejectedWithAReason) {
  EXPECT_THAT(ParseMemoryBytes(GetParam().text, "pods[0].requests.memory"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       ::testing::AllOf(HasSubstr("pods[0].requests.memory"),
                                        HasSubstr(GetParam().message))))
      << GetParam().text;
}

INSTANTIATE_TEST_SUITE_P(
    Grammar, BadQuantityTest,
    ::testing::Values(BadCase{"", "empty"}, BadCase{"Gi", "expected a number"},
                      BadCase{".", "expected a number"}, BadCase{"-", "expected a number"},
                      BadCase{"1.2.3", "more than one decimal point"},
                      BadCase{"5x", "unknown suffix"}, BadCase{"1gi", "unknown suffix"},
                      BadCase{"1 Gi", "unknown suffix"}, BadCase{" 1", "expected a number"},
                      BadCase{"1KiB", "unknown suffix"}, BadCase{"1e", "bad exponent"},
                      BadCase{"1e+", "bad exponent"}, BadCase{"1e1.5", "bad exponent"},
                      BadCase{"1e99999999", "bad exponent"}, BadCase{"-1", "negative"},
                      BadCase{"-500m", "negative"}, BadCase{"1i", "unknown suffix"},
                      BadCase{"0x10", "unknown suffix"}, BadCase{"1\n", "unknown suffix"}));

TEST(QuantityTest, RejectsOverlongText) {
  EXPECT_THAT(ParseCpuMillis(std::string(200, '1')),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("longer than")));
}

TEST(QuantityTest, NegativeQuantitiesParseButAreNotResources) {
  absl::StatusOr<Quantity> quantity = Quantity::Parse("-1.5");
  ASSERT_TRUE(quantity.ok());
  EXPECT_TRUE(quantity->negative());
  EXPECT_THAT(quantity->ToMilli(), IsOkAndHolds(-1500));
  // Rounding is towards +infinity: -0.5 byte becomes 0.
  EXPECT_THAT(Quantity::Parse("-500m")->ToUnits(), IsOkAndHolds(0));
  EXPECT_FALSE(Quantity::Parse("-0")->negative());
}

TEST(QuantityTest, KeepsTheFormatFamily) {
  EXPECT_EQ(Quantity::Parse("1Gi")->format(), QuantityFormat::kBinarySI);
  EXPECT_EQ(Quantity::Parse("1G")->format(), QuantityFormat::kDecimalSI);
  EXPECT_EQ(Quantity::Parse("1e9")->format(), QuantityFormat::kDecimalExponent);
  // "E" alone is the exa suffix, not an exponent.
  EXPECT_EQ(Quantity::Parse("1E")->format(), QuantityFormat::kDecimalSI);
}

struct FormatCase {
  int64_t amount;
  const char* text;
};

class FormatCpuTest : public ::testing::TestWithParam<FormatCase> {};
TEST_P(FormatCpuTest, IsCanonical) {
  EXPECT_EQ(FormatCpuMillis(GetParam().amount), GetParam().text);
  EXPECT_THAT(ParseCpuMillis(GetParam().text), IsOkAndHolds(GetParam().amount));
}
INSTANTIATE_TEST_SUITE_P(Values, FormatCpuTest,
                         ::testing::Values(FormatCase{0, "0"}, FormatCase{1, "1m"},
                                           FormatCase{1500, "1500m"}, FormatCase{2000, "2"},
                                           FormatCase{2'000'000, "2k"},
                                           FormatCase{1'234'000, "1234"},
                                           FormatCase{kMax, "9223372036854775807m"}));

class FormatMemoryTest : public ::testing::TestWithParam<FormatCase> {};
TEST_P(FormatMemoryTest, RoundTrips) {
  EXPECT_EQ(FormatMemoryBytes(GetParam().amount), GetParam().text);
  EXPECT_THAT(ParseMemoryBytes(GetParam().text), IsOkAndHolds(GetParam().amount));
}
INSTANTIATE_TEST_SUITE_P(
    Values, FormatMemoryTest,
    ::testing::Values(FormatCase{0, "0"}, FormatCase{1000, "1000"}, FormatCase{1024, "1Ki"},
                      FormatCase{1536LL << 20, "1536Mi"}, FormatCase{3LL << 30, "3Gi"},
                      FormatCase{7LL << 60, "7Ei"}, FormatCase{kMax, "9223372036854775807"}));

}  // namespace
}  // namespace headroom
