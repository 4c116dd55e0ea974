#pragma once

// Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), parsed exactly.
//
// Grammar (from the upstream Quantity documentation):
//   <quantity>        ::= <signedNumber><suffix>
//   <signedNumber>    ::= <number> | +<number> | -<number>
//   <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
//   <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
//   <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
//   <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
//   <decimalExponent> ::= e<signedNumber> | E<signedNumber>     (integer exponent)
//
// A parsed quantity is kept as an exact value: mantissa x 10^exp10 x 2^exp2, so that
// conversion to whole millicores or bytes is exact and rounds up (towards +infinity), as
// Quantity.MilliValue() and Quantity.Value() do upstream. "0.1" CPU is exactly 100
// millicores; "500m" bytes rounds up to 1 byte.

#include <cstdint>
#include <string>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace headroom {

// How a quantity was written; formatting keeps the family (binary or decimal).
enum class QuantityFormat { kDecimalSI, kBinarySI, kDecimalExponent };

class Quantity {
 public:
  // Parses `text`. Errors (InvalidArgument) name the offending part of the string.
  static absl::StatusOr<Quantity> Parse(absl::string_view text);

  // The value in units of 10^-3 (millicores for CPU), rounded up. OutOfRange when the
  // result does not fit in int64.
  absl::StatusOr<int64_t> ToMilli() const;
  // The value in whole units (bytes for memory), rounded up. OutOfRange if it overflows.
  absl::StatusOr<int64_t> ToUnits() const;

  QuantityFormat format() const { return format_; }
  bool negative() const { return negative_; }

 private:
  Quantity(bool negative, std::string digits, int64_t exp10, int exp2, QuantityFormat format)
      : negative_(negative),
        digits_(std::move(digits)),
        exp10_(exp10),
        exp2_(exp2),
        format_(format) {}

  // The value scaled by 10^scale10 (scale10 = 3 for milli), rounded up.
  absl::StatusOr<int64_t> ToScaled(int scale10) const;

  bool negative_;       // a minus sign was written and the value is not zero
  std::string digits_;  // the significant digits, without leading zeros ("" for zero)
  int64_t exp10_;       // decimal exponent: suffix, exponent and fraction digits combined
  int exp2_;            // binary exponent (Ki = 10, Mi = 20, ...)
  QuantityFormat format_;
};

// Parses a CPU quantity to millicores. Negative values are rejected: a resource amount
// cannot be negative. `what` names the field in error messages (e.g. "pods[0].requests.cpu").
absl::StatusOr<int64_t> ParseCpuMillis(absl::string_view text, absl::string_view what = "cpu");

// Parses a memory quantity to bytes, rejecting negative values; `what` as above.
absl::StatusOr<int64_t> ParseMemoryBytes(absl::string_view text, absl::string_view what = "memory");

// Canonical Kubernetes text for a millicore amount: "1500m", "2", "2k".
std::string FormatCpuMillis(int64_t millis);

// Canonical Kubernetes text for a byte amount: the largest binary suffix that divides it
// exactly ("512Mi", "1536Mi", "3Gi"), otherwise the plain number ("1000").
std::string FormatMemoryBytes(int64_t bytes);

}  // namespace headroom
