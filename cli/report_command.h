#pragma once

#include <ostream>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "io/grpc_tls.h"

namespace headroom::cli {

// `headroom report`: sends one node report (its JSON form, see docs/extender.md) to a
// headroom-extender's gRPC service, for debugging and tests. Returns the exit code: 2 for a
// malformed report, 1 when the extender cannot be reached or refuses it.
// `tls` empty: plaintext. `token_file` set: its bearer token goes with the report
// (--report-auth=token).
// `check_locally` false sends the report as it is (to test the extender's own refusals).
int RunReport(absl::string_view extender, absl::string_view input, absl::Duration timeout,
              const io::GrpcClientTls& tls, const std::string& token_file, bool check_locally,
              std::ostream& out, std::ostream& err);

}  // namespace headroom::cli
