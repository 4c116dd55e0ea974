#include "shared/quantity.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "shared/status_macros.h"

namespace headroom {
namespace {

// Longest quantity text accepted. Real quantities are a few characters; the bound keeps
// the exact arithmetic below cheap on hostile input.
constexpr size_t kMaxQuantityLength = 128;
// Largest decimal exponent magnitude accepted after "e"/"E".
constexpr int64_t kMaxExponent = 1'000'000;

// Unsigned arbitrary-precision integer, base 2^32, little-endian limbs. Just the three
// operations exact quantity conversion needs.
class BigUint {
 public:
  void MultiplyAdd(uint32_t factor, uint32_t addend) {
    uint64_t carry = addend;
    for (uint32_t& limb : limbs_) {
      const uint64_t product = static_cast<uint64_t>(limb) * factor + carry;
      limb = static_cast<uint32_t>(product);
      carry = product >> 32;
    }
    if (carry != 0) limbs_.push_back(static_cast<uint32_t>(carry));
  }

  // Divides in place; returns whether the remainder was non-zero.
  bool DivideHadRemainder(uint32_t divisor) {
    uint64_t remainder = 0;
    for (size_t i = limbs_.size(); i-- > 0;) {
      const uint64_t current = (remainder << 32) | limbs_[i];
      limbs_[i] = static_cast<uint32_t>(current / divisor);
      remainder = current % divisor;
    }
    while (!limbs_.empty() && limbs_.back() == 0) limbs_.pop_back();
    return remainder != 0;
  }

  bool IsZero() const { return limbs_.empty(); }
  // More than 64 bits: certainly beyond any int64 result.
  bool ExceedsUint64() const { return limbs_.size() > 2; }

  uint64_t Low64() const {
    uint64_t value = 0;
    if (!limbs_.empty()) value = limbs_[0];
    if (limbs_.size() > 1) value |= static_cast<uint64_t>(limbs_[1]) << 32;
    return value;
  }

 private:
  std::vector<uint32_t> limbs_;
};

struct Suffix {
  const char* text;
  int exp10;
  int exp2;
  QuantityFormat format;
};

constexpr Suffix kSuffixes[] = {
    {"Ki", 0, 10, QuantityFormat::kBinarySI}, {"Mi", 0, 20, QuantityFormat::kBinarySI},
    {"Gi", 0, 30, QuantityFormat::kBinarySI}, {"Ti", 0, 40, QuantityFormat::kBinarySI},
    {"Pi", 0, 50, QuantityFormat::kBinarySI}, {"Ei", 0, 60, QuantityFormat::kBinarySI},
    {"n", -9, 0, QuantityFormat::kDecimalSI}, {"u", -6, 0, QuantityFormat::kDecimalSI},
    {"m", -3, 0, QuantityFormat::kDecimalSI}, {"", 0, 0, QuantityFormat::kDecimalSI},
    {"k", 3, 0, QuantityFormat::kDecimalSI},  {"M", 6, 0, QuantityFormat::kDecimalSI},
    {"G", 9, 0, QuantityFormat::kDecimalSI},  {"T", 12, 0, QuantityFormat::kDecimalSI},
    {"P", 15, 0, QuantityFormat::kDecimalSI}, {"E", 18, 0, QuantityFormat::kDecimalSI},
};

absl::Status Invalid(absl::string_view text, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("invalid quantity \"", absl::CEscape(text), "\": ", why));
}

// Parses the exponent after "e"/"E": an optionally signed run of digits.
bool ParseExponent(absl::string_view text, int64_t* exponent) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return false;
  int64_t value = 0;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
    value = value * 10 + (c - '0');
    if (value > kMaxExponent) return false;
  }
  *exponent = negative ? -value : value;
  return true;
}

}  // namespace

