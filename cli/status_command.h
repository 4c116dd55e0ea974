#pragma once

// `headroom status` and `headroom explain NAMESPACE/POD`: what a running headroom-extender
// sees and would do, read from its status API (extender/status/status.h) and printed in words and
// numbers, or as the API's JSON.

#include <ostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "nlohmann/json.hpp"

namespace headroom::cli {

struct StatusSource {
  std::string url = "http://127.0.0.1:8888";  // the extender's --http-address
  std::string ca_file;                        // for https: the CA of its certificate
  absl::Duration timeout = absl::Seconds(5);
};

// One GET of the extender's HTTP API: any HTTP status and the body; Unavailable when it cannot
// be reached, InvalidArgument for a URL that is not http(s).
struct ExtenderAnswer {
  int status = 0;
  std::string body;
};
absl::StatusOr<ExtenderAnswer> GetFromExtender(const StatusSource& source, const std::string& path);

// The plain-text forms (pure, for tests).
std::string FormatStatus(const nlohmann::json& status);
std::string FormatExplanation(const nlohmann::json& explained);

// Exit codes: 0, 1 when the extender cannot be read, 2 for bad flags or an unknown pod.
int RunStatus(const StatusSource& source, absl::string_view output, std::ostream& out,
              std::ostream& err);
int RunExplain(const StatusSource& source, absl::string_view pod, absl::string_view output,
               std::ostream& out, std::ostream& err);

}  // namespace headroom::cli
