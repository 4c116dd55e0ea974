#pragma once

// Writing JSON text directly, for the answers on the scheduler's path (an nlohmann document
// per answer costs more than the decisions it carries). Strings come out exactly as
// nlohmann::json's dump with error_handler_t::replace writes them: quotes, backslashes and
// control characters escaped, other UTF-8 as it is, invalid UTF-8 replaced by U+FFFD.

#include <string>

#include "absl/strings/string_view.h"

namespace headroom::extender {

// Appends `text` as a JSON string literal, quotes included.
void AppendJsonString(std::string& out, absl::string_view text);

// Whether `text` is written as it is between quotes (ASCII without control characters,
// quotes or backslashes), so that a writer may copy it straight into a buffer it sized
// beforehand.
bool IsPlainJsonText(absl::string_view text);

// Copies `text` to `at` (text.size() bytes; it never writes past them) and returns
// IsPlainJsonText(text): one pass instead of a check and then a copy. When it returns false,
// what it wrote is to be discarded.
bool CopyPlainJsonText(char* at, absl::string_view text);

}  // namespace headroom::extender
