#pragma once

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "cli/usage_input.h"

namespace headroom::cli {

enum class RecommendOutput { kTable, kJson };

// `headroom recommend`: reads usage samples and prints, per container, what each policy
// would request: headroom (seed 000 admission sizing, with base and peak), VPA (target and
// bounds) and Crane. Nothing is applied anywhere. Returns the exit code.
int RunRecommend(absl::string_view input, absl::string_view format, absl::string_view output,
                 std::ostream& out, std::ostream& err);

// The recommendation text for usage `text`; InvalidArgument on malformed input.
absl::StatusOr<std::string> RecommendText(absl::string_view text, UsageFormat format,
                                          RecommendOutput output);

}  // namespace headroom::cli
