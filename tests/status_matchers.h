#pragma once

// gMock matchers for absl::Status and absl::StatusOr, which Debian's Abseil (20220623) does
// not ship: IsOk(), IsOkAndHolds(m), StatusIs(code), StatusIs(code, message_matcher).

#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gmock/gmock.h"

namespace headroom::testing {

inline const absl::Status& GetStatus(const absl::Status& status) { return status; }
template <typename T>
const absl::Status& GetStatus(const absl::StatusOr<T>& status_or) {
  return status_or.status();
}

MATCHER(IsOk, "is OK") {
  const absl::Status& status = GetStatus(arg);
  if (!status.ok()) *result_listener << "status is " << status;
  return status.ok();
}

MATCHER_P(IsOkAndHolds, value_matcher, "is OK and holds a value that matches") {
  if (!arg.ok()) {
    *result_listener << "status is " << arg.status();
    return false;
  }
  return ::testing::ExplainMatchResult(value_matcher, *arg, result_listener);
}

MATCHER_P(StatusIs, code, "has the status code") {
  const absl::Status& status = GetStatus(arg);
  if (status.code() != code) *result_listener << "status is " << status;
  return status.code() == code;
}

MATCHER_P2(StatusIs, code, message_matcher, "has the status code and a matching message") {
  const absl::Status& status = GetStatus(arg);
  if (status.code() != code) {
    *result_listener << "status is " << status;
    return false;
  }
  return ::testing::ExplainMatchResult(message_matcher, std::string(status.message()),
                                       result_listener);
}

}  // namespace headroom::testing
