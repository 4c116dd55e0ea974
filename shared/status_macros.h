#pragma once

// Status propagation macros. Debian's Abseil (20220623) ships no public RETURN_IF_ERROR /
// ASSIGN_OR_RETURN, so the project defines its own once, here (the shape follows Arrow's
// ARROW_RETURN_NOT_OK and Envoy's RETURN_IF_NOT_OK).

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define HEADROOM_STATUS_CONCAT_INNER_(a, b) a##b
#define HEADROOM_STATUS_CONCAT_(a, b) HEADROOM_STATUS_CONCAT_INNER_(a, b)

// Evaluates `expr` (an absl::Status) and returns it from the enclosing function if not OK.
#define HEADROOM_RETURN_IF_ERROR(expr)                   \
  do {                                                   \
    ::absl::Status headroom_status_ = (expr);            \
    if (!headroom_status_.ok()) return headroom_status_; \
  } while (false)

// Evaluates `rexpr` (an absl::StatusOr<T>); on error returns its status, otherwise moves the
// value into `lhs`, which may be a declaration (`auto x`) or an existing variable. `lhs`
// cannot be parenthesised (it may be a declaration), hence the NOLINTs.
#define HEADROOM_ASSIGN_OR_RETURN(lhs, rexpr) \
  HEADROOM_ASSIGN_OR_RETURN_IMPL_(HEADROOM_STATUS_CONCAT_(headroom_statusor_, __LINE__), lhs, rexpr)

// NOLINTBEGIN(bugprone-macro-parentheses)
#define HEADROOM_ASSIGN_OR_RETURN_IMPL_(statusor, lhs, rexpr) \
  auto statusor = (rexpr);                                    \
  if (!statusor.ok()) return std::move(statusor).status();    \
  lhs = *std::move(statusor)
// NOLINTEND(bugprone-macro-parentheses)