absl::StatusOr<Quantity> Quantity::Parse(absl::string_view text) {
  if (text.empty()) return Invalid(text, "empty string");
  if (text.size() > kMaxQuantityLength) {
    return Invalid(text.substr(0, 32),
                   absl::StrCat("longer than ", kMaxQuantityLength, " characters"));
  }
  absl::string_view rest = text;
  bool negative = false;
  if (rest[0] == '+' || rest[0] == '-') {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }

  std::string digits;  // significant digits, leading zeros dropped
  int64_t fraction_digits = 0;
  bool seen_digit = false;
  bool seen_point = false;
  size_t i = 0;
  for (; i < rest.size(); ++i) {
    const char c = rest[i];
    if (c == '.') {
      if (seen_point) return Invalid(text, "more than one decimal point");
      seen_point = true;
      continue;
    }
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) break;
    seen_digit = true;
    if (seen_point) ++fraction_digits;
    if (digits.empty() && c == '0') continue;
    digits.push_back(c);
  }
  if (!seen_digit) return Invalid(text, "expected a number");
  // Trailing zeros after the point carry no value; dropping them keeps the digit string
  // minimal. (Zeros written before the point are significant and stay.)
  while (fraction_digits > 0 && !digits.empty() && digits.back() == '0') {
    digits.pop_back();
    --fraction_digits;
  }
  if (digits.empty()) fraction_digits = 0;

  // Decided before `digits` is moved into a constructor argument (argument evaluation order
  // is unspecified).
  const bool is_negative = negative && !digits.empty();
  const absl::string_view suffix = rest.substr(i);
  for (const Suffix& known : kSuffixes) {
    if (suffix == known.text) {
      return Quantity(is_negative, std::move(digits), known.exp10 - fraction_digits, known.exp2,
                      known.format);
    }
  }
  if (suffix[0] == 'e' || suffix[0] == 'E') {
    int64_t exponent = 0;
    if (!ParseExponent(suffix.substr(1), &exponent)) {
      return Invalid(text, absl::StrCat("bad exponent \"", absl::CEscape(suffix), "\""));
    }
    return Quantity(is_negative, std::move(digits), exponent - fraction_digits, 0,
                    QuantityFormat::kDecimalExponent);
  }
  return Invalid(text, absl::StrCat("unknown suffix \"", absl::CEscape(suffix),
                                    "\" (want one of n u m k M G T P E Ki Mi Gi Ti Pi Ei, or an "
                                    "exponent such as e3)"));
}

absl::StatusOr<int64_t> Quantity::ToScaled(int scale10) const {
  if (digits_.empty()) return 0;
  BigUint value;
  for (char c : digits_) value.MultiplyAdd(10, static_cast<uint32_t>(c - '0'));
  for (int i = 0; i < exp2_; ++i) value.MultiplyAdd(2, 0);

  const int64_t exp10 = exp10_ + scale10;
  bool inexact = false;
  if (exp10 >= 0) {
    for (int64_t i = 0; i < exp10 && !value.ExceedsUint64(); ++i) value.MultiplyAdd(10, 0);
  } else {
    for (int64_t i = 0; i < -exp10 && !value.IsZero(); ++i) {
      inexact |= value.DivideHadRemainder(10);
    }
  }
  const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (value.ExceedsUint64() || value.Low64() > limit) {
    return absl::OutOfRangeError("quantity is too large for a 64-bit integer");
  }
  int64_t magnitude = static_cast<int64_t>(value.Low64());
  // Round towards +infinity: a positive remainder adds one; a negative one truncates.
  if (!negative_) {
    if (inexact) {
      if (magnitude == std::numeric_limits<int64_t>::max()) {
        return absl::OutOfRangeError("quantity is too large for a 64-bit integer");
      }
      ++magnitude;
    }
    return magnitude;
  }
  return -magnitude;
}

absl::StatusOr<int64_t> Quantity::ToMilli() const { return ToScaled(3); }
absl::StatusOr<int64_t> Quantity::ToUnits() const { return ToScaled(0); }

namespace {

absl::StatusOr<int64_t> ParseNonNegative(absl::string_view text, absl::string_view what,
                                         bool milli) {
  absl::StatusOr<Quantity> quantity = Quantity::Parse(text);
  if (!quantity.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", quantity.status().message()));
  }
  if (quantity->negative()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": quantity \"", absl::CEscape(text), "\" must not be negative"));
  }
  absl::StatusOr<int64_t> value = milli ? quantity->ToMilli() : quantity->ToUnits();
  if (!value.ok()) {
    return absl::OutOfRangeError(
        absl::StrCat(what, ": quantity \"", absl::CEscape(text), "\" ", value.status().message()));
  }
  return value;
}

}  // namespace

absl::StatusOr<int64_t> ParseCpuMillis(absl::string_view text, absl::string_view what) {
  return ParseNonNegative(text, what, /*milli=*/true);
}

absl::StatusOr<int64_t> ParseMemoryBytes(absl::string_view text, absl::string_view what) {
  return ParseNonNegative(text, what, /*milli=*/false);
}

std::string FormatCpuMillis(int64_t millis) {
  if (millis % 1000 != 0) return absl::StrCat(millis, "m");
  int64_t value = millis / 1000;
  if (value == 0) return "0";
  static constexpr const char* kDecimalSuffixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int index = 0;
  while (index < 6 && value % 1000 == 0) {
    value /= 1000;
    ++index;
  }
  return absl::StrCat(value, kDecimalSuffixes[index]);
}

std::string FormatMemoryBytes(int64_t bytes) {
  if (bytes == 0) return "0";
  static constexpr const char* kBinarySuffixes[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
  int64_t value = bytes;
  int index = 0;
  while (index < 6 && value % 1024 == 0) {
    value /= 1024;
    ++index;
  }
  return absl::StrCat(value, kBinarySuffixes[index]);
}

}  // namespace headroom
